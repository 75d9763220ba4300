"""The project's promises about itself: the README's commands, CI, Binder and the notebook list."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def readme_commands():
    return re.findall(r"```bash\n(.+?)\n```", README)


def test_readme_opens_with_the_two_commands():
    launch, test = readme_commands()[:2]
    assert "requirements.txt" in launch and "jupyter lab notebooks/00_start_here.ipynb" in launch
    assert "requirements-dev.txt" in test and test.endswith("pytest")
    assert README.index(launch) < README.index("## What this is")


def test_ci_runs_exactly_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == readme_commands()[1]


def test_readme_lists_every_notebook_and_no_other():
    on_disk = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    listed = re.findall(r"\(notebooks/(\d\d_\w+\.ipynb)\)", README)
    assert listed == on_disk


def test_binder_is_pinned_and_self_contained():
    lines = [
        line for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines() if line and line[0] != "#"
    ]
    assert lines and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][\w.]*", line) for line in lines), lines
    assert (ROOT / "binder" / "runtime.txt").read_text().startswith("python-3.")
    assert "pip install" in (ROOT / "binder" / "postBuild").read_text()
    assert "urlpath=lab/tree/notebooks/00_start_here.ipynb" in README


def test_notebooks_were_executed_top_to_bottom_in_one_kernel():
    import nbformat

    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1)), path.name
