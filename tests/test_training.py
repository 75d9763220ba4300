"""Training: hand-written gradients against finite differences, the recorded pass, AdamW, batches,
the start, the loop, the errors."""

import ast
import io
import math
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from helpers import random_params

import handmade
import handmade.display.trace
from handmade import training
from handmade.course.tasks import TASKS, blank
from handmade.display.source import show
from handmade.model import attention, causal_mask, gelu, layer_norm, linear, recording, softmax
from handmade.names import INTERMEDIATES, T
from handmade.training import IGNORE, AdamW, loss, loss_and_grads
from handmade.weights import BLOCK_KEYS, TOP_KEYS, NonFiniteError, Weights, iter_matrices, map_arrays

EPSILON = 1e-5  # central differences in float64: truncation ~ EPSILON**2, rounding ~ 1e-16 / EPSILON
TOLERANCE = 1e-6  # the largest relative error allowed, per array


def relative_error(a, b):
    """||a - b|| / (||a|| + ||b||): 0 when they agree, 1 when one is 0 and the other is not."""
    scale = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if scale == 0 else float(np.linalg.norm(a - b) / scale)


def numerical_gradient(f, x):
    """d f / d x by central differences, one entry of x at a time (x is changed, then restored)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        kept = x[index]
        x[index] = kept + EPSILON
        above = f()
        x[index] = kept - EPSILON
        below = f()
        x[index] = kept
        grad[index] = (above - below) / (2 * EPSILON)
    return grad


def gradient_errors(params, inputs, targets):
    """{path: relative error} between loss_and_grads and finite differences, for every array."""
    params = handmade.check_weights(params)
    _loss, grads = loss_and_grads(params, inputs, targets)
    by_path = dict(iter_matrices(grads))
    errors = {}
    for path, found in iter_matrices(params):
        if not found.size:  # "blocks" of a model with none
            continue
        array = array_at(params, path)  # the array itself, to nudge in place
        numerical = numerical_gradient(lambda: loss(params, inputs, targets), array)
        errors[path] = relative_error(by_path.pop(path), numerical)
    assert not any(g.size for g in by_path.values()), f"gradients for arrays the weights lack: {sorted(by_path)}"
    return errors


def array_at(params, path):  # "blocks[0].attn.c_attn.w" -> that array
    node = params
    for key in re.findall(r"\[(\d+)\]|(\w+)", path):
        node = node[int(key[0])] if key[0] else node[key[1]]
    return node


SHAPES = {  # every shape the forward pass supports, small enough to nudge every weight in turn
    "one block, one head": {},
    "several heads": {"n_head": 2},
    "n_attn narrower than n_embd, three heads": {"n_attn": 3, "n_head": 3},
    "n_attn wider than n_embd": {"n_attn": 9},
    "two blocks": {"n_layer": 2},
    "no blocks": {"n_layer": 0},
    "mlp without layer norms": {"mlp": True, "n_hidden": 5},
    "ln_1 alone": {"ln": True},
    "ln_f alone": {"ln_f": True},
    "ln_1, ln_2, mlp and ln_f": {"ln": True, "mlp": True, "ln_f": True, "n_hidden": 7},
    "everything, twice": {"n_layer": 2, "n_head": 2, "n_attn": 4, "mlp": True, "n_hidden": 5, "ln": True, "ln_f": True},
}


@pytest.mark.parametrize("name", SHAPES)
def test_gradients_equal_finite_differences(name):
    rng = np.random.default_rng(sorted(SHAPES).index(name))
    params = random_params(rng, n_vocab=4, n_ctx=6, n_embd=6, **SHAPES[name])
    inputs, targets = rng.integers(0, 4, size=(2, 5)), rng.integers(0, 4, size=(2, 5))  # 2 sequences, 5 of 6 positions
    errors = gradient_errors(params, inputs, targets)
    assert max(errors.values()) < TOLERANCE, {path: f"{e:.1e}" for path, e in errors.items() if e >= TOLERANCE}


def test_gradients_with_ignored_targets_and_a_1d_input():
    rng = np.random.default_rng(7)
    params = random_params(rng, n_vocab=3, n_ctx=5, n_embd=6, ln=True, mlp=True, ln_f=True)
    inputs, targets = np.array([0, 2, 1, 1]), np.array([IGNORE, 1, IGNORE, 0])
    assert max(gradient_errors(params, inputs, targets).values()) < TOLERANCE


def test_a_1d_input_is_a_batch_of_one():
    rng = np.random.default_rng(8)
    params = random_params(rng, n_vocab=3, n_ctx=5, n_head=2)
    inputs, targets = np.array([0, 2, 1]), np.array([2, 1, 1])
    one = loss_and_grads(params, inputs, targets)
    batch = loss_and_grads(params, inputs[None], targets[None])
    assert one[0] == batch[0]
    for (path, a), (_same, b) in zip(iter_matrices(one[1]), iter_matrices(batch[1])):
        assert np.array_equal(a, b), path


def test_the_loss_is_the_mean_cross_entropy_of_gpts_probabilities():
    rng = np.random.default_rng(9)
    params = handmade.check_weights(random_params(rng, n_vocab=3, n_ctx=5))
    inputs, targets = rng.integers(0, 3, size=(2, 4)), rng.integers(0, 3, size=(2, 4))
    probs = [softmax(handmade.gpt(sequence, **params)) for sequence in inputs]
    expected = -np.mean([np.log(p[j, targets[i, j]]) for i, p in enumerate(probs) for j in range(4)])
    assert loss_and_grads(params, inputs, targets)[0] == pytest.approx(expected, rel=1e-12)
    assert loss(params, inputs, targets) == pytest.approx(expected, rel=1e-12)


def test_the_loss_stays_finite_where_a_probability_rounds_to_zero():
    # the blog's model is sure that "b" follows a lone "a" (logit 1024 against 1): a loss of 1023, not inf
    assert loss(handmade.blog_model(), [0], [0]) == pytest.approx(1023)


def test_grads_have_the_nesting_of_the_weights_without_n_head():
    params = training.init_params(3, 5, 8, n_layer=2, n_head=2, mlp=True, ln=True, ln_f=True, rng=0)
    _loss, grads = loss_and_grads(params, [0, 1, 2], [1, 2, 0])
    assert {path: a.shape for path, a in iter_matrices(grads)} == {p: a.shape for p, a in iter_matrices(params)}
    assert "n_head" in params["blocks"][0] and "n_head" not in grads["blocks"][0]


# ---- the recorded pass ---------------------------------------------------------------------------


def test_record_keeps_what_each_block_made_by_the_names_the_structure_gives():
    rng = np.random.default_rng(5)
    params = handmade.check_weights(
        random_params(rng, n_vocab=3, n_ctx=5, n_embd=6, n_layer=2, n_head=3, mlp=True, ln=True)
    )
    inputs = rng.integers(0, 3, size=(2, 4))
    tapped = {}
    with recording(tapped.__setitem__):
        handmade.gpt(inputs, **params)
    seen = training.record(params, inputs)
    assert np.array_equal(seen.logits, tapped[T.logits]) and np.array_equal(seen.embedding, tapped[T.embedding])
    assert seen.ln_f is None
    for b, block in enumerate(seen.blocks):
        at = f"blocks[{b}]."
        heads = [tapped[f"{at}head{h}.{T.attention_weights}"] for h in range(3)]
        assert len(block.attention_weights) == 3 and all(map(np.array_equal, block.attention_weights, heads))
        for name in (T.qkv, T.attention_output, T.residual, T.ln_1, T.ln_2, T.mlp_hidden, T.mlp_residual):
            assert np.array_equal(getattr(block, name), tapped[at + name]), name
        assert block.output is block.mlp_residual


def test_a_block_without_an_mlp_writes_its_residual():
    params = training.init_params(3, 5, 8, rng=0)
    seen = training.record(params, [[0, 1, 2]])
    block = seen.blocks[0]
    assert block.mlp_hidden is None and block.output is block.residual and len(block.attention_weights) == 1
    np.testing.assert_array_equal(seen.logits[0], handmade.gpt(np.array([0, 1, 2]), **params))


def training_sources():
    return sorted(Path(training.__file__).parent.glob("*.py"))


def test_no_tap_is_looked_up_by_a_string_in_the_training_package():
    # the recorded arrays are fields named as names.T names them; only the weights' own keys
    # (ln_1, ln_2, ln_f are both) may be spelled out
    tap_names = set(INTERMEDIATES) - set(TOP_KEYS) - set(BLOCK_KEYS)
    for path in training_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        named = {s for s in strings if " " not in s and s.rsplit(".", 1)[-1].rsplit("}", 1)[-1] in tap_names}
        assert not named, (path.name, named)  # "logits", "blocks[0].qkv", the end of f"head{i}.attention_weights"


def test_every_function_of_the_training_package_is_short():
    from handmade.display.source import code_lines

    for path in training_sources():
        module = sys.modules[f"handmade.training.{path.stem}"] if path.stem != "__init__" else training
        for name, fn in vars(module).items():
            if callable(fn) and getattr(fn, "__module__", None) == module.__name__ and hasattr(fn, "__code__"):
                assert code_lines(fn) <= 40, f"{module.__name__}.{name}"


def test_a_listing_names_the_package_a_learner_imports_it_from():
    assert "handmade.training.linear_backward, as the package runs it" in show(training.linear_backward).markup
    assert (
        "handmade.model.linear, as the package runs it" in show(handmade.linear).markup
    )  # not re-exported by a subpackage


# ---- each backward function on its own -----------------------------------------------------


def check_backward(forward, backward_grads, *arrays):
    """backward_grads(d_y) returns the gradients of sum(d_y * forward()) for each of ``arrays``."""
    rng = np.random.default_rng(0)
    d_y = rng.normal(size=np.shape(forward()))
    for array, analytic in zip(arrays, backward_grads(d_y)):
        numerical = numerical_gradient(lambda: np.sum(d_y * forward()), array)
        assert relative_error(analytic, numerical) < TOLERANCE


def test_each_backward_function_undoes_its_forward_function():
    rng = np.random.default_rng(1)
    x, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    check_backward(lambda: linear(x, w, b), lambda d: _linear_grads(d, x, w), x, w, b)
    g, beta = rng.normal(size=4), rng.normal(size=4)
    check_backward(
        lambda: layer_norm(x, g, beta), lambda d: _norm_grads(d, x, g), x, g, beta
    )  # mean, variance and both parameters
    check_backward(lambda: gelu(x), lambda d: [training.gelu_backward(d, x)], x)
    check_backward(lambda: softmax(x), lambda d: [training.softmax_backward(d, softmax(x))], x)
    q, k, v = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 2))
    mask = causal_mask(3)

    def attend():
        return np.stack([attention(q[i], k[i], v[i], mask) for i in range(2)])

    weights = np.stack([softmax(q[i] @ k[i].T / 2 + mask) for i in range(2)])  # sqrt(d_k) = 2
    check_backward(attend, lambda d: training.attention_backward(d, q, k, v, weights), q, k, v)


def _linear_grads(d_y, x, w):
    d_x, d = training.linear_backward(d_y, x, w)
    return d_x, d["w"], d["b"]


def _norm_grads(d_y, x, g):
    d_x, d = training.layer_norm_backward(d_y, x, g)
    return d_x, d["g"], d["b"]


# ---- the loss at a random start --------------------------------------------------------------


@pytest.mark.parametrize("n_vocab", [2, 27, 66])
def test_the_loss_at_a_small_start_is_about_log_n_vocab(n_vocab):
    # GPT-2's small random weights make every logit about 0, so every token is about equally likely
    alphabet = "".join(chr(ord("!") + i) for i in range(n_vocab))
    params = training.init_params(n_vocab, 8, 32, n_attn=16, rng=0, alphabet=alphabet, std=0.02)
    inputs, targets = training.batches(np.arange(1000) % n_vocab, 32, 8, rng=1)()
    assert loss(params, inputs, targets) == pytest.approx(math.log(n_vocab), abs=0.02)


def test_init_params_draws_matrices_of_std_one_over_sqrt_n_embd_and_labels_them():
    params = training.init_params(5, 7, 16, n_layer=2, n_head=4, n_attn=8, mlp=True, ln=True, ln_f=True, rng=3)
    assert isinstance(params, Weights) and params.labels.alphabet == "abcde"
    assert params["blocks"][1]["n_head"] == 4 and params["blocks"][0]["mlp"]["c_fc"]["w"].shape == (16, 64)
    assert abs(matrix_weights(params).std() - 1 / 4) < 0.01 and abs(matrix_weights(params).mean()) < 0.01
    for path, array in iter_matrices(params):
        if path.endswith(".b"):
            assert not array.any(), path
        if path.endswith(".g"):
            assert (array == 1).all(), path
    assert "blocks[1].c_proj.w" in handmade.display.trace.weight_tables(params)  # tables with the model's names
    gpt2 = training.init_params(5, 7, 16, n_layer=2, mlp=True, rng=3, std=0.02)  # the same draws, scaled
    assert abs(matrix_weights(gpt2).std() - 0.02) < 0.001
    np.testing.assert_allclose(gpt2["wte"] * 12.5, training.init_params(5, 7, 16, n_layer=2, mlp=True, rng=3)["wte"])


def matrix_weights(params):
    return np.concatenate([a.ravel() for path, a in iter_matrices(params) if path.endswith(("w", "wte", "wpe"))])


def test_the_default_start_learns_faster_than_gpt2s_at_a_small_width():
    # notebook 21's model, smaller and shorter: width 16, 40 steps of (a little) English
    text = "the cat sat on the mat and the dog sat on the log " * 20
    alphabet = "".join(sorted(set(text)))
    tokens = np.array(handmade.tokenize(text, alphabet))

    def late_loss(std):
        params = training.init_params(len(alphabet), 8, 16, n_attn=8, rng=0, alphabet=alphabet, std=std)
        _trained, history = training.train(params, training.batches(tokens, 16, 8, rng=0), 40, progress=False)
        return history.losses[30:].mean()

    assert late_loss(None) < late_loss(0.02) - 0.2


# ---- AdamW ---------------------------------------------------------------------------------


def test_adamw_walks_down_a_quadratic_to_its_minimum():
    target = [np.array([[3.0, -2.0], [0.5, 1.0]]), np.array([-1.0, 4.0])]
    arrays = [np.zeros((2, 2)), np.zeros(2)]
    optimizer = AdamW(lr=0.05, weight_decay=0.0)
    state = optimizer.init(arrays)
    for _step in range(1000):  # the loss 0.5 * ||arrays - target||^2 has gradient arrays - target
        assert optimizer.step(arrays, [a - t for a, t in zip(arrays, target)], state)
    for found, wanted in zip(arrays, target):
        np.testing.assert_allclose(found, wanted, atol=1e-3)


def test_adams_first_step_moves_each_weight_by_lr_against_its_gradient_in_place():
    w, b = np.ones((2, 2)), np.ones(2)
    grads = [np.array([[4.0, -0.01], [1e-3, 0]]), np.array([-5.0, 2])]
    optimizer = AdamW(lr=0.1, weight_decay=0.0)
    state = optimizer.init([w, b])
    assert optimizer.step([w, b], grads, state) and state.step == 1
    np.testing.assert_allclose(w, [[0.9, 1.1], [0.9, 1.0]], atol=1e-6)  # m / sqrt(v) is sign(g)
    np.testing.assert_allclose(b, [1.1, 0.9], atol=1e-6)


def test_adam_takes_no_step_down_a_gradient_that_is_not_finite():
    arrays = [np.ones((2, 2)), np.ones(2)]
    optimizer = AdamW(lr=0.1)
    state = optimizer.init(arrays)
    assert not optimizer.step(arrays, [np.ones((2, 2)), np.array([1.0, np.nan])], state)
    assert state.step == 0 and not state.m.any() and all((a == 1).all() for a in arrays)


def test_weight_decay_shrinks_matrices_but_not_biases_or_gains():
    params = training.init_params(3, 4, 8, ln=True, ln_f=True, rng=0)
    arrays = training.leaves(params)
    before = [a.copy() for a in arrays]
    optimizer = AdamW(lr=0.1, weight_decay=0.5)
    optimizer.step(arrays, [np.zeros_like(a) for a in arrays], optimizer.init(arrays))
    for old, new in zip(before, arrays):
        np.testing.assert_allclose(new, old * (1 - 0.1 * 0.5) if old.ndim == 2 else old, rtol=1e-15, atol=0)
    assert any(a.ndim == 1 for a in arrays) and any(a.ndim == 2 for a in arrays)


def test_leaves_line_the_weights_up_with_their_gradients_whatever_their_order():
    params = training.init_params(3, 5, 8, n_layer=2, n_head=2, mlp=True, ln=True, ln_f=True, rng=0)
    _loss, grads = loss_and_grads(params, [0, 1, 2], [1, 2, 0])  # grads built in another order than params
    weights = training.leaves(params)
    assert [w.shape for w in weights] == [g.shape for g in training.leaves(grads)]
    assert len(weights) == len(list(iter_matrices(params))) and weights[0] is params["blocks"][0]["attn"]["c_attn"]["b"]


# ---- batches ----------------------------------------------------------------------------------


def test_batches_are_random_windows_whose_targets_are_one_token_later():
    tokens = np.arange(100)  # token i at position i, so a window shows where it came from
    inputs, targets = training.batches(tokens, 16, 8, rng=0)()
    assert inputs.shape == targets.shape == (16, 8)
    assert (np.diff(inputs, axis=1) == 1).all() and (targets == inputs + 1).all()
    assert targets.max() <= 99 and len(set(inputs[:, 0])) > 8
    again = training.batches(tokens, 16, 8, rng=0)()
    assert np.array_equal(again[0], inputs)


def test_example_batches_pad_after_the_context_and_count_only_its_last_position():
    examples = [handmade.Example("aab", "a"), ("ab", "a"), ("baabaab", "a")]
    inputs, targets = training.example_batches(examples, None, 5, rng=0, alphabet="ab")()
    assert inputs.tolist() == [[0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 1, 0, 0, 1]]  # the last is cut to 5
    assert targets.tolist() == [[-1, -1, 0, -1, -1], [-1, 0, -1, -1, -1], [-1, -1, -1, -1, 0]]
    # the padding changes nothing: the batch's loss and gradients are the mean of each example's own
    params = training.init_params(2, 5, 8, n_head=2, mlp=True, ln=True, rng=4, alphabet="ab", std=0.5)
    together = loss_and_grads(params, inputs, targets)
    alone = [loss_and_grads(params, inputs[i, :n], targets[i, :n]) for i, n in enumerate((3, 2, 5))]
    assert together[0] == pytest.approx(np.mean([a[0] for a in alone]), rel=1e-12)
    for path, grad in iter_matrices(together[1]):
        mean = np.mean([dict(iter_matrices(a[1]))[path] for a in alone], axis=0)
        np.testing.assert_allclose(grad, mean, rtol=1e-9, atol=1e-14, err_msg=path)


MY_WINDOWS = {  # notebook 20's Try it: my_windows as a learner types it, and what the refusal must say
    "an empty context": (
        [("", "a")],
        "the example ('', 'a') has an empty context: a context needs at least one character",
    ),
    "a next token outside the alphabet": (
        [("aabaa", "c")],
        "the next token of the example ('aabaa', 'c') is 'c', which is not in the alphabet 'ab'",
    ),
    "a context outside the alphabet": (
        [("c", "a")],
        "the context of the example ('c', 'a') cannot be read: cannot tokenize 'c' at position 0",
    ),
    "a next token of two letters": ([("aab", "ab")], "the next token of an example is one token; found 'ab'"),
    "an empty context of ids": ([([], 1)], "a context must be token ids, a list of at least one whole number"),
    "a context of ids in two rows": ([([[0, 1]], 1)], "a context must be token ids, a list of at least one"),
}


@pytest.mark.parametrize("name", list(MY_WINDOWS))
def test_a_refused_example_is_told_which_part_of_it_is_wrong_in_the_learners_terms(name):
    windows, said = MY_WINDOWS[name]
    alphabet = "ab" if isinstance(windows[0][0], str) else None
    with pytest.raises(ValueError) as refused:
        training.example_batches(windows, None, 5, rng=0, alphabet=alphabet)
    assert said in str(refused.value) and "[batch, n_seq]" not in str(refused.value)


def test_full_width_letters_are_read_as_the_playground_reads_them():
    """A Chinese input method's ａａｂ: the playground's context box reads it as aab, and so does training."""
    typed = training.example_batches([("ａａｂ", "ａ"), ("ｂａ", "a")], None, 5, rng=0, alphabet="ab")()
    plain = training.example_batches([("aab", "a"), ("ba", "a")], None, 5, rng=0, alphabet="ab")()
    assert all(np.array_equal(t, p) for t, p in zip(typed, plain))


def test_example_batches_draw_random_examples_from_a_seed():
    examples = handmade.prefix_examples()
    draw = training.example_batches(examples, 4, 5, rng=1, alphabet="ab")
    first, second = draw(), draw()
    assert first[0].shape == (4, 5) and not np.array_equal(first[0], second[0])
    assert np.array_equal(training.example_batches(examples, 4, 5, rng=1, alphabet="ab")()[0], first[0])


# ---- training ----------------------------------------------------------------------------------


def blog_shaped(seed):  # n_ctx 5, "ab", width 8, one head, from GPT-2's start as train_task draws it
    return training.init_params(2, 5, 8, rng=seed, alphabet="ab", std=training.TASK_STD)


def test_training_on_aab_drives_the_loss_down_and_scores_27_of_27():
    batch_fn = training.example_batches(handmade.prefix_examples(), None, 5, rng=0, alphabet="ab")
    params, history = training.train(blog_shaped(0), batch_fn, 200, lr=3e-2, progress=False)
    assert history.losses[0] == pytest.approx(math.log(2), abs=0.05)
    assert history.losses[-1] < 0.05 * history.losses[0]
    assert handmade.accuracy(params).perfect  # graded by the same gpt() and grader as hand-set weights


def test_a_loss_of_exactly_0_is_kept_and_shown_as_0_never_minus_0(monkeypatch, capsys):
    """-np.mean of log-probabilities that are all exactly 0 is -0.0: kept as 0.0, shown as 0.0000."""
    import handmade.training.loop as loop

    def certain(params, batch_fn, step, lr):  # every target's probability exactly 1
        return -0.0, map_arrays(np.zeros_like, params)

    monkeypatch.setattr(loop, "_loss_and_grads", certain)
    batch_fn = training.example_batches(handmade.prefix_examples(), None, 5, rng=0, alphabet="ab")
    _params, history = training.train(handmade.blog_model(), batch_fn, 2, progress=True)
    assert not np.signbit(history.losses).any() and "-0.0000" not in str(history)
    shown = capsys.readouterr()
    assert "loss 0.0000" in shown.err and "-0.0000" not in shown.out + shown.err


def test_training_on_windows_of_a_repeating_pattern_drives_the_loss_down():
    tokens = np.array(handmade.tokenize("aab" * 40))
    params, history = training.train(blog_shaped(1), training.batches(tokens, 8, 5, rng=1), 300, 3e-2, progress=False)
    assert history.losses[-20:].mean() < 0.5 * history.losses[:5].mean()


def test_the_same_seed_gives_the_same_training_bit_for_bit():
    def run(seed):
        batch_fn = training.batches(np.array(handmade.tokenize("aab" * 20)), 4, 5, rng=seed)
        return training.train(blog_shaped(seed), batch_fn, 30, progress=False, evaluate=lambda p: 1.0, eval_every=10)

    (a, history_a), (b, history_b), (c, _history) = run(0), run(0), run(1)
    assert all(np.array_equal(x, y) for (_p, x), (_q, y) in zip(iter_matrices(a), iter_matrices(b)))
    assert np.array_equal(history_a.losses, history_b.losses) and history_a.evaluated == history_b.evaluated
    assert history_a.evaluated == ((0, 1.0), (10, 1.0), (20, 1.0), (30, 1.0))
    assert not np.array_equal(a["wte"], c["wte"])


def test_evaluate_gets_weights_it_may_keep():
    kept = []
    batch_fn = training.batches([0, 0, 1] * 5, 2, 5, rng=0)
    final, _history = training.train(
        blog_shaped(4), batch_fn, 4, progress=False, evaluate=lambda p: kept.append(p) or 0, eval_every=2
    )
    assert len(kept) == 3 and not np.array_equal(kept[0]["wte"], kept[1]["wte"])  # each the weights of its moment
    assert np.array_equal(kept[-1]["wte"], final["wte"]) and kept[-1]["wte"] is not final["wte"]


def test_train_leaves_its_arguments_alone_and_returns_labelled_weights():
    start = blog_shaped(2)
    kept = start["wte"].copy()
    params, history = training.train(start, training.batches([0, 0, 1] * 5, 2, 5, rng=0), 3, progress=False)
    assert np.array_equal(start["wte"], kept) and not np.array_equal(params["wte"], kept)
    assert isinstance(params, Weights) and params.labels.alphabet == "ab" and len(history.losses) == 3
    assert str(history).startswith("3 steps: loss ")


def test_train_shows_its_last_line_on_stderr_outside_a_terminal_and_may_take_no_steps(capsys):
    batch_fn = training.batches([0, 0, 1] * 5, 2, 5, rng=0)
    params, history = training.train(blog_shaped(3), batch_fn, 3)
    assert re.fullmatch(r"step 3/3 \[#{20}\] loss \d\.\d{4}\n", capsys.readouterr().err)
    same, nothing = training.train(params, batch_fn, 0, progress=False)
    assert np.array_equal(same["wpe"], params["wpe"]) and str(nothing) == "no steps taken"


def test_weights_too_large_to_train_are_named_before_any_step():
    params = blog_shaped(0)
    params["wte"][:] = 1e200  # finite weights whose logits overflow
    with pytest.raises(
        NonFiniteError,
        match=r"^training cannot start: .* too large for float64; the largest weight is 1e\+200, at wte\[a, e0\]$",
    ):
        training.train(params, training.batches([0, 0, 1] * 5, 2, 5, rng=0), 5, progress=False)


# ---- the progress line ---------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_in_a_terminal_rewrites_one_line():
    stream = Terminal()
    bar = training.ProgressLine(4, stream)
    for step in range(1, 5):
        bar.show(step, 1.0 / step)
    bar.close()
    assert stream.getvalue().count("\r") == 5 and stream.getvalue().endswith(
        "\rstep 4/4 [####################] loss 0.2500\n"
    )


def test_progress_elsewhere_writes_only_the_last_line():
    stream = io.StringIO()
    bar = training.ProgressLine(300, stream)
    for step in range(1, 301):
        bar.show(step, 2.0, held_out=3.0)
    bar.close()
    assert stream.getvalue() == "step 300/300 [####################] loss 2.0000, evaluation 3\n"


def test_progress_in_a_notebook_rewrites_its_output_a_few_times(monkeypatch):
    class ZMQInteractiveShell:  # what a Jupyter kernel runs
        pass

    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=ZMQInteractiveShell))
    stream = io.StringIO()
    bar = training.ProgressLine(500, stream)
    for step in range(1, 501):
        bar.show(step, 0.5)
    bar.close()
    written = stream.getvalue()
    assert written.count("\r") == 1 + training.ProgressLine.UPDATES  # the first line, then every 25 steps
    assert written.startswith("\rstep 0/500 [....................]")
    assert written.endswith("\rstep 500/500 [####################] loss 0.5000\n")


# ---- bad requests: one line naming the limit ----------------------------------------------------

TOKENS = [0, 0, 1] * 4


def bad_train(**changes):
    arguments = {"params": blog_shaped(0), "batch_fn": training.batches(TOKENS, 2, 5, rng=0), "steps": 1}
    return lambda: training.train(**{**arguments, **changes}, progress=False)


BAD = {
    "negative steps": (bad_train(steps=-1), "steps must be a whole number from 0 to 100000; found -1"),
    "too many steps": (bad_train(steps=10**9), "steps must be a whole number from 0 to 100000"),
    "fractional steps": (bad_train(steps=2.5), "found 2.5"),
    "zero learning rate": (bad_train(lr=0), r"lr must be a number in \(0, 1.0\]; found 0"),
    "huge learning rate": (bad_train(lr=1e3), r"lr must be a number in \(0, 1.0\]"),
    "nan learning rate": (bad_train(lr=float("nan")), "lr must be a number"),
    "text learning rate": (bad_train(lr="0.1"), "found '0.1'"),
    "betas of 1": (bad_train(betas=(0.9, 1.0)), r"betas must be a number in \[0, 1\)"),
    "weight decay of 2": (bad_train(weight_decay=2), r"weight_decay must be a number in \[0, 1\]"),
    "a batch that is not a function": (bad_train(batch_fn=[1, 2]), "batch_fn must be a function"),
    "a batch function that returns one array": (bad_train(batch_fn=lambda: [0, 1]), "must return a pair"),
    "evaluate that is not a number": (bad_train(evaluate=lambda p: "good"), "must return a number"),
    "a huge batch size": (
        lambda: training.batches(TOKENS, 10**6, 5, 0),
        "batch_size must be a whole number from 1 to 1024",
    ),
    "a batch of too many tokens": (lambda: training.batches(np.arange(9999) % 2, 1000, 1000, 0), "at most 32768 fit"),
    "zero batch size": (lambda: training.batches(TOKENS, 0, 5, 0), "from 1 to 1024; found 0"),
    "too few tokens": (lambda: training.batches([0, 1, 0], 2, 5, 0), "give at least 6"),
    "no seed": (lambda: training.batches(TOKENS, 2, 5, None), "rng must be a seed"),
    "tokens in two rows": (lambda: training.batches([[0, 1], [1, 0]], 2, 1, 0), "1-D array"),
    "no examples": (lambda: training.example_batches([], None, 5, 0), "no examples"),
    "an example of one part": (
        lambda: training.example_batches(["aab"], None, 5, 0, "ab"),
        r"a pair \(context, next token\) of characters; found 'aab'",
    ),
    "an empty context": (lambda: training.example_batches([([], 1)], None, 5, 0), "a context must be token ids"),
    "a next token of two": (lambda: training.example_batches([([0], [1, 1])], None, 5, 0), "is one token; found"),
    "a character outside the alphabet": (
        lambda: training.example_batches([("abc", "a")], 1, 5, 0, "ab"),
        "cannot tokenize 'c'",
    ),
    "too wide a model": (
        lambda: training.init_params(2, 5, 10**6, rng=0),
        "n_embd must be a whole number from 1 to 1024",
    ),
    "an alphabet that does not fit": (
        lambda: training.init_params(3, 5, 8, rng=0, alphabet="ab"),
        "has length 2, but n_vocab, the token rows of wte, is 3",
    ),
    "heads that do not divide n_attn": (
        lambda: training.init_params(2, 5, 8, n_head=3, rng=0),
        "does not split into 3",
    ),
    "inputs longer than n_ctx": (lambda: loss(blog_shaped(0), [0] * 6, [0] * 6), "1 to 5 \\(its n_ctx\\)"),
    "a token the model lacks": (lambda: loss(blog_shaped(0), [0, 2], [0, 0]), "token id 2; ids go from 0 to 1"),
    "a negative target": (lambda: loss(blog_shaped(0), [0, 1], [0, -2]), "or -1 for no target"),
    "targets of another shape": (lambda: loss(blog_shaped(0), [0, 1], [0]), "must be the same"),
    "ragged inputs": (lambda: loss(blog_shaped(0), [[0, 1], [0]], [[0, 1], [0]]), "inputs must be token ids"),
    "float inputs": (lambda: loss(blog_shaped(0), [0.5], [0]), "whole numbers; found"),
    "nothing to predict": (lambda: loss_and_grads(blog_shaped(0), [0, 1], [-1, -1]), "give at least one"),
    "a batch too large": (
        lambda: loss(blog_shaped(0), np.zeros((2000, 5), int), np.zeros((2000, 5), int)),
        "at most 1024",
    ),
}


WRONG_KIND = {"fractional steps", "text learning rate", "a batch that is not a function", "no seed"}


@pytest.mark.parametrize("case", BAD)
def test_bad_requests_are_refused_in_one_line(case):
    call, message = BAD[case]
    kind = TypeError if case in WRONG_KIND else ValueError
    with pytest.raises(kind, match=message) as raised:
        call()
    assert "\n" not in str(raised.value) and len(str(raised.value)) < 200


@pytest.mark.parametrize("name", sorted(TASKS))
def test_a_task_trains_in_the_shape_of_its_blank_and_reference(name):
    trained, _history = training.train_task(name, steps=1, progress=False)
    assert [(path, a.shape) for path, a in iter_matrices(trained)] == [
        (path, a.shape) for path, a in iter_matrices(blank(name))
    ]


def test_the_nudged_condition_reaches_train_task_too():
    # tools/nudged replaces train where train_task looks it up (handmade.training.loop), not only in the package
    import os
    import subprocess

    code = "from handmade import training\nprint(float(training.train_task('aab', 0, progress=False)[0]['wte'][0, 0]))"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "tools" / "nudged")}
    nudged = float(subprocess.check_output([sys.executable, "-c", code], env=env, text=True, encoding="utf-8"))
    plain = training.train_task("aab", 0, progress=False)[0]["wte"][0, 0]
    assert nudged != plain and nudged == pytest.approx(plain, rel=1e-8)


def test_a_task_with_more_contexts_than_training_takes_is_refused_naming_it_before_any_step():
    def last_again(context):
        """Say the last letter again."""
        return context[-1]

    many = handmade.task(alphabet="ab", n_ctx=15, n_embd=2, n_layer=0)(last_again)  # 65,534 contexts
    with pytest.raises(
        ValueError,
        match=r"^task last_again grades 65534 different contexts; training draws its batches from at most 32768",
    ):
        training.train_task(many, steps=1, progress=False)


def test_training_a_task_for_more_than_it_may_cost_is_refused_before_it_starts_naming_the_most_steps(monkeypatch):
    """Training is bounded in time as grading is: the estimate (every step's passes forward and back) is checked before
    any weight is drawn, and the refusal names the most steps allowed, which are allowed; every built-in task trains
    for the command line's default 300 steps."""
    from handmade.training import loop

    trained = []
    monkeypatch.setattr(loop, "train", lambda params, batch_fn, steps, lr, progress: trained.append(steps) or (0, 0))
    pattern = r"^training task after_last_c for 100000 steps would take about \S+ operations \(903 contexts a step, "
    with pytest.raises(ValueError, match=pattern + r".*; at most 2e\+11 are allowed: (\d+) steps at most$") as refused:
        training.train_task("after_last_c", 100_000, progress=False)
    most = int(re.search(r"(\d+) steps at most$", str(refused.value)).group(1))
    assert trained == [] and 1000 < most < 100_000
    training.train_task("after_last_c", most, progress=False)
    with pytest.raises(ValueError, match=f"for {most + 1} steps would take"):
        training.train_task("after_last_c", most + 1, progress=False)
    for name in TASKS:
        training.train_task(name, 300, progress=False)
    assert trained == [most] + [300] * len(TASKS)


def batches_drawn(monkeypatch):
    """[(inputs, targets)] of every batch train_task draws from here on, in order."""
    drawn, real = [], training.loop.example_batches

    def watched(examples, batch_size, n_ctx, rng, alphabet=None):
        next_batch = real(examples, batch_size, n_ctx, rng, alphabet)
        return lambda: drawn.append(next_batch()) or drawn[-1]

    monkeypatch.setattr(training.loop, "example_batches", watched)
    return drawn


def test_a_task_with_more_contexts_than_one_batch_trains_on_random_batches_as_large_as_fit(monkeypatch):
    def last_again(context):
        """Say the last letter again."""
        return context[-1]

    # 40 letters, contexts of 1 or 2: 1,640 graded, more than one batch's 1,024 sequences
    wide = handmade.task(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN", n_ctx=2, n_embd=4, n_layer=0)(last_again)
    drawn = batches_drawn(monkeypatch)
    trained, history = training.train_task(wide, steps=3, progress=False)
    assert len(drawn) == 3 and all(inputs.shape == (training.MAX_BATCH, 2) for inputs, _targets in drawn)
    assert not np.array_equal(drawn[0][0], drawn[1][0])  # a new draw at each step
    assert len(history.losses) == 3 and np.isfinite(history.losses).all()
    again, _history = training.train_task(wide, steps=3, progress=False)
    assert np.array_equal(again["wte"], trained["wte"])  # seeded: the same model each time


def test_a_task_of_long_contexts_trains_on_batches_that_fit_the_positions_allowed(monkeypatch):
    def first_letter(context):
        """Say the first letter."""
        return context[0]

    # 2,046 contexts of up to 10 letters; with 5,000 positions a batch, 500 sequences of 10 fit, fewer than 1,024
    long = handmade.task(alphabet="ab", n_ctx=10, n_embd=4, n_layer=0)(first_letter)
    monkeypatch.setattr(training.loop, "MAX_BATCH_TOKENS", 5_000)
    drawn = batches_drawn(monkeypatch)
    trained, _history = training.train_task(long, steps=1, progress=False)
    assert [inputs.shape for inputs, _targets in drawn] == [(500, 10)] and trained["wte"].shape == (2, 4)
