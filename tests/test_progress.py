"""The learner's progress: a pass of the learner's own, kept per task's identity, by every writer at
once, atomically and within limits that are said when they are reached; never replaced when it cannot
be read unless the learner asks."""

import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest

import handmade
from handmade import cli
from handmade.course import progress
from handmade.course.grader import grade, graded, handed_in
from handmade.course.shown_models import BUILT_WITH_YOU, CHALLENGES_TOO
from handmade.course.solutions import reference, solutions
from handmade.course.tasks import TASKS, blank, load_tasks
from handmade.i18n import set_language
from handmade.parts import get, with_parts
from handmade.structure import BlockShape, Structure
from handmade.widgets.blog import with_lg


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    return tmp_path / "data"


def mine(name="repeat", scale=3):
    """A model of the learner's own that passes repeat: rows of length 3 (the reference's are 2)."""
    return with_parts(blank(name), {"wte": scale * np.eye(3)})


def test_grading_records_nothing_and_a_pass_of_ones_own_is_recorded_once(data):
    assert grade("repeat", mine()).passed and progress.read().passed == ()
    assert handed_in("repeat", blank("repeat")).progress_note is None and progress.read().passed == ()
    handed_in("repeat", mine())
    handed_in("repeat", mine(scale=5))
    assert [name for name, _ in progress.read().passed] == ["repeat"]
    written = json.loads((data / "progress.json").read_text(encoding="utf-8"))
    assert written == {"passed": [{"task": "repeat", "fingerprint": progress.identity(TASKS["repeat"])[1]}]}
    assert sorted(p.name for p in data.iterdir()) == [".progress.lock", "progress.json"]  # no temporary left


@pytest.mark.parametrize("name", sorted(TASKS))
def test_a_model_the_course_shows_passes_but_is_not_recorded(data, name):
    report = handed_in(name, reference(name))
    assert report.passed and "not recorded" in report.progress_note and "reference solution" in report.progress_note
    assert "not recorded" in str(graded(name, reference(name)))
    assert progress.read().passed == ()


@pytest.mark.parametrize("name", sorted(TASKS))
def test_a_references_note_says_truly_where_the_learner_meets_it(data, name):
    """A challenge's reference is the solution that solution() shows; a task without a challenge
    (abc: no hints, no solution) has the model that a notebook builds with the learner; xor's and induction's
    are both (notebooks 15 and 16 build them with the learner, and notebook 19 has them as challenges)."""
    answers = solutions("en")
    assert name in answers or name in BUILT_WITH_YOU, name
    assert set(CHALLENGES_TOO) == set(answers) & set(BUILT_WITH_YOU)
    note = handed_in(name, reference(name)).progress_note
    assert (f'solution("{name}")' in note) == (name in answers)
    if name in BUILT_WITH_YOU:
        assert f"the model notebook {BUILT_WITH_YOU[name]} builds with you" in note
    else:
        assert f"python -m handmade solution {name}" in note and "notebook" not in note
    set_language("zh")
    try:
        chinese = handed_in(name, reference(name)).progress_note
    finally:
        set_language("en")
    assert chinese != note and (f'solution("{name}")' in chinese) == (name in answers)
    # it says why the pass is not recorded, never how to make a copy count: no strength to change, no value
    assert not any(word in note.lower() for word in ("strength", "value", "change", "scale")), note
    assert not any(word in chinese for word in ("强度", "数值", "改", "缩放")), chinese


def test_the_blogs_models_are_not_the_learners(data):
    passing = [build for build in (handmade.blog_model, handmade.literal_model, handmade.two_head_model)]
    notes = {handed_in("aab", build()).progress_note for build in passing if grade("aab", build()).passed}
    assert len(notes) == 2 and all("not recorded" in note for note in notes)
    assert any("the blog's model" in note for note in notes) and progress.read().passed == ()


@pytest.mark.parametrize(
    "model, said",
    [
        (lambda: handmade.blog_model(lg=2048), "its query's 2048, its c_proj's 2048"),
        (lambda: handmade.blog_model(q_lg=512, proj_lg=4096), "its query's 512, its c_proj's 4096"),
        (lambda: with_lg(handmade.blog_model(), 100), "its query's 1024, its c_proj's 100"),  # notebook 09's slider
    ],
)
def test_the_blogs_model_at_other_strengths_is_not_the_learners(data, model, said):
    report = handed_in("aab", model())
    assert report.passed and not report.recorded and progress.read().passed == ()
    assert "the blog's model, which the series builds, at other strengths" in report.progress_note and said in (
        report.progress_note
    )


def test_the_blogs_model_with_a_part_of_the_learners_own_is_theirs(data):
    """Values twice as large (c_proj halved to match) is not a strength of the blog's: a change of the learner's."""
    model = with_parts(handmade.blog_model(), {"v": 2 * get(handmade.blog_model(), "v")})
    model = with_parts(model, {"c_proj.w": get(model, "c_proj.w") / 2})
    report = handed_in("aab", model)
    assert report.passed and report.recorded


ANY_C = """import handmade

@handmade.task(alphabet="abc", n_ctx={n_ctx}, n_embd=3, n_layer=1)
def any_c(context):
    'Say c if there is a c in the text, else a.'
    return "c" if "c" in context else "a"
"""


def test_a_teachers_task_called_like_another_is_another_task(data, tmp_path):
    for n_ctx in (3, 4):
        (tmp_path / f"homework{n_ctx}.py").write_text(ANY_C.format(n_ctx=n_ctx), encoding="utf-8")
    first, second = (load_tasks(tmp_path / f"homework{n}.py")["any_c"] for n in (3, 4))
    assert progress.identity(first) != progress.identity(second)
    assert progress.add(first) is None
    assert progress.read().has(first) and not progress.read().has(second)
    assert "0 of 1 task passed" in progress.shown({"any_c": second}).text
    assert progress.read().has(load_tasks(tmp_path / "homework3.py")["any_c"])  # loaded again: the same task


LAST_AGAIN = """
import handmade
from handmade import cli

@handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)
def say_last(context):
    'Say the last letter again.'
    return context[-1]
"""


def test_a_pass_recorded_says_where_it_is_listed_and_it_is_listed_there(data, tmp_path, capsys):
    """Notebook 00 and ``tasks`` list the built-in tasks; a teacher's file's are listed by ``tasks --tasks FILE``
    (the note gives that command, the file's name quoted for the shell), a task made in a notebook by
    ``progress.shown([it])``. Each note is followed, and the pass is there."""
    (tmp_path / "my homework.py").write_text(LAST_AGAIN, encoding="utf-8")
    path = str(tmp_path / "my homework.py")
    from_file = load_tasks(path)["say_last"]
    note = handed_in(from_file, with_parts(blank(from_file), {"wte": 2 * np.eye(3)})).progress_note
    command = f"python -m handmade tasks --tasks {shlex.quote(path)} shows it"
    assert command in note, note
    assert cli.main(shlex.split(command.removesuffix(" shows it"))[3:]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("say_last:") and "passed 1 of 1 task" in listed, (
        "the command the note gives lists the pass"
    )

    made_here = handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)(last_letter)
    note = handed_in(made_here, with_parts(blank(made_here), {"wte": 2 * np.eye(3)})).progress_note
    assert "progress.shown([last_letter]) shows it" in note and "--tasks" not in note, note
    assert "1 of 1 task passed" in progress.shown([made_here]).text

    note = handed_in("repeat", mine()).progress_note
    assert "notebook 00 and python -m handmade tasks show it" in note, note
    assert "repeat" in progress.shown().text and progress.read().has(TASKS["repeat"])


@pytest.mark.parametrize("name", ["a" * 120 + ".py", "line\nbreak.py"])
def test_a_file_whose_name_cannot_make_a_command_is_named_by_its_kind(data, tmp_path, name):
    """A name too long for the line, or one that cannot be shown as it is: no command that names another file."""
    (tmp_path / name).write_text(LAST_AGAIN, encoding="utf-8")
    task = load_tasks(str(tmp_path / name))["say_last"]
    note = handed_in(task, with_parts(blank(task), {"wte": 2 * np.eye(3)})).progress_note
    assert note == "This pass is recorded in your progress (python -m handmade tasks --tasks with its file shows it)."


def last_letter(context):
    """Say the last letter again."""
    return context[-1]


# Each built-in task's fingerprint, as learners' progress files hold it: a change loses their passes.
FINGERPRINTS = {
    "alternate": "df706dca69a8df8c",
    "repeat": "d1e22db6d97ae2d1",
    "seen_b": "64f7ce22093e2bf7",
    "majority": "60a794793cad91df",
    "abc": "a24cedf1383733dd",
    "first": "87f24211a8334d58",
    "two_back": "d927dddc5afab29c",
    "aab": "fc5bf50400d20615",
    "abb": "223903cb44f7913a",
    "xor": "4965d2d3dfb25e1a",
    "first_not_last": "d6244d647726e1c1",
    "induction": "32b57f4785813667",
    "after_last_c": "60687e51203428fb",
}


def test_the_built_in_tasks_keep_their_fingerprints():
    found = {name: progress.identity(task)[1] for name, task in TASKS.items()}
    changed = sorted(name for name in FINGERPRINTS if found.get(name) != FINGERPRINTS[name])
    assert found.keys() == FINGERPRINTS.keys() and not changed, (
        f"the fingerprint of {changed} changed: every learner's recorded pass of it would be lost without a word. "
        "A fingerprint may change only with what defines the task (its alphabet, n_ctx, shape or answers)"
    )


def test_a_field_added_to_the_shape_changes_no_fingerprint():
    wider = dataclasses.make_dataclass("Wider", [("dropout", float, 0.5)], bases=(Structure,), frozen=True)
    block = dataclasses.make_dataclass("Block", [("rotary", bool, True)], bases=(BlockShape,), frozen=True)
    for task in TASKS.values():
        shape = task.structure
        blocks = tuple(block(**dataclasses.asdict(b)) for b in shape.blocks)
        again = dataclasses.replace(task, structure=wider(shape.n_vocab, shape.n_ctx, shape.n_embd, blocks, shape.ln_f))
        assert dataclasses.astuple(again.structure) != dataclasses.astuple(shape)  # the shape has more fields
        assert progress.identity(again) == progress.identity(task), task.name


def test_a_file_of_names_alone_still_counts_for_the_built_in_tasks(data):
    data.mkdir()
    (data / "progress.json").write_text(json.dumps({"passed": ["abc", "any_c"]}), encoding="utf-8")
    assert progress.read().has(TASKS["abc"]) and not progress.read().has(TASKS["first"])
    handed_in("repeat", mine())
    assert [name for name, _ in progress.read().passed] == ["abc", "any_c", "repeat"]  # nothing lost


WRITER = """
import sys
from handmade.course import progress
from handmade.course.tasks import TASKS, task


def made(i):
    def rule(context):
        "Say a after an even number of letters, b after an odd one."
        return "ab"[(i + len(context)) % 2]

    rule.__name__ = rule.__qualname__ = f"{sys.argv[1]}_{i}"
    return task(alphabet="ab", n_ctx=1, n_embd=2, n_layer=0)(rule)


names = sys.argv[2:]
tasks = [TASKS[name] for name in names] if names != ["200"] else [made(i) for i in range(200)]
for t in tasks:
    note = progress.add(t)
    assert note is None, note
"""


def writers(data, arguments):
    """One process per entry of ``arguments``, all started at once; their exit statuses."""
    env = {k: v for k, v in os.environ.items() if k != "HANDMADE_DATA"} | {"HANDMADE_DATA": str(data)}
    started = [subprocess.Popen([sys.executable, "-c", WRITER, *a], env=env) for a in arguments]
    return [w.wait(timeout=300) for w in started]


@pytest.mark.parametrize("trial", range(3))
def test_a_program_per_task_passing_at_once_keeps_every_pass(data, trial):
    assert writers(data, [[f"p{trial}", name] for name in TASKS]) == [0] * len(TASKS)
    assert sorted(name for name, _ in progress.read().passed) == sorted(TASKS)


def test_two_writers_of_200_passes_each_keep_400(data):
    assert writers(data, [["one", "200"], ["two", "200"]]) == [0, 0]
    assert len(progress.read().passed) == 400


def test_every_limit_is_said_when_it_is_reached(data, monkeypatch):
    data.mkdir()
    entries = [{"task": f"t{i}", "fingerprint": "0" * progress.FINGERPRINT} for i in range(progress.MAX_TASKS)]
    (data / "progress.json").write_text(json.dumps({"passed": entries}), encoding="utf-8")
    assert "holds 1000 passes" in handed_in("repeat", mine()).progress_note
    progress.reset()

    def rule(context):
        "Say a."
        return "a"

    rule.__name__ = "x" * (progress.MAX_NAME + 1)
    long = handmade.task(alphabet="ab", n_ctx=1, n_embd=2, n_layer=0)(rule)
    assert "names of at most 64 characters" in progress.add(long)
    monkeypatch.setattr(progress, "MAX_BYTES", 40)
    assert "more than 40 bytes" in progress.add("abc")
    assert progress.read().passed == ()


def test_a_writer_that_holds_the_lock_too_long_is_said(data, monkeypatch):
    monkeypatch.setattr(progress, "LOCK_WAIT", 0.2)
    with progress._locked():
        note = handed_in("repeat", mine()).progress_note
    assert "kept it busy for 0.2 s" in note and progress.read().passed == ()


@pytest.mark.parametrize(
    "content", ["{not json", '{"passed": "abc"}', '{"passed": [1]}', "\udcff".encode("utf-8", "surrogatepass")]
)
def test_a_file_that_cannot_be_read_is_reported_and_kept_until_the_learner_resets_it(data, content):
    data.mkdir()
    file = data / "progress.json"
    file.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    before = file.read_bytes()
    state = progress.read()
    assert state.passed == () and "cannot be read" in state.problem and "reset()" in state.problem
    report = handed_in("repeat", mine())
    assert report.passed and "cannot be read" in str(report) and file.read_bytes() == before
    assert "cannot be read" in progress.shown().markup
    assert progress.reset() is None
    handed_in("repeat", mine())
    assert [name for name, _ in progress.read().passed] == ["repeat"]


def test_the_file_is_bounded(data):
    data.mkdir()
    (data / "progress.json").write_text(json.dumps({"passed": ["x"] * (progress.MAX_BYTES // 4)}), encoding="utf-8")
    assert f"more than {progress.MAX_BYTES} bytes" in progress.read().problem


def test_a_write_that_fails_is_said_and_loses_nothing(data, monkeypatch):
    handed_in("repeat", mine())
    monkeypatch.setattr(
        progress.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device"))
    )
    report = handed_in("majority", with_parts(reference("majority"), {"v": 2 * np.eye(2)}))
    assert report.passed and "could not record the pass" in str(report) and "No space left" in str(report)
    assert [name for name, _ in progress.read().passed] == ["repeat"]
    assert sorted(p.name for p in data.iterdir()) == [".progress.lock", "progress.json"]


def test_the_table_marks_each_task(data):
    handed_in("repeat", mine())
    shown = progress.shown()
    assert f"1 of {len(TASKS)} tasks passed" in shown.markup and re.search(r"^repeat +passed$", shown.text, re.M)
    assert "1 of 2 tasks passed" in progress.shown(["repeat", "abc"]).text


def test_a_graded_cell_says_not_yet_in_a_notebook_and_fails_under_nbgrader(data, monkeypatch):
    said = graded("repeat", blank("repeat"))
    assert not said.passed and "not yet" in str(said) and progress.read().passed == ()
    assert "it is still the blank one" in str(said) and "a playground's edits are not in it" in str(said)
    near = blank("repeat")
    near["wte"][0, 0] = 1  # one weight set: a model of one's own, failing, sent to its report
    assert "still the blank" not in str(graded("repeat", near)) and "the report above" in str(graded("repeat", near))
    assert graded("repeat", mine()).passed and progress.read().has(TASKS["repeat"])
    for execution in ("autograde", "validate"):
        monkeypatch.setenv("NBGRADER_EXECUTION", execution)
        with pytest.raises(AssertionError, match="repeat: the model does not pass it yet"):
            graded("repeat", blank("repeat"))
        assert graded("repeat", reference("repeat")).passed  # nbgrader gives its points: no progress there


def test_the_folder_is_the_setting_or_the_platforms_usual_place(monkeypatch, tmp_path):
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path))
    assert progress.path() == tmp_path / "progress.json"
    monkeypatch.delenv("HANDMADE_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if progress.os.name != "nt" and progress.sys.platform != "darwin":
        assert progress.folder() == tmp_path / "xdg" / "handmade"


def test_a_model_the_command_line_trained_passes_but_is_not_the_learners(data, tmp_path):
    """train notes the model it made in the progress file (beside the passes, which it keeps); grade then says
    the pass is training's, not a design, and records nothing; the learner's own design is recorded as ever."""
    handed_in("repeat", mine())  # a pass of the learner's own, before: kept
    env = {**os.environ, "HANDMADE_DATA": str(data)}
    command = [sys.executable, "-m", "handmade", "train", "alternate", "--steps", "300", "--out", "t.json"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert done.returncode == 0 and "task alternate: PASS" in done.stdout, done.stderr
    report = handed_in("alternate", handmade.load_weights(tmp_path / "t.json"))
    assert report.passed and not report.recorded
    assert "a model that python -m handmade train made for alternate: training found them" in report.progress_note
    written = json.loads((data / "progress.json").read_text(encoding="utf-8"))
    assert [entry["task"] for entry in written["passed"]] == ["repeat"] and written["trained"][0]["task"] == "alternate"
    assert progress.read().has(TASKS["repeat"]) and not progress.read().has(TASKS["alternate"])
    assert progress.reset() is None and progress.read().passed == ()  # a new start: the passes go, the note stays
    assert not handed_in("alternate", handmade.load_weights(tmp_path / "t.json")).recorded


@pytest.mark.parametrize("trained", ['"x"', "[1]", '[{"task": "abc"}]', '[{"task": "abc", "model": "no"}]'])
def test_a_progress_file_whose_trained_models_cannot_be_read_is_said_and_kept(data, trained):
    data.mkdir(parents=True)
    text = '{"passed": [], "trained": ' + trained + "}"
    (data / "progress.json").write_text(text, encoding="utf-8")
    assert "cannot be read" in progress.read().problem
    assert "cannot be read" in handed_in("repeat", mine()).progress_note
    assert (data / "progress.json").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("name", ["first", "xor", "abc"])
def test_in_an_install_without_the_answers_the_note_does_not_send_the_learner_to_solution(data, monkeypatch, name):
    """HANDMADE_NO_REFERENCES: solution() says the answers are not here, so the note on a reference's pass does not
    point to it; a reference a notebook builds with the learner is still said to be that notebook's."""
    model = reference(name)
    monkeypatch.setenv("HANDMADE_NO_REFERENCES", "1")
    note = handed_in(name, model).progress_note
    assert "not recorded" in note and "solution(" not in note
    assert ("builds with you" in note) == (name in BUILT_WITH_YOU)


@pytest.mark.parametrize("from_a_file", [True, False])
def test_a_teachers_reference_handed_in_is_not_recorded_and_the_note_names_no_file_it_lacks(
    data, tmp_path, from_a_file
):
    """A task of a file or one made in a notebook, each with its reference: the note says it is the reference
    written for the task (with @task.reference), which both are, and no file where there is none."""
    if from_a_file:
        (tmp_path / "homework.py").write_text(LAST_AGAIN + WITH_REFERENCE, encoding="utf-8")
        task = load_tasks(tmp_path / "homework.py")["say_last"]
    else:
        task = handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)(last_letter)
        task.reference(lambda: with_parts(blank(task), {"wte": 2 * np.eye(3)}))
    name = task.name
    report = handed_in(task, reference(task))
    assert report.passed and not report.recorded and progress.read().passed == ()
    said = f"the reference solution written for {name} (with @{name}.reference)"
    assert said in report.progress_note and "file" not in report.progress_note, report.progress_note


def test_where_the_references_are_off_a_teachers_reference_handed_in_is_still_not_recorded(data, monkeypatch):
    """HANDMADE_NO_REFERENCES switches a teacher's references off (``reference`` refuses, --reveal has none to
    show), but the learners have the teacher's file: its reference handed in is still known, and not recorded;
    a model of the learner's own that passes too is."""
    task = handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)(last_letter)
    task.reference(lambda: with_parts(blank(task), {"wte": 2 * np.eye(3)}))
    theirs = reference(task)
    monkeypatch.setenv("HANDMADE_NO_REFERENCES", "1")
    with pytest.raises(ValueError, match="not installed here"):
        reference(task)
    report = handed_in(task, theirs)
    assert report.passed and not report.recorded and progress.read().passed == ()
    assert f"the reference solution written for {task.name}" in report.progress_note, report.progress_note
    assert "not installed" in str(handed_in(task, blank(task), reveal=True))  # still shown nowhere
    mine = handed_in(task, with_parts(blank(task), {"wte": 3 * np.eye(3)}))
    assert mine.passed and mine.recorded and [name for name, _ in progress.read().passed] == [task.name]


WITH_REFERENCE = """

@say_last.reference
def built():
    return handmade.with_parts(handmade.course.tasks.blank(say_last), {"wte": 2 * __import__("numpy").eye(3)})
"""
