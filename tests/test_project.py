"""The project's promises about itself: the README's commands, CI, Binder and the notebook list."""

import contextlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_commands():
    return re.findall(r"```bash\n(.+?)\n```", README)


def test_readme_opens_with_the_two_commands():
    launch, test = readme_commands()[:2]
    for command in (launch, test):  # a virtual environment first, so nothing lands in the system Python
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && python3 -m pip install -r ")
    assert "requirements.txt" in launch and launch.endswith("jupyter lab --allow-root notebooks/00_start_here.ipynb")
    assert "requirements-dev.txt" in test and test.endswith("pytest")
    assert README.index(launch) < README.index("## What this is")


def test_pyproject_and_requirements_txt_state_the_same_ranges():
    """requirements.txt (what the README installs) and pyproject.toml (what `pip install .[notebooks]`
    installs) ask for the same versions: numpy as the package's dependency, the rest as its extra."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    listed = re.findall(r"^(?:dependencies|notebooks) = \[(.*?)\]", pyproject, re.M)
    in_pyproject = {spec for line in listed for spec in re.findall(r'"([^"]+)"', line)}
    in_requirements = {line for line in requirements.splitlines() if line and not line.startswith(("#", "-e"))}
    assert in_pyproject == in_requirements and len(in_requirements) == 5


def test_every_floor_says_why_it_is_what_it_is():
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    floors = re.findall(r"^([\w-]+)>=([\d.]+),<\d+$", requirements, re.M)
    assert len(floors) == 5
    for name, version in floors:
        assert re.search(rf"^# - {name} {re.escape(version)}: \S", requirements, re.M), name


def test_what_the_readme_promises_is_there():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert (ROOT / "notebooks" / "data" / "README.md").exists() and (
        ROOT / "notebooks" / "data" / "coriolanus.txt"
    ).exists()
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert ".venv/" in ignored
    post_build = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert "rm -rf build handmade.egg-info" in post_build


def test_ci_runs_exactly_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == readme_commands()[1]


def test_readme_lists_every_notebook_and_no_other():
    on_disk = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    listed = re.findall(r"\(notebooks/(\d\d_\w+\.ipynb)\)", README)
    assert listed == on_disk
    assert "TABLE" not in README and "ZH_MAP" not in README  # every figure filled in


def test_the_readmes_task_table_is_what_the_tasks_are():
    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS, examples
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
        line
        for line in (ROOT / "binder" / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if line and line[0] != "#"
    ]
    assert lines and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][\w.]*", line) for line in lines), lines
    assert (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").startswith("python-3.")
    assert "pip install" in (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert "urlpath=lab/tree/notebooks/00_start_here.ipynb" in README


def test_notebooks_were_executed_top_to_bottom_in_one_kernel():
    import nbformat

    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1)), path.name


# ---- the same on every machine -----------------------------------------------------------------


def python_sources():
    folders = ("handmade", "tests", "tools", "benchmarks")
    return [ROOT / "conftest.py", *(p for folder in folders for p in sorted((ROOT / folder).rglob("*.py")))]


def text_io_without_an_encoding(tree):
    """Calls that read or write text in the platform's default encoding (cp1252 on many Windows
    machines): open() in text mode, Path.read_text / write_text / open, and subprocess calls with
    text=True, each without encoding=."""
    import ast

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        modes = [a.value for a in node.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        modes += [k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
        builtin_open = isinstance(node.func, ast.Name) and name == "open"
        path_open = isinstance(node.func, ast.Attribute) and name == "open" and bool(modes)  # Path.open("w")
        opens_text = (builtin_open or path_open) and not any("b" in m for m in modes)
        pipes_text = name in ("run", "check_output", "Popen") and any(
            k.arg in ("text", "universal_newlines") for k in node.keywords
        )
        if opens_text or pipes_text or name in ("read_text", "write_text"):
            yield node.lineno


def test_the_encoding_check_finds_what_it_looks_for():
    import ast

    code = "open(p)\nopen(p, 'rb')\np.read_text()\np.open('w')\nrun(c, text=True)\nopen(p, encoding='utf-8')\n"
    assert list(text_io_without_an_encoding(ast.parse(code))) == [1, 3, 4, 5]


def test_every_text_file_and_pipe_is_utf8_whatever_the_platforms_default():
    import ast

    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in python_sources()
        for line in text_io_without_an_encoding(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not found, "say encoding='utf-8': " + ", ".join(found)


def conditions_tool():
    import importlib.util

    spec = importlib.util.spec_from_file_location("conditions", ROOT / "tools" / "conditions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_floors_ci_installs_are_the_lowest_versions_requirements_txt_allows():
    floors = conditions_tool().floors()
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert set(floors) == {"numpy", "matplotlib", "ipywidgets", "jupyterlab", "anywidget"}
    assert all(f"{name}>={version}," in requirements for name, version in floors.items())


def test_the_nudged_condition_covers_every_notebook_that_trains_and_really_nudges():
    import os
    import subprocess
    import sys

    names = {str(p.relative_to(ROOT / "notebooks")) for p in conditions_tool().training_notebooks()}
    assert {"20_training_by_hand.ipynb", "21_shakespeare.ipynb"} <= names
    assert {name for name in names if name.startswith("zh")} == {f"zh/{n}" for n in names if "/" not in n}
    code = (
        "import numpy as np, handmade.training as t\n"
        "start = t.init_params(2, 3, 4, rng=0, alphabet='ab')\n"
        "batch = lambda: (np.array([[0, 1, 0]]), np.array([[1, 0, 1]]))\n"
        "print(t.train.__name__, t.train(start, batch, 0, progress=False)[0]['wte'][0, 0] != start['wte'][0, 0])"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tools" / "nudged")}
    out = subprocess.check_output([sys.executable, "-c", code], env=env, text=True, encoding="utf-8")
    assert out == "nudged_train True\n"  # zero steps: only the nudge changed the weights


def root_conftest():
    import importlib.util

    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PORTS_A_KERNEL_TAKES = 5  # shell, iopub, stdin, control, heartbeat


@contextlib.contextmanager
def the_first_port_taken():
    """The race CI met once (jupyter_client lets a free port go before the kernel binds it), played: the first port
    a kernel is handed is one held open here, so that kernel dies; yields the ports handed out, in order."""
    import socket

    from jupyter_client.provisioning import local_provisioner

    cache, handed = local_provisioner.LocalPortCache, []
    find_port = cache.find_available_port

    def the_held_port_first(self, ip):
        handed.append(held.getsockname()[1] if not handed else find_port(self, ip))
        return handed[-1]

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        cache.find_available_port = the_held_port_first
        try:
            yield handed
        finally:
            cache.find_available_port = find_port


def test_a_kernel_handed_a_port_another_process_holds_is_started_again_on_new_ports():
    """Started once, the kernel dies; started as conftest.py starts nbval's, it dies once, then gets free ports."""
    import inspect

    import nbval.kernel

    start_once = inspect.unwrap(nbval.kernel.start_new_kernel)
    assert start_once is not nbval.kernel.start_new_kernel  # conftest.py wrapped the start that nbval calls
    kwargs = {"kernel_name": nbval.kernel.CURRENT_ENV_KERNEL_NAME, "startup_timeout": 60}
    with the_first_port_taken(), pytest.raises(RuntimeError, match="died before replying"):
        start_once(**kwargs)
    with the_first_port_taken() as handed:
        manager, client = root_conftest().started_again_if_it_died(start_once)(**kwargs)
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    assert len(handed) == 2 * PORTS_A_KERNEL_TAKES and handed[0] not in handed[1:]  # died once, then new ports


def test_a_notebook_run_whose_kernel_was_handed_a_taken_port_runs_on_new_ones_each_cell_once():
    """nbclient (a learner's Run All, nbgrader's run), as wrapped by conftest.py, meeting the same race."""
    import inspect

    import nbclient
    import nbformat

    assert inspect.unwrap(nbclient.NotebookClient.execute) is not nbclient.NotebookClient.execute
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('ran')")])
    with the_first_port_taken() as handed:
        nbclient.NotebookClient(notebook, timeout=60, kernel_name="python3", shutdown_kernel="immediate").execute()
    assert len(handed) == 2 * PORTS_A_KERNEL_TAKES and notebook.cells[0].outputs[0]["text"] == "ran\n"


def test_a_kernel_that_dies_in_a_cell_is_not_started_again_and_the_cell_ran_once(tmp_path):
    """Only a kernel that never ran a cell is started again: one that dies running one fails the run."""
    import nbclient
    import nbformat
    from nbclient.exceptions import DeadKernelError

    ran = tmp_path / "ran.txt"
    code = f"import os\nwith open({str(ran)!r}, 'a') as f:\n    f.write('once\\n')\nos._exit(1)"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    with pytest.raises(DeadKernelError):
        nbclient.NotebookClient(notebook, timeout=60, kernel_name="python3", shutdown_kernel="immediate").execute()
    assert ran.read_text(encoding="utf-8") == "once\n"


def test_a_kernel_start_that_fails_otherwise_is_not_tried_again():
    calls = []

    def times_out(**kwargs):
        calls.append(kwargs)
        raise RuntimeError("Kernel didn't respond in 60 seconds")

    with pytest.raises(RuntimeError, match="didn't respond"):
        root_conftest().started_again_if_it_died(times_out)(kernel_name="k")
    assert calls == [{"kernel_name": "k"}]


class SilentKernel:
    """nbval's kernel as ``asked_again_when_silent`` sees it, silent for its first ``silent`` waits (all, if None)."""

    def __init__(self, silent):
        self.silent, self.waits, self.asked = silent, [], 0
        self.kc = self  # its client: what the wrapper asks

    def get_message(self, stream, timeout=None):
        import queue

        self.waits.append((stream, timeout))
        if self.silent is None or len(self.waits) <= self.silent:
            raise queue.Empty
        return {"msg_type": "status"}

    def kernel_info(self):
        self.asked += 1


def test_a_kernel_silent_while_a_cells_output_is_awaited_is_asked_again_until_it_speaks_or_the_wait_ends():
    import queue

    conftest = root_conftest()
    every = conftest.ASK_SECONDS
    get = conftest.asked_again_when_silent(SilentKernel.get_message)
    kernel = SilentKernel(silent=2)
    assert get(kernel, "iopub", timeout=60) == {"msg_type": "status"}
    # asked after each silence, heard the third time
    assert kernel.waits == [("iopub", every)] * 3 and kernel.asked == 2
    kernel = SilentKernel(silent=None)
    with pytest.raises(queue.Empty):
        get(kernel, stream="iopub", timeout=60)
    # the whole wait, no longer
    assert sum(t for _s, t in kernel.waits) == 60 and kernel.asked == 60 // every - 1
    for stream, timeout in (("shell", 60), ("iopub", every), ("iopub", None)):  # the other waits: as nbval asked
        kernel = SilentKernel(silent=None)
        with pytest.raises(queue.Empty):
            get(kernel, stream, timeout=timeout)
        assert kernel.waits == [(stream, timeout)] and kernel.asked == 0


HANGS = """import time
import pytest


@pytest.fixture(scope="session")
def slow_to_end():
    yield
    time.sleep(60)  # a tearing down that hangs


def test_passes(slow_to_end):
    pass
"""


def test_a_test_whose_tearing_down_hangs_ends_its_process_with_every_stack_after_its_bound(tmp_path):
    """conftest.py's bound on a whole test (ITEM_SECONDS, here 2 s): the stacks on stderr, the run ended, not waited."""
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "test_hangs.py").write_text(HANGS, encoding="utf-8")
    (tmp_path / "shorter.py").write_text("import conftest\n\nconftest.ITEM_SECONDS = 2\n", encoding="utf-8")
    plugins = ["-p", "conftest", "-p", "shorter", "-p", "no:cacheprovider"]  # conftest.py, shortened
    command = [sys.executable, "-m", "pytest", *plugins, "-o", "addopts="]
    started = time.monotonic()
    run = subprocess.run(
        [*command, "test_hangs.py"], cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", timeout=50,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"},
    )  # fmt: skip
    assert run.returncode != 0 and time.monotonic() - started < 40
    assert "Timeout (0:00:02)!" in run.stderr and "in slow_to_end" in run.stderr, run.stderr[-2000:]


# ---- the scripts beside the package use names it has -------------------------------------------


def package_names_used(tree):
    """(line, "handmade.module", name, whether that module must exist) for each name a script takes from the
    package: ``from handmade.x import name`` (handmade.x must be a module), and ``alias.name`` where ``alias``
    is what it imported (a module of the package, or a name in one, which is not checked here)."""
    import ast

    modules, used = {}, []  # alias -> the package's module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("handmade"):
                    modules[a.asname or "handmade"] = a.name if a.asname else "handmade"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handmade") and not node.level:
            for a in node.names:
                used.append((node.lineno, node.module, a.name, True))  # its module must be there
                modules[a.asname or a.name] = f"{node.module}.{a.name}"  # a module, if it is one (below)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            used.append((node.lineno, modules[node.value.id], node.attr, False))  # a name, if not a module
    return used


def test_the_benchmarks_and_tools_use_only_names_the_package_has():
    """A script that is not run by the tests (a benchmark, a maintainer's tool) still names only what the
    package has: a name it imports from it, or reads off one of its modules (``grader.forward``), exists."""
    import ast
    import importlib.util

    missing = []
    for path in [*sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "tools").rglob("*.py"))]:
        for line, module, name, imported in package_names_used(ast.parse(path.read_text(encoding="utf-8"))):
            try:
                found = importlib.import_module(module)
            except ImportError:  # a module renamed or removed; or, read off a name, not a module at all
                missing += [f"{path.relative_to(ROOT)}:{line}: no module {module}"] * imported
                continue
            if not hasattr(found, name) and importlib.util.find_spec(f"{module}.{name}") is None:  # nor a module
                missing.append(f"{path.relative_to(ROOT)}:{line}: {module}.{name}")
    assert not missing, missing
