"""Every checker passes a right answer and fails known-wrong ones with the hint that fits."""

import numpy as np
import pytest

import handmade
from handmade import checks
from handmade.checks import Verdict
from handmade.efficiency import count_flops


def assert_hint(verdict, *phrases):
    assert isinstance(verdict, Verdict) and not verdict.passed, verdict
    for phrase in phrases:
        assert phrase in verdict.message, verdict.message


def test_verdict_renders():
    assert str(checks.ok("fine")) == "✓ fine" and str(checks.hint("no")) == "✗ no"
    assert "#b3261e" in checks.hint("no")._repr_html_() and not checks.hint("no")


# ---- 01 -----------------------------------------------------------------------------------


def loops(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = sum(a[i, t] * b[t, j] for t in range(a.shape[1]))
    return out


def test_matmul_right():
    assert checks.check_matmul(loops)


@pytest.mark.parametrize(
    "wrong, phrase",
    [
        (lambda a, b: loops(a, b).T, "transpose"),
        (lambda a, b: np.zeros((a.shape[0], b.shape[1])), "entry (0, 0) should be row 0 of A · column 0 of B = 70"),
        (
            lambda a, b: np.zeros((a.shape[1], b.shape[0])),
            "so A @ B is 2x3 (rows of A by columns of B); yours is (4, 4)",
        ),
        (lambda a, b: a * b if a.shape == b.shape else a @ b, "element-wise product"),
        (lambda a, b: b @ a if a.shape == b.shape else a @ b, "B @ A"),
        (lambda a, b: 1 / 0, "your function raised ZeroDivisionError"),
    ],
)
def test_matmul_wrong(wrong, phrase):
    assert_hint(checks.check_matmul(wrong), phrase)


# ---- 02 -----------------------------------------------------------------------------------


def test_rule_right():
    assert checks.check_rule(lambda c: "b" if c[-2:] == "aa" else "a")


def test_rule_that_looks_at_one_token():
    assert_hint(checks.check_rule(lambda c: "b" if c[-1] == "a" else "a"), "only looks at the last token")


def test_rule_otherwise_wrong():
    assert_hint(checks.check_rule(lambda c: "a"), "after 'aa' the next token is 'b', your rule says 'a'")


# ---- 03 -----------------------------------------------------------------------------------


def embedding(text):
    return handmade.trace.trace(text)["embedding"].values.copy()


def test_embedding_right():
    assert checks.check_embedding("abab", embedding("abab"))


@pytest.mark.parametrize(
    "edit, phrase",
    [
        (lambda e: e[:3], "'abab' has 4 tokens, so its embedding is 4x8"),
        (lambda e: np.hstack([e[:, :5], e[:, 6:7], e[:, 5:6], e[:, 7:]]), "a and b are swapped"),
        (lambda e: np.hstack([0 * e[:, :5], e[:, 5:]]), "the positions are missing"),
        (lambda e: np.hstack([e[:, :5], 0 * e[:, 5:]]), "the tokens are missing"),
        (lambda e: np.hstack([e[::-1, :5], e[:, 5:]]), "positions run the wrong way"),
        (lambda e: e + np.eye(4, 8)[:, ::-1], "should be 0; yours is 1"),
    ],
)
def test_embedding_wrong(edit, phrase):
    assert_hint(checks.check_embedding("abab", edit(embedding("abab"))), phrase)


# ---- 04 -----------------------------------------------------------------------------------


def window_q(width, strength=1024):
    names = [f"P{i}" for i in range(5)]
    rules = {(names[i], names[j]): strength for i in range(5) for j in range(i - width + 1, i + 1) if j >= 0}
    return handmade.BASIS.matrix(rules)


def test_window_q_right():
    assert checks.check_window_q(window_q(3))
    assert checks.check_window_q(window_q(4), width=4)


@pytest.mark.parametrize(
    "q, phrase",
    [
        (window_q(2), "still the blog's window of two"),
        (window_q(4), "your window is 4 wide"),
        (window_q(3, strength=1), "softmax picks clearly only with a gap of about 20"),
        (np.zeros((8, 7)), "the q block should have shape (8, 8)"),
        (np.roll(window_q(3), 1, axis=1), "position 1 attends [0.0, 1.0, 0.0, 0.0, 0.0], but should attend [0.5, 0.5"),
    ],
)
def test_window_q_wrong(q, phrase):
    assert_hint(checks.check_window_q(q), phrase)


# ---- 05 -----------------------------------------------------------------------------------


def test_softmax_right():
    assert checks.check_softmax(handmade.softmax)


@pytest.mark.parametrize(
    "wrong, phrase",
    [
        (lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True), "subtract each row's max"),
        (lambda x: handmade.softmax(x.T).T, "columns sum to 1"),
        (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(), "the whole matrix sums to 1"),
        (lambda x: x / x.sum(axis=-1, keepdims=True), "take exp first"),
        (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), "now divide each row by its sum"),
        (lambda x: x[:, :2], "softmax keeps the shape"),
        (lambda x: np.sqrt(handmade.softmax(x)), "for [2.0, 1.0, 1.0] expected"),
    ],
)
def test_softmax_wrong(wrong, phrase):
    assert_hint(checks.check_softmax(wrong), phrase)


# ---- 06 -----------------------------------------------------------------------------------


def test_values_right():
    assert checks.check_values(1, -1)
    assert checks.check_values(2, -2)  # aa then averages to 2: c_proj still says b


@pytest.mark.parametrize(
    "v_a, v_b, phrase",
    [
        (1, 0, "ab averages to (1 + 0) / 2 = 0.5"),
        (1, 1, "a and b give the same number"),
        (0.5, -0.5, "aa averages to 0.5"),
        (-1, 1, "aa averages to -1"),
    ],
)
def test_values_wrong(v_a, v_b, phrase):
    assert_hint(checks.check_values(v_a, v_b), phrase)


# ---- 07 -----------------------------------------------------------------------------------


def test_lg_threshold_is_where_the_residual_ties():
    assert abs(checks.lg_threshold() - 1) < 1e-6
    assert checks.check_lg_threshold(1)


@pytest.mark.parametrize(
    "answer, phrase",
    [
        (1024, "still scores ACCURACY: 100.0%"),
        (0.5, "already fails"),
        (2, "the point where it starts to fail is lower"),
    ],
)
def test_lg_threshold_wrong(answer, phrase):
    assert_hint(checks.check_lg_threshold(answer), phrase)


# ---- 08 -----------------------------------------------------------------------------------


def test_completion_right():
    assert checks.check_completion("abb", handmade.continuation("abb", 6))


@pytest.mark.parametrize(
    "answer, phrase",
    [
        ("aab", "write 6 letters"),
        ("baabaa", "token 1: the last two tokens are 'bb'"),
        ("aaaaaa", "token 3: the last two tokens are 'aa'"),
    ],
)
def test_completion_wrong(answer, phrase):
    assert_hint(checks.check_completion("abb", answer, 6), phrase)


# ---- 09 -----------------------------------------------------------------------------------


def abb_weights():
    params = handmade.blog_model()
    bias = params["blocks"][0]["attn"]["c_proj"]["b"]
    bias[5], bias[6] = 0, 1024  # predict b unless the scratch value says "two b's"
    return params


def test_pattern_weights_right():
    assert checks.check_pattern_weights(abb_weights())
    assert checks.check_pattern_weights(handmade.blog_model(), pattern="aab")


def test_pattern_weights_still_the_blog():
    assert_hint(checks.check_pattern_weights(handmade.blog_model()), "still generate (aab)*")


def test_pattern_weights_other_miss():
    assert_hint(checks.check_pattern_weights(handmade.blog_model(proj_lg=0.5)), "first miss: after")


def test_pattern_weights_broken():
    params = handmade.blog_model()
    params["wte"] = params["wte"][:1]
    assert_hint(checks.check_pattern_weights(params), "wte has 1 token rows")


# ---- 10 -----------------------------------------------------------------------------------

STD = np.sqrt(0.1875 + 1e-5)


def test_undo_layer_norm_right():
    assert checks.check_undo_layer_norm(STD, 0.25)
    assert checks.check_undo_layer_norm(np.full(8, STD), np.full(8, 0.25))


@pytest.mark.parametrize(
    "gamma, beta, phrase",
    [
        (0.25, STD, "swapped"),
        (STD, 0, "add back each row's mean, 0.25"),
        (1, 0.25, "multiply by the standard deviation"),
        (np.sqrt(0.1875), 0.25, "gamma needs the eps too"),
        (0.1875, 0.25, "square root of the variance"),
        (2, 1, "ln_1 still changes the rows"),
    ],
)
def test_undo_layer_norm_wrong(gamma, beta, phrase):
    assert_hint(checks.check_undo_layer_norm(gamma, beta), phrase)


# ---- 11 -----------------------------------------------------------------------------------


def test_row_query_right():
    assert checks.check_row_query([44, 44, 91])


@pytest.mark.parametrize(
    "answer, phrase",
    [
        ([26, 67, 66], "that is x @ Q"),
        ([68, 89, 32], "that is the key"),
        ([44, 44], "a query has 3 numbers"),
        ([44, 45, 91], "differs at entry 1"),
    ],
)
def test_row_query_wrong(answer, phrase):
    assert_hint(checks.check_row_query(answer), phrase)


# ---- 12 -----------------------------------------------------------------------------------


def test_averaging_weights_right():
    assert checks.check_averaging_weights(np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None])


@pytest.mark.parametrize(
    "weights, phrase",
    [
        (np.tril(np.ones((4, 4))), "divide each row by its sum"),
        (np.full((4, 4), 0.25), "mask the future"),
        ((np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]).T, "transpose"),
        (np.eye(4), "only keeps itself"),
        (np.ones((3, 3)), "the weights are 4x4"),
        (np.tril(np.ones((4, 4))) / 4, "row 0 should be [1.0, 0.0, 0.0, 0.0]"),
    ],
)
def test_averaging_weights_wrong(weights, phrase):
    assert_hint(checks.check_averaging_weights(weights), phrase)


# ---- 13 -----------------------------------------------------------------------------------


def test_flop_count_right():
    assert checks.check_flop_count(3, count_flops("aab").total)


def test_flop_count_wrong():
    right = count_flops("aab").total
    assert_hint(checks.check_flop_count(3, right + 3 * 24 + 9 + 3 * 8 + 3 * 8 + 3 * 2), "only k - 1 additions")
    assert_hint(checks.check_flop_count(3, 3690), "full window of 5 tokens")
    assert_hint(checks.check_flop_count(3, right - 7), "off by -7; the largest part is qkv")
