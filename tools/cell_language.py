"""Mark every markdown cell of the notebooks with the language it is written in: ``<div lang="zh-CN">`` around it.

JupyterLab's page is in JupyterLab's own language (``lang="en"`` unless a learner chooses another), and a screen
reader reads every word of a page in the page's language: a Chinese cell read by an English voice is noise. So
each markdown cell of an edition sits in a ``<div>`` that names the edition's language (JupyterLab keeps the
attribute, and renders the markdown inside, as the blank lines around it let it), and what the package itself
shows carries its language too (``handmade.i18n.tag``). The site leaves the marks out: its pages are each in
their edition's language already (``tools/site.py``).

    python3 tools/cell_language.py           # list the cells that are not marked (status 1 if there are any)
    python3 tools/cell_language.py --write   # mark them, and mend a mark of the other language

``tests/test_editions.py`` fails until every cell is marked.
"""

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from handmade.i18n import TAGS  # noqa: E402

EDITIONS = {"en": "notebooks", "zh": "notebooks/zh"}  # the site puts each at the same place under its folder
MARK = re.compile(r'<div lang="([A-Za-z-]+)">\n\n(.*)\n\n</div>\Z', re.S)


def marked(source, tag):
    """``source`` (a markdown cell's text) in a ``<div lang>`` of ``tag``; marked once, whatever it was before."""
    source = unmarked(source)
    return f'<div lang="{tag}">\n\n{source}\n\n</div>' if source.strip() else source


def unmarked(source):
    """``source`` without the mark ``marked`` puts around it (the cell as it was written)."""
    found = MARK.match(source)
    return found.group(2) if found else source


def tag_of(source):
    """The language the mark of ``source`` names, or None when it has none."""
    found = MARK.match(source)
    return found.group(1) if found else None


def cells_to_mark(edition):
    """[(notebook, index of the cell)] of ``edition`` ("en" or "zh") whose mark is missing or names another language."""
    found = []
    for path in sorted((ROOT / EDITIONS[edition]).glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown" and cell.source.strip() and tag_of(cell.source) != TAGS[edition]:
                found.append((path, i))
    return found


def write(path, edition):
    """Mark every markdown cell of the notebook at ``path``, written whole in place of the old (never half)."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = marked(cell.source, TAGS[edition])
    temporary = path.with_name(f".{path.name}.marking")
    nbformat.write(notebook, temporary)
    temporary.replace(path)


def main(argv=None):
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("--write", action="store_true", help="mark the cells that are not marked")
    write_them = arguments.parse_args(argv).write
    left = [(edition, place) for edition in EDITIONS for place in cells_to_mark(edition)]
    for edition, (path, i) in left:
        print(f"{path.relative_to(ROOT)}: cell {i} is not marked {TAGS[edition]}")
    if write_them:
        for edition, path in dict.fromkeys((edition, path) for edition, (path, _i) in left):
            write(path, edition)
    return 1 if left and not write_them else 0


if __name__ == "__main__":
    sys.exit(main())
