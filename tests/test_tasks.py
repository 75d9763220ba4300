"""The tasks and their grader: every reference passes, every blank fails, broken models fail with
the right stage named, and bad submissions get one line, never a traceback."""

import itertools

import numpy as np
import pytest
from helpers import as_lists

import handmade
from handmade import Basis, Example, Labels, WeightsError, parts
from handmade.course import grader, tasks
from handmade.course.grader import MARGIN_THRESHOLD, grade
from handmade.course.tasks import TASKS, blank, examples, get_task, reference
from handmade.files import load_weights, save_weights, weights_from_json
from handmade.inference import accuracy, next_in_pattern, prefix_examples, unambiguous_examples
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
    assert 0 < len(graded) < tasks.MAX_GRADED
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
    assert report.passed and report.exit_status == 0, str(report)
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
    assert grader.shape_difference(handmade.check_weights(empty), handmade.check_weights(ref)) is None
    assert count_nonzero(empty) == 0


@pytest.mark.parametrize("name", NAMES)
def test_each_blank_fails_and_the_diagnosis_starts_at_the_embedding(name):
    report = grade(name, blank(name))
    assert not report.passed and report.exit_status == 1
    assert report.margin <= 0 and report.nonzero == 0
    assert report.diagnosis.startswith("the embedding at position")
    assert "FAIL" in str(report) and "the reference solution has" in str(report)


def test_task_descriptions_name_the_shape():
    text = TASKS["first_not_last"].describe()
    assert text.startswith("first_not_last: ") and "2 heads each" in text and "120 graded" in text
    assert "no blocks" in TASKS["alternate"].shape() and "an MLP" in TASKS["xor"].shape()


def test_unknown_task_is_one_line():
    with pytest.raises(ValueError, match="there is no task 'abcd'; the tasks are alternate, ") as error:
        grade("abcd", {})
    assert "\n" not in str(error.value)


# ---- the margin -----------------------------------------------------------------------------


def test_a_tie_has_margin_zero_and_does_not_pass():
    params = reference("repeat")
    params["wte"][0] = 0  # token a scores 0 for every token: a tie, which argmax breaks towards a
    report = grade("repeat", params)
    assert report.correct == report.total  # right by argmax's order...
    assert report.margin == 0 and not report.passed and report.exit_status == 1  # ...and still a fail
    assert report.smallest_at.expected == "a"


def test_a_margin_equal_to_the_threshold_does_not_pass():
    params = reference("repeat")
    params["wte"] = params["wte"] / 2  # one-hot rows: the right logit 1, the others 0
    report = grade("repeat", params)
    assert report.correct == report.total and report.margin == MARGIN_THRESHOLD and not report.passed
    assert "a pass needs 100% and more than 1" in str(report)


def test_margins_of_counts_the_best_wrong_logit():
    logits = np.array([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0], [0.0, 5.0, 1.0]])
    margins, predicted = grader.margins_of(logits, np.array([0, 1, 0]))
    assert margins.tolist() == [1.0, 0.0, -5.0] and predicted.tolist() == [0, 0, 1]


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


BROKEN = {
    "a weak Lg in q spreads attention": (
        "aab",
        lambda: handmade.blog_model(q_lg=1),
        [
            "position 2's attention weights",
            "spread them over 3 tokens (positions 0, 1, 2)",
            "reads only positions 1, 2",
        ],
    ),
    "a weak Lg in c_proj": (
        "aab",
        lambda: handmade.blog_model(proj_lg=0.4),
        ["c_proj's output", "you have Tb = 0.4", "has Tb = 1024"],
    ),
    "a zeroed value": ("two_back", lambda: zero_v_entry("two_back", "Tb", "Tb"), ["the value v at position", "Tb = 0"]),
    "swapped heads": ("first_not_last", lambda: swap_heads_queries("first_not_last"), ["attention weights in head 0"]),
    "no MLP": ("xor", lambda: without_mlp("xor"), ["block 0 has no MLP, the reference solution's has one"]),
    "a weak MLP": ("xor", lambda: scaled("xor", "mlp.c_fc.w", 0.001), ["the MLP's hidden units at position", "s>0"]),
    "no previous-token head": (
        "induction",
        lambda: scaled("induction", "blocks[0].q", 0),
        ["attention weights in block 0", "the reference solution reads only position 0"],
    ),
    "block 1 reads position 0": (
        "induction",
        lambda: scaled("induction", "blocks[1].q.b", 0),
        ["attention weights in block 1"],
    ),
    "no first marker": ("first", lambda: scaled("first", "wpe", 0), ["the embedding at position 0", "first = 0"]),
    "a wrong c_proj": (
        "abc",
        lambda: parts.with_part(reference("abc"), "c_proj.w", parts.get(reference("abc"), "c_proj.w").T),
        ["(c_proj's output) at position 0", "you have Tb = 0, Tc = 1024; the reference solution has Tb = 1024, Tc = 0"],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_reference_fails_and_the_diagnosis_names_the_stage(case):
    name, build, phrases = BROKEN[case]
    report = grade(name, build())
    assert not report.passed and report.exit_status == 1
    for phrase in phrases:
        assert phrase in report.diagnosis, report.diagnosis
    assert report.diagnosed.context in str(report) or repr(report.diagnosed.context) in str(report)


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
    assert "cannot be compared one by one" in text


def test_a_right_but_unsure_model_is_diagnosed_at_its_smallest_margin():
    report = grade("aab", handmade.blog_model(proj_lg=1.5))
    assert report.correct == report.total and not report.passed
    assert report.diagnosed == report.smallest_at and "c_proj's output" in report.diagnosis


def test_unnamed_directions_are_compared_by_attention_and_logits_only():
    params = handmade.blog_model(q_lg=1)
    params.labels = Labels("ab", Basis.numbered(8))
    assert "spread them over" in grade("aab", params).diagnosis
    broken = zero_v_entry("two_back", "Tb", "Tb")
    broken.labels = Labels("abc", Basis.numbered(len(broken.labels.residual)))
    assert grade("two_back", broken).diagnosis.startswith("the logits at position")


def test_more_positions_than_the_reference_cannot_be_traced_side_by_side_on_long_contexts():
    params = handmade.blog_model()
    params["wpe"] = np.vstack([params["wpe"], np.zeros((3, 8))])  # 8 positions, the last 3 empty
    report = grade("aab", params)
    assert not report.passed and "longer than the reference solution's 5 positions" in report.diagnosis


def test_grading_without_a_diagnosis():
    report = grade("abc", blank("abc"), diagnose=False)
    assert not report.passed and report.diagnosis is None and report.failures


# ---- what a submission may be ---------------------------------------------------------------


def test_plain_dicts_and_weights_files_are_graded(tmp_path):
    assert grade("induction", as_lists(reference("induction"))).passed  # plain lists, no labels
    report = grade("abc", as_lists(blank("abc")))
    assert not report.passed and report.diagnosis.startswith("the embedding")  # read with the task's names
    path = tmp_path / "xor.json"
    save_weights(reference("xor"), path)
    assert grade("xor", load_weights(path)).passed


def test_labels_that_no_longer_fit_are_set_aside():
    report = grade("xor", without_mlp("xor"))  # its labels still name the MLP's hidden units
    assert not report.passed and "block 0 has no MLP" in report.diagnosis
    stale = handmade.Weights(as_lists(reference("abc")), Labels("abc", Basis.numbered(4)))
    assert grade("abc", stale).passed


def test_another_alphabet_is_graded_by_token_id():
    params = reference("xor")
    params.labels = Labels("ab", params.labels.residual, hidden=params.labels.hidden)
    assert grade("xor", params).passed


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
    "a string": ("abc", "weights.json", "load a file first with handmade.load_weights"),
    "a list": ("abc", [1, 2], "weights must be a dict"),
    "an empty dict": ("abc", {}, "weights is missing 'wte'"),
    "wrong n_vocab": ("abc", handmade.blog_model(), "wte has 2 token rows, but the task abc has 3 tokens (abc)"),
    "too few positions": (
        "induction",
        reference("first"),
        "wpe has 4 rows, but the task induction grades contexts of up to 6",
    ),
    "nan": ("abc", with_nan(None), "wte[1, 1] is nan; every weight must be a finite number"),
    "overflow": ("abc", huge(None), "the forward pass produced inf or nan"),
    "a plain dict with a missing key": ("abc", {"wte": [[1.0]], "blocks": []}, "weights is missing 'wpe'"),
}


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
    assert lines[0] == "task abc: FAIL" and lines[1] == "  right: 5 / 15 contexts (33.3%)"
    assert "  first failing contexts (10 in all):" in lines
    assert "'a': expected b, the model predicted a by a tie (margin 0)" in text
    assert lines[-1].startswith("  where it goes wrong, for 'a' -> b: the embedding at position 0 (a)")
    assert str(grade("abc", reference("abc"))).splitlines()[0] == "task abc: PASS"


def test_examples_are_reused_as_given():
    assert isinstance(examples(get_task("abc"))[0], Example)
