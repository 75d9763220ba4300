"""A class: the challenge notebooks as nbgrader assignments, graded by nbgrader itself as the README's
"For teachers" runs it, and the package given to learners without the reference solutions."""

import csv
import getpass
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from importlib.util import find_spec
from pathlib import Path

import nbformat
import pytest
from test_editions import without_prose

from handmade.course.solutions import PLACEHOLDER, solutions
from handmade.course.tasks import TASKS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
README = (ROOT / "README.md").read_text(encoding="utf-8")
TEACHERS = README[README.index("## For teachers") : README.index("## Tests")]
CHALLENGES = ["17_challenges_tokens_and_positions", "18_challenges_attention", "19_challenges_mlp_heads_blocks"]
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
EXCHANGE = sys.platform != "win32"  # nbgrader's exchange (release, fetch, submit, collect) is for Unix
needs_nbgrader = pytest.mark.skipif(find_spec("nbgrader") is None, reason="needs nbgrader (requirements-dev.txt)")


def blocks(text, language):
    return re.findall(rf"```{language}\n(.+?)\n```", text, re.S)


def nbgrader_cells(path):
    """(cell, its nbgrader metadata) for every cell that has some."""
    notebook = nbformat.read(path, as_version=4)
    return [(cell, cell.metadata["nbgrader"]) for cell in notebook.cells if "nbgrader" in cell.metadata]


def graded(path):
    return {meta["grade_id"]: meta["points"] for _, meta in nbgrader_cells(path) if meta["grade"]}


# ---- the metadata -----------------------------------------------------------------------------


def test_only_the_challenge_notebooks_carry_nbgrader_metadata_the_same_in_both_editions():
    for folder in (NOTEBOOKS, NOTEBOOKS / "zh"):
        assert [p.stem for p in sorted(folder.glob("*.ipynb")) if nbgrader_cells(p)] == CHALLENGES
    for name in CHALLENGES:
        english, chinese = (
            nbgrader_cells(NOTEBOOKS / f"{name}.ipynb"),
            nbgrader_cells(NOTEBOOKS / "zh" / f"{name}.ipynb"),
        )
        assert [(without_prose(c.source), meta) for c, meta in english] == [
            (without_prose(c.source), meta) for c, meta in chinese
        ]  # the same code; the comments in the learner's language


@pytest.mark.parametrize("folder, lang", [(NOTEBOOKS, "en"), (NOTEBOOKS / "zh", "zh")])
def test_each_challenge_task_has_an_open_answer_cell_without_a_solution_then_a_graded_cell(folder, lang):
    tasks, answers = [], solutions(lang)
    for name in CHALLENGES:
        cells = nbgrader_cells(folder / f"{name}.ipynb")
        answer_cells = [(c, m) for c, m in cells if m["solution"] and m["grade_id"].endswith("_answer")]
        for (answer, meta), (check, graded_meta) in zip(answer_cells, [(c, m) for c, m in cells if m["grade"]]):
            task = meta["grade_id"].removesuffix("_answer")
            assert answer.source.split("\n").count(PLACEHOLDER) == 1 and BEGIN not in answer.source
            assert "jupyter" not in answer.metadata and "hide-input" not in answer.metadata.get("tags", [])  # open
            assert answer.source.endswith(f"\n{PLACEHOLDER}\ngrade(task, my_{task})") and not meta["grade"]
            assert graded_meta == {**graded_meta, "grade_id": f"{task}_graded", "locked": True, "solution": False}
            assert check.source.endswith(f'\ngraded("{task}", my_{task})') and task in answers
            tasks.append(task)
    assert sorted(tasks) == sorted(set(TASKS) - {"abc"})  # every task but notebook 14's, graded once
    extra = [m["grade_id"] for _, m in nbgrader_cells(folder / f"{CHALLENGES[-1]}.ipynb") if m["solution"]][-1]
    assert extra == "xor_without_mlp" and sorted(answers) == sorted([*tasks, extra])


# ---- nbgrader on a course folder --------------------------------------------------------------


NBGRADER = """
import json, os, sys
from nbgrader.apps.nbgraderapp import NbGraderApp

for folder, argv in json.loads(sys.argv[1]):
    os.chdir(folder)
    try:
        NbGraderApp.launch_instance(argv=argv)  # what the command line nbgrader runs
    except SystemExit as done:
        if done.code:
            sys.exit(f"nbgrader {' '.join(argv)} failed")
    subapp = NbGraderApp.instance().subapp
    NbGraderApp.clear_instance()
    if subapp is not None:
        type(subapp).clear_instance()
"""


def nbgrader(steps, env):
    """Each ``nbgrader ARGUMENTS`` of ``steps`` ([folder, arguments]) as the README writes it, in
    its folder, one after another in one Python (nbgrader takes seconds to import)."""
    command = [sys.executable, "-c", NBGRADER, json.dumps([[str(folder), argv] for folder, argv in steps])]
    done = subprocess.run(command, env=env, capture_output=True, text=True, encoding="utf-8", timeout=600)
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


def teacher_commands():
    """The README's commands for the teacher, in its order, and the learner's."""
    nbgrader_blocks = [block for block in blocks(TEACHERS, "bash") if block.startswith("nbgrader ")]
    teacher, learner = (
        [line.split("  #")[0].split()[1:] for line in block.splitlines()] for block in nbgrader_blocks[:2]
    )
    assert [c[0] for c in teacher] == ["generate_assignment", "release_assignment", "collect", "autograde", "export"]
    assert [c[0] for c in learner] == ["fetch_assignment", "submit"]
    return teacher, learner


def config(exchange):
    """The README's nbgrader_config.py, with the exchange folder in the test's temporary folder."""
    text = next(block for block in blocks(TEACHERS, "python") if "get_config()" in block)
    assert '"/srv/nbgrader/exchange"' in text
    return text.replace('"/srv/nbgrader/exchange"', repr(str(exchange)))


def shift_assignment(folder):
    """The README's task of one's own (without its reference) and a notebook of the three cells it shows, each
    with the metadata it gives (nbgrader refuses an assignment whose cells lack a field of it)."""
    tasks_section = README[README.index("## Tasks") : README.index("## For teachers")]
    shift = blocks(tasks_section, "python")[0]
    (folder / "shift.py").write_text(shift[: shift.index("@shift.reference")], encoding="utf-8")
    own = TEACHERS[TEACHERS.index("### A task of your own") :]
    setup, answer, check = blocks(own, "python")[:3]
    answer_meta, check_meta = (json.loads(block)["nbgrader"] for block in blocks(own, "json")[:2])  # as written
    notebook = nbformat.v4.new_notebook(metadata=nbformat.read(folder / f"{CHALLENGES[0]}.ipynb", 4).metadata)
    notebook.cells = [
        nbformat.v4.new_code_cell(setup),
        nbformat.v4.new_code_cell(answer, metadata={"nbgrader": answer_meta}),
        nbformat.v4.new_code_cell(check, metadata={"nbgrader": check_meta}),
    ]
    nbformat.write(notebook, folder / "shift.ipynb")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course folder taken through the README's commands: the challenges (and the README's own
    task) generated, released, fetched and submitted by a learner who changed nothing, collected;
    the teacher's edition handed in by hand as a second learner's; autograded without the
    references installed; exported. The Chinese edition is generated too, in a course of its own."""
    top = tmp_path_factory.mktemp("class")
    course, chinese, learner, exchange = top / "course", top / "course_zh", top / "learner", top / "exchange"
    for folder in (course / "source" / "challenges", chinese / "source" / "challenges_zh", learner, exchange):
        folder.mkdir(parents=True)
    (command,) = [line.split("  #")[0] for line in blocks(TEACHERS, "bash")[0].splitlines()]
    assert command == "python3 tools/teacher_source.py course/source/challenges"  # then --lang zh
    for source, more in (
        (course / "source" / "challenges", []),
        (chinese / "source" / "challenges_zh", ["--lang", "zh"]),
    ):
        argv = [sys.executable, str(ROOT / command.split()[1]), str(source), *more]
        subprocess.run(argv, check=True, capture_output=True, timeout=120)
    shift_assignment(course / "source" / "challenges")
    for folder in (course, chinese, learner):
        (folder / "nbgrader_config.py").write_text(config(exchange), encoding="utf-8")
    # the teacher's edition, handed in by hand; without shift.py, which autograde brings
    teachers = course / "submitted" / "teacher" / "challenges"
    shutil.copytree(course / "source" / "challenges", teachers, ignore=shutil.ignore_patterns("shift.py"))
    env = {k: v for k, v in os.environ.items() if k != "HANDMADE_LANG"}
    env |= {"HANDMADE_DATA": str(top / "progress"), "HANDMADE_NO_REFERENCES": "1"}  # grading needs no reference
    teacher, learners = teacher_commands()
    steps = [(chinese, ["generate_assignment", "challenges_zh"])]
    for command in teacher:
        if command[0] == "collect":
            steps += [(learner, step) for step in learners]
        if EXCHANGE or command[0] not in ("release_assignment", "collect"):
            steps.append((course, command))
        if command[0] == "generate_assignment" and not EXCHANGE:  # no exchange: the blank handed in by hand
            nbgrader(steps, env)
            steps = []
            shutil.copytree(course / "release" / "challenges", course / "submitted" / "learner" / "challenges")
    nbgrader(steps, env)
    return top


def code_lines(code):
    """The lines of a solution that are its own: long enough not to be found by chance elsewhere, and
    not the lines that name the task and its directions, which a Try it's solution repeats."""
    lines = [line.strip() for line in code.splitlines() if len(line.strip()) > 20]
    return [line for line in lines if not line.startswith(("task = ", "B = task.labels"))]


@needs_nbgrader
@pytest.mark.parametrize("assignment, lang", [("challenges", "en"), ("challenges_zh", "zh")])
def test_the_released_edition_is_the_learners_edition_and_the_source_holds_every_solution(course, assignment, lang):
    folder = course / ("course" if lang == "en" else "course_zh")
    edition = NOTEBOOKS / ("zh" if lang == "zh" else "")
    own = [line for answer in solutions(lang).values() for line in code_lines(answer.code)]
    assert len(own) > 100
    for name in CHALLENGES:
        released = nbformat.read(folder / "release" / assignment / f"{name}.ipynb", as_version=4)
        learners = nbformat.read(edition / f"{name}.ipynb", as_version=4)
        source = nbformat.read(folder / "source" / assignment / f"{name}.ipynb", as_version=4)
        assert [cell.source for cell in released.cells] == [cell.source for cell in learners.cells]
        assert not [cell for cell in released.cells if cell.get("outputs") or "jupyter" in cell.metadata]
        text, taught = "\n".join(c.source for c in released.cells), "\n".join(c.source for c in source.cells)
        assert "SOLUTION" not in text and not [line for line in own if line in text]
        assert text.count(PLACEHOLDER) == taught.count(BEGIN) == taught.count(END) > 0
    taught = "\n".join(
        c.source
        for name in CHALLENGES
        for c in nbformat.read(folder / "source" / assignment / f"{name}.ipynb", 4).cells
    )
    assert all(line in taught for line in own)
    assert (course / "course" / "release" / "challenges" / "shift.py").exists()


@needs_nbgrader
def test_the_released_blank_scores_0_and_the_teachers_edition_full_marks(course):
    course = course / "course"
    rows = csv.DictReader((course / "grades.csv").open(encoding="utf-8"))
    rows = {row["student_id"]: row for row in rows if row["assignment"] == "challenges"}
    learner = getpass.getuser() if EXCHANGE else "learner"  # the exchange files a submission under its login
    points = sum(sum(graded(NOTEBOOKS / f"{name}.ipynb").values()) for name in CHALLENGES)
    assert points == 24
    assert {(k, float(row["score"]), float(row["max_score"])) for k, row in rows.items()} == {
        (learner, 0.0, points + 2),
        ("teacher", points + 2.0, points + 2),
    }
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="handmade") as gradebook:
        for name in [*CHALLENGES, "shift"]:
            cells = graded(NOTEBOOKS / f"{name}.ipynb") if name != "shift" else {"shift_graded": 2}
            for grade_id, worth in cells.items():
                scores = {who: gradebook.find_grade(grade_id, name, "challenges", who).score for who in rows}
                assert scores == {learner: 0, "teacher": worth}, (name, grade_id)


UNSET = """
import os
print(os.environ.pop("NBGRADER_EXECUTION", None))  # a learner's answer cell, hoping for a graded cell that does not raise
"""


@needs_nbgrader
def test_a_graded_cell_earns_nothing_for_a_model_that_fails_whoever_unsets_nbgraders_setting(tmp_path):
    """Executed as nbgrader executes a notebook, its setting on, then unset by the learner's own code:
    nbgrader's own rule (``determine_grade``) gives the failing model's graded cell no points, and the
    passing one's all of them, without the warning it logs for output it cannot read as a number."""
    import logging

    from nbclient import NotebookClient
    from nbgrader.utils import determine_grade

    setup = "from handmade.course.grader import graded\nfrom handmade.course.tasks import blank\nimport numpy as np"
    checks = ['graded("repeat", blank("repeat"))', 'graded("repeat", {**blank("repeat"), "wte": 3 * np.eye(3)})']
    meta = {"nbgrader": {"grade": True, "solution": False, "locked": True, "points": 2, "grade_id": "g"}}
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in (setup, UNSET)]
    notebook.cells += [nbformat.v4.new_code_cell(code, metadata=meta) for code in checks]
    env = {**os.environ, "NBGRADER_EXECUTION": "autograde", "HANDMADE_DATA": str(tmp_path)}
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}})
    client.execute(env=env)  # the kernel starts with the setting on
    assert notebook.cells[1].outputs[0]["text"] == "autograde\n"
    warnings = []
    log = logging.getLogger("nbgrader-test")
    log.addHandler(type("Kept", (logging.Handler,), {"emit": lambda self, record: warnings.append(record)})())
    failing, passing = (determine_grade(cell, log) for cell in notebook.cells[2:])
    assert (failing, passing, warnings) == ((0, 2.0), (2.0, 2.0), [])
    assert "repeat: not yet" in notebook.cells[2].outputs[0]["text"]  # said, on stderr


# ---- without the reference solutions ----------------------------------------------------------

WITHOUT = """
import json, sys
import numpy as np
import handmade
from handmade.course.checks import check_acb
from handmade.course.grader import grade
from handmade.course.tasks import TASKS, blank
from handmade.course.solutions import reference
from handmade.parts import with_parts
from handmade.widgets import Playground

try:
    reference("xor")
    error = None
except ValueError as raised:
    error = str(raised)
empty = grade("xor", blank("xor"), reveal=True)
mine = with_parts(blank("repeat"), {"wte": 3 * np.eye(3)})  # a hand-made repeat: rows of length 3
unsure = grade("repeat", with_parts(mine, {"wte": np.eye(3)}))  # all right, by a margin of only 1
playground = Playground(task="abc")


@handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0)
def last(context):
    "Say the last letter again."
    return context[-1]


last.reference(lambda: with_parts(blank(last), {"wte": 2 * np.eye(2)}))
try:
    own = reference(last) is None
except ValueError:
    own = "off"
try:
    from handmade.course.solutions import solution

    shown = str(solution("xor"))
except ValueError as raised:
    shown = str(raised)
playground.score.reveal = True
print(json.dumps({
    "file": __import__("handmade").__file__,
    "loaded": "handmade.course.references" in sys.modules,
    "built": [name for name, task in TASKS.items() if task.build is not None or task.has_reference],
    "error": error,
    "blank": [empty.passed, empty.correct, empty.diagnosis, sum(empty.shares.values()) == empty.margin],
    "revealed": empty.revealed,
    "button": playground.score(playground.params)[2][-1],
    "mine": grade("repeat", mine).passed,
    "unsure": [unsure.diagnosis, sum(unsure.shares.values()) == unsure.margin == 1],
    "checker": check_acb({"Ta": "Tc", "Tc": "Tb", "Tb": "Ta"}).passed,
    "solution": shown,
    "own": own,  # a teacher's task's reference: off with the setting, there with the wheel alone
}))
"""


def run_without(tmp_path, setting=None, pythonpath=None):
    """WITHOUT's findings, run in a fresh Python (from ``tmp_path``, so that only the installed package is found)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HANDMADE_LANG", "HANDMADE_NO_REFERENCES")}
    env |= {"HANDMADE_DATA": str(tmp_path / "progress"), **(setting or {})}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run([sys.executable, "-c", WITHOUT], cwd=tmp_path, env=env, capture_output=True, encoding="utf-8")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def assert_works_without_references(found):
    assert not found["loaded"] and found["built"] == []
    assert found["error"] == (
        "task xor: the reference solutions are not installed here (an install for learners, without the answers);"
        " grading needs none"
    )
    passed, correct, diagnosis, adds_up = found["blank"]
    assert not passed and correct == 0 and "no part of the model" in diagnosis and adds_up  # every context a tie
    assert "the answers are not installed here" in found["revealed"] and found["revealed"].strip() == found["button"]
    explained, adds_up = found["unsure"]
    assert "(wte) pushes toward a by 1, not enough" in explained and adds_up
    assert found["mine"] and found["checker"]
    assert found["solution"] == (
        "the solutions are not installed here (an install for learners, without the answers); grading needs none"
    )


def test_with_the_setting_on_the_references_are_off_and_the_rest_works(tmp_path):
    found = run_without(tmp_path, {"HANDMADE_NO_REFERENCES": "1"})
    assert_works_without_references(found)
    assert found["own"] == "off"


def test_with_the_setting_on_reveal_says_the_answers_are_not_installed_in_chinese_too(tmp_path):
    (tmp_path / "blank.json").write_text("{}", encoding="utf-8")
    env = {**os.environ, "HANDMADE_NO_REFERENCES": "1", "HANDMADE_DATA": str(tmp_path)}
    command = [sys.executable, "-m", "handmade", "--lang", "zh", "blank", "abc", "abc.json"]
    assert subprocess.run(command, cwd=tmp_path, env=env, capture_output=True).returncode == 0
    command = [sys.executable, "-m", "handmade", "--lang", "zh", "grade", "abc", "--weights", "abc.json", "--reveal"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, encoding="utf-8")
    assert done.returncode == 1 and done.stdout.rstrip().endswith("（这里没有安装答案：这个安装里没有可显示的参考解）")


def test_a_wheel_built_without_references_leaves_them_out_and_grades(tmp_path):
    """The README's command, on a copy of the project; the wheel installed in a folder of its own."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "handmade", project / "handmade", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, project)
    command = next(line for line in blocks(TEACHERS, "bash") if "pip wheel" in line)
    assert command == "HANDMADE_NO_REFERENCES=1 python3 -m pip wheel --no-deps -w dist ."
    env = {**os.environ, "HANDMADE_NO_REFERENCES": "1"}
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, *command.split()[4:]], cwd=project, env=env, check=True, capture_output=True, timeout=300)
    (wheel,) = (project / "dist").glob("handmade-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert (ROOT / "handmade" / "course" / "references.py").exists()
    assert "handmade/course/references.py" not in names
    assert not [name for name in names if "answers" in name]  # nor the challenges' solutions
    assert {"handmade/course/tasks.py", "handmade/course/builtin_tasks.py", "handmade/course/grader.py"} <= set(names)
    assert "handmade/locale/zh/LC_MESSAGES/handmade.mo" in names
    target = tmp_path / "installed"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True, capture_output=True)
    found = run_without(tmp_path, pythonpath=target)  # the setting is off: the wheel alone holds them back
    assert Path(found["file"]).is_relative_to(target)
    assert_works_without_references(found)
    assert found["own"] is False  # a teacher's own reference still works


def test_the_readmes_graded_cell_grades_the_teachers_task_whatever_an_answer_cell_calls_shift(tmp_path, monkeypatch):
    """An answer cell that defines a ``shift`` of its own (one a blank model passes) earns nothing: the
    README's graded cell loads the task from the teacher's file again."""
    shift_assignment_files = tmp_path / "assignment"
    shift_assignment_files.mkdir()
    tasks_section = README[README.index("## Tasks") : README.index("## For teachers")]
    shift = blocks(tasks_section, "python")[0]
    (shift_assignment_files / "shift.py").write_text(shift[: shift.index("@shift.reference")], encoding="utf-8")
    setup, _answer, check = blocks(TEACHERS[TEACHERS.index("### A task of your own") :], "python")[:3]
    cheat = """
import handmade

@handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)
def shift(context):
    \"\"\"Say a.\"\"\"
    return "a"

my_shift = with_parts(blank(shift), {"wte": np.eye(3), "wpe": np.tile([3.0, 0, 0], (3, 1))})
"""
    monkeypatch.chdir(shift_assignment_files)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    namespace = {}
    exec(setup, namespace)
    exec(cheat, namespace)
    assert namespace["grade"](namespace["shift"], namespace["my_shift"]).passed  # its own task: passed
    with pytest.raises(AssertionError, match="shift: the model does not pass it yet"):
        exec(check, namespace)
