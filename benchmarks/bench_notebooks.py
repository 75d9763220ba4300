"""How long the series takes: every notebook, executed top to bottom in a fresh kernel.

Prints the seconds per notebook and the total, measured in this one run (target: the whole series
in under 60 seconds on a 2-core machine). Nothing is written back to the notebooks.

    python benchmarks/bench_notebooks.py
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def run(path):
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return time.perf_counter() - start


if __name__ == "__main__":
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        sys.exit(f"no notebooks found in {NOTEBOOKS}")
    total = 0.0
    for path in paths:
        seconds = run(path)
        total += seconds
        print(f"{path.name:40s} {seconds:5.1f} s")
    print(f"{'whole series':40s} {total:5.1f} s  (target < 60 s)")
