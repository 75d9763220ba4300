"""The edition learners open holds no answer, and Run All of it records nothing.

The notebooks are executed as a learner's Run All executes them (nbclient, a fresh kernel, a new
progress folder), with the grader watched: every model a notebook grades that passes a built-in task
must be one the course knows it shows (``handmade.course.shown_models``), no pass may be recorded,
and the challenge notebooks may grade no solution at all. The solutions themselves are known to the
test: no notebook holds half the lines of any of them.
"""

import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from handmade.course.shown_models import SHOWN
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


def test_the_package_knows_every_reference_and_blog_model_it_shows():
    for task, prints in shown_models.package_models().items():
        assert prints.items() <= SHOWN[task].items(), f"{task}: run tools/shown_models.py --write"


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
