"""Every checker passes a right answer and fails known-wrong ones with the hint that fits.

The second half generates answers around the right one for each checker (nearby numbers, swapped
entries, sign flips, the right numbers under wrong names, other types) and checks two things: the
verdict accepts exactly the answers an independent oracle calls right, and every number, context or
shape the explanation quotes is true of the answer given.
"""

import ast
import re
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

import handmade
from handmade.course import checks
from handmade.course import worked_example as w
from handmade.course.checks import Verdict, acb, lg_threshold, matmul, softmax
from handmade.course.checks.window_q import window_attention
from handmade.course.efficiency import blog_flops, count_flops
from handmade.course.solutions import reference
from handmade.course.tasks import TASKS
from handmade.course.verdict import right, row, typed
from handmade.display.labelled import fmt


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
        (window_q(3, strength=1), "the window's scores are only 0.3536 above the others"),
        (np.zeros((8, 7)), "the q block should have shape (8, 8)"),
        (np.roll(window_q(3), 1, axis=1), "position 1 attends [≈0, 1, 0, 0, 0], but should attend [0.5, 0.5"),
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
        (lambda x: np.sqrt(handmade.softmax(x)), "for [1, 0, 0] expected [0.5761, 0.2119, 0.2119], got [0.759"),
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
    assert lg_threshold.lg_boundary() == (1.0, np.nextafter(1.0, 2))  # fails at 1 (a tie), perfect just above
    assert checks.check_lg_threshold(1)


@pytest.mark.parametrize(
    "answer, phrase",
    [
        (1024, "still gets 27 / 27 right"),
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
    assert_hint(
        checks.check_pattern_weights(params), "the alphabet 'ab' has length 2, but n_vocab, the token rows of wte, is 1"
    )


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
        (np.tril(np.ones((4, 4))) / 4, "row 0 should be [1, 0, 0, 0]"),
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
    "False": False,
    "a list of booleans": [True, False, True],
    "nested lists": [[[1]], [[2]]],
    "a list of the wrong length": [1, 2, 3, 4, 5, 6, 7],
    "a list of text": ["a", "b"],
    "a whole number too large for a float": 10**400,
    "a set": {1, 2},
    "a dict of names": {"a": "c", "b": "a", "c": "b"},
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
    "check_acb": lambda a: checks.check_acb(a),
    "check_window_q (width)": lambda a: checks.check_window_q(handmade.BASIS.matrix({}), width=a),
    "check_averaging_weights (n)": lambda a: checks.check_averaging_weights(np.eye(4), n=a),
    "check_completion (length)": lambda a: checks.check_completion("ba", "abaaba", a),
    "check_pattern_weights (pattern)": lambda a: checks.check_pattern_weights(handmade.blog_model(), pattern=a),
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


def test_lg_near_the_answer_is_judged_by_what_the_model_does_there():
    # notebook 07's table shows 1.01 scoring 27 / 27 and 0.99 failing: neither is where it starts to fail
    assert_hint(checks.check_lg_threshold(0.99), "already fails (9 / 27 right)", "higher")
    assert_hint(checks.check_lg_threshold(1.01), "still gets 27 / 27 right", "lower")
    assert_hint(checks.check_lg_threshold(0.9), "the point where it starts to fail is higher")


# ---- 06, 07, 14: the faults that made a learner distrust a checker ---------------------------


def test_values_that_do_not_cancel_are_accepted_with_the_average_they_really_have():
    verdict = checks.check_values(1, -0.9)  # 27 / 27: ab and ba average to 0.05, not 0
    assert verdict and "ab and ba average to 0.05, below 0.5" in verdict.message
    assert "the smallest margin is 920.6, after ab" in verdict.message


def test_the_acb_checker_names_the_failing_contexts_and_the_turn_that_makes_them_fail():
    verdict = checks.check_acb({"Ta": "Tc", "Tb": "Tb", "Tc": "Tb"})
    assert_hint(
        verdict, "10 / 15 contexts of (acb)* are right", "Your turn sends Tb to Tb, so after b the model says b"
    )
    assert "Ta to" not in verdict.message and "Tc to" not in verdict.message  # the right entries are not blamed
    assert checks.check_acb(acb.acb_turn()) and acb.acb_turn() == {"Ta": "Tc", "Tb": "Ta", "Tc": "Tb"}


def test_the_acb_checker_answers_a_turn_under_the_wrong_names_with_the_names_it_expects():
    assert_hint(checks.check_acb({"a": "Tc", "b": "Ta", "c": "Tb"}), "should have the keys Ta, Tb, Tc; yours has 'a'")
    assert_hint(checks.check_acb({"Ta": "c", "Tb": "a", "Tc": "b"}), "maps Ta to 'c'; each value should be one of Ta")


# ---- how a verdict shows numbers: in their shape ---------------------------------------------


def test_numbers_are_shown_in_their_shape():
    assert row([1, 0.5, -0.25]) == "[1, 0.5, -0.25]"
    assert row(np.arange(6).reshape(2, 3)) == "[[0, 1, 2], [3, 4, 5]]"
    assert row(np.ones((2, 1, 2))) == "[[[1, 1]], [[1, 1]]]"


def bracketed(message):
    """Every outermost [...] of ``message``, read back as nested lists."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(message):
        if char == "[":
            depth, start = depth + 1, i if depth == 0 else start
        elif char == "]":
            depth -= 1
            if depth == 0:
                found.append(ast.literal_eval(message[start : i + 1]))
    return found


SECOND_CASE = matmul.matmul_cases()[1]
GIVEN = {  # a checker, a function that fails on what the checker gives it, and the arrays the verdict shows
    "softmax raises": (checks.check_softmax, lambda x: 1 / 0, [softmax.SOFTMAX_INPUT]),
    "matmul wrong on its second case": (
        checks.check_matmul,
        lambda a, b: a @ b + (a.shape != matmul.BLOG_A.shape),
        list(SECOND_CASE),
    ),
}


@pytest.mark.parametrize("name", list(GIVEN))
def test_the_arrays_a_learners_function_was_given_are_shown_in_their_shape(name):
    checker, fn, given = GIVEN[name]
    verdict = checker(fn)
    assert not verdict and bracketed(verdict.message) == [a.tolist() for a in given], verdict


NOT_FINITE = {  # every checker that reads an array, given one with nan or inf where it reads it
    "check_matmul": (lambda: checks.check_matmul(lambda a, b: (a @ b) * np.inf), "inf", "the result of your function"),
    "check_embedding": (lambda: checks.check_embedding("ab", np.full((2, 8), np.nan)), "nan", "your embedding"),
    "check_window_q": (lambda: checks.check_window_q(np.full((8, 8), -np.inf)), "-inf", "the q block"),
    "check_undo_layer_norm": (lambda: checks.check_undo_layer_norm(np.nan, 0.25), "nan", "gamma"),
    "check_row_query": (lambda: checks.check_row_query([1, np.inf, 1]), "inf", "your query"),
    "check_averaging_weights": (lambda: checks.check_averaging_weights(np.full((4, 4), np.nan)), "nan", "the weights"),
}


@pytest.mark.parametrize("name", list(NOT_FINITE))
def test_a_number_that_is_not_finite_is_named_in_a_sentence_that_fits_a_singular_or_a_plural(name):
    verdict, value, what = NOT_FINITE[name]
    assert_hint(verdict(), f"there is {value} in {what}; every entry must be a finite number")


MATRIX = "a matrix of shape {}, a list of rows of numbers"
ALLOWED = {  # every checker that reads numbers, where it reads them, and what it allows there
    "check_matmul": (lambda a: checks.check_matmul(lambda x, y: a), MATRIX.format((2, 3))),
    "check_embedding": (lambda a: checks.check_embedding("abab", a), MATRIX.format((4, 8))),
    "check_window_q": (lambda a: checks.check_window_q(a), MATRIX.format((8, 8))),
    "check_softmax": (lambda a: checks.check_softmax(lambda x: a), MATRIX.format((4, 3))),
    "check_undo_layer_norm (gamma)": (lambda a: checks.check_undo_layer_norm(a, 0), "one number, or one per direction (8 numbers)"),
    "check_undo_layer_norm (beta)": (lambda a: checks.check_undo_layer_norm(STD, a), "one number, or one per direction (8 numbers)"),
    "check_row_query": (lambda a: checks.check_row_query(a), "a list of 3 numbers"),
    "check_averaging_weights": (lambda a: checks.check_averaging_weights(a), MATRIX.format((4, 4))),
}  # fmt: skip
NOT_NUMBERS = {"1j": 1j, "True": True, "text": "abc", "a dict": {}, "booleans": [True, False], "complex rows": [[1j]]}


@pytest.mark.parametrize("answer", list(NOT_NUMBERS))
@pytest.mark.parametrize("checker", list(ALLOWED))
def test_an_answer_that_is_not_numbers_is_told_what_is_allowed_where_it_was_given(checker, answer):
    check, allowed = ALLOWED[checker]
    assert_hint(check(NOT_NUMBERS[answer]), f" should be {allowed}; yours is ")


# ---- answers around the right one: the verdict fits an oracle, the explanation fits the numbers --

NUMBER = r"(-?[\d.]+(?:e[+-]?\d+)?|≈0|-?∞|nan)"  # a number as a verdict writes it
ROW = r"(\[[^\]]*\])"


def shows(text, value):
    """``text`` is how a verdict writes ``value``, at some number of digits."""
    value = float(value)
    if text != "≈0" and np.isfinite(value) and value.is_integer():
        return text == typed(value)
    return any(text == fmt(value, digits) for digits in range(4, 18))


def shows_row(text, values):
    values = np.asarray(values, dtype=float)
    shown = [row(values, digits) for digits in range(4, 18)]  # one way to write a row: fmt's, never -0
    return text in shown


def verify(message, claims, *context):
    """Every claim a message makes (each pattern it contains) holds for ``context``; at least one is made."""
    made = 0
    for pattern, holds in claims:
        for match in re.finditer(pattern, message):
            made += 1
            assert holds(match, *context), f"untrue: {pattern!r} in {message!r}"
    assert made, f"no claim recognised in {message!r}"


NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?:\.0+)?(?![.\d])")  # -0, -0.0: a verdict shows 0 (as fmt does)


def judged(verdict, right):
    assert isinstance(verdict, Verdict), verdict
    assert bool(verdict) == right, verdict
    assert verdict.message and "\n" not in verdict.message and "could not be checked" not in verdict.message
    assert not NEGATIVE_ZERO.search(verdict.message), verdict
    return verdict.message


# ---- 01 ----


def _first_failing_case(fn):
    for a, b in matmul.matmul_cases():
        try:
            got = fn(a.copy(), b.copy())
        except Exception as error:  # noqa: BLE001
            return a, b, error
        if got is None or np.shape(got) != (a @ b).shape or not np.allclose(got, a @ b):
            return a, b, got
    return None


def _on_failing_case(holds):  # a claim about the first case the learner's function gets wrong
    return lambda m, fn: holds(*_first_failing_case(fn))


def _matmul_entry(m, fn):
    a, b = (np.array(ast.literal_eval(m[k])) for k in (1, 2)) if m[1] else (matmul.BLOG_A, matmul.BLOG_B)
    i, j = int(m[3]), int(m[4])
    return shows(m[5], (a @ b)[i, j]) and shows(m[6], np.asarray(fn(a, b), dtype=float)[i, j])


MATMUL_CLAIMS = [
    (
        r"(?:with A = (\[.*\]) and B = (\[.*\]), )?entry \((\d), (\d)\) should be row \3 of A · column \4 of B = "
        + NUMBER
        + "; yours is "
        + NUMBER,
        _matmul_entry,
    ),
    (r"you built the transpose", _on_failing_case(lambda a, b, got: np.allclose(got, (a @ b).T))),
    (
        r"A is (\d)x(\d) and B is (\d)x(\d), so A @ B is (\d)x(\d) .*; yours is (\(.*\))",
        lambda m, fn: _on_failing_case(
            lambda a, b, got: str(np.shape(got)) == m[7] and a.shape == (int(m[1]), int(m[2]))
        )(m, fn),
    ),
    (r"element-wise product", _on_failing_case(lambda a, b, got: np.allclose(got, a * b))),
    (r"that is B @ A", _on_failing_case(lambda a, b, got: np.allclose(got, b @ a))),
    (
        r"your function raised (\w+) on A of shape (\(.*?\)) and B of shape (\(.*?\))",
        lambda m, fn: _on_failing_case(
            lambda a, b, got: type(got).__name__ == m[1] and (str(a.shape), str(b.shape)) == (m[2], m[3])
        )(m, fn),
    ),
    (r"your function raised IndexError", lambda m, fn: isinstance(_first_failing_case(fn)[2], IndexError)),
    (r"returned None", lambda m, fn: _first_failing_case(fn)[2] is None),
    (r"the result of your function", lambda m, fn: True),  # not numbers: the reader's sentence
    (
        r"including the blog's (\d+) and (\d+)",
        lambda m, fn: {int(m[1]), int(m[2])} <= set((matmul.BLOG_A @ matmul.BLOG_B).ravel()),
    ),
]

MATMUL_ANSWERS = {
    "loops": (loops, True),
    "@": (lambda a, b: a @ b, True),
    "np.dot as lists": (lambda a, b: np.dot(a, b).tolist(), True),
    "float32": (lambda a, b: (a @ b).astype(np.float32), True),
    "transposed": (lambda a, b: (a @ b).T, False),
    "zeros": (lambda a, b: np.zeros((a.shape[0], b.shape[1])), False),
    "one term short": (lambda a, b: a[:, :-1] @ b[:-1], False),
    "plus 0.001": (lambda a, b: a @ b + 1e-3, False),
    "negated": (lambda a, b: -(a @ b), False),
    "element-wise when square": (lambda a, b: a * b if a.shape == b.shape else a @ b, False),
    "B @ A when square": (lambda a, b: b @ a if a.shape == b.shape else a @ b, False),
    "the blog's answer always": (lambda a, b: matmul.BLOG_A @ matmul.BLOG_B, False),
    "no return": (lambda a, b: None, False),
    "text": (lambda a, b: "70", False),
    "raises on the second case": (lambda a, b: a @ b if a.shape == (2, 4) else 1 / 0, False),
    "wrong shape": (lambda a, b: np.zeros((a.shape[1], b.shape[0])), False),
    "nan": (lambda a, b: (a @ b) * np.nan, False),
}


@pytest.mark.parametrize("name", list(MATMUL_ANSWERS))
def test_matmul_around_the_right_answer(name):
    fn, right = MATMUL_ANSWERS[name]
    oracle = _first_failing_case(fn) is None
    assert oracle == right
    verify(judged(checks.check_matmul(fn), right), MATMUL_CLAIMS, fn)


# ---- 02 ----


def _decided_contexts():  # independent of the checker: every piece of (aab)* of 1 to 8 letters
    stream = "aab" * 10
    follows = {}
    for start in range(3):
        for length in range(1, 9):
            follows.setdefault(stream[start : start + length], set()).add(stream[start + length])
    return {context: next(iter(after)) for context, after in follows.items() if len(after) == 1}


DECIDED = _decided_contexts()
PAIRS = ["a", "b", "aa", "ab", "ba", "bb"]


def _table_rule(letters):  # a rule that looks up the last one or two letters
    table = dict(zip(PAIRS, letters))
    return lambda context: table[context[-2:]]


def _said(rule, context):
    try:
        return rule(context)
    except Exception as error:  # noqa: BLE001
        return error


RULE_CLAIMS = [
    (
        r"after '(\w+)' the next token is '(\w)', your rule says '(\w)'",
        lambda m, rule: DECIDED[m[1]] == m[2] and _said(rule, m[1]) == m[3] != m[2],
    ),
    (
        r"every context that ends in (\w), yet '(\w+)' and '(\w+)' both end in \1 and need different answers \('(\w)' and '(\w)'\)",
        lambda m, rule: (
            len({_said(rule, c) for c in DECIDED if c[-1] == m[1]}) == 1
            and (DECIDED[m[2]], DECIDED[m[3]]) == (m[4], m[5])
            and m[4] != m[5]
        ),
    ),
    (r"\((\d+) wrong\)", lambda m, rule: int(m[1]) == sum(_said(rule, c) != e for c, e in DECIDED.items())),
    (r"the \(ab\)\* rule", lambda m, rule: all(_said(rule, c) == ("b" if c[-1] == "a" else "a") for c in DECIDED)),
    (
        r"should return a letter, 'a' or 'b'; after '(\w+)' it returned",
        lambda m, rule: _said(rule, m[1]) not in ("a", "b"),
    ),
    (r"your rule raised IndexError on the context '(\w+)'", lambda m, rule: isinstance(_said(rule, m[1]), IndexError)),
    (r"your function raised (\w+) on the context '(\w+)'", lambda m, rule: type(_said(rule, m[2])).__name__ == m[1]),
    (r"right on all (\d+) contexts", lambda m, rule: int(m[1]) == len(DECIDED)),
]

RULE_ANSWERS = {"".join(letters): _table_rule(letters) for letters in product("ab", repeat=6)}
RULE_ANSWERS.update(
    {
        "(ab)*": lambda c: "b" if c[-1] == "a" else "a",
        "two back": lambda c: "b" if c[-2] == "a" and c[-1] == "a" else "a",
        "upper case": lambda c: "B" if c[-2:] == "aa" else "A",
        "None": lambda c: None,
        "two letters": lambda c: "ab",
        "a number": lambda c: 0,
        "needs two arguments": lambda c, d: "a",
    }
)


@pytest.mark.parametrize("name", list(RULE_ANSWERS))
def test_rule_around_the_right_answer(name):
    rule = RULE_ANSWERS[name]
    right = all(_said(rule, c) == e for c, e in DECIDED.items())
    verify(judged(checks.check_rule(rule), right), RULE_CLAIMS, rule)


# ---- 03 ----

COLUMNS = list(handmade.BASIS)


def _one_hot_embedding(text):  # independent of trace: position i and the token, one-hot
    e = np.zeros((len(text), len(COLUMNS)))
    for i, token in enumerate(text):
        e[i, COLUMNS.index(f"P{i}")] = e[i, COLUMNS.index("T" + token)] = 1
    return e


def _columns(e, names):
    return np.asarray(e, dtype=float)[:, [COLUMNS.index(n) for n in names]]


POS = [f"P{i}" for i in range(5)]

EMBEDDING_CLAIMS = [
    (
        r"row pos (\d) · (\w), column (\w+) should be " + NUMBER + "; yours is " + NUMBER,
        lambda m, text, e: (
            text[int(m[1])] == m[2]
            and shows(m[4], _one_hot_embedding(text)[int(m[1]), COLUMNS.index(m[3])])
            and shows(m[5], np.asarray(e, dtype=float)[int(m[1]), COLUMNS.index(m[3])])
        ),
    ),
    (
        r"a and b are swapped",
        lambda m, text, e: np.array_equal(_columns(e, ["Ta", "Tb"]), _columns(_one_hot_embedding(text), ["Tb", "Ta"])),
    ),
    (r"the positions are missing", lambda m, text, e: not _columns(e, POS).any()),
    (r"the tokens are missing", lambda m, text, e: not _columns(e, ["Ta", "Tb"]).any()),
    (r"yours puts it in P1", lambda m, text, e: np.asarray(e)[0][COLUMNS.index("P1")] == 1),
    (
        r"positions run the wrong way",
        lambda m, text, e: np.array_equal(_columns(e, POS), _columns(_one_hot_embedding(text), POS)[::-1]),
    ),
    (
        r"'(\w+)' has (\d) tokens, so its embedding is \2x8.*; yours has shape (\(.*\))",
        lambda m, text, e: m[1] == text and int(m[2]) == len(text) and str(np.shape(e)) == m[3],
    ),
    (r"that is the embedding of '(\w+)'", lambda m, text, e: m[1] == text),
    (r"your embedding (should be numbers|contains nan)", lambda m, text, e: True),
]


def _embedding_answers(text):
    right = _one_hot_embedding(text)
    answers = {
        "right": right,
        "as lists": right.astype(int).tolist(),
        "right + 1e-12": right + 1e-12 * np.eye(*right.shape),
    }
    for i, j in product(range(len(text)), range(len(COLUMNS))):
        flipped = right.copy()
        flipped[i, j] = 1 - flipped[i, j]
        answers[f"flip {i},{j}"] = flipped
    swapped, no_pos, no_tok, shifted, reversed_ = (right.copy() for _ in range(5))
    swapped[:, 5:7] = right[:, [6, 5]]
    no_pos[:, :5], no_tok[:, 5:7] = 0, 0
    shifted[:, :5] = np.roll(right[:, :5], 1, axis=1)
    reversed_[:, :5] = right[::-1, :5]
    answers |= {
        "swapped": swapped,
        "no positions": no_pos,
        "no tokens": no_tok,
        "from P1": shifted,
        "reversed": reversed_,
    }
    answers |= {"transposed": right.T, "a row short": right[:-1], "doubled": 2 * right, "nested": [right.tolist()]}
    return answers


EMBEDDING_CASES = [(text, name, e) for text in ("abab", "aab", "b") for name, e in _embedding_answers(text).items()]


@pytest.mark.parametrize("text, name, answer", EMBEDDING_CASES, ids=[f"{t}-{n}" for t, n, _e in EMBEDDING_CASES])
def test_embedding_around_the_right_answer(text, name, answer):
    right = np.shape(answer) == (len(text), 8) and np.array_equal(answer, _one_hot_embedding(text))
    verify(judged(checks.check_embedding(text, answer), right), EMBEDDING_CLAIMS, text, answer)


# ---- 04 ----


def _attention(q):
    t = handmade.display.trace.trace("aabaa", handmade.with_qkv(handmade.blog_model(), q=q))
    return t["attention_weights"].values, t["scaled_scores"].values


def _outside(width=3):
    want = window_attention(width)
    return np.tri(5, dtype=bool) & (want == 0)


WINDOW_CLAIMS = [
    (
        r"position (\d) still gives "
        + NUMBER
        + r" of its attention to keys outside its window: after dividing by √(\d) the window's scores are only "
        + NUMBER,
        lambda m, q: (
            shows(m[2], (_attention(q)[0] * _outside())[int(m[1])].sum())
            and int(m[3]) ** 2 == 8**2
            and shows(
                m[4],
                _attention(q)[1][int(m[1])][window_attention(3)[int(m[1])] > 0].min()
                - _attention(q)[1][int(m[1])][_outside()[int(m[1])]].max(),
            )
        ),
    ),
    (
        r"your window is (\d) wide",
        lambda m, q: np.allclose(_attention(q)[0], window_attention(int(m[1])), atol=1e-3),
    ),
    (
        r"still the blog's window of two",
        lambda m, q: np.allclose(_attention(q)[0], window_attention(2), atol=1e-3),
    ),
    (
        r"gives every key the same score",
        lambda m, q: all(np.ptp(_attention(q)[1][i, : i + 1]) < 1e-9 for i in range(5)),
    ),
    (
        r"position (\d) attends " + ROW + ", but should attend " + ROW,
        lambda m, q: shows_row(m[2], _attention(q)[0][int(m[1])]) and shows_row(m[3], window_attention(3)[int(m[1])]),
    ),
    (r"every position now attends evenly to a window of 3", lambda m, q: True),
]

WINDOW_ANSWERS = {f"width {w}, strength {s}": window_q(w, s) for w in range(1, 6) for s in (1, 3, 10, 30, 1024)}
WINDOW_ANSWERS |= {
    "rolled": np.roll(window_q(3), 1, axis=1),
    "transposed": window_q(3).T,
    "negated": -window_q(3),
    "looks ahead": window_q(3) + np.roll(window_q(1), 1, axis=1),
}


@pytest.mark.parametrize("name", list(WINDOW_ANSWERS))
def test_window_q_around_the_right_answer(name):
    q = WINDOW_ANSWERS[name]
    right = np.allclose(_attention(q)[0], window_attention(3), atol=1e-3)
    verify(judged(checks.check_window_q(q), right), WINDOW_CLAIMS, q)


# ---- 05 ----

X = softmax.SOFTMAX_INPUT


def _softmax_reference(x):  # written out here, not the package's
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _output(fn):
    with np.errstate(all="ignore"):
        return np.asarray(fn(X.copy()), dtype=float)


def _overflows_exp(power):
    with np.errstate(over="ignore"):
        return np.isinf(np.exp(power))


def _row_of_x(text):
    return next(i for i in range(len(X)) if row(X[i]) == text)


SOFTMAX_CLAIMS = [
    (
        r"for " + ROW + " expected " + ROW + ", got " + ROW,
        lambda m, fn: (
            shows_row(m[2], _softmax_reference(X)[_row_of_x(m[1])]) and shows_row(m[3], _output(fn)[_row_of_x(m[1])])
        ),
    ),
    (
        r"the row " + ROW + r" gives nan: .* \(e\^(\d+) overflows\)",
        lambda m, fn: not np.isfinite(_output(fn)[_row_of_x(m[1])]).all() and _overflows_exp(float(m[2])),
    ),
    (
        r"whole matrix \((\d+)\), so in the row " + ROW + r" even the largest entry becomes e\^(-\d+)",
        lambda m, fn: (
            float(m[1]) == X.max()
            and X[_row_of_x(m[2])].max() - X.max() == float(m[3])
            and np.isnan(_output(fn)[_row_of_x(m[2])]).all()
        ),
    ),
    (r"your columns sum to 1", lambda m, fn: np.allclose(_output(fn).sum(axis=0), 1)),
    (r"the whole matrix sums to 1", lambda m, fn: np.isclose(_output(fn).sum(), 1)),
    (r"divided the raw numbers", lambda m, fn: np.allclose(_output(fn), X / X.sum(axis=1, keepdims=True))),
    (r"the exponentials are right", lambda m, fn: np.allclose(_output(fn), np.exp(X - X.max(axis=1, keepdims=True)))),
    (
        r"keeps the shape of its input, (\(.*?\)); yours returned (\(.*?\))",
        lambda m, fn: m[1] == str(X.shape) and m[2] == str(_output(fn).shape),
    ),
    (r"(\d+) does not overflow", lambda m, fn: float(m[1]) == X.max()),
    (r"returned None|raised|should be numbers", lambda m, fn: True),
]

SOFTMAX_ANSWERS = {
    "right": (handmade.softmax, True),
    "as lists": (lambda x: handmade.softmax(x).tolist(), True),
    "float32": (lambda x: handmade.softmax(x.astype(np.float32)), True),
    "within 1e-7": (lambda x: handmade.softmax(x) + 1e-7, True),
    "off by 1e-5": (lambda x: handmade.softmax(x) + 1e-5, False),
    "no max": (lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True), False),
    "the whole matrix's max": (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(axis=-1, keepdims=True), False),
    "columns": (lambda x: handmade.softmax(x.T).T, False),
    "the whole matrix": (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(), False),
    "no exp": (lambda x: x / x.sum(axis=-1, keepdims=True), False),
    "not normalised": (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), False),
    "squared": (lambda x: handmade.softmax(x) ** 2, False),
    "the rows swapped": (lambda x: handmade.softmax(x)[::-1], False),
    "the column max": (lambda x: handmade.softmax(x - x.max(axis=0)), False),
    "no return": (lambda x: None, False),
    "one row": (lambda x: handmade.softmax(x)[0], False),
}


@pytest.mark.parametrize("name", list(SOFTMAX_ANSWERS))
def test_softmax_around_the_right_answer(name):
    fn, right = SOFTMAX_ANSWERS[name]
    try:
        oracle = np.allclose(_output(fn), _softmax_reference(X), atol=1e-6)
    except (TypeError, ValueError):
        oracle = False
    assert oracle == right
    verify(judged(checks.check_softmax(fn), right), SOFTMAX_CLAIMS, fn)


# ---- 06 ----


def _values_model(a, b):
    return handmade.with_qkv(handmade.blog_model(), v=handmade.BASIS.matrix({("Ta", "V"): a, ("Tb", "V"): b}))


def _pair_logits(a, b, pair):
    return handmade.predict(pair, _values_model(a, b)).logits[-1]


def _average(a, b, pair):
    return np.mean([{"a": a, "b": b}[token] for token in pair])


def _pair_margin(a, b, pair):
    la, lb = _pair_logits(a, b, pair)
    return lb - la if pair == "aa" else la - lb


VALUES_CLAIMS = [
    (r"a = " + NUMBER + ", b = " + NUMBER, lambda m, a, b: m[1] == typed(a) and m[2] == typed(b)),
    (r"(aa) averages to " + NUMBER, lambda m, a, b: shows(m[2], _average(a, b, m[1]))),
    (
        r"ab averages to \(" + NUMBER + r" \+ " + NUMBER + r"\) / 2 = " + NUMBER,
        lambda m, a, b: m[1] == typed(a) and m[2] == typed(b) and shows(m[3], _average(a, b, "ab")),
    ),
    (
        r"ab and ba average to " + NUMBER,
        lambda m, a, b: shows(m[1], _average(a, b, "ab")) and shows(m[1], _average(a, b, "ba")),
    ),
    (
        r"(aa|ab) averages to .*?Ta = " + NUMBER + " and Tb = " + NUMBER,
        lambda m, a, b: shows(m[2], 1024 * (1 - _average(a, b, m[1]))) and shows(m[3], 1024 * _average(a, b, m[1])),
    ),
    (
        r"(aa|ab) averages to .*?the logits are a " + NUMBER + ", b " + NUMBER,
        lambda m, a, b: shows(m[2], _pair_logits(a, b, m[1])[0]) and shows(m[3], _pair_logits(a, b, m[1])[1]),
    ),
    (r"the model says (\w) after (aa|ab|ba)", lambda m, a, b: handmade.predict(m[2], _values_model(a, b)).next == m[1]),
    (
        r"says (\w) after aa, (\w) after ab and (\w) after ba, where (\w), (\w) and (\w) should follow",
        lambda m, a, b: (
            [handmade.predict(p, _values_model(a, b)).next for p in ("aa", "ab", "ba")] == [m[1], m[2], m[3]]
            and [m[4], m[5], m[6]] == ["b", "a", "a"]
        ),
    ),
    (r"above (0.5)|below (0.5)", lambda m, a, b: 1024 * (1 - 0.5) == 1024 * 0.5),  # where c_proj writes Ta = Tb
    (
        r"the smallest margin is " + NUMBER + r", after (\w\w)",
        lambda m, a, b: (
            shows(m[1], _pair_margin(a, b, m[2]))
            and _pair_margin(a, b, m[2]) == min(_pair_margin(a, b, p) for p in ("aa", "ab", "ba"))
        ),
    ),
    (r"(\d+ / \d+) right", lambda m, a, b: m[1] == right(handmade.accuracy(_values_model(a, b)))),
    (r"give the same number, " + NUMBER, lambda m, a, b: a == b and m[1] == typed(a)),
    (
        r"with a = " + NUMBER + " and b = " + NUMBER + " the numbers of the forward pass overflow float64",
        lambda m, a, b: m[1] == typed(a) and m[2] == typed(b) and _overflows(a, b),
    ),
]


def _overflows(a, b):
    try:
        handmade.accuracy(_values_model(a, b))
    except handmade.NonFiniteError:
        return True
    return False


VALUE_GRID = [-2, -1, -0.9, -0.5, 0, 0.4, 0.5, 0.5004, 0.5005, 0.6, 1, 2]
VALUE_ANSWERS = [(a, b) for a in VALUE_GRID for b in VALUE_GRID] + [
    (1e308, -1),
    (np.float64(1), np.int64(-1)),
    (Fraction(1), -1),
]


@pytest.mark.parametrize("a, b", VALUE_ANSWERS)
def test_values_around_the_right_answer(a, b):
    right = not _overflows(a, b) and handmade.accuracy(_values_model(a, b)).perfect
    verify(judged(checks.check_values(a, b), right), VALUES_CLAIMS, a, b)


# ---- 07 ----


def _lg_score(lg):
    return handmade.accuracy(handmade.blog_model(proj_lg=lg))


LG_CLAIMS = [
    (
        r"at Lg = (\S+) the model still gets (\d+ / \d+) right: the point where it starts to fail is lower",
        lambda m, lg: m[1] == typed(lg) and m[2] == right(_lg_score(lg)) and _lg_score(lg).perfect and lg > 1.0,
    ),
    (
        r"at Lg = (\S+) the model already fails \((\d+ / \d+) right\): the point where it starts to fail is higher",
        lambda m, lg: m[1] == typed(lg) and m[2] == right(_lg_score(lg)) and not _lg_score(lg).perfect and lg < 1.0,
    ),
    (
        r"at Lg = (\S+) the model gets (\d+ / \d+) right: after '(\w+)' the logits of a and b tie at "
        + NUMBER
        + r".*at the next float up, (\S+), it gets (\d+ / \d+) right",
        lambda m, lg: (
            m[1] == typed(lg)
            and m[2] == right(_lg_score(lg))
            and shows(m[4], handmade.predict(m[3], handmade.blog_model(proj_lg=lg)).logits[-1][0])
            and float(m[5]) == np.nextafter(lg, 2)
            and m[6] == right(_lg_score(float(m[5])))
            and _lg_score(float(m[5])).perfect
        ),
    ),
    (r"at Lg = (\S+) the forward pass overflows", lambda m, lg: m[1] == typed(lg)),
]

LG_ANSWERS = [1, 1.0, np.float64(1), np.int64(1), Fraction(1), np.nextafter(1.0, 2), np.nextafter(1.0, 0), 0.99,
              0.999999, 1.000001, 1.01, 1.5, 2, 0.5, 0, -1, 16, 1024, 1e300]  # fmt: skip


@pytest.mark.parametrize("lg", LG_ANSWERS, ids=[repr(lg) for lg in LG_ANSWERS])
def test_lg_threshold_around_the_right_answer(lg):
    score, above = _lg_score(float(lg)), _lg_score(np.nextafter(float(lg), np.inf))
    right = not score.perfect and above.perfect  # where it fails, and is perfect just above
    verify(judged(checks.check_lg_threshold(lg), right), LG_CLAIMS, float(lg))


# ---- 08 ----


def _greedy(text, n=6):  # the model's continuation, one prediction at a time
    for _step in range(n):
        text += handmade.predict(text[-5:]).next
    return text[-n:]


VALUE_OF = {"a": 1, "b": -1}  # the blog's values: v[Ta, V] and v[Tb, V]


COMPLETION_CLAIMS = [
    (
        r"token (\d): the last two tokens are '(\w\w)', so attention averages their values to "
        + NUMBER
        + r" and c_proj turns that into '(\w)' \(you wrote '(.)'\)",
        lambda m, text, answer: (
            (text + _greedy(text))[len(text) + int(m[1]) - 3 : len(text) + int(m[1]) - 1] == m[2]
            and shows(m[3], np.mean([VALUE_OF[t] for t in m[2]]))
            and _greedy(text)[int(m[1]) - 1] == m[4]
            and answer[int(m[1]) - 1] == m[5]
        ),
    ),
    (
        r"token (\d): the context is the single token '(\w)', so attention reads its value, "
        + NUMBER
        + r", and c_proj turns that into '(\w)' \(you wrote '(.)'\)",
        lambda m, text, answer: (
            int(m[1]) == 1
            and text == m[2]
            and shows(m[3], VALUE_OF[m[2]])
            and _greedy(text)[0] == m[4]
            and answer[0] == m[5]
        ),
    ),
    (
        r"write (\d) letters, one per generated token; yours has (\d+)",
        lambda m, text, answer: int(m[1]) == 6 and int(m[2]) == len(answer),
    ),
    (r"you wrote the context '(\w+)' too", lambda m, text, answer: m[1] == text and answer == text + _greedy(text)),
    (r"letter (\d) is '(.)'", lambda m, text, answer: answer[int(m[1]) - 1] == m[2] not in "ab"),
    (r"(\w+) :: (\w+), exactly what the model writes", lambda m, text, answer: m[1] == text and m[2] == answer),
]


def _completion_answers(text):
    right = _greedy(text)
    answers = {"right": right, "short": right[:-1], "long": right + "a", "with the context": text + right}
    answers |= {"upper case": right.upper(), "spaced": " ".join(right), "a list": list(right)}
    for k in range(6):
        answers[f"flip {k}"] = right[:k] + {"a": "b", "b": "a"}[right[k]] + right[k + 1 :]
    return answers


COMPLETION_CASES = [
    (text, name, a)
    for text in ("ba", "abb", "a", "b", "bbbbbbb", "aabaa")
    for name, a in _completion_answers(text).items()
]


@pytest.mark.parametrize("text, name, answer", COMPLETION_CASES, ids=[f"{t}-{n}" for t, n, _a in COMPLETION_CASES])
def test_completion_around_the_right_answer(text, name, answer):
    right = answer == _greedy(text)
    message = judged(checks.check_completion(text, answer), right)
    if isinstance(answer, str):
        verify(message, COMPLETION_CLAIMS, text, answer)
    else:
        assert "write your answer as text in quotes, 6 letters" in message


# ---- 09 ----


def _with_bias(ta, tb):
    params = handmade.blog_model()
    params["blocks"][0]["attn"]["c_proj"]["b"][[5, 6]] = ta, tb
    return params


ABB_EXAMPLES = handmade.prefix_examples("abb" * 10)

PATTERN_CLAIMS = [
    (
        r"first miss: after '(\w+)' expected '(\w)', got '(\w)'",
        lambda m, params: (
            dict((e.context, e.expected) for e in ABB_EXAMPLES)[m[1]] == m[2]
            and handmade.predict(m[1][-5:], params).next == m[3] != m[2]
        ),
    ),
    (r"(\d+ / \d+) right", lambda m, params: m[1] == right(handmade.accuracy(params, examples=ABB_EXAMPLES))),
    (r"still generate \(aab\)\*", lambda m, params: handmade.accuracy(params).perfect),
]

PATTERN_ANSWERS = {f"bias {ta}, {tb}": _with_bias(ta, tb) for ta in (0, 1024, -1024) for tb in (0, 1024, 2048)}
PATTERN_ANSWERS |= {
    "the blog's": handmade.blog_model(),
    "weak": handmade.blog_model(proj_lg=0.5),
    "flipped": handmade.flip_model(),
}


@pytest.mark.parametrize("name", list(PATTERN_ANSWERS))
def test_pattern_weights_around_the_right_answer(name):
    params = PATTERN_ANSWERS[name]
    right = handmade.accuracy(params, examples=ABB_EXAMPLES).perfect
    verify(judged(checks.check_pattern_weights(params), right), PATTERN_CLAIMS, params)


# ---- 10 ----

EMBEDDINGS = np.concatenate([_one_hot_embedding(t) for t in ("aabaa", "bbbbb", "ab")])


def _undo_error(gamma, beta):  # how far ln_1 with these moves the rows, computed here
    mean, var = EMBEDDINGS.mean(axis=1, keepdims=True), EMBEDDINGS.var(axis=1, keepdims=True)
    return np.abs((EMBEDDINGS - mean) / np.sqrt(var + 1e-5) * gamma + beta - EMBEDDINGS).max()


LN_CLAIMS = [
    (r"by up to " + NUMBER, lambda m, g, b: shows(m[1], _undo_error(g, b))),
    (
        r"mean " + NUMBER + " and variance " + NUMBER,
        lambda m, g, b: shows(m[1], 0.25) and shows(m[2], 0.1875) and np.allclose(EMBEDDINGS.var(axis=1), 0.1875),
    ),
    (r"each row's mean, " + NUMBER, lambda m, g, b: shows(m[1], EMBEDDINGS.mean())),
    (r"sqrt\(" + NUMBER + r" \+ eps\)", lambda m, g, b: shows(m[1], 0.1875)),
    (r"eps = " + NUMBER, lambda m, g, b: float(m[1]) == 1e-5),
    (r"so gamma needs the eps too", lambda m, g, b: np.allclose(b, 0.25)),  # "close": beta is right, only gamma not
    (r"swapped", lambda m, g, b: np.allclose(g, 0.25) and np.allclose(b, STD)),
    (r"centred on 0", lambda m, g, b: np.allclose(b, 0)),
    (r"have variance 1", lambda m, g, b: np.allclose(g, 1)),
    (r"variance " + NUMBER + r" \(\+ eps\)", lambda m, g, b: np.allclose(g, 0.1875)),
    (r"gamma = (\S+) flips", lambda m, g, b: m[1] == typed(g) and g < 0),
    (
        r"gamma = (\S+) and beta = (\S+) are rounded",
        lambda m, g, b: m[1] == typed(g) and m[2] == typed(b) and _undo_error(g, b) > 1e-9,
    ),
    (r"largest difference", lambda m, g, b: _undo_error(g, b) < 1e-9),
]

LN_GRID = [
    (g, b)
    for g in (STD, -STD, 1, 0.1875, np.sqrt(0.1875), 0.433, 0.25, 2, STD * (1 + 1e-12))
    for b in (0.25, 0, STD, 0.2501, -0.25, 0.5)
]


@pytest.mark.parametrize("g, b", LN_GRID)
def test_undo_layer_norm_around_the_right_answer(g, b):
    right = _undo_error(g, b) < 1e-9
    verify(judged(checks.check_undo_layer_norm(g, b), right), LN_CLAIMS, g, b)


# ---- 11 ----

FOX = w.E[6]

ROW_QUERY_CLAIMS = [
    (
        r"differs at entry (\d), where \[2, 7, 5\] · row \1 of Q is " + NUMBER + ", and yours is " + NUMBER,
        lambda m, a: shows(m[2], FOX @ w.Q[int(m[1])]) and shows(m[3], np.ravel(a)[int(m[1])]),
    ),
    (r"fox's embedding (\[.*?\])", lambda m, a: m[1] == str(FOX.tolist())),
    (r"that is x @ Q:", lambda m, a: np.array_equal(np.ravel(a), FOX @ w.Q)),
    (r"that is the key", lambda m, a: np.array_equal(np.ravel(a), FOX @ w.K.T)),
    (r"that is the value", lambda m, a: np.array_equal(np.ravel(a), FOX @ w.V.T)),
    (
        r"the query of '([^']+)', row (\d) of E; fox is row 6",
        lambda m, a: w.VOCABULARY[int(m[2])] == m[1] and np.array_equal(np.ravel(a), w.E[int(m[2])] @ w.Q.T),
    ),
    (r"as a column of shape \(3, 1\)", lambda m, a: np.shape(a) == (3, 1)),
    (r"a query has 3 numbers, one per row of Q; yours has (\d+)", lambda m, a: np.size(a) == int(m[1])),
    (r"x @ Q.T = (\[.*?\]): column 2 of the source's Q_x", lambda m, a: m[1] == str((FOX @ w.Q.T).tolist())),
]

RIGHT_QUERY = FOX @ w.Q.T
ROW_QUERY_ANSWERS = {"right": RIGHT_QUERY, "as a list": RIGHT_QUERY.tolist(), "as a (1, 3) row": [RIGHT_QUERY.tolist()]}
ROW_QUERY_ANSWERS |= {f"entry {i} {d:+d}": RIGHT_QUERY + d * np.eye(3)[i] for i in range(3) for d in (-1, 1)}
ROW_QUERY_ANSWERS |= {f"word {i}": w.E[i] @ w.Q.T for i in range(10) if i != 6}
ROW_QUERY_ANSWERS |= {
    "x @ Q": FOX @ w.Q, "key": FOX @ w.K.T, "value": FOX @ w.V.T, "column": RIGHT_QUERY[:, None],
    "reversed": RIGHT_QUERY[::-1], "negated": -RIGHT_QUERY, "two numbers": RIGHT_QUERY[:2], "four numbers": [44, 44, 91, 0],
}  # fmt: skip


@pytest.mark.parametrize("name", list(ROW_QUERY_ANSWERS))
def test_row_query_around_the_right_answer(name):
    answer = ROW_QUERY_ANSWERS[name]
    right = np.shape(answer) in ((3,), (1, 3)) and np.array_equal(np.ravel(answer), RIGHT_QUERY)
    verify(judged(checks.check_row_query(answer), right), ROW_QUERY_CLAIMS, answer)


# ---- 12 ----

MEAN = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]

AVERAGING_CLAIMS = [
    (
        r"row (\d) should be " + ROW + "; yours is " + ROW,
        lambda m, a: shows_row(m[2], MEAN[int(m[1])]) and shows_row(m[3], np.asarray(a)[int(m[1])]),
    ),
    (r"yours sum to " + ROW, lambda m, a: shows_row(m[1], np.asarray(a).sum(axis=1))),
    (
        r"rounded: row (\d) is " + ROW + ", not " + ROW,
        lambda m, a: shows_row(m[2], np.asarray(a)[int(m[1])]) and shows_row(m[3], MEAN[int(m[1])]),
    ),
    (r"add up the past", lambda m, a: np.allclose(a, np.tril(np.ones((4, 4))))),
    (r"mask the future", lambda m, a: np.allclose(a, 0.25)),
    (r"that is the transpose", lambda m, a: np.allclose(a, MEAN.T)),
    (r"only keeps itself", lambda m, a: np.allclose(a, np.eye(4))),
    (r"the weights are 4x4.*; yours has shape (\(.*\))", lambda m, a: str(np.shape(a)) == m[1]),
    (r"a running mean", lambda m, a: True),
]

AVERAGING_ANSWERS = {
    "right": MEAN, "as lists": MEAN.tolist(), "sums": np.tril(np.ones((4, 4))), "divided by 4": np.tril(np.ones((4, 4))) / 4,
    "rounded to 2": np.round(MEAN, 2), "rounded to 4": np.round(MEAN, 4), "transposed": MEAN.T, "identity": np.eye(4),
    "uniform": np.full((4, 4), 0.25), "rows swapped": MEAN[[1, 0, 2, 3]], "3x3": MEAN[:3, :3], "one entry off": MEAN + 0.1 * np.eye(4, k=-1),
    "negated": -MEAN, "negated, as a learner types it": [[-1, -0.0, -0.0, -0.0], [-0.5, -0.5, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
}  # fmt: skip


@pytest.mark.parametrize("name", list(AVERAGING_ANSWERS))
def test_averaging_weights_around_the_right_answer(name):
    answer = AVERAGING_ANSWERS[name]
    right = np.shape(answer) == (4, 4) and np.allclose(answer, MEAN)
    verify(judged(checks.check_averaging_weights(answer), right), AVERAGING_CLAIMS, answer)


# ---- 13 ----

RIGHT_FLOPS = count_flops("aab").total
DOT_PRODUCTS = 3 * 24 + 3 * 3 + 3 * 8 + 3 * 8 + 3 * 2  # qkv, scores, weights @ v, c_proj, logits: one per output entry
TERMS = blog_flops(3, 8, 2)

FLOP_CLAIMS = [
    (r"off by ([+-]\d+)", lambda m, a: int(m[1]) == a - RIGHT_FLOPS),
    (r"the largest part is (.*): (\d+) operations", lambda m, a: TERMS[m[1]] == int(m[2]) == max(TERMS.values())),
    (
        r"the count for (?:a full window of )?(\d) tokens; this asks for 3",
        lambda m, a: count_flops("a" * int(m[1])).total == a,
    ),
    (
        r"(\d+) short: exactly the term '(.*)' of the table",  # the one term of that size
        lambda m, a: TERMS[m[2]] == int(m[1]) == RIGHT_FLOPS - a and list(TERMS.values()).count(int(m[1])) == 1,
    ),
    (
        r"(\d+) short: exactly the size of each of the terms (.*) of the table",  # every term of that size, named
        lambda m, a: (
            int(m[1]) == RIGHT_FLOPS - a
            and sorted(re.findall(r"'([^']*)'", m[2])) == sorted(t for t, n in TERMS.items() if n == int(m[1]))
        ),
    ),
    (r"only k - 1 additions", lambda m, a: a == RIGHT_FLOPS + DOT_PRODUCTS),
    (r"(\d+) operations for (\d) tokens", lambda m, a: int(m[1]) == a == RIGHT_FLOPS and m[2] == "3"),
    (r"a whole number; yours is (\S+)", lambda m, a: m[1] == typed(a) and not float(a).is_integer()),
]

FLOP_ANSWERS = [RIGHT_FLOPS + d for d in (-7, -1, 1, 7, DOT_PRODUCTS)] + [RIGHT_FLOPS - t for t in TERMS.values()]
FLOP_ANSWERS += [count_flops("a" * m).total for m in range(1, 6)] + [
    RIGHT_FLOPS + 0.5,
    float(RIGHT_FLOPS),
    np.int64(RIGHT_FLOPS),
    -RIGHT_FLOPS,
]


@pytest.mark.parametrize("answer", FLOP_ANSWERS, ids=[repr(a) for a in FLOP_ANSWERS])
def test_flop_count_around_the_right_answer(answer):
    verify(judged(checks.check_flop_count(3, answer), answer == RIGHT_FLOPS), FLOP_CLAIMS, answer)


# ---- 14 ----

ABC = TASKS["abc"]
ACB_EXAMPLES = handmade.unambiguous_examples(5, pattern="acb")
LETTER = {"Ta": "a", "Tb": "b", "Tc": "c"}


def _turned(turn, strength=1024):
    basis = ABC.labels.residual
    return handmade.with_parts(reference(ABC), {"c_proj.w": basis.matrix({(s, t): strength for s, t in turn.items()})})


def _graded(params):  # {context: (predicted, margin)}, computed here: a tie with the right letter predicts the other
    graded = {}
    for e in ACB_EXAMPLES:
        logits = handmade.predict(e.context, params, alphabet="abc").logits[-1]
        right, others = "abc".index(e.expected), "abc".replace(e.expected, "")
        margin = logits[right] - np.delete(logits, right).max()
        graded[e.context] = e.expected if margin > 0 else others[int(np.argmax(np.delete(logits, right)))], margin
    return graded


def _acb_params(answer):
    return answer if "wte" in answer else _turned(answer)


def _failing(answer):
    return {
        c: p
        for c, (p, _m) in _graded(_acb_params(answer)).items()
        if p != dict((e.context, e.expected) for e in ACB_EXAMPLES)[c]
    }


ACB_EXPECTED = {e.context: e.expected for e in ACB_EXAMPLES}

ACB_CLAIMS = [
    (
        r"(\d+) / 15 contexts of \(acb\)\* are right, smallest margin " + NUMBER + r" \(after '(\w+)'\)",
        lambda m, a: (
            int(m[1]) == 15 - len(_failing(a))
            and shows(m[2], min(mg for _p, mg in _graded(_acb_params(a)).values()))
            and shows(m[2], _graded(_acb_params(a))[m[3]][1])
        ),
    ),
    (
        r"Your turn sends (T\w) to (T\w), so after (\w) the model says (\w), as in ((?:'\w+'(?:, )?)+); but in \(acb\)\* \3 is followed by (\w) \((\d+) contexts fail\)",
        lambda m, a: (
            a[m[1]] == m[2]
            and LETTER[m[1]] == m[3]
            and ACB_EXPECTED[m[3]] == m[6]
            and all(c.endswith(m[3]) and _failing(a).get(c) == m[4] for c in re.findall(r"'(\w+)'", m[5]))
            and int(m[7]) == sum(c.endswith(m[3]) for c in _failing(a))
        ),
    ),
    (
        r"'(\w+)': expected (\w), the model predicted (\w) \(margin " + NUMBER + r"\)",
        lambda m, a: (
            ACB_EXPECTED[m[1]] == m[2] and _failing(a)[m[1]] == m[3] and shows(m[4], _graded(_acb_params(a))[m[1]][1])
        ),
    ),
    (
        r"All 15 contexts of \(acb\)\* are right, but the smallest margin is "
        + NUMBER
        + r", after '(\w+)': a pass needs more than 1",
        lambda m, a: (
            not _failing(a) and shows(m[1], _graded(_acb_params(a))[m[2]][1]) and _graded(_acb_params(a))[m[2]][1] <= 1
        ),
    ),
    (
        r"all 15 contexts of \(acb\)\* are right, with a smallest margin of " + NUMBER + r" \(after '(\w+)'\)",
        lambda m, a: (
            not _failing(a) and shows(m[1], _graded(_acb_params(a))[m[2]][1]) and _graded(_acb_params(a))[m[2]][1] > 1
        ),
    ),
    (
        r"should have the keys Ta, Tb, Tc; yours has (.*)",
        lambda m, a: sorted(a) != ["Ta", "Tb", "Tc"] and m[1] == ", ".join(repr(k) for k in a),
    ),
    (
        r"maps (T\w) to (.*?); each value should be one of Ta, Tb, Tc",
        lambda m, a: repr(a[m[1]]) == m[2] and a[m[1]] not in LETTER,
    ),
]

ACB_ANSWERS = {"".join(LETTER[t] for t in targets): dict(zip(LETTER, targets)) for targets in product(LETTER, repeat=3)}
ACB_ANSWERS |= {
    "the right turn under the letters' names": {"a": "Tc", "b": "Ta", "c": "Tb"},
    "the right turn to letters": {"Ta": "c", "Tb": "a", "Tc": "b"},
    "an extra key": {"Ta": "Tc", "Tb": "Ta", "Tc": "Tb", "Td": "Ta"},
    "a key missing": {"Ta": "Tc", "Tb": "Ta"},
    "weights, right": _turned({"Ta": "Tc", "Tb": "Ta", "Tc": "Tb"}),
    "weights, the (abc)* turn": _turned({"Ta": "Tb", "Tb": "Tc", "Tc": "Ta"}),
    "weights, strength 2": _turned({"Ta": "Tc", "Tb": "Ta", "Tc": "Tb"}, 2),
    "weights, strength 1.5": _turned({"Ta": "Tc", "Tb": "Ta", "Tc": "Tb"}, 1.5),
    "weights, strength 1": _turned({"Ta": "Tc", "Tb": "Ta", "Tc": "Tb"}, 1),
}


@pytest.mark.parametrize("name", list(ACB_ANSWERS))
def test_acb_around_the_right_answer(name):
    answer = ACB_ANSWERS[name]
    readable = "wte" in answer or sorted(answer) == ["Ta", "Tb", "Tc"] and set(answer.values()) <= set(LETTER)
    right = readable and not _failing(answer) and min(mg for _p, mg in _graded(_acb_params(answer)).values()) > 1
    verify(judged(checks.check_acb(answer), right), ACB_CLAIMS, answer)
