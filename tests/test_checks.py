"""Every checker passes a right answer and fails known-wrong ones with the hint that fits."""

import numpy as np
import pytest

import handmade
from handmade.course import checks
from handmade.course.checks import Verdict
from handmade.course.efficiency import count_flops


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
    return handmade.display.trace.trace(text)["embedding"].values.copy()


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


# ---- every checker, every answer a learner can type -----------------------------------------

WRONG_TYPED = {
    "None": None,
    "text": "abc",
    "empty text": "",
    "a short list": [1, 2],
    "ragged rows": [[1, 2], [3]],
    "nan": float("nan"),
    "inf": float("inf"),
    "a dict": {},
    "True": True,
    "1e308": 1e308,
    "-1e308": -1e308,
    "a 3x3 matrix": np.zeros((3, 3)),
    "an object": object(),
    "a function": lambda *args: 0,
    "a complex number": 1j,
    "an all-nan matrix": np.full((8, 8), np.nan),
    "a huge matrix": np.full((8, 8), 1e200),
}

CHECKERS = {  # name: call with the learner's answer in the place the notebook asks for it
    "check_matmul": lambda a: checks.check_matmul(a),
    "check_rule": lambda a: checks.check_rule(a),
    "check_embedding": lambda a: checks.check_embedding("abab", a),
    "check_embedding (context)": lambda a: checks.check_embedding(a, embedding("abab")),
    "check_window_q": lambda a: checks.check_window_q(a),
    "check_softmax": lambda a: checks.check_softmax(a),
    "check_values (a)": lambda a: checks.check_values(a, -1),
    "check_values (b)": lambda a: checks.check_values(1, a),
    "check_lg_threshold": lambda a: checks.check_lg_threshold(a),
    "check_completion": lambda a: checks.check_completion("ba", a),
    "check_completion (context)": lambda a: checks.check_completion(a, "abaaba"),
    "check_pattern_weights": lambda a: checks.check_pattern_weights(a),
    "check_undo_layer_norm (gamma)": lambda a: checks.check_undo_layer_norm(a, 0.25),
    "check_undo_layer_norm (beta)": lambda a: checks.check_undo_layer_norm(STD, a),
    "check_row_query": lambda a: checks.check_row_query(a),
    "check_averaging_weights": lambda a: checks.check_averaging_weights(a),
    "check_flop_count": lambda a: checks.check_flop_count(3, a),
    "check_flop_count (length)": lambda a: checks.check_flop_count(a, 1986),
}


@pytest.mark.parametrize("answer", list(WRONG_TYPED), ids=list(WRONG_TYPED))
@pytest.mark.parametrize("checker", list(CHECKERS))
def test_every_checker_answers_every_wrong_typed_answer_with_a_hint(checker, answer):
    verdict = CHECKERS[checker](WRONG_TYPED[answer])
    assert isinstance(verdict, Verdict) and not verdict.passed, verdict
    assert verdict.message and "\n" not in verdict.message and len(verdict.message) < 400
    assert "could not be checked" not in verdict.message, verdict  # a hint that names the problem


def test_an_empty_or_partial_completion_is_not_what_the_model_writes():
    assert_hint(checks.check_completion("ba", ""), "write 6 letters")
    assert_hint(checks.check_completion("ba", "ab"), "write 6 letters")  # a prefix of the right answer
    assert checks.check_completion("ba", "abaaba")


def test_an_embedding_of_a_context_longer_than_the_model_sees_gets_a_hint_that_says_so():
    assert_hint(checks.check_embedding("aabaab", np.zeros((6, 8))), "the model sees at most 5 tokens")


def test_window_q_of_huge_equal_entries_is_not_called_too_small():
    verdict = checks.check_window_q(np.full((8, 8), 1e200))
    assert_hint(verdict, "the same score")
    assert "too small" not in verdict.message


def test_a_softmax_that_takes_the_max_of_the_whole_matrix_gets_its_own_hint():
    def global_max(x):
        e = np.exp(x - np.max(x))
        return e / e.sum(axis=-1, keepdims=True)

    assert_hint(checks.check_softmax(global_max), "subtract each row's own max")


def test_a_transposed_index_in_matmul_gets_a_hint_not_an_index_error():
    def transposed(a, b):
        out = np.zeros((a.shape[0], b.shape[1]))
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                out[i, j] = sum(a[i, t] * b[j, t] for t in range(a.shape[1]))
        return out

    assert_hint(checks.check_matmul(transposed), "an index is out of range")


def test_values_that_also_work_are_not_called_wrong_and_the_hint_says_what_c_proj_needs():
    assert checks.check_values(0.6, -0.6)  # 0.6 and 2 also score 27 / 27
    assert_hint(checks.check_values(0.4, -0.4), "clearly above 0.5")


def test_lg_just_below_the_answer_is_close_enough_and_below_that_is_told_to_go_higher():
    assert checks.check_lg_threshold(0.99)  # within the stated tolerance of 1
    assert_hint(checks.check_lg_threshold(0.9), "the point where it starts to fail is higher")
