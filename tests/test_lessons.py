"""What the challenge notebooks promise a learner, in both editions: every task's hints escalate in
three separately folded steps before its answer cell, and the recap that describes the designs is
folded too."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHALLENGES = ["17_challenges_tokens_and_positions", "18_challenges_attention", "19_challenges_mlp_heads_blocks"]
PATHS = [NOTEBOOKS / f"{name}.ipynb" for name in CHALLENGES] + [NOTEBOOKS / "zh" / f"{n}.ipynb" for n in CHALLENGES]
HINT = re.compile(r"<details><summary>(?:Hint|提示) (\d)")


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def graded_answers(path):
    """The indexes of the answer cells of graded tasks (nbgrader's ``*_answer`` solution cells)."""
    return [
        i
        for i, cell in enumerate(cells(path))
        if cell["metadata"].get("nbgrader", {}).get("grade_id", "").endswith("_answer")
    ]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_each_task_has_three_hints_each_folded_alone_then_its_answer(path):
    notebook, answers = cells(path), graded_answers(path)
    assert answers
    start = 0
    for answer in answers:
        hints = [
            [int(n) for n in HINT.findall("".join(cell["source"]))]
            for cell in notebook[start:answer]
            if cell["cell_type"] == "markdown"
        ]
        found = [n for numbers in hints for n in numbers]
        assert found[-3:] == [1, 2, 3], (path.name, answer, found)  # a nudge, the idea, the design step by step
        text = "".join("".join(cell["source"]) for cell in notebook[start:answer] if cell["cell_type"] == "markdown")
        assert text.count("<details>") == text.count("</details>")  # each hint opened on its own
        assert "jupyter" not in notebook[answer]["metadata"]  # the answer cell, open and the learner's
        assert "solution(" in text.split("</details>")[-1]  # the solution only after the hints, when asked
        start = answer + 1


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_the_recap_that_describes_the_designs_is_folded(path):
    recaps = [
        "".join(cell["source"])
        for cell in cells(path)
        if cell["cell_type"] == "markdown" and re.search(r"^## (Recap|小结)", "".join(cell["source"]), re.M)
    ]
    assert recaps
    for recap in recaps:
        after = recap[re.search(r"^## (Recap|小结)", recap, re.M).end() :].split("\n## ")[0]
        assert after.strip().startswith("<details>") and after.strip().endswith("</details>"), path.name
