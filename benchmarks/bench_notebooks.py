"""How long the series takes: every notebook, executed top to bottom in a fresh kernel.

Prints the seconds per notebook and the total, measured in this one run (target: the whole series
in under 60 seconds on a 2-core machine). With ``--write`` it also stores the new outputs in the
notebooks (what nbval compares against): run it after changing ``handmade/``.

    python benchmarks/bench_notebooks.py            # measure only
    python benchmarks/bench_notebooks.py --write    # measure and store the outputs
    python benchmarks/bench_notebooks.py --write 05 zh/05   # only these (a name's start is enough)
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def run(path, write=False):
    notebook = nbformat.read(path, as_version=4)
    stored = [cell.get("outputs") for cell in notebook.cells]
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps from an earlier run
    with tempfile.TemporaryDirectory(prefix="handmade-run-") as root:  # removed with all the run wrote
        client = NotebookClient(
            notebook,
            timeout=120,
            kernel_name="python3",
            record_timing=False,  # no timestamps in the stored notebooks
            store_widget_state=False,  # no widget model ids either; the snapshots serve viewers
            shutdown_kernel="immediate",  # the notebook has run: no need to wait for a graceful goodbye
            resources={"metadata": {"path": str(_first_run_folder(path, Path(root)))}},
        )
        os.environ["HANDMADE_DATA"] = str(Path(root) / "progress")  # an empty progress file, each
        start = time.perf_counter()
        client.execute()
        seconds = time.perf_counter() - start
    if write:
        for cell, before in zip(notebook.cells, stored):
            if cell.cell_type == "code":
                cell.outputs = merged_streams(cell.outputs)
                if before is not None and without_widget_ids(before) == without_widget_ids(cell.outputs):
                    cell.outputs = before  # the same output: its widget's id as stored, so diffs stay small
        nbformat.write(notebook, path)
    return seconds


def _first_run_folder(path, root):
    """A fresh folder below ``root`` to run ``path`` in, as a learner's first run finds its own: none of the files an
    earlier run wrote (notebook 17's homework.py and echo.json), which would change what it prints; ``data/`` beside it."""
    (root / "data").symlink_to(NOTEBOOKS / "data")  # notebook 21 reads data/ (from zh/, ../data/)
    here = root / path.parent.relative_to(NOTEBOOKS)
    here.mkdir(exist_ok=True)
    return here


def without_widget_ids(outputs):
    """The outputs as text, each widget's id (new in every run) masked."""
    return re.sub(r'"model_id": "[0-9a-f]+"', '"model_id": ""', json.dumps(outputs, sort_keys=True))


def merged_streams(outputs):
    """Adjacent prints to the same stream as one output, however the kernel happened to flush them,
    lines ended the terminal's way (\r\n, a shell command's after !) as any other, and a line rewritten
    in place with carriage returns (a progress line) as what the screen shows last."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.output_type == "stream"
            and previous
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    for output in merged:
        if output.output_type == "stream":
            output.text = output.text.replace("\r\n", "\n")  # a shell command's lines (after !), as any other
        if output.output_type == "stream" and "\r" in output.text:
            output.text = "\n".join(line.rsplit("\r", 1)[-1] for line in output.text.split("\n"))
    return merged


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="store the new outputs in the notebooks")
    parser.add_argument("only", nargs="*", help="run only the notebooks whose path below notebooks/ starts so")
    args = parser.parse_args()
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted(NOTEBOOKS.glob("*/[0-9][0-9]_*.ipynb"))
    if args.only:
        paths = [p for p in paths if any(str(p.relative_to(NOTEBOOKS)).startswith(o) for o in args.only)]
    if not paths:
        sys.exit(f"no notebooks found in {NOTEBOOKS} matching {args.only}")
    totals = {}  # edition -> seconds: "notebooks" for the English one, "zh" for the Chinese
    for path in paths:
        seconds = run(path, args.write)
        edition = path.parent.name
        totals[edition] = totals.get(edition, 0.0) + seconds
        print(f"{str(path.relative_to(NOTEBOOKS)):44s} {seconds:5.1f} s")
    for edition, seconds in totals.items():
        name = "English" if edition == NOTEBOOKS.name else edition
        print(f"{'whole series, ' + name + ' edition':44s} {seconds:5.1f} s  (target < 60 s)")
