"""The tasks and their grader: every reference passes, every blank fails, broken models fail with
the right stage named, and bad submissions get one line, never a traceback."""

import dataclasses
import inspect
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import as_lists, reads_as_chinese

import handmade
from handmade import Basis, Example, Labels, WeightsError, parts, training, with_parts
from handmade.arguments import MAX_MESSAGE
from handmade.course import grader, solutions, task_options, tasks, user_code
from handmade.course.grader import MARGIN_THRESHOLD, grade
from handmade.course.solutions import reference
from handmade.course.tasks import TASKS, blank, examples, get_task
from handmade.files import load_weights, save_weights, weights_from_json
from handmade.inference import accuracy, complete, next_in_pattern, prefix_examples, unambiguous_examples
from handmade.weights import count_nonzero

NAMES = list(TASKS)


def test_at_least_twelve_tasks_with_the_required_ones():
    assert len(TASKS) >= 12
    assert {"aab", "abb", "abc", "xor", "induction"} <= set(TASKS)
    assert TASKS["abb"].alphabet == "ab" and TASKS["abb"].n_ctx == 5
    assert TASKS["abc"].alphabet == "abc" and TASKS["abc"].n_ctx == 5
    assert TASKS["xor"].mlp and TASKS["first_not_last"].n_head == 2 and TASKS["induction"].n_layer == 2


def test_shapes_rise_from_no_block_to_two_blocks():
    shapes = [(t.n_layer, t.n_head, t.mlp) for t in TASKS.values()]
    assert shapes[0] == (0, 1, False) and shapes[-1] == (2, 1, False)
    assert sum(t.n_layer == 0 for t in TASKS.values()) == 2


# ---- the contexts and the rules -------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_rules_are_deterministic_and_answer_in_the_alphabet(name):
    task = TASKS[name]
    for length in range(1, task.n_ctx + 1):
        for letters in itertools.product(task.alphabet, repeat=length):
            context = "".join(letters)
            answer = task.next_token(context)
            assert answer == task.next_token(context)
            assert answer is None or answer in task.alphabet


@pytest.mark.parametrize("name", NAMES)
def test_every_graded_example_follows_the_rule_and_the_count_is_modest(name):
    task = TASKS[name]
    graded = examples(task)
    assert len(graded) > 0 and tasks.grading_cost(task, task.structure)[0] < tasks.MAX_GRADING / 10
    assert all(task.next_token(e.context) == e.expected for e in graded)
    enumerated = graded[len(task.extra_examples) :]
    assert len(set(enumerated)) == len(enumerated)
    assert max(len(e.context) for e in enumerated) == task.n_ctx


def test_abc_every_piece_of_the_pattern_has_exactly_one_next_token():
    stream = "abc" * 4
    pieces = {stream[i : i + n] for n in range(1, 6) for i in range(3)}
    assert all(len(next_in_pattern(p, "abc")) == 1 for p in pieces)
    assert {e.context for e in examples(TASKS["abc"])} == pieces
    assert all(e.expected == next(iter(next_in_pattern(e.context, "abc"))) for e in examples(TASKS["abc"]))


def test_aab_grades_the_blogs_27_examples_and_every_unambiguous_context():
    task = TASKS["aab"]
    assert examples(task)[:27] == tuple(prefix_examples())
    assert set(examples(task)[27:]) == set(unambiguous_examples())
    report = grade(task, handmade.blog_model())
    assert report.passed and report.total == 27 + len(unambiguous_examples()) == report.correct
    assert reference(task)["wte"].tolist() == handmade.blog_model()["wte"].tolist()


def test_first_position_of_the_blog_and_ties_of_majority_are_not_graded():
    assert TASKS["aab"].next_token("a") is None and TASKS["majority"].next_token("abba") is None
    assert TASKS["induction"].next_token("abcab") == "c" and TASKS["induction"].next_token("abacba") is None


# ---- reference solutions and blanks ---------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_each_reference_solution_passes_with_a_margin(name):
    task = TASKS[name]
    params = reference(task)
    report = grade(task, params)
    assert report.passed, str(report)
    assert report.correct == report.total == len(examples(task))
    assert report.margin > MARGIN_THRESHOLD and not report.failures and report.diagnosis is None
    assert report.nonzero == count_nonzero(params) > 0
    # the same answers through the package's own accuracy loop, one pass per context
    assert accuracy(params, examples=examples(task), alphabet=task.alphabet).perfect


@pytest.mark.parametrize("name", NAMES)
def test_reference_and_blank_have_the_tasks_least_shape_and_labels(name):
    task = TASKS[name]
    ref, empty = reference(task), blank(task)
    for params in (ref, empty):
        assert params.labels == task.labels
        assert params["wte"].shape == (task.n_vocab, task.n_embd) and len(params["wpe"]) == task.n_ctx
        assert len(params["blocks"]) == task.n_layer
        assert all(block.get("n_head", 1) == task.n_head for block in params["blocks"])
        assert any("mlp" in block for block in params["blocks"]) == task.mlp
    assert handmade.check_weights(empty).structure == handmade.check_weights(ref).structure
    assert count_nonzero(empty) == 0


@pytest.mark.parametrize("name", NAMES)
def test_each_blank_fails_and_the_diagnosis_says_nothing_tells_the_tokens_apart(name):
    report = grade(name, blank(name))
    assert not report.passed
    assert report.margin <= 0 and report.nonzero == 0
    assert report.diagnosis.startswith("no part of the model tells") and set(report.shares.values()) == {0.0}
    assert "FAIL" in str(report) and "reference" not in str(report)


def test_task_descriptions_name_the_shape():
    text = TASKS["first_not_last"].describe()
    assert text.startswith("first_not_last: ") and "2 heads each" in text and "120 graded" in text
    assert "no blocks" in TASKS["alternate"].shape() and "an MLP" in TASKS["xor"].shape()


@pytest.mark.parametrize(
    "typed, meant", [("ABC", "abc"), ("Xor", "xor"), ("TWO_BACK", "two_back"), ("After_Last_C", "after_last_c")]
)
def test_a_task_name_in_other_letter_cases_is_told_the_name_it_means(typed, meant):
    """A name that is a task's in capitals (as a shell's caps lock types it): the task is suggested, as a typo's is."""
    with pytest.raises(ValueError, match=f"there is no task '{typed}'; did you mean {meant}\\? "):
        get_task(typed)


def test_unknown_task_is_one_line():
    with pytest.raises(
        ValueError, match="there is no task 'abcd'; did you mean abc\\? The tasks are alternate, "
    ) as error:
        grade("abcd", {})
    assert "\n" not in str(error.value) and str(error.value).endswith(
        "; a teacher's task is read from its file (--tasks FILE.py; in Python, load_tasks(FILE.py))"
    )


# ---- the margin -----------------------------------------------------------------------------


def test_a_tie_has_margin_zero_is_no_right_prediction_and_does_not_pass():
    params = reference("repeat")
    params["wte"][0] = 0  # token a scores 0 for every token: a tie, which argmax would break towards a
    report = grade("repeat", params)
    ties = [e for e in examples("repeat") if e.expected == "a"]
    assert report.correct == report.total - len(ties) and report.n_failures == len(ties)  # none counted right...
    assert report.margin == 0 and not report.passed  # ...nor passing
    assert report.smallest_at.expected == "a"
    assert all(m.tie and m.margin == 0 and m.predicted != "a" for m in report.failures)  # said as the other token
    assert "whose logit ties with that of b (margin 0): a tie counts as wrong" in str(report)
    assert report.diagnosed == report.failures[0].example  # none predicted wrong outright: the first tie is spoken of


def test_a_margin_equal_to_the_threshold_does_not_pass():
    params = reference("repeat")
    params["wte"] = params["wte"] / 2  # one-hot rows: the right logit 1, the others 0
    report = grade("repeat", params)
    assert report.correct == report.total and report.margin == MARGIN_THRESHOLD and not report.passed
    assert "a pass needs 100% and more than 1" in str(report)


def test_margins_of_counts_the_best_wrong_logit():
    logits = np.array([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0], [0.0, 5.0, 1.0]])
    margins, predicted = grader.margins_of(logits, np.array([0, 1, 0]), MARGIN_THRESHOLD)
    assert margins.tolist() == [1.0, 0.0, -5.0] and predicted.tolist() == [0, 0, 1]  # a tie predicts the other token
    near = np.array([[1 + 2e-16, 0.0], [1 + 1e-6, 0.0], [1e9 + 1, 1e9]])  # rounding; a design's own; rounding at 1e9
    assert grader.margins_of(near, np.array([0, 0, 0]), MARGIN_THRESHOLD)[0].tolist() == [1.0, 1 + 1e-6, 1.0]
    ties = np.array([[1024 + 2e-13, 1024.0, 0.0], [1e-300, 0.0, 0.0], [2e-6, 0.0, 0.0]])  # rounding; a design's own
    margins, predicted = grader.margins_of(ties, np.array([0, 0, 0]), MARGIN_THRESHOLD)
    assert margins.tolist() == [0.0, 0.0, 2e-6] and predicted.tolist() == [1, 1, 0]


def say_last(context):
    """Say the last letter again."""
    return context[-1]


@pytest.mark.parametrize("shift", [0.1, 0.3, 0.7, 0.8, 1.2, 1.7, -0.9, 2.3])
def test_a_design_whose_margin_is_exactly_the_threshold_fails_with_that_margin_on_every_machine(shift):
    """No block, wte the identity, and wpe adding the same number to every direction at a position (position 0's
    ``shift``, the others 1.7 and 1.2): every logit gap is exactly 1, computed as 1 + shift - shift, which rounding
    makes 0.9999999999999998 or 1.0000000000000002 as the order of the sums goes (1.7 passed before this rule). A
    margin within rounding of the threshold is the threshold: it fails, with margin 1, in the report and its reason."""
    task = handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)(say_last)
    wpe = np.repeat([[shift], [1.7], [1.2]], 3, axis=1)  # [n_ctx, n_embd]
    report = grade(task, with_parts(blank(task), {"wte": np.eye(3), "wpe": wpe}))
    assert report.correct == report.total and report.margin == MARGIN_THRESHOLD and not report.passed
    assert "margin: 1 (smallest at" in str(report) and report.focus.margin == MARGIN_THRESHOLD, str(report)


# ---- where it goes wrong --------------------------------------------------------------------


def zero_v_entry(name, row, col):
    params = reference(name)
    v = parts.get(params, "v")
    v[params.labels.residual.index(row), params.labels.residual.index(col)] = 0
    return parts.with_part(params, "v", v)


def swap_heads_queries(name):
    params = reference(name)

    def swapped(m):  # [rows, n_attn]: head 0's columns and head 1's change places
        half = m.shape[1] // 2
        return np.hstack([m[:, half:], m[:, :half]])

    return parts.with_parts(params, {"q": swapped(parts.get(params, "q")), "q.b": swapped(parts.get(params, "q.b"))})


def without_mlp(name):
    params = reference(name)
    params["blocks"] = [{"attn": block["attn"]} for block in params["blocks"]]
    return params


def scaled(name, part, factor):
    params = reference(name)
    return parts.with_part(params, part, parts.get(params, part) * factor)


BROKEN = {  # what is broken, and phrases the explanation must have: the part at fault, with its own numbers
    "a weak Lg in q spreads attention": (
        "aab",
        lambda: handmade.blog_model(q_lg=1),
        [
            "head 0 of block 0 (through c_proj) pushes toward b by 983.6, not enough",
            "position 0 (b) with weight 0.26",
            "q[P2, P1] = 1 and k[P1, P1] = 1",
        ],
    ),
    "a weak Lg in c_proj": (
        "aab",
        lambda: handmade.blog_model(proj_lg=0.4),
        [
            "head 0 of block 0 (through c_proj) pushes toward b by 0.8",
            "its output there, V = 1",
            "c_proj.w[V, Ta] = -0.4",
        ],
    ),
    "a zeroed value": (
        "two_back",
        lambda: zero_v_entry("two_back", "Tb", "Tb"),
        [
            "reads position 0 (b) with weight 1; its output there is 0: v carries nothing of what it reads there into Ta, Tb",
            "v[Tb, Tb] = 0",
        ],
    ),
    "swapped heads": (
        "first_not_last",
        lambda: swap_heads_queries("first_not_last"),
        # both heads are wrong: head 0's push the wrong way (512) is less than the margin lacks (514), so head 1,
        # furthest short of the reference's, is named, with the entry of q.b swapped into it
        ["head 1 of block 0", "position 0 (a) with weight 0.5, position 1 (b) with weight 0.5", "q.b[h1·-] = 1024"],
    ),
    "no MLP": ("xor", lambda: without_mlp("xor"), ["This model lacks the MLP of block 0"]),
    "a weak MLP": (
        "xor",
        lambda: scaled("xor", "mlp.c_fc.w", 0.001),
        ["the MLP of block 0 pushes toward 1 by 511.3", "mlp.c_fc.w[V, s>0] = 1.024"],
    ),
    "no previous-token head": (
        "induction",
        lambda: scaled("induction", "blocks[0].q", 0),
        [
            "head 0 of block 1 (through c_proj) pushes toward a by 1024",
            "head 0 of block 1 reads position 2 (a) with weight 1",
            "head 0 of block 0 reads position 0 (a) with weight 0.5, position 1 (b) with weight 0.5",
            "The query there is 0",
            "blocks[0].q[P1, P0] = 0",  # what position 1 should ask for: position 0
        ],
    ),
    "block 1 reads position 0": (
        "induction",
        lambda: scaled("induction", "blocks[1].q.b", 0),
        [
            "Position 0 scores as much as position 1",
            "At position 0, head 0 of block 0 reads position 0 (a) with weight 1",
        ],
    ),
    "no first marker": (
        "first",
        lambda: scaled("first", "wpe", 0),
        ["position 0 (a) with weight 0.5, position 1 (b)", "q.b[first] = 1024"],
    ),
    "a wrong c_proj": (
        "abc",
        lambda: parts.with_part(reference("abc"), "c_proj.w", parts.get(reference("abc"), "c_proj.w").T),
        [
            "head 0 of block 0 (through c_proj) pushes toward c by 1024",
            "its output there, Ta = 1",
            "c_proj.w[Ta, Tc] = 1024",
        ],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_reference_fails_and_the_explanation_names_the_part_at_fault(case):
    name, build, phrases = BROKEN[case]
    report = grade(name, build())
    assert not report.passed
    said = "\n".join(report.diagnosis_lines())  # the part named, then the path back from it
    for phrase in phrases:
        assert phrase in said, said
    assert repr(report.diagnosed.context) in str(report) and "reference" not in str(report)
    first = report.explained[0]
    assert sum(first.shares.values()) == pytest.approx(first.margin, abs=1e-9)


def one_head_xor():
    """XOR of the last two bits without an MLP: the last token's query matches its own token, so it
    splits its attention between the last two positions when they agree and keeps it on itself
    when they differ; the values carry the position, and wpe sets the threshold in between."""
    places = [f"P{i}" for i in range(5)]
    basis = Basis({"position": places, "token": ["T0", "T1"], "match": ["M0", "M1"], "scratch": ["V"]})
    q = basis.matrix(
        {
            **{(p, places[j]): 4000 for i, p in enumerate(places) for j in (i - 1, i) if j >= 0},
            ("M0", "M0"): 400,
            ("M1", "M1"): 400,
        }
    )
    k = basis.matrix({**{(p, p): 1 for p in places}, ("M0", "M0"): 1, ("M1", "M1"): 1})
    v = basis.matrix({(p, "V"): 100 * i for i, p in enumerate(places)})  # position i is worth 100 i
    block = {
        "attn": {
            "c_attn": handmade.qkv_weights(q, k, v),
            "c_proj": {"w": basis.matrix({("V", "T1"): 1}), "b": basis.vector({})},
        }
    }
    wte = np.array([basis.vector({"T0": 1, "M0": 1}), basis.vector({"T1": 1, "M1": 1})])
    wpe = np.array([basis.vector({p: 1, "T0": 100 * (i - 0.25)}) for i, p in enumerate(places)])
    return handmade.Weights({"wte": wte, "wpe": wpe, "blocks": [block]}, Labels("01", basis))


def test_the_grader_grades_behaviour_not_shape():
    report = grade("xor", one_head_xor())
    assert report.passed and report.margin > 20


def test_a_different_shape_still_lists_the_failing_contexts_and_predictions():
    report = grade("xor", without_mlp("xor"))
    assert report.failures and report.n_failures >= len(report.failures)
    miss = report.failures[0]
    assert miss.predicted != miss.example.expected and miss.margin <= 0
    text = str(report)
    assert f"{miss.example.context!r}: expected {miss.example.expected}, the model predicted {miss.predicted}" in text
    assert "the margin over 0 is -1; part by part: wte -1, wpe 0, blocks[0].head0 0, blocks[0].c_proj.b 0" in text


def test_a_right_but_unsure_model_is_diagnosed_at_its_smallest_margin():
    report = grade("aab", handmade.blog_model(proj_lg=1.5))
    assert report.correct == report.total and not report.passed
    assert report.explained and all(e.margin <= report.threshold for e in report.explained)  # every context under it
    assert report.diagnosed == report.smallest_at and "head 0 of block 0 (through c_proj)" in report.diagnosis
    assert "why the margin is too small, for 'aa' → b" in str(report) and "where it goes wrong" not in str(report)


def test_unnamed_directions_still_get_an_explanation_in_their_numbered_names():
    params = handmade.blog_model(proj_lg=0.4)
    params.labels = Labels("ab", Basis.numbered(8))
    report = grade("aab", params)
    assert "its output there, e7 = 1" in report.focus.path[0].text and "c_proj.w[e7, e5] = -0.4" in str(report)


def test_more_positions_than_the_reference_are_explained_from_the_model_alone():
    params = handmade.blog_model()
    params["wpe"] = np.vstack([params["wpe"], np.zeros((3, 8))])  # 8 positions, the last 3 empty
    report = grade("aab", params)
    assert not report.passed and report.diagnosis and "reference" not in str(report)


def test_grading_without_a_diagnosis():
    report = grade("abc", blank("abc"), diagnose=False)
    assert not report.passed and report.diagnosis is None and report.failures


# ---- what a submission may be ---------------------------------------------------------------


def test_plain_dicts_and_weights_files_are_graded(tmp_path):
    assert grade("induction", as_lists(reference("induction"))).passed  # plain lists, no labels
    report = grade("abc", as_lists(blank("abc")))
    assert not report.passed and report.diagnosis.startswith("no part of the model")
    path = tmp_path / "xor.json"
    save_weights(reference("xor"), path)
    assert grade("xor", load_weights(path)).passed


def test_labels_that_no_longer_fit_are_set_aside():
    report = grade("xor", without_mlp("xor"))  # its labels still name the MLP's hidden units
    assert not report.passed and "This model lacks the MLP of block 0:" in report.diagnosis
    stale = handmade.Weights(as_lists(reference("abc")), Labels("abc", Basis.numbered(4)))
    assert grade("abc", stale).passed


def test_labels_say_what_token_ids_mean_to_grade_as_to_complete():
    params = reference("xor")
    swapped = handmade.Weights(params, Labels("10", params.labels.residual, hidden=params.labels.hidden))
    swapped["wte"] = params["wte"][::-1]  # the same model, its ids in the other order
    assert grade("xor", swapped).passed and complete("01", 1, params=swapped) == complete("01", 1, params=params)
    lying = handmade.Weights(params, Labels("10", params.labels.residual, hidden=params.labels.hidden))
    assert not grade("xor", lying).passed  # the rows say "0" where the labels say "1"
    params.labels = Labels("ab", params.labels.residual, hidden=params.labels.hidden)
    with pytest.raises(WeightsError, match="say their tokens are 'ab', but the task xor has '01'"):
        grade("xor", params)


def with_nan(params):
    params = as_lists(reference("abc"))
    params["wte"][1][1] = float("nan")
    return params


def huge(params):
    params = reference("abc")
    params["wte"] *= 1e200  # finite, but q @ k.T is 1e200 * LG * 1e200: inf
    return params


BAD = {
    "None": ("abc", None, "weights must be a dict"),
    "a string": ("abc", "weights.json", "load the file first with handmade.load_weights"),
    "a list": ("abc", [1, 2], "weights must be a dict"),
    "an empty dict": ("abc", {}, "the weights are missing 'wte'"),
    "wrong n_vocab": (
        "abc",
        handmade.blog_model(),
        "n_vocab, the token rows of wte, is 2, but the task abc has 3 tokens (abc)",
    ),
    "too few positions": (
        "induction",
        reference("first"),
        "n_ctx, the rows of wpe, is 4, but the task induction grades contexts of up to 6",
    ),
    "nan": ("abc", with_nan(None), "wte[1, 1] is nan; every weight must be a finite number"),
    "overflow": ("abc", huge(None), "the forward pass produced inf or nan"),
    "a plain dict with a missing key": ("abc", {"wte": [[1.0]], "blocks": []}, "the weights are missing 'wpe'"),
}


def test_a_playground_handed_in_for_its_weights_is_told_to_give_its_params():
    from handmade.course.grader import graded
    from handmade.widgets import Playground

    playground = Playground(task="abc")
    for grading in (grade, graded):
        with pytest.raises(TypeError, match=r"give its params \(playground\.params\)"):
            grading("abc", playground)
    assert grade("abc", playground.params).total > 0  # which it then grades


@pytest.mark.parametrize("lang, any_length", [("en", "any"), ("zh", "任意")])
def test_a_shape_that_allows_any_length_says_so_in_the_learners_language(lang, any_length):
    params = reference("abc")
    params["wte"] = np.zeros((3, 7))  # wpe's width no longer matches: its rows may be any many, 7 wide
    handmade.set_language(lang)
    try:
        with pytest.raises(WeightsError) as error:
            grade("abc", params)
    finally:
        handmade.set_language("en")
    assert f"({any_length}, 7)" in str(error.value) and "wpe" in str(error.value), str(error.value)


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_submission_gets_one_line(case):
    name, params, phrase = BAD[case]
    with pytest.raises(WeightsError) as error:
        grade(name, params)
    assert phrase in str(error.value) and "\n" not in str(error.value)


def test_malformed_json_is_the_loaders_one_line():
    with pytest.raises(WeightsError, match="is not valid JSON") as error:
        grade("abc", weights_from_json('{"wte": [[1, 0, 0]'))
    assert "\n" not in str(error.value)


def test_the_report_reads_as_a_few_lines():
    text = str(grade("abc", blank("abc")))
    lines = text.splitlines()
    assert lines[0] == "task abc: FAIL" and lines[1] == "  right: 0 / 15 contexts (0.0%)"  # a tie is no prediction
    assert "  first wrong predictions (15 in all):" in lines
    assert "'a': expected b, whose logit ties with that of a (margin 0): a tie counts as wrong" in text
    assert lines[-2] == (
        "  where it goes wrong, for 'a' → b: the margin over a is 0; "
        "part by part: wte 0, wpe 0, blocks[0].head0 0, blocks[0].c_proj.b 0"
    )
    assert lines[-1].startswith("    no part of the model tells b from a")
    assert str(grade("abc", reference("abc"))).splitlines()[0] == "task abc: PASS"


def test_examples_are_reused_as_given():
    assert isinstance(examples(get_task("abc"))[0], Example)


# ---- tasks a teacher writes -----------------------------------------------------------------

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def readme_example():
    """The code the README's Tasks section shows for a task of one's own."""
    tasks_section = README[README.index("## Tasks") : README.index("## Tests")]
    return re.search(r"```python\n(.+?)\n```", tasks_section, re.S).group(1)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_name_a_tasks_file_does_not_have_is_said_with_the_names_it_has(tmp_path, language):
    """load_tasks(path)["shfit"], the README's pattern with a slip: a KeyError (and a ValueError) of one line in
    the learner's language, naming the close name and the file's tasks, not a bare KeyError: 'shfit'."""
    path = tmp_path / "shift.py"
    path.write_text(readme_example(), encoding="utf-8")
    found = tasks.load_tasks(path)
    handmade.set_language(language)
    try:
        with pytest.raises(KeyError) as error:
            found["shfit"]
    finally:
        handmade.set_language("en")
    said = {"en": "there is no task 'shfit'; did you mean shift? The tasks are shift", "zh": "shift"}[language]
    assert isinstance(error.value, ValueError) and said in str(error.value) and "\n" not in str(error.value)
    assert found.get("shfit") is None and "shfit" not in found and found["shift"] is tasks.get_task("shift", found)
    with pytest.raises(KeyError, match=r"^a task is a Task or a task's name; found 5$"):  # as get_task says it
        found[5]


def test_the_readmes_example_is_true(tmp_path):
    path = tmp_path / "shift.py"
    path.write_text(readme_example(), encoding="utf-8")
    shift = tasks.load_tasks(path)["shift"]
    assert shift("ab") == "c" and len(examples(shift)) == 39  # "39 here"
    assert shift.statement == "Say the letter after the last one: a to b, b to c, c to a."
    report = grade(shift, reference(shift))
    assert report.passed and report.margin > MARGIN_THRESHOLD


def test_a_tasks_file_runs_as_a_module_python_knows(tmp_path):
    """Code that looks its own module up in sys.modules (a dataclass under postponed annotations, pickle)
    runs in a tasks file as it does under ``python FILE.py``; two loads of one file keep their own."""
    path = tmp_path / "kinds.py"
    path.write_text(
        "from __future__ import annotations\n"
        "import dataclasses, pickle\n"
        "import handmade\n\n\n"
        "@dataclasses.dataclass\n"
        "class Answer:\n"
        "    letter: str\n\n\n"
        "@handmade.task(alphabet='ab', n_ctx=2, n_embd=2)\n"
        "def say_a(context: str) -> str | None:\n"
        '    """Say a."""\n'
        "    return pickle.loads(pickle.dumps(Answer('a'))).letter\n",
        encoding="utf-8",
    )
    import sys

    before = len(sys.modules)
    assert tasks.load_tasks(path)["say_a"]("ab") == "a"
    assert tasks.load_tasks(path)["say_a"]("b") == "a" and len(sys.modules) == before + 1  # again: in its place
    path.write_text("raise ValueError('no')\n", encoding="utf-8")
    with pytest.raises(ValueError, match="it raised ValueError"):
        tasks.load_tasks(path)
    assert len(sys.modules) == before  # a file that failed keeps nothing


def shift_rule(context):
    """Say the letter after the last one: a to b, b to c, c to a."""
    return {"a": "b", "b": "c", "c": "a"}[context[-1]]


def make(rule=shift_rule, **options):
    return handmade.task(**{"alphabet": "abc", "n_ctx": 3, "n_embd": 3, **options})(rule)


def test_the_decorator_returns_a_task_that_still_answers_like_its_rule():
    shift = make()
    assert isinstance(shift, tasks.Task) and shift.name == "shift_rule" and shift("ab") == "c"
    assert (shift.alphabet, shift.n_ctx, shift.n_vocab, shift.n_embd) == ("abc", 3, 3, 3)
    assert (shift.n_layer, shift.n_head, shift.mlp, shift.extra_examples) == (1, 1, False, ())
    assert shift.labels.residual == Basis({"token": ["Ta", "Tb", "Tc"]}) and not shift.has_reference
    assert shift.labels.attention == (shift.labels.residual,) and shift.labels.hidden == (None,)
    assert repr(shift) == "Task('shift_rule', alphabet='abc', n_ctx=3)"
    assert shift.describe().splitlines() == [
        "shift_rule: Say the letter after the last one: a to b, b to c, c to a.",
        "  alphabet 'abc', contexts of 1 to 3 tokens, 39 graded",
        "  designed for: n_embd = 3, 1 block, 1 head each, no MLP",
    ]
    assert get_task(shift) is shift and "shift_rule" not in TASKS  # a teacher's task is not a built-in one


def test_a_docstring_over_several_lines_is_one_statement():
    def long(context):
        """First line,
            indented more,

        and a second paragraph.
        """
        return "a"

    assert make(long).statement == "First line, indented more, and a second paragraph."


def test_every_option_shapes_the_blank():
    wide = make(n_embd=4, n_layer=2, n_head=2, mlp=True)
    empty = blank(wide)
    assert [block["n_head"] for block in empty["blocks"]] == [2, 2]
    assert [block["mlp"]["c_fc"]["w"].shape for block in empty["blocks"]] == [(4, 16), (4, 16)]  # 4 * n_embd
    assert "2 blocks, 2 heads each, an MLP" in wide.shape() and count_nonzero(empty) == 0
    assert blank(make(mlp=5))["blocks"][0]["mlp"]["c_fc"]["w"].shape == (3, 5)
    assert "mlp" not in blank(make(mlp=0))["blocks"][0]
    assert blank(make(n_layer=0))["blocks"] == [] and "no blocks" in make(n_layer=0).shape()
    hidden, heads = Basis(["up", "down"]), Basis(["h0·x", "h0·y", "h1·x", "h1·y"])
    named = Labels("abc", Basis(["Ta", "Tb", "Tc"]), attention=(heads,), hidden=(hidden,))
    labelled = make(n_embd=None, labels=named, n_head=2, mlp=True)
    assert blank(labelled).labels == named and labelled.n_embd == 3
    assert blank(labelled)["blocks"][0]["attn"]["c_attn"]["w"].shape == (3, 12)  # q | k | v, 4 directions each
    assert blank(labelled)["blocks"][0]["mlp"]["c_fc"]["w"].shape == (3, 2)
    assert make(n_embd=3, labels=named, n_head=2, mlp=2).structure == labelled.structure


def test_extra_examples_are_graded_first():
    extra = make(extra_examples=[("abcab", "c"), Example("cc", "a")])
    assert examples(extra)[:2] == (Example("abcab", "c"), Example("cc", "a")) and len(examples(extra)) == 41


def test_a_reference_is_written_below_the_rule_and_a_plain_dict_gets_the_tasks_labels():
    shift = make()

    @shift.reference
    def shift_model():
        eye = np.eye(3)
        wiring = {"wte": eye, "q": 1024 * eye, "k": eye, "v": eye, "c_proj.w": 1024 * np.roll(eye, 1, axis=1)}
        return dict(parts.with_parts(blank(shift), wiring))

    assert callable(shift_model) and shift.has_reference  # the decorator hands the function back
    solution = reference(shift)
    assert solution.labels == shift.labels and grade(shift, solution).passed
    assert "where it goes wrong" in str(grade(shift, blank(shift)))


def test_what_needs_a_reference_says_so_in_one_line():
    shift = make()
    with pytest.raises(ValueError, match=r"^task shift_rule has no reference solution: write one below its rule") as e:
        reference(shift)
    assert "\n" not in str(e.value) and "@shift_rule.reference" in str(e.value)
    report = grade(shift, blank(shift), diagnose=False)  # grading itself needs none
    assert not report.passed and report.failures


def failing_reference():
    raise KeyError("wte")


@pytest.mark.parametrize(
    "build, phrase",
    [
        (
            failing_reference,
            "task shift_rule: its reference solution raised KeyError: 'wte' (test_tasks.py, line {line})",
        ),
        (lambda: None, "task shift_rule: its reference solution returned NoneType, not weights"),
    ],
)
def test_a_reference_that_fails_is_one_line(build, phrase):
    shift = make()
    shift.reference(build)
    with pytest.raises(ValueError) as error:
        reference(shift)
    assert str(error.value) == phrase.format(line=_line_of(failing_reference, "raise"))


def test_a_reference_that_does_not_pass_its_own_task_is_neither_shown_as_the_answer_nor_followed():
    shift = make(n_layer=0)
    shift.reference(lambda: with_parts(blank(shift), {"wte": np.eye(3)}))  # says the last letter again: wrong
    wrong = with_parts(blank(shift), {"wte": np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 0]])})
    report = grade(shift, wrong, reveal=True)
    assert report.revealed == (
        "  (the reference solution cannot be shown: task shift_rule: its reference solution does not pass it:"
        " it gets 0 of 39 right, smallest margin -1)"
    )
    assert grade(shift, wrong).diagnosis == report.diagnosis  # nor does it choose the part spoken of


def test_asking_for_the_answer_adds_it_and_changes_no_word_of_a_blank_models_diagnosis():
    for task in ("abc", "xor", "after_last_c"):
        asked, unasked = grade(task, blank(task), reveal=True), grade(task, blank(task))
        assert asked.revealed and unasked.revealed is None
        assert (asked.diagnosis, asked.diagnosis_lines()) == (unasked.diagnosis, unasked.diagnosis_lines())


def no_docstring(context):
    return "a"


def shift(context):  # the name of a built-in task's rule, not of a built-in task
    """Say a."""
    return "a"


def abc(context):
    """Say a."""
    return "a"


def outside(context):
    """Say d."""
    return "d"


def raising(context):
    """Say a."""
    return {"a": "b"}[context]


def labels(residual=("x", "y", "z"), alphabet="abc", **more):
    return Labels(alphabet, Basis(list(residual)), **more)


TWO = Basis(["u", "v"])
BAD_TASKS = {  # name: (options for make, or a rule, a phrase of the one-line error)
    "no docstring": ((no_docstring, {}), "task no_docstring: the rule's docstring is the task's statement"),
    "a built-in name": ((abc, {}), "there is already a built-in task called abc: give the rule function another name"),
    "not a function": ((5, {}), "@task(...) decorates a rule function, def name(context): ...; found 5"),
    "a lambda": ((lambda c: "a", {}), "'<lambda>' is not a Python name: write def name(context): ... (a lambda has no"),
    "no alphabet": ((shift, {"alphabet": None}), "task shift: alphabet must be a string of 2 to 1024 distinct"),
    "one letter": ((shift, {"alphabet": "a"}), "alphabet must be a string of 2 to 1024 distinct characters; found 'a'"),
    "a repeated letter": ((shift, {"alphabet": "aba"}), "distinct characters; found 'aba'"),
    "a list alphabet": ((shift, {"alphabet": ["a", "b"]}), "found ['a', 'b']"),
    "no n_ctx": ((shift, {"n_ctx": None}), "task shift: n_ctx must be a whole number from 1 to 1024; found None"),
    "n_ctx 0": ((shift, {"n_ctx": 0}), "n_ctx must be a whole number from 1 to 1024; found 0"),
    "n_ctx 1025": ((shift, {"n_ctx": 1025}), "n_ctx must be a whole number from 1 to 1024; found 1025"),
    "n_ctx 2.0": ((shift, {"n_ctx": 2.0}), "found 2.0"),
    "n_ctx True": ((shift, {"n_ctx": True}), "found True"),
    "no n_embd": ((shift, {"n_embd": None}), "task shift: n_embd is required when no labels name the residual"),
    "n_embd 0": ((shift, {"n_embd": 0}), "task shift: n_embd must be a whole number from 1 to 1024; found 0"),
    "n_layer -1": ((shift, {"n_layer": -1}), "n_layer must be a whole number from 0 to 16; found -1"),
    "n_layer 17": ((shift, {"n_layer": 17}), "n_layer must be a whole number from 0 to 16; found 17"),
    "n_head 0": ((shift, {"n_head": 0}), "n_head must be a whole number from 1 to 64; found 0"),
    "n_head 2 of 3": ((shift, {"n_head": 2}), "n_head = 2 does not divide the 3 attention directions of block 0"),
    "mlp yes": ((shift, {"mlp": "yes"}), "mlp must be False, True or a number of hidden units from 0 to 1024"),
    "mlp -1": ((shift, {"mlp": -1}), "found -1"),
    "an MLP without a block": ((shift, {"n_layer": 0, "mlp": True}), "with n_layer = 0 there is no block"),
    "labels of a dict": ((shift, {"labels": {"residual": []}}), "labels must be a handmade.Labels; found dict"),
    "labels of another alphabet": ((shift, {"labels": labels(alphabet="ab")}), "its labels' alphabet is not its"),
    "labels of another width": (
        (shift, {"labels": labels(TWO)}),
        "n_embd is 3, but its labels name residual directions for a width of 2",
    ),
    "attention for 2 blocks": (
        (shift, {"labels": labels(attention=(None, TWO)), "n_embd": None}),
        "its labels name attention for blocks it does not have",
    ),
    "hidden units for 2 blocks": (
        (shift, {"labels": labels(hidden=(TWO, TWO)), "n_embd": None, "mlp": True}),
        "its labels name hidden units for blocks it does not have",
    ),
    "hidden units but no MLP": (
        (shift, {"labels": labels(hidden=(TWO,)), "n_embd": None}),
        "task shift: its labels name hidden units, but mlp is False",
    ),
    "hidden units of another number": (
        (shift, {"labels": labels(hidden=(TWO,)), "n_embd": None, "mlp": 3}),
        "mlp is 3 hidden units, but its labels name hidden units for an mlp of 2 in block 0",
    ),
    "an extra example outside the alphabet": (
        (shift, {"extra_examples": [("abd", "a")]}),
        "extra_examples[0] is ('abd', 'a'); each extra example is a (context, next character) pair over the alphabet 'abc'",
    ),
    "an extra example of two letters": (
        (shift, {"extra_examples": [("ab", "ca")]}),
        "extra_examples[0] is ('ab', 'ca')",
    ),
    "extra examples that are not pairs": ((shift, {"extra_examples": ["ab"]}), "extra_examples[0] is 'ab'"),
    "a wrong one after 300 right ones": (  # named by its place, not by the start of the list
        (shift, {"extra_examples": [("ab", "c")] * 300 + [("abz", "a")]}),
        "extra_examples[300] is ('abz', 'a')",
    ),
    "a pair of a number": ((shift, {"extra_examples": (("ab", "c"), (5, "a"))}), "extra_examples[1] is (5, 'a')"),
    "a triple": ((shift, {"extra_examples": [("ab", "c", "a")]}), "extra_examples[0] is ('ab', 'c', 'a')"),
    "extra examples of a number": ((shift, {"extra_examples": 3}), "extra_examples must be"),
    "a combining mark in the alphabet": (  # e + U+0301 shows as é, beside é itself: two tokens that look the same
        (shift, {"alphabet": "e\u0301\u00e9"}),
        "task shift: the alphabet 'e\u0301\u00e9' has '\u0301' (U+0301), a combining mark, which shows joined to the character before it",
    ),
    "an enclosing mark in the alphabet": ((shift, {"alphabet": "ab\u20dd"}), "(U+20DD), a combining mark"),
    "extra examples of a string": ((shift, {"extra_examples": "abc"}), "extra_examples must be"),
}


@pytest.mark.parametrize("case", list(BAD_TASKS))
def test_a_task_written_wrongly_is_one_line_naming_the_argument(case):
    (rule, options), phrase = BAD_TASKS[case]
    with pytest.raises(tasks.TaskError) as error:
        make(rule, **options)
    assert phrase in str(error.value) and "\n" not in str(error.value), str(error.value)
    assert isinstance(error.value, ValueError)


def test_the_decorator_without_its_options_says_how_to_write_it():
    with pytest.raises(ValueError, match=r"^@task needs the task's alphabet and n_ctx: write @task\(alphabet=\.\.\."):
        handmade.task(shift_rule)
    with pytest.raises(ValueError, match="its reference is a function that returns the weights; found int"):
        make().reference(5)


@pytest.mark.parametrize(
    "rule, phrase",
    [
        (raising, "task raising: its rule, asked what follows 'b', raised KeyError: 'b' (test_tasks.py, line {line})"),
        (outside, "task outside: its rule answered 'd' after 'a'; an answer is a character of 'abc', or None"),
    ],
)
def test_a_rule_that_fails_is_one_line_naming_the_context(rule, phrase):
    with pytest.raises(ValueError) as error:
        examples(make(rule))
    assert str(error.value) == phrase.format(line=_line_of(rule, "return"))


def _line_of(function, start):
    """The line of this file where ``function``'s first line that begins with ``start`` is."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if line.strip().startswith(start))


TOSSES = itertools.cycle("aab")  # a coin that lands a, a, b, a, a, b, ...: by chance for the rule, alike in every run


def coin(context):
    """Say a or b, by chance (a teacher's mistake)."""
    return next(TOSSES)


ANSWERED = []


def counting(context):
    """Say a, then b from the 15th question on (a rule that keeps something between calls)."""
    ANSWERED.append(context)
    return "a" if len(ANSWERED) < 15 else "b"


@pytest.mark.parametrize("rule", [coin, counting])
def test_a_rule_that_answers_a_text_two_ways_is_refused_naming_the_text_and_both_answers(rule):
    """Asked again about texts spread over all it answered, a rule by chance or with a memory answers one of them
    otherwise: refused in one line, before any grade (which would change from run to run, and a pass with it)."""
    ANSWERED.clear()
    task = make(rule, alphabet="ab", n_ctx=3, n_layer=0)
    with pytest.raises(ValueError) as error:
        examples(task)
    said = str(error.value)
    assert re.match(
        rf"^task {rule.__name__}: its rule answered '[ab]' after '[ab]+', then '[ab]' when asked again", said
    )
    assert "a rule must give the same answer every time" in said and len(said) <= MAX_MESSAGE, said


def nan_rule(context):
    """Say nan (a teacher's mistake: not a letter)."""
    return float("nan")


def test_an_answer_that_is_no_letter_is_said_so_though_it_is_unequal_to_itself_when_asked_again():
    """nan != nan, and an object of the teacher's equals nothing but itself: neither is read as a rule that changes its
    mind; each is refused as the answer it is, where it was first given."""
    with pytest.raises(ValueError, match=r"^task nan_rule: its rule answered nan after 'a'; an answer is a character"):
        examples(make(nan_rule, alphabet="ab", n_ctx=3, n_layer=0))


def test_a_rule_that_fails_when_asked_again_is_said_to_fail_after_that_text():
    calls = []

    def seventeenth(context):
        """Say a, but fail on the seventeenth question."""
        calls.append(context)
        if len(calls) == 17:
            raise KeyError("x")
        return "a"

    with pytest.raises(ValueError) as error:
        examples(make(seventeenth, alphabet="ab", n_ctx=3, n_layer=0))  # 14 texts, then asked again: 'a', 'b', 'aa'
    raised = f"raised KeyError: 'x' (test_tasks.py, line {_line_of(seventeenth, 'raise')})"
    assert str(error.value) == f"task seventeenth: its rule, asked what follows 'aa', {raised}"


def test_a_rule_asked_again_answers_as_before_and_costs_a_few_questions_more():
    asked = []

    def last(context):
        """Say the last letter again."""
        asked.append(context)
        return context[-1]

    assert len(examples(make(last))) == 39 and 39 < len(asked) <= 39 + user_code.ASKED_AGAIN


def after_d(context):
    """Say the letter that came after the last d before the current letter."""
    i = context[:-1].rfind("d")
    return context[i + 1] if i >= 0 else None


def test_thousands_of_contexts_are_a_task_like_any_other():
    """The issue's homework: over abcd, contexts up to 6 letters, a model 16 wide with two blocks."""
    homework = make(after_d, alphabet="abcd", n_ctx=6, n_embd=16, n_layer=2)
    assert len(examples(homework)) == 4004 and "4004 graded" in homework.describe()
    report = grade(homework, blank(homework), diagnose=False)
    assert not report.passed and report.total == 4004


OVER_A_LIMIT = {  # options of a task over a limit: a phrase of the one line that refuses it when used
    "8 letters, n_ctx 9": (
        {"alphabet": "abcdefgh", "n_ctx": 9, "n_embd": 8},
        "task shift: with 8 characters, n_ctx = 9 makes more than 100000 texts to ask its rule about: n_ctx can be at most 5",
    ),
    "1001 extra examples": (
        {"extra_examples": [("ab", "c")] * 1001},
        "task shift: it has more than 1000 extra examples",
    ),
    "an endless generator": (
        {"extra_examples": (("ab", "c") for _ in itertools.count())},
        "task shift: it has more than 1000 extra examples",
    ),
    "an extra example too long": (
        {"extra_examples": [("ab", "c"), ("a" * 1025, "b")]},
        "task shift: its extra_examples[1] is 1025 characters long; at most 1024",
    ),
}


@pytest.mark.parametrize("case", list(OVER_A_LIMIT))
def test_a_task_over_a_limit_is_made_and_refused_in_one_line_when_used(case):
    options, phrase = OVER_A_LIMIT[case]
    over = make(shift, **options)  # made: a file's other tasks still load
    for use in (examples, blank, lambda t: t.describe(), lambda t: grade(t, {})):
        with pytest.raises(ValueError) as error:
            use(over)
        assert str(error.value).startswith(phrase) and "\n" not in str(error.value), str(error.value)


def test_a_grade_too_costly_is_refused_before_any_pass_with_its_estimate(monkeypatch):
    big = training.init_params(3, 1024, 64, rng=0, n_layer=8, mlp=True, alphabet="abc")
    monkeypatch.setattr(grader, "finite_pass", lambda *a, **k: pytest.fail("a pass ran before the refusal"))
    rng = np.random.default_rng(0)
    contexts = ["".join(rng.choice(list("abc"), 1023)) for _ in range(1000)]
    long = make(extra_examples=[(context, shift_rule(context)) for context in contexts])  # as the rule says
    with pytest.raises(ValueError) as error:
        grade(long, big, diagnose=False)
    message = str(error.value)
    assert re.fullmatch(
        r"grading task shift_rule would take about \d\.\de\+\d\d operations "
        r"\(\d+ passes of up to 1023 positions\); at most 1e\+11 are allowed",
        message,
    ), message
    with pytest.raises(ValueError, match="cannot be graded: its shape would take about"):
        blank(make(shift, alphabet="ab", n_ctx=13, n_embd=256, n_layer=16, mlp=True))


def three_back(context):
    """Say the digit three before the next one."""
    return context[-3] if len(context) >= 3 else None


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_grade_too_costly_only_for_every_path_back_says_so_and_that_the_text_grade_is_within(language):
    """A teacher's task whose text grade is within the bound but whose --json (every failing context's path
    back) is not: the refusal says it is the paths that cost, and that grading without --json is within it;
    the text grade goes on. A grade over the bound either way says nothing of --json."""
    task = make(three_back, alphabet="0123", n_ctx=6, n_embd=10)
    model = blank(task)
    assert tasks.grading_cost(task, model.structure, every_path=True)[0] > tasks.MAX_GRADING
    assert tasks.grading_cost(task, model.structure)[0] <= tasks.MAX_GRADING
    handmade.set_language(language)
    try:
        with pytest.raises(ValueError) as error:
            grade(task, model, every_path=True)
        assert not grade(task, model).passed  # the text grade is graded
    finally:
        handmade.set_language("en")
    said = {
        "en": "following every failing context's path back (grade --json, every_path=True) would take about",
        "zh": "--json",
    }
    assert said[language] in str(error.value) and len(str(error.value)) <= MAX_MESSAGE, str(error.value)
    big = training.init_params(4, 6, 128, rng=0, n_layer=4, alphabet="0123")  # over the bound without the paths too
    with pytest.raises(ValueError) as error:
        grade(task, big, every_path=True)
    assert "grading task three_back would take about" in str(error.value) and "--json" not in str(error.value)


def test_the_estimate_counts_the_passes_grading_runs(monkeypatch):
    """The passes grade() runs are those grading_cost counted: one per longest window."""
    calls, original = [], grader.finite_pass
    monkeypatch.setattr(
        grader, "finite_pass", lambda tokens, params: calls.append(len(tokens)) or original(tokens, params)
    )
    for name in NAMES:
        calls.clear()
        params = reference(name)
        grade(name, params, diagnose=False)
        _cost, passes, longest = tasks.grading_cost(name, params.structure, explained=False)
        assert (len(calls), max(calls)) == (passes, longest), name


def test_longest_context_keeps_every_task_quick_to_enumerate():
    assert [task_options.longest_context(n) for n in (2, 3, 26, 1024)] == [15, 10, 3, 1]


# ---- the built-in statements stay in the catalogue -------------------------------------------


def test_the_built_in_statements_are_their_rules_docstrings_on_one_line():
    for task in TASKS.values():
        assert task.statement == tasks.statement_of(task.next_token.__doc__)
        assert "  " not in task.statement and "\n" not in task.statement
    assert TASKS["aab"].statement.startswith("The blog's task: continue (aab)*. Graded on the blog's accuracy test")


def test_the_catalogue_extracts_every_built_in_statement_and_translates_it(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "tools"))
    messages = pytest.importorskip("messages", reason="the catalogue tools need Babel: pip install babel")
    extracted = {m.id: m for m in messages.extract() if m.id}
    translated = {m.id: m.string for m in messages.read("zh") if m.id}
    for task in TASKS.values():
        assert task.statement in extracted, task.name
        assert translated.get(task.statement), task.name  # the existing translation still fits
    assert extracted[TASKS["xor"].statement].locations[0][0] == "handmade/course/builtin_tasks.py"


@pytest.fixture
def chinese():
    handmade.set_language("zh")
    yield
    handmade.set_language("en")


def test_a_built_in_statement_is_chinese_and_a_teachers_is_as_written(chinese):
    assert TASKS["abc"].describe().startswith("abc：续写 (abc)*：a 之后是 b")
    assert make().describe().startswith("shift_rule：Say the letter after the last one")


def test_the_built_in_tasks_load_whichever_module_is_imported_first():
    code = "import handmade.course.builtin_tasks as b; from handmade.course.tasks import TASKS; print(len(TASKS))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert out.stdout == f"{len(NAMES)}\n", out.stderr


# ---- a teacher's task without labels: the names a built-in task has ---------------------------

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def labels_recipes():
    """The lines of notebooks 15, 17 and 19 that read a task's labels (``B = task.labels.residual``,
    ``H = task.labels.hidden[0]``, ...), as they are written there."""
    found = set()
    for number in ("15", "17", "19"):
        for path in NOTEBOOKS.glob(f"{number}_*.ipynb"):
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                for line in "".join(cell["source"]).splitlines():
                    if re.match(r"^\w+(, \w+)* = (task\.labels\.\S+(, )?)+", line):
                        found.add(line.split("  #")[0])
    return sorted(found)


RECIPES = labels_recipes()


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("shape", [{"mlp": True}, {"n_head": 2}, {"n_layer": 2, "mlp": 6}])
def test_every_notebook_recipe_that_reads_labels_runs_on_a_task_without_labels(recipe, shape):
    """Each block's attention directions and, where it has an MLP, its hidden units are there to
    build with (a block without an MLP has none: hidden[b] is None)."""
    task = make(shift, alphabet="abc", n_ctx=4, n_embd=8, **shape)
    if "hidden" in recipe and not task.mlp:
        assert task.labels.hidden == (None,) * task.n_layer
        return
    found = {"task": task}
    exec(recipe, {}, found)  # as the notebook writes it: no IndexError, a Basis each
    B = task.labels.residual
    for name, basis in found.items():
        if name == "task":
            continue
        assert isinstance(basis, Basis) and len(basis) > 0
        rows = B.matrix({(B.names[0], basis.names[-1]): 1}, cols=basis)  # [n_embd, len(basis)]
        back = basis.matrix({(basis.names[-1], B.names[0]): 1}, cols=B)  # [len(basis), n_embd]
        assert rows.shape == back.T.shape == (8, len(basis)) and rows[0, -1] == back[-1, 0] == 1
    model = parts.with_parts(
        blank(task), {"wte": B.one_hot_rows(["Ta", "Tb", "Tc"]), "wpe": B.one_hot_rows(["P0", "P1", "P2", "P3"])}
    )
    assert grade(task, model, diagnose=False).total == 120


def xor_rule(context):
    """Say 1 if the last two bits differ, 0 if they are the same."""
    return str(int(context[-1] != context[-2])) if len(context) >= 2 else None


def test_notebook_15s_design_passes_a_teachers_xor_defined_without_labels():
    """The same names as the built-in xor (P0..P4 | T0 T1 | V), hidden units h0 h1: the notebook's
    cells, with h0 and h1 for its s>0 and s<0, build a model that passes."""
    task = make(xor_rule, alphabet="01", n_ctx=5, n_embd=8, mlp=2)
    assert task.labels.residual == TASKS["xor"].labels.residual and list(task.labels.hidden[0]) == ["h0", "h1"]
    B, H = task.labels.residual, task.labels.hidden[0]
    LG, places = 1024, [f"P{i}" for i in range(task.n_ctx)]
    model = parts.with_parts(
        blank(task),
        {
            "wte": B.one_hot_rows(["T0", "T1"]),
            "wpe": B.one_hot_rows(places),
            "q": B.matrix({(p, places[j]): LG for i, p in enumerate(places) for j in (i - 1, i) if j >= 0}),
            "k": B.matrix({(p, p): 1 for p in places}),
            "v": B.matrix({("T0", "V"): 1, ("T1", "V"): -1}),
            "c_proj.w": B.matrix({("V", "V"): 1}),
            "mlp.c_fc.w": B.matrix({("V", "h0"): LG, ("V", "h1"): -LG}, cols=H),
            "mlp.c_proj.w": H.matrix({("h0", "T0"): 1, ("h1", "T0"): 1}, cols=B),
            "mlp.c_proj.b": B.vector({"T1": LG / 2}),
        },
    )
    report = grade(task, model)
    assert report.passed, str(report)


def back_two(context):
    """Say the letter before the last."""
    return context[-2] if len(context) >= 2 else None


def test_a_report_on_a_task_without_labels_names_its_directions_as_a_built_in_ones():
    """The issue: reports said e5 where a learner must read a. A head that writes the right letter
    with the wrong sign: the report says what the head carried, by the directions' names."""
    task = make(back_two, n_embd=6)
    B, LG, letters = task.labels.residual, 1024, ["Ta", "Tb", "Tc"]
    wrong_sign = {
        "wte": B.one_hot_rows(letters),
        "wpe": B.one_hot_rows(["P0", "P1", "P2"]),
        "q": B.matrix({("P1", "P0"): LG, ("P2", "P1"): LG}),
        "k": B.matrix({(p, p): 1 for p in ("P0", "P1", "P2")}),
        "v": B.matrix({(t, t): 1 for t in letters}),
        "c_proj.w": B.matrix({(t, t): -LG for t in letters}),
    }
    report = str(grade(task, parts.with_parts(blank(task), wrong_sign)))
    said = report.split("where it goes wrong")[1]
    assert "its output there, Ta = 1" in said and "c_proj.w[Ta, Ta] = -1024" in said and " e" not in said


NAMED = {  # (alphabet, n_ctx, n_embd): the residual directions a task without labels gets
    ("ab", 5, 8): "P0 P1 P2 P3 P4 | Ta Tb | V",
    ("abc", 3, 3): "Ta Tb Tc",
    ("abc", 3, 5): "Ta Tb Tc | V V1",  # the positions do not all fit: none, and the rest is spare
    ("abc", 3, 6): "P0 P1 P2 | Ta Tb Tc",
    ("abc", 3, 9): "P0 P1 P2 | Ta Tb Tc | V V1 V2",
    ("abcd", 3, 2): "e0 e1",  # not even the tokens fit
    ("a b", 2, 3): "Ta T␣ Tb",
    ("a\x07", 2, 2): "T0 T1",  # a character that cannot show in a name
}


@pytest.mark.parametrize("alphabet, n_ctx, n_embd", list(NAMED))
def test_the_directions_of_a_task_without_labels_are_named_by_one_rule(alphabet, n_ctx, n_embd):
    task = make(shift, alphabet=alphabet, n_ctx=n_ctx, n_embd=n_embd)
    assert repr(task.labels.residual) == f"Basis({NAMED[alphabet, n_ctx, n_embd]})"
    assert blank(task).labels == task.labels


def test_a_teachers_labels_still_win():
    named = Labels("abc", Basis(["x", "y", "z"]))
    assert make(n_embd=None, labels=named).labels == named


def failing_code():
    """(a task whose reference raises, a task whose rule raises, {"rule": runs, "reference": runs} of each)."""
    runs = {"rule": 0, "reference": 0}

    def broken_rule(context):
        """Say nothing."""
        runs["rule"] += 1
        raise RuntimeError("no")

    def broken_reference():
        runs["reference"] += 1
        raise RuntimeError("no")

    fine, broken = make(), make(broken_rule)
    fine.reference(broken_reference)
    return fine, broken, runs


def test_a_teachers_code_that_failed_for_a_task_is_not_run_again():
    """A reference or a rule that failed (a hang costs user_code.SECONDS) fails again at once, in the
    same words: a playground's refresh or a second grade does not wait for it again."""
    fine, broken, runs = failing_code()
    said = []
    for _ in range(3):
        for use in (lambda: solutions.reference(fine), lambda: examples(broken)):
            with pytest.raises(ValueError) as error:
                use()
            said.append(str(error.value))
    assert runs == {"rule": 1, "reference": 1} and len(set(said)) == 2, (runs, said)


def test_a_teachers_code_that_failed_is_said_again_in_the_language_now_set():
    """The failure remembered is said in the learner's language: in another, the code runs once more (once per
    language), so the words are that language's; back in the first, the first words, without running it again."""
    fine, broken, runs = failing_code()
    said = {}
    try:
        for language in ("zh", "en", "zh", "en"):
            handmade.set_language(language)
            for what, use in (("reference", lambda: solutions.reference(fine)), ("rule", lambda: examples(broken))):
                said.setdefault((what, language), set()).add(_refusal(use))
    finally:
        handmade.set_language("en")
    assert runs == {"rule": 2, "reference": 2}, runs
    assert all(len(lines) == 1 for lines in said.values()), said
    for what in runs:
        (zh,), (en,) = said[what, "zh"], said[what, "en"]
        assert reads_as_chinese(zh) and not reads_as_chinese(en), (zh, en)


RULE = "(the rule)"


@pytest.mark.parametrize(
    "extra, said",
    [
        ([("ab", "a")], "both 'a' (extra_examples[0]) and 'c' " + RULE + " after 'ab'"),
        (  # against each other, beyond n_ctx
            [("ab", "c"), ("aaaa", "b"), ("aaaa", "c")],
            "both 'b' (extra_examples[1]) and 'c' (extra_examples[2]) after 'aaaa'",
        ),
        # a model of the task's shape reads the last n_ctx = 3 letters: 'abc' for both, and the rule's 'abc' too
        (
            [("aabc", "b")],
            "'b' after 'aabc' (extra_examples[0]) and 'a' after 'abc' "
            + RULE
            + ", but a model of its shape reads only the last 3 letters, 'abc' in both",
        ),
        (
            [("babc", "b"), ("cabc", "c")],
            "'b' after 'babc' (extra_examples[0]) and 'c' after 'cabc' (extra_examples[1]), but a model",
        ),
    ],
)
def test_a_task_whose_examples_ask_two_answers_after_one_context_is_refused_wherever_it_is_used(extra, said):
    """Refused in one line that says both answers, and where each comes from: which extra example, or the rule."""
    shift = make(extra_examples=extra)
    phrase = f"task shift_rule: it asks for {said}"
    for use in (lambda: examples(shift), lambda: blank(shift), lambda: grade(shift, {})):
        with pytest.raises(ValueError, match=re.escape(phrase)):
            use()
    assert examples(
        make(extra_examples=[("ab", "c"), ("aaaa", "b"), ("baab", "c")])
    )  # the same answer, or longer contexts whose last 3 letters differ or agree: fine


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_contradiction_in_a_teachers_file_is_said_whole_and_a_long_one_within_the_limit(tmp_path, language):
    """A teacher's file of a usual name, with an alphabet that has a space: the whole sentence, the window the
    model reads and both sources within MAX_MESSAGE; contexts and names at their longest: still one line within it."""
    spaced = handmade.task(alphabet="a b", n_ctx=3, n_embd=3, n_layer=0, extra_examples=[("a b a b a", " ")])
    spaced = dataclasses.replace(spaced(last_again), source="broken.py")  # as --tasks broken.py names it
    longest = handmade.task(
        alphabet="ab", n_ctx=3, n_embd=2, n_layer=0, extra_examples=[("ab" * 40, "a"), ("b" * 60 + "bab", "b")]
    )(last_again)
    longest = dataclasses.replace(longest, name="a" * 40, source=str(tmp_path / ("folder" * 20) / "homework.py"))
    handmade.set_language(language)
    try:
        said = [_refusal(examples, task) for task in (spaced, longest)]
    finally:
        handmade.set_language("en")
    assert all(len(line) <= MAX_MESSAGE and "\n" not in line for line in said), said
    assert "…" not in said[0] and "'b a'" in said[0] and "extra_examples[0]" in said[0], said[0]
    # the longest: contexts and names said shorter, never cut in the middle: each answer beside its own source
    beside = {
        "en": r"'a' after '[^']*' \(extra_examples\[0\]\) and 'b' after '[^']*' \(extra_examples\[1\]\), but",
        "zh": r"之后给出 'a'（extra_examples\[0\]）.*之后给出 'b'（extra_examples\[1\]）",
    }[language]
    assert re.search(beside, said[1]) and "'bab'" in said[1], said[1]


def _refusal(use, *args):
    with pytest.raises(ValueError) as error:
        use(*args)
    return str(error.value)


def test_a_report_on_characters_that_cannot_show_keeps_each_line_one_printable_line():
    def nul_after(context):
        """Say NUL after a new line, a new line after anything else."""
        return "\x00" if context[-1] == "\n" else "\n"

    unseen = handmade.task(alphabet="\n\x00 ", n_ctx=2, n_embd=3, n_layer=0)(nul_after)
    report = grade(unseen, blank(unseen))
    lines = str(report).splitlines()
    assert len(lines) == len(report.lines())  # no line broken in two by a character
    assert all(line.isprintable() for line in lines), lines
    assert "expected '\\x00'" in str(report) or "→ '\\x00'" in str(report)


def last_again(context):
    """Say the last letter again."""
    return context[-1]


def test_a_reference_written_again_is_judged_again():
    again = make(rule=last_again, n_layer=0)
    wrong = with_parts(blank(again), {"wte": np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 0]])})
    for build, shown in [
        (lambda: with_parts(blank(again), {"wte": np.eye(3)}), "cannot be shown"),  # a margin of 1: not above it
        (lambda: with_parts(blank(again), {"wte": 2 * np.eye(3)}), "the answer, as you asked"),
        (lambda: with_parts(blank(again), {"wte": 1e200 * np.eye(3)}), "cannot be shown"),  # overflows
    ]:
        again.reference(build)
        assert shown in grade(again, wrong, reveal=True).revealed


def test_the_readmes_longest_contexts_for_a_shape_with_a_block_are_true():
    """The README's "one block 4 wide allows n_ctx 13 for 2 letters, 8 for 3, 4 for 8": each is usable, one
    more is refused with the grading estimate."""
    said = re.search(r"one block 4 wide allows `n_ctx` (\d+) for 2 letters, (\d+) for 3, (\d+) for 8", README)
    for alphabet, longest in zip(("ab", "abc", "abcdefgh"), map(int, said.groups())):

        def opening(context):
            """Say the first letter."""
            return context[0]

        tasks.usable(handmade.task(alphabet=alphabet, n_ctx=longest, n_embd=4)(opening))
        with pytest.raises(ValueError, match="cannot be graded: its shape would take about"):
            tasks.usable(handmade.task(alphabet=alphabet, n_ctx=longest + 1, n_embd=4)(opening))


def test_an_option_task_does_not_have_is_named_with_the_ones_it_has():
    import inspect

    from handmade.course.task_options import OPTIONS

    keywords = [p.name for p in inspect.signature(handmade.task).parameters.values() if p.kind is p.KEYWORD_ONLY]
    assert sorted(OPTIONS) == sorted(keywords)  # the list the message gives is the decorator's own
    with pytest.raises(tasks.TaskError, match="@task has no option 'n_embed'; did you mean n_embd"):
        make(n_embed=3)
    with pytest.raises(tasks.TaskError, match="@task has no option 'n_positions'; its options are alphabet, n_ctx"):
        make(n_positions=3)


def test_a_tasks_description_counts_its_longer_examples_apart():
    """aab grades the blog's prefixes of up to 28 letters besides every text of 1 to 5: its description says so."""
    aab = tasks.TASKS["aab"].describe().splitlines()[1]
    longer = [len(e.context) for e in tasks.TASKS["aab"].extra_examples if len(e.context) > 5]
    assert (
        aab
        == f"  alphabet 'ab', contexts of 1 to 5 tokens and {len(longer)} longer (up to {max(longer)}: a model of this shape reads their last 5), 40 graded"
    )
    assert tasks.TASKS["abc"].describe().splitlines()[1] == "  alphabet 'abc', contexts of 1 to 5 tokens, 15 graded"


def test_a_long_context_is_quoted_by_its_end_wherever_a_report_or_the_playground_quotes_it():
    """A teacher's extra example of 1,000 letters: the report's text and the task playground's lines quote it by
    its last letters, '…abab', in 40 characters at most (it was printed whole, three times); --json keeps it whole."""
    import html

    from handmade.basis import CONTEXT_SAID, context_said
    from handmade.widgets import Playground

    assert (
        context_said("aab") == "'aab'" and context_said("ab" * 500) == "'…" + ("ab" * 500)[-(CONTEXT_SAID - 3) :] + "'"
    )
    for text in ("\x00" * 100, "a'b" * 30, "ab" * 500):
        said = context_said(text)
        assert len(said) <= CONTEXT_SAID and text.endswith(eval(said.replace("…", "")))  # noqa: S307 (its own repr)

    @handmade.task(alphabet="ab", n_ctx=3, n_embd=4, n_layer=1, extra_examples=[("ab" * 500, "b")])
    def long(context):
        """Say the last letter."""
        return context[-1]

    report = grade(long, blank(long))
    summary = Playground(task=long).summary.values()
    shown = [str(report), *(html.unescape(re.sub("<[^>]*>", "", w.value)) for w in summary)]
    assert all("ab" * 25 not in text and "'…babab" in text for text in shown[:1] + shown[2:]), shown
    assert len(str(report)) < 1500 and ("ab" * 500) in json.dumps(report.to_json())
