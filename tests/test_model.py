"""The forward pass: each function, the blog's numbers, a naive twin, and its properties."""

import numpy as np
import pytest
from helpers import as_lists, random_params
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_gpt

import handmade
from handmade import (
    attention,
    causal_mask,
    causal_self_attention,
    ffn,
    forward,
    gelu,
    gpt,
    layer_norm,
    linear,
    recording,
    scope,
    softmax,
    transformer_block,
)
from handmade.model import KVCache, Name
from handmade.names import TAPS

AABAA = np.array([0, 0, 1, 0, 0])
LG = 1024


# ---- the small functions ------------------------------------------------------------------


def test_softmax_of_the_blogs_example_rows():
    x = np.array([[1, 0, 0], [2, 1, 1], [0, -10, -10], [1000, 0, 0]], dtype=float)
    p = softmax(x)
    np.testing.assert_allclose(p[0], [0.5761, 0.2119, 0.2119], atol=1e-4)
    np.testing.assert_allclose(p[1], p[0])  # only differences matter: [2, 1, 1] is [1, 0, 0] + 1
    np.testing.assert_allclose(p[2], [0.99991, 0.0000454, 0.0000454], rtol=1e-3)
    assert p[3].tolist() == [1.0, 0.0, 0.0]  # 1000 ahead: all the weight, and no overflow


def test_linear_is_x_w_plus_b():
    x, w, b = np.array([[1.0, 2.0]]), np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 3.0]]), np.array([10.0, 20.0, 30.0])
    assert linear(x, w, b).tolist() == [[11.0, 22.0, 38.0]]


def test_the_blogs_matrix_product():
    a = np.arange(1, 9).reshape(2, 4)
    b = np.arange(1, 13).reshape(4, 3)
    assert (a @ b).tolist() == [[70, 80, 90], [158, 184, 210]]


def test_causal_mask_hides_the_future_with_minus_infinity_and_no_nan():
    inf = float("inf")
    assert causal_mask(3).tolist() == [[0, -inf, -inf], [0, 0, -inf], [0, 0, 0]]
    assert causal_mask(2, 5).tolist() == [[0, 0, 0, 0, -inf], [0, 0, 0, 0, 0]]  # 3 cached positions come first


@pytest.mark.parametrize("huge", [1e10, 1e11, 1e300, -1e300])
def test_a_masked_score_gets_exactly_zero_weight_however_large(huge):
    seen = {}
    q = np.array([[1.0], [1.0], [1.0]])
    k = np.array([[0.0], [huge], [huge]])  # later keys with enormous scores
    with recording(seen.__setitem__):
        attention(q, k, np.eye(3), causal_mask(3))
    assert seen["attention_weights"][0].tolist() == [1.0, 0.0, 0.0]  # position 0 still sees only itself
    assert seen["attention_weights"][1, 2] == 0.0


def test_the_blogs_minus_1e10_leaks_where_the_packages_mask_does_not():
    scores = np.array([[0.0, 1e11], [0.0, 0.0]])
    blog_mask = (1 - np.tri(2)) * -1e10
    assert softmax(scores + blog_mask)[0].tolist() == [0.0, 1.0]  # the future wins: a leak
    assert softmax(scores + causal_mask(2))[0].tolist() == [1.0, 0.0]


def test_attention_with_the_mask_averages_the_past():
    q = k = np.zeros((3, 2))  # every score equal: each row averages what it may see
    v = np.array([[3.0], [6.0], [9.0]])
    assert attention(q, k, v, causal_mask(3)).ravel().tolist() == [3.0, 4.5, 6.0]


def test_attention_taps_each_step():
    seen = {}
    q = np.array([[1.0, 0.0], [0.0, 2.0]])
    with recording(seen.__setitem__):
        attention(q, q, q, causal_mask(2))
    assert list(seen) == ["scores", "scaled_scores", "masked_scores", "attention_weights", "attention_output"]
    np.testing.assert_array_equal(seen["scaled_scores"], seen["scores"] / np.sqrt(2))


def tap(name, array):  # the model's tap, looked up when called (recording swaps it)
    return handmade.model.tap(name, array)


def test_tap_returns_its_argument_and_costs_nothing_unheard():
    x = np.ones(3)
    assert tap("scores", x) is x  # nobody listening: no check, no copy
    assert tap("not declared", x) is x and handmade.model.tap is handmade.model._unheard


def test_recording_scopes_and_nesting():
    outer, inner = [], []
    with recording(lambda name, array: outer.append(name)):
        with scope("blocks", 2):
            tap("qkv", np.ones(1))
            with recording(lambda name, array: inner.append(name)):
                tap("scores", np.ones(1))  # an inner recording hears alone, from the top
            tap("residual", np.ones(1))
        tap("logits", np.ones(1))
    assert outer == ["blocks[2].qkv", "blocks[2].residual", "logits"] and inner == ["scores"]
    assert tap("qkv", np.ones(1)).tolist() == [1.0]  # and afterwards nobody listens


def test_every_name_a_pass_taps_is_declared_even_with_a_cache():
    """Each tap names a declared intermediate (handmade.names.TAPS) and says its block and head; the
    declaration test in test_structure.py holds the order for every shape, this one the cached pass too."""
    params = random_params(np.random.default_rng(4), n_layer=2, n_head=2, ln=True, mlp=True, ln_f=True)
    heard, cache = [], KVCache()
    with recording(lambda name, array: heard.append(name)):
        gpt(np.array([0, 1]), **params, cache=cache)
        gpt(np.array([2]), **params, cache=cache)
    assert {name.kind for name in heard} == set(TAPS)
    assert all(name == Name(name.kind, name.block, name.head) for name in heard)


def test_the_nine_functions_read_like_picogpt():
    import ast
    import inspect

    import handmade.model as model
    from handmade.display.source import code_lines

    nine = ["softmax", "linear", "layer_norm", "gelu", "ffn", "attention", "causal_self_attention"]
    nine += ["transformer_block", "gpt"]
    lines = sum(code_lines(getattr(model, name)) for name in nine)
    assert lines <= 60, lines
    imports = [n for n in ast.walk(ast.parse(inspect.getsource(model))) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [alias.name for node in imports for alias in node.names] == ["contextlib", "numpy"]  # nothing of the package


def test_layer_norm_gives_mean_0_variance_1_then_scales_and_shifts():
    x = np.array([[1.0, 0, 0, 0, 0, 1, 0, 0]])
    y = layer_norm(x, g=np.ones(8), b=np.zeros(8))
    assert abs(y.mean()) < 1e-12 and abs(y.var() - 1) < 1e-4
    np.testing.assert_allclose(y[0, :2], [1.73200462, -0.57733487], rtol=1e-8)  # the blog's footnote
    z = layer_norm(x, g=np.full(8, 2.0), b=np.full(8, 5.0))
    np.testing.assert_allclose(z, 2 * y + 5)


def test_gelu_is_zero_at_zero_and_near_identity_for_large_inputs():
    assert gelu(np.array(0.0)) == 0
    np.testing.assert_allclose(gelu(np.array([10.0, -10.0])), [10.0, 0.0], atol=1e-6)
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(gelu(x) - gelu(-x), x, atol=1e-12)  # the identity trick in 10_the_full_block


def test_ffn_is_two_linears_with_gelu_between():
    rng = np.random.default_rng(0)
    x, c_fc, c_proj = rng.normal(size=(3, 4)), {"w": rng.normal(size=(4, 6)), "b": rng.normal(size=6)}, None
    c_proj = {"w": rng.normal(size=(6, 4)), "b": rng.normal(size=4)}
    np.testing.assert_allclose(ffn(x, c_fc, c_proj), gelu(x @ c_fc["w"] + c_fc["b"]) @ c_proj["w"] + c_proj["b"])


def test_transformer_block_without_extras_is_x_plus_attention():
    rng = np.random.default_rng(1)
    p = random_params(rng)["blocks"][0]
    x = rng.normal(size=(4, 8))
    np.testing.assert_array_equal(transformer_block(x, **p), x + causal_self_attention(x, **p["attn"]))


# ---- the blog's numbers, stage by stage ---------------------------------------------------


def blog_stages(text="aabaa"):
    seen = {}
    with recording(seen.__setitem__):
        handmade.gpt(np.array(handmade.tokenize(text)), **handmade.blog_model())
    return seen


def test_blog_embedding_of_aabaa():
    assert blog_stages()["embedding"].tolist() == [
        [1, 0, 0, 0, 0, 1, 0, 0],
        [0, 1, 0, 0, 0, 1, 0, 0],
        [0, 0, 1, 0, 0, 0, 1, 0],
        [0, 0, 0, 1, 0, 1, 0, 0],
        [0, 0, 0, 0, 1, 1, 0, 0],
    ]


def test_blog_qkv_of_aabaa():
    s = blog_stages()
    s["blocks[0].q"], s["blocks[0].k"], s["blocks[0].v"] = np.split(s["blocks[0].qkv"], 3, axis=-1)
    assert s["blocks[0].q"].tolist() == [
        [LG, 0, 0, 0, 0, 0, 0, 0],
        [LG, LG, 0, 0, 0, 0, 0, 0],
        [0, LG, LG, 0, 0, 0, 0, 0],
        [0, 0, LG, LG, 0, 0, 0, 0],
        [0, 0, 0, LG, LG, 0, 0, 0],
    ]
    assert s["blocks[0].k"].tolist() == np.eye(5, 8).tolist()
    assert s["blocks[0].v"][:, 7].tolist() == [1, 1, -1, 1, 1] and not s["blocks[0].v"][:, :7].any()
    assert s["blocks[0].qkv"].shape == (5, 24)


def test_blog_scores_attention_and_result_of_aabaa():
    s = blog_stages()
    assert s["blocks[0].scores"].tolist() == [
        [LG, 0, 0, 0, 0],
        [LG, LG, 0, 0, 0],
        [0, LG, LG, 0, 0],
        [0, 0, LG, LG, 0],
        [0, 0, 0, LG, LG],
    ]
    expected = [[1, 0, 0, 0, 0], [0.5, 0.5, 0, 0, 0], [0, 0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5, 0], [0, 0, 0, 0.5, 0.5]]
    np.testing.assert_allclose(s["blocks[0].attention_weights"], expected, atol=1e-150)
    assert s["blocks[0].attention_output"][:, 7].tolist() == [1, 1, 0, 0, 1]


def test_blog_projection_residual_and_logits_of_aabaa():
    s = blog_stages()
    assert s["blocks[0].c_proj_output"][:, 5:7].tolist() == [[0, LG], [0, LG], [LG, 0], [LG, 0], [0, LG]]
    assert s["blocks[0].residual"][:, 5:7].tolist() == [[1, LG], [1, LG], [LG, 1], [LG + 1, 0], [1, LG]]
    assert s["logits"].tolist() == [[1, LG], [1, LG], [LG, 1], [LG + 1, 0], [1, LG]]
    assert softmax(s["logits"]).tolist() == [[0, 1], [0, 1], [1, 0], [1, 0], [0, 1]]


def test_blog_model_equals_the_literal_matrices_element_for_element():
    built = dict(handmade.weights.iter_matrices(handmade.blog_model()))
    literal = dict(handmade.weights.iter_matrices(handmade.literal_model()))
    assert built.keys() == literal.keys()
    for path in built:
        assert built[path].shape == literal[path].shape, path
        assert np.array_equal(built[path], literal[path]), path


def test_blog_model_keeps_the_blogs_nested_layout():
    m = handmade.blog_model()
    assert set(m) == {"wte", "wpe", "blocks"}
    assert set(m["blocks"][0]["attn"]) == {"c_attn", "c_proj"}
    assert {key: m["blocks"][0]["attn"]["c_attn"][key].shape for key in "wb"} == {"w": (8, 24), "b": (24,)}
    assert gpt(AABAA, **m).shape == (5, 2)


def test_built_and_literal_models_give_identical_logits():
    literal = handmade.literal_model()
    for text in ["a", "ab", "aab", "abaab", "bbbbb", "aabaa"]:
        tokens = np.array(handmade.tokenize(text))
        assert np.array_equal(gpt(tokens, **literal), gpt(tokens, **handmade.blog_model()))


def test_blog_model_strengths_can_be_set_apart():
    m = handmade.blog_model(q_lg=8, proj_lg=2)
    q, _, _ = handmade.split_qkv(m["blocks"][0]["attn"]["c_attn"]["w"])
    assert q.max() == 8 and m["blocks"][0]["attn"]["c_proj"]["b"].max() == 2


# ---- errors -------------------------------------------------------------------------------


def test_context_longer_than_n_ctx_is_a_clear_error():
    with pytest.raises(ValueError, match=r"cannot run a context of 6 tokens: this model has room for 5 \(its n_ctx\)"):
        forward(np.zeros(6, dtype=int), handmade.blog_model())


@pytest.mark.parametrize(
    "tokens, found",
    [
        ([0, 2], "found 2 at position 1"),
        ([0, -1], "found -1 at position 1"),  # never the last token, silently
        ([True, 0], r"found True \(a bool\) at position 0"),
        ([0, 1.0], r"found 1.0 \(a float\) at position 1"),
        (np.array([0.0, 1.0]), r"found 0.0 \(a float64\) at position 0"),
    ],
)
def test_a_token_that_is_not_an_id_is_a_clear_error(tokens, found):
    with pytest.raises(ValueError, match=r"token ids are whole numbers from 0 to 1 \(n_vocab = 2\); " + found):
        forward(tokens, handmade.blog_model())


@pytest.mark.parametrize("tokens", [[], "ab", [[0, 1]], 5])
def test_empty_or_not_flat_tokens_are_clear_errors(tokens):
    with pytest.raises(ValueError, match="token ids are a flat list|empty context"):
        forward(tokens, handmade.blog_model())


def test_forward_names_where_the_numbers_overflowed():
    m = handmade.blog_model()
    m["blocks"][0]["attn"]["c_attn"]["w"][5, 23] = 1e308  # the value of an `a`, far too large
    with np.errstate(all="ignore"), pytest.raises(handmade.NonFiniteError) as error:
        forward(AABAA, m)
    message = str(error.value)
    assert "first in blocks[0].c_proj_output" in message
    # c_attn.w[5, 23]: row Ta, the last column of v, V; named as the part and its directions name it
    assert "too large for float64; the largest weight is 1e+308, at blocks[0].v[Ta, V]" in message


def test_forward_blames_a_nan_weight_not_the_largest_one():
    m = handmade.check_weights(handmade.blog_model())  # checked, then changed inside: trusted, so the pass finds it
    m["blocks"][0]["attn"]["c_proj"]["w"][2, 3] = np.nan
    with pytest.raises(handmade.NonFiniteError, match=r"blocks\[0\].attn.c_proj.w\[2, 3\] is nan"):
        forward(AABAA, m)


def test_forward_passes_finite_results_through_unchanged():
    m = handmade.blog_model()
    assert np.array_equal(forward(AABAA, m), gpt(AABAA, **m))


# ---- against the naive twin ---------------------------------------------------------------

SHAPES = [
    {},
    {"n_head": 2},
    {"n_head": 4, "n_layer": 2},
    {"ln": True, "mlp": True, "ln_f": True},
    {"n_head": 2, "n_layer": 2, "ln": True, "mlp": True},
    {"mlp": True},
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "blog-shaped")
def test_gpt_matches_the_naive_loops_on_random_weights(shape):
    rng = np.random.default_rng(len(str(shape)))
    params = random_params(rng, **shape)
    for n in (1, 3, 6):
        tokens = rng.integers(0, 3, size=n)
        np.testing.assert_allclose(
            gpt(tokens, **params), naive_gpt(tokens.tolist(), as_lists(params)), rtol=1e-9, atol=1e-9
        )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6))
def test_gpt_matches_the_naive_loops_for_any_seed(seed, n):
    rng = np.random.default_rng(seed)
    params = random_params(rng, n_head=int(rng.choice([1, 2, 4])), ln=bool(seed % 2), mlp=bool(seed % 3 == 0))
    tokens = rng.integers(0, 3, size=n)
    np.testing.assert_allclose(
        gpt(tokens, **params), naive_gpt(tokens.tolist(), as_lists(params)), rtol=1e-9, atol=1e-9
    )


# ---- properties ---------------------------------------------------------------------------

rows = st.lists(st.floats(-50, 50), min_size=1, max_size=8)


@given(rows)
def test_softmax_rows_sum_to_one(row):
    p = softmax(np.array([row]))
    assert abs(p.sum() - 1) < 1e-12 and (p >= 0).all()


@given(rows, st.floats(-1e3, 1e3))
def test_softmax_is_unchanged_by_adding_a_constant(row, c):
    np.testing.assert_allclose(softmax(np.array(row) + c), softmax(np.array(row)), rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    tokens=st.lists(st.integers(0, 2), min_size=2, max_size=6),
    data=st.data(),
)
def test_changing_later_tokens_never_changes_earlier_logits(seed, tokens, data):
    rng = np.random.default_rng(seed)
    params = random_params(rng, n_head=int(rng.choice([1, 2])), ln=bool(seed % 2), mlp=bool(seed % 3 == 0))
    i = data.draw(st.integers(0, len(tokens) - 2), label="last position kept")
    tail = data.draw(st.lists(st.integers(0, 2), min_size=len(tokens) - i - 1, max_size=len(tokens) - i - 1))
    changed = tokens[: i + 1] + tail
    before, after = gpt(np.array(tokens), **params), gpt(np.array(changed), **params)
    assert np.array_equal(before[: i + 1], after[: i + 1])


def scaled_up(params, rng, largest):
    """``params`` with every matrix multiplied by its own factor, log-uniform from 1 to ``largest``."""
    if isinstance(params, dict):
        return {key: scaled_up(value, rng, largest) for key, value in params.items()}
    if isinstance(params, list):
        return [scaled_up(value, rng, largest) for value in params]
    if isinstance(params, np.ndarray):
        return params * 10 ** rng.uniform(0, np.log10(largest))
    return params


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_causality_holds_for_huge_finite_weights(seed, data):
    """Up to 1e12 in every matrix, several heads and blocks, layer norms and an MLP: the future never
    reaches the past, where -1e10 added to the scores would have let it."""
    rng = np.random.default_rng(seed)
    shape = {"n_head": int(rng.choice([1, 2, 4])), "n_layer": int(rng.integers(1, 3))}
    shape.update(ln=bool(rng.integers(2)), mlp=bool(rng.integers(2)), ln_f=bool(rng.integers(2)))
    params = scaled_up(random_params(rng, **shape), rng, 1e12)
    tokens = data.draw(st.lists(st.integers(0, 2), min_size=2, max_size=6), label="tokens")
    i = data.draw(st.integers(0, len(tokens) - 2), label="last position kept")
    tail = data.draw(st.lists(st.integers(0, 2), min_size=len(tokens) - i - 1, max_size=len(tokens) - i - 1))
    with np.errstate(all="ignore"):
        before, after = gpt(np.array(tokens), **params), gpt(np.array(tokens[: i + 1] + tail), **params)
    assert np.array_equal(before[: i + 1], after[: i + 1], equal_nan=True)


def test_the_blog_model_still_computes_bit_for_bit_what_minus_1e10_gave():
    """The -inf mask changes nothing for the blog's model: every logit of every context is the same
    bit for bit as with the blog's own mask, computed here the blog's way."""

    def blog_gpt(inputs, wte, wpe, blocks):  # the source's formula: scores + (1 - tri) * -1e10
        x = wte[inputs] + wpe[range(len(inputs))]
        for block in blocks:
            c_attn, c_proj = block["attn"]["c_attn"], block["attn"]["c_proj"]
            q, k, v = np.split(x @ c_attn["w"] + c_attn["b"], 3, axis=-1)
            mask = (1 - np.tri(len(x), dtype=x.dtype)) * -1e10
            x = x + softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v @ c_proj["w"] + c_proj["b"]
        return x @ wte.T

    from itertools import product

    model = handmade.blog_model()
    for n in range(1, 6):
        for tokens in product([0, 1], repeat=n):
            assert np.array_equal(gpt(np.array(tokens), **model), blog_gpt(np.array(tokens), **model)), tokens


def test_a_huge_query_weight_no_longer_lets_position_0_see_position_1():
    """The issue's example: c_attn.w[0, 1] = 1e11 made predict('aa') and predict('ab') differ at position 0."""
    model = handmade.blog_model()
    model["blocks"][0]["attn"]["c_attn"]["w"][0, 1] = 1e11
    first_aa, first_ab = (handmade.predict(text, model).logits[0] for text in ("aa", "ab"))
    assert np.array_equal(first_aa, first_ab)


def test_shown_source_does_not_depend_on_how_the_highlighter_escapes_quotes():
    # Notebooks store the shown source as their baseline; Pygments 2.21 changed how it escapes
    # quotes in text, so the listing undoes that and keeps the quotes as they are in the code.
    from handmade.display.source import _highlighted

    (line,) = _highlighted("x = tap(\"logits\", 'it')  # it's")
    assert "&quot;" not in line and "&#39;" not in line and "&#x27;" not in line
    assert '"logits"' in line and "'it'" in line
    assert "&lt;" in _highlighted("a < b")[0]  # what must be escaped still is
