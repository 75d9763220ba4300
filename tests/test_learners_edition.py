"""The edition learners open holds no answer, and Run All of it records nothing.

The notebooks are executed as a learner's Run All executes them (nbclient, a fresh kernel, a new
progress folder), with the grader watched: every model a notebook grades that passes a built-in task
must be one the course knows it shows (``handmade.course.shown_models``), no pass may be recorded,
and the challenge notebooks may grade no solution at all; notebook 17, run where a learner's design and
a teacher's homework file already are, keeps both. The solutions themselves are known to the test: no
notebook holds half the lines of any of them, and no hint names a weight of a reference at its entry.
"""

import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import numpy as np
import pytest

from handmade.course.shown_models import BUILT_WITH_YOU, SHOWN
from handmade.course.solutions import solutions

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import shown_models  # noqa: E402  (tools/shown_models.py: the watched run)

DESIGNS_AND_CHALLENGES = [f"{n}_{rest}" for n, rest in (
    ("14", "design_together"), ("15", "design_mlp"), ("16", "design_two_blocks"),
    ("17", "challenges_tokens_and_positions"), ("18", "challenges_attention"), ("19", "challenges_mlp_heads_blocks"),
)]  # fmt: skip
EDITIONS = {"en": ROOT / "notebooks", "zh": ROOT / "notebooks" / "zh"}
needs_nbclient = pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("nbclient") is None, reason="needs nbclient (requirements-dev.txt)"
)


@pytest.fixture(scope="module")
def runs():
    """{(edition, notebook): what its watched Run All found}, two notebooks at a time."""

    def run(key):
        lang, name = key
        with tempfile.TemporaryDirectory() as data:
            found = shown_models.watched_run(EDITIONS[lang] / f"{name}.ipynb", data)
            found["files"] = sorted(p.name for p in Path(data).iterdir())
        return key, found

    keys = [(lang, name) for lang in EDITIONS for name in DESIGNS_AND_CHALLENGES]
    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(run, keys))


@needs_nbclient
@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("name", DESIGNS_AND_CHALLENGES)
def test_run_all_runs_to_the_end_and_records_nothing(runs, lang, name):
    found = runs[(lang, name)]  # a cell that raised would have failed the fixture, naming it
    assert found["recorded"] == [] and "progress.json" not in found["files"]


@needs_nbclient
@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("name", DESIGNS_AND_CHALLENGES)
def test_every_pass_a_notebook_grades_is_a_model_the_course_knows_it_shows(runs, lang, name):
    for task, fingerprint in runs[(lang, name)]["passes"]:
        assert fingerprint in SHOWN.get(task, {}), (task, fingerprint, "run tools/shown_models.py --write")
        if name >= "17":  # a challenge notebook grades no challenge's solution: only notebook 14's abc, as an example
            assert task == "abc"


ECHO_DESIGN = {"wte": 2 * np.eye(3), "wpe": np.zeros((3, 3)), "blocks": []}  # passes echo: the letter read, by 4
TEACHERS_HOMEWORK = """import handmade


@handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0)
def mirror(context):
    '''Say the first letter again.'''
    return context[0]
"""


@needs_nbclient
@pytest.mark.parametrize("lang", EDITIONS)
def test_run_all_of_17_keeps_a_learners_design_and_a_teachers_homework(lang, tmp_path):
    """Notebook 17 writes a task file and a blank for it, as a teacher's homework is used: in a folder
    that holds a passing echo.json of the learner's and a homework.py of a teacher's, Run All keeps
    both as they were, writes its task file under its own name, and grades the learner's design."""
    import handmade

    folder, data = tmp_path / "notebooks", tmp_path / "data"
    folder.mkdir()
    handmade.save_weights(ECHO_DESIGN, folder / "echo.json")
    (folder / "homework.py").write_text(TEACHERS_HOMEWORK, encoding="utf-8")
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    found = shown_models.watched_run(EDITIONS[lang] / "17_challenges_tokens_and_positions.ipynb", data, folder)
    assert {name: (folder / name).read_bytes() for name in before} == before
    assert "def echo(context):" in (folder / "notebook_17_homework.py").read_text(encoding="utf-8")
    assert [name for name, _ in found["recorded"]] == ["echo"]  # the learner's own design, graded: theirs


def test_the_package_knows_every_reference_and_blog_model_it_shows():
    for task, prints in shown_models.package_models().items():
        assert prints.items() <= SHOWN[task].items(), f"{task}: run tools/shown_models.py --write"


def test_the_package_knows_every_model_a_solution_builds_and_says_which_solution_shows_it(tmp_path, monkeypatch):
    """Each challenge's solution, pasted into its answer cell, builds the task's reference; xor_without_mlp, notebook
    19's Try it, passes xor: its pass is not recorded, and the note says which solution shows it."""
    from handmade.course.grader import grade, handed_in
    from handmade.course.tasks import TASKS

    found = shown_models.solution_models()
    assert all(prints.keys() <= SHOWN[task].keys() for task, prints in found.items()), (
        "run tools/shown_models.py --write"
    )
    assert "xor_without_mlp" in found["xor"].values() and "xor_without_mlp" in SHOWN["xor"].values()
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path))
    space = {"np": np, "TASKS": TASKS, "LG": 1024, "grade": grade}  # what notebook 19's first cell imports
    exec(solutions("en")["xor_without_mlp"].code, space)
    report = handed_in("xor", space["xor_without_mlp"])
    assert (
        report.passed
        and not report.recorded
        and 'the answer that solution("xor_without_mlp") shows' in (report.progress_note)
    )


def own_lines(code):
    lines = [line.strip() for line in code.splitlines() if len(line.strip()) > 20]
    return [line for line in lines if not line.startswith(("task = ", "B = task.labels"))]


@pytest.mark.parametrize("lang", EDITIONS)
def test_no_notebook_holds_a_solution(lang):
    """Not in a cell's source nor in a stored output: at most a few generic lines of any solution
    (one-hot embeddings, a list of positions) may appear, never half of its own lines."""
    answers = solutions(lang)
    for path in sorted(EDITIONS[lang].glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        text = "\n".join(cell.source for cell in cells)
        text += "\n".join(str(output) for cell in cells for output in cell.get("outputs", []))
        for name, answer in answers.items():
            lines = own_lines(answer.code)
            shared = [line for line in lines if line in text]
            assert len(shared) < len(lines) / 2, (path.name, name, shared)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text


FOLDED = re.compile(r"<details>.*?</details>", re.DOTALL)


@pytest.mark.parametrize("lang", EDITIONS)
def test_notebook_13_shows_the_count_its_exercise_asks_for_only_folded(lang):
    """The exercise asks for the operations of one pass over 3 tokens: no source and no stored output shows
    that count but inside a folded <details> (the solution, the cache's table), opened when the learner asks."""
    from handmade.course.efficiency import blog_flops

    answer = sum(blog_flops(3, 8, 2).values())
    cells = nbformat.read(next(EDITIONS[lang].glob("13_*.ipynb")), as_version=4).cells
    shown = [cell.source for cell in cells] + [str(output) for cell in cells for output in cell.get("outputs", [])]
    for text in shown:
        unfolded = FOLDED.sub("", text)
        assert str(answer) not in unfolded and f"{answer:,}" not in unfolded, unfolded[:300]


# ---- the hints lead to a design and name none of the reference's weights -------------------------

CHALLENGES = DESIGNS_AND_CHALLENGES[3:]  # 17, 18 and 19
CLAUSE_END = re.compile(r"(?<=[.;!?])\s+|[。；！？]|\n\s*\n")
CODE_SPAN = re.compile(r"`([^`]*)`")
NUMBER = r"(?<![\w.·/]){}(?![\w·/]|\.\d)"
PART_WORDS = {  # how a hint may call a part: its name in code, the layer's, or the words for it
    "wte": r"\bwte\b|token embedding|词元嵌入",
    "wpe": r"\bwpe\b|position(?:al)? embedding|位置嵌入",
    "q": r"`q[`\[]|\bq\[|\bquer(?:y|ies)\b|查询",
    "k": r"`k[`\[]|\bk\[|\bkeys?\b|键",
    "v": r"`v[`\[]|\bv\[|\bvalues?\b|值",
    "q.b": r"\bq\.b\b|\bbias\b|偏置",
    "c_proj.w": r"\bc_proj\b",
    "c_proj.b": r"\bc_proj\b|\bbias\b|偏置",
    "mlp.c_fc.w": r"\bc_fc\b",
    "mlp.c_proj.w": r"\bmlp\.c_proj\b",
    "mlp.c_proj.b": r"\bmlp\.c_proj\b|\bbias\b|偏置",
}


def direction_pattern(label):
    """A regex for a direction's name as a hint may write it: itself, or the family it belongs to
    (``Tx`` for every letter's, ``Pi`` or ``P(i−1)`` for every position's, ``h0·x``, ``prev x``)."""
    if re.fullmatch(r"T\w", label):
        return r"(?<!\w)T\w(?!\w)"
    if re.fullmatch(r"P\d", label):
        return r"(?<!\w)P(?:\w|\([a-z] ?[−-] ?1\))(?!\w)"
    if re.fullmatch(r"h\d·\w+", label):
        return re.escape(label[:3]) + r"\w+"
    if label.startswith("prev "):
        return r"\bprev \w\b"
    return None  # a word (first, V, s>0): named only in code, below


def value_pattern(value):
    """A regex for ways of writing ``value``: the number, Lg for a strength, one-hot for a 1."""
    forms = [NUMBER.format(r"[+\-−]?" + re.escape(f"{abs(value):g}"))]
    if abs(value) >= 8:  # a strength: Lg, or some part of it
        forms.append(r"\bL[gG]\b")
    if value == 1:
        forms.append(r"one-hot|独热")
    return "|".join(forms)


def reference_entries(name):
    """(part, the directions' patterns, the value's pattern, value) of every non-zero weight of the reference."""
    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS
    from handmade.display.trace import weight_tables

    found = []
    for part, table in weight_tables(reference(TASKS[name])).items():
        local = part.split(".", 1)[1] if part.startswith("blocks[") else part
        if local not in PART_WORDS:  # the whole c_attn.w: its q, k and v are checked as parts
            continue
        for i, j in zip(*np.nonzero(table.values)):
            labels = [table.cols[j]] + ([table.rows[i]] if local not in ("wte", "wpe") and ".b" not in local else [])
            found.append((part, local, labels, table.values[i, j]))
    return found


def named_weights(name, text):
    """[(part, directions, value, clause)] for every clause of ``text`` that names a weight of the
    reference of ``name`` at its entry: the part, one of its directions and its value, together."""
    named, entries = [], reference_entries(name)
    for clause in CLAUSE_END.split(text):
        code = " ".join(CODE_SPAN.findall(clause))
        for part, local, labels, value in entries:
            direction = any(
                re.search(direction_pattern(label), clause)
                if direction_pattern(label)
                else re.search(rf"(?<![\w>]){re.escape(label)}(?![\w<>])", code)
                for label in labels
            )
            if direction and re.search(PART_WORDS[local], clause) and re.search(value_pattern(value), clause):
                named.append((part, labels, float(value), clause.strip()))
    return named


def hints(lang):
    """{task: the text of its hints} of every built-in task in the challenge notebooks of ``lang``."""
    from handmade.course.tasks import TASKS

    found = {}
    for notebook in CHALLENGES:
        for cell in nbformat.read(EDITIONS[lang] / f"{notebook}.ipynb", as_version=4).cells:
            asked = re.search(r'solution\("(\w+)"\)', cell.source)
            if cell.cell_type == "markdown" and "<details><summary>" in cell.source and asked:
                found.update({asked.group(1): cell.source} if asked.group(1) in TASKS else {})
    return found


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_hints_name_no_weight_of_the_reference(lang):
    from handmade.course.tasks import TASKS

    found = hints(lang)
    assert sorted(found) == sorted(name for name in solutions(lang) if name in TASKS)  # every challenge's
    for name, text in found.items():
        assert named_weights(name, text) == [], name


def test_the_hint_check_finds_a_weight_named_at_its_entry():
    named = [
        "`k[first, first] = 1`; the rest stays 0.",
        "`q.b` is Lg on `first`.",
        "`wte` one-hot on `Ta Tb Tc`.",
        "c_proj writes the letter found into `Tx` with Lg.",
        "c_proj 在 `Tx` 上为 Lg。",
    ]
    unnamed = [
        "The key offers `first`; every query asks for it through the query's bias.",
        "Make the gap tens of units: softmax leaves each of the others about e^(−gap) of the attention.",
        "The letter just read adds 1 to its own logit, through `wte`.",
    ]
    assert all(named_weights("first", text) for text in named)
    assert not any(named_weights("first", text) for text in unnamed)


@needs_nbclient
def test_a_reference_said_to_be_built_with_the_learner_is_built_there(runs):
    """shown_models says that abc's reference is the model notebook 14 builds with the learner: it is."""
    from handmade.course.grader import submission
    from handmade.course.progress import model_fingerprint
    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS

    for name, notebook in BUILT_WITH_YOU.items():
        where = next(n for n in DESIGNS_AND_CHALLENGES if n.startswith(notebook))
        fingerprint = model_fingerprint(submission(TASKS[name], reference(name)))
        assert all([name, fingerprint] in runs[(lang, where)]["passes"] for lang in EDITIONS), (name, notebook)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_solution_is_shown_only_when_asked_and_says_it_is_the_answer(lang):
    """solution(name) and `python -m handmade solution NAME` show one challenge's answer, headed as the
    answer the learner asked for, in the learner's language; an unknown name lists the solutions."""
    import subprocess

    from handmade.course.solutions import solution
    from handmade.i18n import set_language

    set_language(lang)
    try:
        shown = str(solution("xor"))
    finally:
        set_language("en")
    heading = "the answer, shown because you asked for it" if lang == "en" else "应你的要求显示的答案"
    assert heading in shown.splitlines()[0] and solutions(lang)["xor"].code in shown
    done = subprocess.run([sys.executable, "-m", "handmade", "--lang", lang, "solution", "xor"],
                          capture_output=True, text=True, encoding="utf-8", timeout=60)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == shown.strip(), done.stderr
    done = subprocess.run([sys.executable, "-m", "handmade", "solution", "nope"], capture_output=True, text=True,
                          encoding="utf-8", timeout=60)  # fmt: skip
    assert done.returncode == 2 and "two_back" in done.stderr and "after_last_c" in done.stderr, done.stderr


class _EqualToAll(str):  # a str that says it equals anything: only str's own methods may read it
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


@pytest.mark.parametrize("lang", ["../README", "answers/en", "fr", "", "EN", 1, b"en", _EqualToAll("../../README")])
def test_the_solutions_are_read_only_in_a_language_of_the_course(lang, monkeypatch):
    """solutions(lang) reads answers/<lang>.md: a lang that is not a language of the course (a path, another
    language, a number, a str that says it equals anything) is refused in one line naming lang and the
    languages, and no file is looked at."""
    from pathlib import Path

    from handmade.course.solutions import solutions

    looked = []
    for method in ("is_file", "read_text"):
        monkeypatch.setattr(Path, method, lambda path, *args, **kwargs: looked.append(path))
    with pytest.raises((ValueError, TypeError)) as refused:
        solutions(lang)
    assert str(refused.value).startswith("lang must be one of en, zh, or None") and "\n" not in str(refused.value)
    assert looked == []


def test_each_playground_saves_to_a_file_of_its_own_by_default():
    """A task's playground to the task's file, the blog's to blog_model.json: saving in one notebook
    never replaces what was saved from another."""
    from handmade.course.tasks import TASKS
    from handmade.widgets import Playground, blog_playground

    assert {name: Playground(task=name).save_path for name in ("alternate", "xor")} == {
        "alternate": "alternate.json",
        "xor": "xor.json",
    }
    from handmade.widgets.playground import _save_name

    assert str(blog_playground().save_path) == "blog_model.json"
    every = [_save_name(name) for name in TASKS]  # the default of each task's playground, built or not
    assert len(set(every)) == len(TASKS) and "blog_model.json" not in every and "my_model.json" not in every
