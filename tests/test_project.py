"""The project's promises about itself: the README's commands, CI, Binder and the notebook list."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def readme_commands():
    return re.findall(r"```bash\n(.+?)\n```", README)


def test_readme_opens_with_the_two_commands():
    launch, test = readme_commands()[:2]
    for command in (launch, test):  # a virtual environment first, so nothing lands in the system Python
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && python3 -m pip install -r ")
    assert "requirements.txt" in launch and launch.endswith("jupyter lab --allow-root notebooks/00_start_here.ipynb")
    assert "requirements-dev.txt" in test and test.endswith("pytest")
    assert README.index(launch) < README.index("## What this is")


def test_the_requirements_agree_on_numpy():
    pyproject = (ROOT / "pyproject.toml").read_text()
    requirements = (ROOT / "requirements.txt").read_text()
    assert 'numpy>=2.0,<3"' in pyproject and "numpy>=2.0,<3" in requirements


def test_what_the_readme_promises_is_there():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (ROOT / "notebooks" / "data" / "README.md").exists() and (
        ROOT / "notebooks" / "data" / "coriolanus.txt"
    ).exists()
    ignored = (ROOT / ".gitignore").read_text().split()
    assert ".venv/" in ignored
    post_build = (ROOT / "binder" / "postBuild").read_text()
    assert "rm -rf build handmade.egg-info" in post_build


def test_ci_runs_exactly_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == readme_commands()[1]


def test_readme_lists_every_notebook_and_no_other():
    on_disk = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    listed = re.findall(r"\(notebooks/(\d\d_\w+\.ipynb)\)", README)
    assert listed == on_disk
    assert "TABLE" not in README and "ZH_MAP" not in README  # every figure filled in


def test_the_readmes_task_table_is_what_the_tasks_are():
    from handmade.tasks import TASKS, examples, reference
    from handmade.weights import count_nonzero

    rows = re.findall(r"^\| `(\w+)` \| `(\w+)` \| 1 to (\d+) tokens \| .+? \| (\d+) \| (\d+) \|$", README, re.M)
    assert [row[0] for row in rows] == list(TASKS)
    for name, alphabet, n_ctx, graded, size in rows:
        task = TASKS[name]
        assert (alphabet, int(n_ctx)) == (task.alphabet, task.n_ctx), name
        assert (int(graded), int(size)) == (len(examples(task)), count_nonzero(reference(task))), name


def test_the_readmes_chinese_section_has_the_two_commands_and_maps_every_chinese_notebook():
    chinese = README[README.index("## 中文") :]
    launch, test = re.findall(r"```bash\n(.+?)\n```", chinese)[:2]
    assert launch == readme_commands()[0].replace("notebooks/00", "notebooks/zh/00") and test == readme_commands()[1]
    on_disk = sorted(p.name for p in (ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
    assert re.findall(r"\(notebooks/zh/(\d\d_\w+\.ipynb)\)", chinese) == on_disk
    assert "--lang zh" in chinese and "HANDMADE_LANG=zh" in chinese


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
