"""The FLOP counter against its closed form, the key/value cache against the full pass, and the
three-line rule against the model."""

from itertools import product

import numpy as np
import pytest
from helpers import random_params

import handmade
from handmade.cost import generation_flops, pass_flops
from handmade.course.efficiency import FlopCounter, aab_rule, blog_flops, count_flops, generate_with_cache
from handmade.inference import KVCache


def test_one_full_pass_of_the_blog_model_costs_3690_operations():
    # embedding 40, qkv 1920, scores 375, scale 25, mask 25, softmax 115, weights @ v 360,
    # c_proj 640, residual 40, logits 150: "about 4,000", as the blog says
    assert count_flops("aabaa").total == 40 + 1920 + 375 + 25 + 25 + 115 + 360 + 640 + 40 + 150 == 3690


@pytest.mark.parametrize("n_seq", [1, 2, 3, 4, 5])
def test_counter_equals_the_formula_for_every_context_length(n_seq):
    assert count_flops("a" * n_seq).total == sum(blog_flops(n_seq, 8, 2).values())


@pytest.mark.parametrize("n_embd, n_vocab, n_seq", [(4, 3, 2), (12, 5, 6), (16, 2, 1)])
def test_counter_equals_the_formula_for_other_sizes(n_embd, n_vocab, n_seq):
    params = random_params(np.random.default_rng(n_embd), n_vocab=n_vocab, n_ctx=6, n_embd=n_embd)
    with handmade.recording(FlopCounter(params)) as counter:
        handmade.gpt(np.arange(n_seq) % n_vocab, **params)
    assert counter.total == sum(blog_flops(n_seq, n_embd, n_vocab).values())


def test_the_counter_reads_every_width_from_the_model():
    """An attention narrower than the stream, a wide MLP and layer norms: each term by hand."""
    params = random_params(np.random.default_rng(0), n_vocab=3, n_embd=6, n_attn=4, n_head=2, mlp=True, ln=True)
    params["blocks"][0]["mlp"] = {
        "c_fc": {"w": np.ones((6, 10)), "b": np.ones(10)},
        "c_proj": {"w": np.ones((10, 6)), "b": np.ones(6)},
    }
    n, d, a, h, v, hidden = 3, 6, 4, 2, 3, 10
    expected = n * d  # embedding
    expected += 2 * n * (8 * d + 2)  # ln_1 and ln_2
    expected += n * 3 * a * (2 * d - 1) + n * 3 * a  # qkv
    expected += h * (n * n * (2 * (a // h) - 1) + n * n + n * n + n * (5 * n - 2) + n * (a // h) * (2 * n - 1))  # heads
    expected += n * d * (2 * a - 1) + n * d + n * d  # c_proj and the residual
    expected += n * hidden * (2 * d - 1) + n * hidden + 8 * n * hidden  # c_fc and gelu
    expected += n * d * (2 * hidden - 1) + n * d + n * d  # mlp c_proj and the residual
    expected += n * v * (2 * d - 1)  # logits
    with handmade.recording(FlopCounter(params)) as counter:
        handmade.gpt(np.array([0, 1, 2]), **params)
    assert counter.total == expected


def test_two_heads_cost_what_their_smaller_products_cost():
    params = handmade.blog_model()
    params["blocks"][0]["n_head"] = 2
    formula = blog_flops(5, 8, 2)
    # per head: scores 5*5*(2*4 - 1), scale 25, mask 25, softmax 115; weights @ v splits evenly
    two_heads = formula["qkv = x @ c_attn.w + b"] + 2 * (5 * 5 * 7 + 25 + 25 + 115) + formula["weights @ v"]
    two_heads += sum(formula[k] for k in ("embedding: wte + wpe", "c_proj", "residual: x + ...", "logits = x @ wte.T"))
    assert count_flops("aabaa", params).total == two_heads


CLOSED_FORM_SHAPES = [
    {},
    {"n_head": 2, "ln": True, "mlp": True, "n_layer": 2, "ln_f": True},
    {"n_attn": 4, "n_head": 4, "mlp": True, "n_hidden": 3},
]


@pytest.mark.parametrize("shape", CLOSED_FORM_SHAPES)
def test_the_closed_form_counts_what_the_counter_hears(shape):
    """handmade.cost.pass_flops, worked out from the structure alone, against the counter that hears a pass,
    with and without positions already in a cache."""
    params = handmade.check_weights(random_params(np.random.default_rng(5), **shape))
    tokens = np.array([0, 2, 1, 1, 0, 2])
    for n_past in range(len(tokens)):
        for n_seq in range(1, len(tokens) - n_past + 1):
            cache = KVCache()
            if n_past:
                handmade.gpt(tokens[:n_past], **params, cache=cache)
            with handmade.recording(FlopCounter(params)) as counter:
                handmade.gpt(tokens[n_past : n_past + n_seq], **params, cache=cache)
            assert counter.total == pass_flops(params.structure, n_seq, n_past), (n_past, n_seq)


@pytest.mark.parametrize("context, n", [("a", 10), ("aab", 2), ("aabaa", 4)])
def test_the_closed_form_of_a_generation_is_what_its_steps_cost(context, n):
    steps = generate_with_cache(context, n)
    assert sum(step.flops for step in steps) == generation_flops(handmade.blog_model().structure, len(context), n)


def test_counting_does_not_change_the_logits():
    params, tokens = handmade.blog_model(), np.array([0, 0, 1, 0, 0])
    with handmade.recording(FlopCounter(params)):
        counted = handmade.gpt(tokens, **params)
    assert np.array_equal(counted, handmade.gpt(tokens, **params))


# ---- the cache ----------------------------------------------------------------------------


def incremental(tokens, params):
    cache = KVCache()
    return np.vstack([handmade.gpt(np.array([t]), **params, cache=cache) for t in tokens]), cache


def test_cached_logits_equal_the_full_pass_exactly_for_the_blog_model():
    tokens = [0, 0, 1, 0, 0]
    rows, cache = incremental(tokens, handmade.blog_model())
    assert np.array_equal(rows, handmade.gpt(np.array(tokens), **handmade.blog_model()))
    assert len(cache) == 5


@pytest.mark.parametrize("shape", [{}, {"n_head": 2, "ln": True, "mlp": True, "n_layer": 2, "ln_f": True}])
def test_cached_logits_equal_the_full_pass_for_random_weights(shape):
    params = random_params(np.random.default_rng(3), **shape)
    tokens = [0, 2, 1, 1, 0, 2]
    rows, _ = incremental(tokens, params)
    np.testing.assert_allclose(rows, handmade.gpt(np.array(tokens), **params), rtol=1e-12, atol=1e-12)


def test_a_cache_can_take_several_tokens_at_once():
    params, cache = handmade.blog_model(), KVCache()
    first = handmade.gpt(np.array([0, 0]), **params, cache=cache)
    rest = handmade.gpt(np.array([1, 0, 0]), **params, cache=cache)
    assert np.array_equal(np.vstack([first, rest]), handmade.gpt(np.array([0, 0, 1, 0, 0]), **params))


def test_a_full_cache_refuses_more_tokens():
    _, cache = incremental([0, 0, 1, 0, 0], handmade.blog_model())
    with pytest.raises(
        ValueError, match=r"cannot run 1 more token after 5 cached: this model has room for 5 \(its n_ctx\)"
    ):
        handmade.forward([1], handmade.blog_model(), cache=cache)


def test_a_batch_runs_with_a_cache_as_it_runs_whole():
    params, cache = random_params(np.random.default_rng(5), n_head=2, mlp=True), KVCache()
    batch = np.array([[0, 2, 1, 1], [1, 0, 2, 2]])  # [B, n_seq]
    first = handmade.gpt(batch[:, :2], **params, cache=cache)
    rest = handmade.gpt(batch[:, 2:], **params, cache=cache)
    np.testing.assert_allclose(np.concatenate([first, rest], axis=1), handmade.gpt(batch, **params), atol=1e-12)


def test_a_cache_serves_only_the_weights_that_filled_it():
    blog, other = handmade.blog_model(), handmade.flip_model()
    cache = KVCache()
    handmade.forward([0, 0], blog, cache=cache)
    for weights in (other, dict(blog)):  # other numbers, or the same numbers in another dict: refused alike
        with pytest.raises(ValueError, match="this cache holds the keys and values of other weights"):
            handmade.forward([1], weights, cache=cache)
    assert len(cache) == 2  # nothing was added by the refused calls
    np.testing.assert_array_equal(handmade.forward([1], blog, cache=cache), handmade.forward([0, 0, 1], blog)[-1:])


def test_a_pass_that_fails_leaves_the_cache_as_it_was_and_says_where_it_overflowed():
    params = handmade.weights.copied(handmade.blog_model())
    params["wpe"][1] = 1e200  # position 1 overflows the scores; position 0 is fine
    whole = r"first in blocks\[0\]\.scores"
    with pytest.raises(FloatingPointError, match=whole):
        handmade.forward([0, 1], params)
    cache = KVCache()
    handmade.forward([0], params, cache=cache)
    with pytest.raises(FloatingPointError, match=whole):  # the new token at position 1, as in the whole pass
        handmade.forward([1], params, cache=cache)
    assert len(cache) == 1 and cache.layers[0].k.shape == (1, 8)  # the failed token is not kept
    params["wpe"][1] = 0.0  # the same arrays, mended: the cache goes on from position 1
    np.testing.assert_array_equal(handmade.forward([1], params, cache=cache), handmade.forward([0, 1], params)[-1:])


def test_generation_with_the_cache_writes_what_complete_writes_and_saves_work():
    steps = generate_with_cache("a", 10)
    assert "".join(step.token for step in steps) == handmade.continuation("a", 10)
    # while the window fills, each new token costs one row of work instead of a whole pass
    assert [step.full_pass_flops - step.flops for step in steps[:5]] == [0, 624, 1324, 2100, 2952]
    # once it slides, every position changes, so the cache is rebuilt: no saving
    assert all(step.flops == step.full_pass_flops == 3690 for step in steps[5:])


def test_generation_with_the_cache_checks_its_input():
    with pytest.raises(ValueError, match="empty context"):
        generate_with_cache("")


# ---- the three-line rule ------------------------------------------------------------------


def test_the_rule_agrees_with_the_model_on_every_context_up_to_5():
    contexts = ["".join(p) for n in range(1, 6) for p in product("ab", repeat=n)]
    assert len(contexts) == 62
    assert all(aab_rule(c) == handmade.predict(c).next for c in contexts)


def test_the_rule_agrees_with_the_model_on_long_contexts():
    rng = np.random.default_rng(0)
    for _ in range(50):
        context = "".join(rng.choice(["a", "b"], size=rng.integers(6, 20)))
        assert aab_rule(context) == handmade.predict(context).next
