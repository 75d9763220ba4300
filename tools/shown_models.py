"""Make ``handmade/course/shown_models.py``'s SHOWN: the fingerprints of every model the course shows.

A pass is recorded only for a model of the learner's own, so the package must know the models the
course itself hands a learner: the built-in tasks' reference solutions, the blog's models, and the
designs that notebooks 14 to 17 build with the learner. This script finds them: the references and
the blog's models by grading them on every built-in task, the designs by running the notebooks with
the grader watched (every model a notebook grades, on any task, that passes a built-in task of its alphabet).

    python3 tools/shown_models.py            # print what SHOWN should be, and whether it is
    python3 tools/shown_models.py --write    # write it into the module

Run it after changing a reference, the blog's models or notebooks 14 to 17; the test
``tests/test_learners_edition.py`` fails until it is run.
"""

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "handmade" / "course" / "shown_models.py"
DESIGNS = ("14_design_together", "15_design_mlp", "16_design_two_blocks", "17_challenges_tokens_and_positions")
BEGIN, END = "# ---- made by tools/shown_models.py: do not edit by hand ----", "# ---- end of what"

# The first cell of a watched run: every pass of a built-in task that the notebook grades is noted.
WATCH = """
import handmade.course.grader as _grader
from handmade.course.progress import model_fingerprint as _fingerprint
from handmade.course.tasks import TASKS as _TASKS, get_task as _get_task
_passes, _grade, _depth = [], _grader.grade, [0]
def _watched(task, params, **options):
    _depth[0] += 1
    try:
        report = _grade(task, params, **options)
    finally:
        _depth[0] -= 1
    if _depth[0] == 0:  # a grade inside a grade (the grader judging a reference solution) is the grader's
        _note(_get_task(task), params, report)
    return report
def _note(task, params, report):
    # the model on every built-in task of its alphabet that it passes: a teacher's task's model may pass one too
    for other in _TASKS.values():
        if other.alphabet != task.alphabet:
            continue
        try:
            if (report if other is task else _grade(other, params, diagnose=False)).passed:
                _passes.append([other.name, _fingerprint(_grader.submission(other, params))])
        except ValueError:  # another shape than that task's
            continue
_grader.grade = _watched
"""
# The last cell: what was noted, and what the progress file holds.
REPORT = """
import json as _json
from handmade.course import progress as _progress
print("WATCHED " + _json.dumps({"passes": _passes, "recorded": list(_progress.read().passed)}))
"""


def watched_run(path, data, folder=None):
    """Run the notebook at ``path`` top to bottom with the grader watched and the progress file in
    ``data``, in ``folder`` (a new empty one by default: what the notebook writes goes there, never
    beside the notebook): {"passes": [[task, fingerprint], ...], "recorded": [...]}. Raises if a cell fails."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(WATCH))
    notebook.cells.append(nbformat.v4.new_code_cell(REPORT))
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", shutdown_kernel="immediate")
    with contextlib.nullcontext(folder) if folder is not None else tempfile.TemporaryDirectory() as where:
        client.resources = {"metadata": {"path": str(where)}}
        client.execute(env={**os.environ, "HANDMADE_DATA": str(data)})  # the kernel's own progress folder
    text = "".join(o.get("text", "") for o in notebook.cells[-1].outputs if o.output_type == "stream")
    return json.loads(text[text.index("WATCHED ") + len("WATCHED ") :])


def package_models():
    """{task: {fingerprint: "reference" or "blog"}}: the references and the blog's models."""
    from handmade import blog
    from handmade.course.grader import grade, submission
    from handmade.course.progress import model_fingerprint
    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS
    from handmade.weights import WeightsError

    shown = {}
    for name, task in TASKS.items():
        shown.setdefault(name, {})[model_fingerprint(submission(task, reference(task)))] = "reference"
        for build in (blog.blog_model, blog.literal_model, blog.flip_model, blog.two_head_model):
            try:
                if grade(task, build(), diagnose=False).passed:
                    shown[name].setdefault(model_fingerprint(submission(task, build())), "blog")
            except WeightsError:  # another shape than the task's
                continue
    return shown


CHALLENGES = ("17_challenges_tokens_and_positions", "18_challenges_attention", "19_challenges_mlp_heads_blocks")


def solution_models():
    """{task: {fingerprint: a solution's name}}: the models the challenges' solutions build (``solution()`` shows
    them when asked), each put into its answer cell as a learner would paste it, after the notebook's first cell;
    on every built-in task of its alphabet that it passes (``xor_without_mlp`` passes xor)."""
    import nbformat

    from handmade.course.grader import grade, submission
    from handmade.course.progress import model_fingerprint
    from handmade.course.solutions import PLACEHOLDER, solutions
    from handmade.course.tasks import TASKS

    answers, shown = solutions("en"), {}
    for name in CHALLENGES:
        cells = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells
        first = next(cell.source for cell in cells if cell.cell_type == "code")
        for cell in cells:
            answer = cell.metadata.get("nbgrader", {}).get("grade_id", "").removesuffix("_answer")
            if cell.metadata.get("nbgrader", {}).get("solution") and answer in answers:
                space = {}
                exec(first + "\n" + cell.source.replace(PLACEHOLDER, answers[answer].code), space)
                for model in (value for value in space.values() if isinstance(value, dict) and "wte" in value):
                    for task in (t for t in TASKS.values() if grade_passes(grade, t, model)):
                        shown.setdefault(task.name, {})[model_fingerprint(submission(task, model))] = answer
    return shown


def grade_passes(grade, task, model):
    try:
        return grade(task, model, diagnose=False).passed
    except ValueError:  # another shape or alphabet than the task's
        return False


def found():
    """SHOWN as it should be."""
    shown = package_models()
    for task, prints in solution_models().items():
        for fingerprint, name in prints.items():
            shown.setdefault(task, {}).setdefault(fingerprint, "reference" if name == task else name)
    for name in DESIGNS:
        with tempfile.TemporaryDirectory() as data:
            for task, fingerprint in watched_run(ROOT / "notebooks" / f"{name}.ipynb", data)["passes"]:
                shown.setdefault(task, {}).setdefault(fingerprint, name[:2])
    return {task: dict(sorted(prints.items())) for task, prints in sorted(shown.items()) if prints}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write SHOWN into the module")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from handmade.course.shown_models import SHOWN

    wanted = found()
    rows = "".join(f"    {json.dumps(task)}: {json.dumps(prints)},\n" for task, prints in wanted.items())
    literal = f"SHOWN = {{\n{rows}}}\n"  # as ruff formats it
    print(literal)
    if args.write:
        text = MODULE.read_text(encoding="utf-8")
        pattern = re.compile(rf"({re.escape(BEGIN)}\n).*?(?={re.escape(END)})", re.S)
        MODULE.write_text(pattern.sub(lambda m: m.group(1) + literal, text), encoding="utf-8")
        print(f"written into {MODULE.relative_to(ROOT)}")
    elif wanted != SHOWN:
        print("SHOWN is not up to date: run with --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
