"""Build a teacher's nbgrader source: the challenge notebooks with their answer cells filled.

The notebooks in ``notebooks/`` are the learners' edition: each challenge's answer cell starts from
the blank model, with ``# YOUR CODE HERE`` where the learner's code goes, and no cell holds a
solution. The solutions are in the package, one file per language (``handmade/course/answers/``).
This script puts each solution into its answer cell, between nbgrader's markers, and writes the
notebooks into a folder of a course's ``source/``, from which ``nbgrader generate_assignment`` makes
the learners' edition again (with ``c.ClearSolutions.code_stub`` set to ``# YOUR CODE HERE``, the
very notebooks of ``notebooks/``)::

    python3 tools/teacher_source.py course/source/challenges            # the English edition
    python3 tools/teacher_source.py course/source/challenges_zh --lang zh

Stored outputs are cleared (nbgrader runs the notebooks afresh). A notebook already in the folder is
not replaced unless ``--force`` says so; the folder's other files are left alone. Bad input ends
with status 2 and one line.
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHALLENGES = ("17_challenges_tokens_and_positions", "18_challenges_attention", "19_challenges_mlp_heads_blocks")
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def filled(notebook, solutions):
    """``notebook`` (nbformat) with every answer cell's placeholder replaced by its solution, between
    nbgrader's markers, and every output cleared. ValueError when an answer cell has no solution or
    no placeholder."""
    from handmade.course.solutions import PLACEHOLDER

    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs, cell.execution_count = [], None
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("solution"):
            continue
        name = meta["grade_id"].removesuffix("_answer")
        lines = cell.source.split("\n")
        if name not in solutions or lines.count(PLACEHOLDER) != 1:
            raise ValueError(f"answer cell {meta['grade_id']}: no solution called {name}, or no line {PLACEHOLDER!r}")
        at = lines.index(PLACEHOLDER)
        cell.source = "\n".join([*lines[:at], BEGIN, solutions[name].code, END, *lines[at + 1 :]])
    return notebook


def build(folder, lang, force=False):
    """Write the teacher's source of the ``lang`` edition into ``folder``; the paths written."""
    import nbformat

    from handmade.course.solutions import solutions

    answers = solutions(lang)
    editions = ROOT / "notebooks" / ("zh" if lang == "zh" else "")
    targets = [folder / f"{name}.ipynb" for name in CHALLENGES]
    there = [str(t) for t in targets if t.exists()]
    if there and not force:
        raise ValueError(f"{there[0]} exists; it is kept: choose another folder, or replace it with --force")
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in zip(CHALLENGES, targets):
        notebook = filled(nbformat.read(editions / f"{name}.ipynb", as_version=4), answers)
        temporary = target.with_name(f".{target.name}.tmp")
        nbformat.write(notebook, temporary)
        os.replace(temporary, target)
    return targets


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder of a course's source/, e.g. course/source/challenges")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="the edition (default: en)")
    parser.add_argument("--force", action="store_true", help="replace the challenge notebooks already there")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    try:
        for written in build(args.folder, args.lang, args.force):
            print(f"wrote {written}")
    except (ValueError, OSError) as error:
        print(f"teacher_source.py: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
