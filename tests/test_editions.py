"""The Chinese edition is the English one: the same notebooks, the same code, prose in Chinese."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ENGLISH = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
LANGUAGE_CELL = 'import handmade\n\nhandmade.set_language("zh")'


def cells(path, kind):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(cell["source"]).strip() for cell in notebook["cells"] if cell["cell_type"] == kind]


def test_every_notebook_has_its_chinese_twin_and_no_other():
    assert sorted(p.name for p in (NOTEBOOKS / "zh").glob("*.ipynb")) == ENGLISH


@pytest.mark.parametrize("name", ENGLISH)
def test_the_code_is_the_same_but_for_choosing_the_language_once_at_the_top(name):
    english, chinese = cells(NOTEBOOKS / name, "code"), cells(NOTEBOOKS / "zh" / name, "code")
    assert chinese[0] == LANGUAGE_CELL, "the first code cell of a Chinese notebook chooses the language"
    assert chinese[1:] == english, "every other code cell is the English notebook's, in the same order"


@pytest.mark.parametrize("name", ENGLISH)
def test_the_prose_is_translated(name):
    english, chinese = cells(NOTEBOOKS / name, "markdown"), cells(NOTEBOOKS / "zh" / name, "markdown")
    assert len(chinese) >= len(english) - 1
    han = sum(1 for text in chinese for c in text if "\u4e00" <= c <= "\u9fff")
    assert han > 0.2 * sum(len(text) for text in chinese), "mostly Chinese characters"
    assert not set(english) & set(chinese) - {""}, "no markdown cell left in English"


def test_each_start_page_links_to_the_other_edition():
    assert "zh/00_start_here.ipynb" in " ".join(cells(NOTEBOOKS / "00_start_here.ipynb", "markdown"))
    assert "../00_start_here.ipynb" in " ".join(cells(NOTEBOOKS / "zh" / "00_start_here.ipynb", "markdown"))
