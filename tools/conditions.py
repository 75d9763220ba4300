"""Run the notebooks under the conditions that vary from one machine to the next,
comparing every stored output with nbval, as CI does:

    python3 tools/conditions.py threads          # (b) one BLAS thread, an older processor's instructions
    python3 tools/conditions.py floors           # (c) the lowest versions requirements.txt allows
    python3 tools/conditions.py nudged           # every training run started from weights nudged by 1e-9
    python3 tools/conditions.py threads floors   # several at once, side by side (CI does this)

Condition (a), the newest versions the requirements allow and the machine's own BLAS threads, is the
README's test command itself. A stored output passes only if it is the same under every condition:

- threads: OPENBLAS_NUM_THREADS=1 and its siblings; OpenBLAS's kernels for an older processor
  (Sandybridge: AVX without FMA, on x86-64); numpy's own vector loops (exp, log, tanh, ...) without the
  instruction sets above its baseline. Sums then run in another order and round differently in
  their last bits, as they would on another machine.
- floors: a separate environment, `.venv-floors`, with the lowest version of every requirement that
  requirements.txt states (its comments say why each floor is what it is), and the test tools. It
  runs the Chinese edition's notebooks (the same code as the English ones', which draw nothing the
  Chinese ones do not), then opens the playground in JupyterLab in Chromium (skipped without one) and
  runs its browser tests, those marked `floors` (typing, saving, the keyboard, axe-core), so the floors
  of JupyterLab, ipywidgets and anywidget are tried where they matter.
- nudged: the notebooks that train, with every array of every starting point multiplied by
  1 + 1e-9 x noise (tools/nudged/sitecustomize.py). That is about ten million times the rounding
  noise of one operation, so an output that survives it does not hang on the last bits of any sum,
  on machines CI does not have either.

Prints each condition's result and how long it took; exits 1 if any failed.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
FLOORS_VENV = ROOT / ".venv-floors"
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
# the playground (notebook 09) renders, keeps what is typed, and is accessible (axe, names, focus): the tests
# marked floors (tests/ui)
FLOOR_UI_TESTS = "floors"


def notebook_command(python, paths=("notebooks",)):
    # one process (no workers: the conditions run side by side), in an environment with or without xdist
    return [str(python), "-m", "pytest", *map(str, paths), "-q", "-o", "addopts=", "-p", "no:cacheprovider"]


def newer_instruction_sets(python):
    """numpy's dispatch targets above its baseline that this processor has: switched off in (b)."""
    code = (
        "from numpy._core import _multiarray_umath as m\n"
        "print(' '.join(t for t in m.__cpu_dispatch__ if m.__cpu_features__.get(t)))"
    )
    return subprocess.check_output([str(python), "-c", code], text=True, encoding="utf-8").strip()


def threads_environment(python):
    env = {name: "1" for name in THREAD_VARIABLES}
    if platform.machine().lower() in ("x86_64", "amd64"):
        env["OPENBLAS_CORETYPE"] = "Sandybridge"
    disabled = newer_instruction_sets(python)
    if disabled:
        env["NPY_DISABLE_CPU_FEATURES"] = disabled
    return env


def venv_python(venv):
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def floors(requirements=ROOT / "requirements.txt"):
    """{package: lowest version} for every ranged requirement of requirements.txt."""
    found = re.findall(r"^([A-Za-z0-9_.-]+)>=([0-9][\w.]*)", requirements.read_text(encoding="utf-8"), re.M)
    return dict(found)


def dev_requirement(name):
    """The line of requirements-dev.txt that asks for ``name`` (pytest, nbval, playwright, axe-playwright-python)."""
    lines = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()
    return next(line.split("#")[0].strip() for line in lines if re.match(rf"{name}\b", line))


def make_floors_venv():
    """.venv-floors with the floors of requirements.txt and the tools that run the notebooks."""
    subprocess.run([sys.executable, "-m", "venv", str(FLOORS_VENV)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as constraints:
        constraints.write("".join(f"{name}=={version}\n" for name, version in floors().items()))
    tools = [dev_requirement(name) for name in ("pytest", "nbval", "playwright", "axe-playwright-python")]
    install = ["-m", "pip", "install", "-q", "-r", str(ROOT / "requirements.txt"), *tools, "-c", constraints.name]
    try:
        subprocess.run([str(venv_python(FLOORS_VENV)), *install], check=True, cwd=ROOT)
    finally:
        os.unlink(constraints.name)
    return venv_python(FLOORS_VENV)


def installed_versions(python, names):
    code = "import json, sys\nfrom importlib.metadata import version\nprint(json.dumps({n: version(n) for n in sys.argv[1:]}))"
    return json.loads(subprocess.check_output([str(python), "-c", code, *names], text=True, encoding="utf-8"))


def training_notebooks():
    """The notebooks whose code trains a model (calls train or train_task), both editions."""
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted(NOTEBOOKS.glob("*/[0-9][0-9]_*.ipynb"))
    trains = re.compile(r"\btrain(_task)?\(")
    return [p for p in paths if any(trains.search("".join(c["source"])) for c in code_cells(p))]


def code_cells(path):
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]


def run(commands, env):
    """Run ``commands`` one after another with ``env`` added: (passed, seconds of each, output)."""
    passed, seconds, output = True, [], []
    for command in commands:
        start = time.perf_counter()
        result = subprocess.run(
            command, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, encoding="utf-8"
        )
        seconds.append(time.perf_counter() - start)
        output.append(f"$ {' '.join(command[2:])}\n{result.stdout[-6000:]}{result.stderr[-3000:]}")
        passed = passed and result.returncode == 0
    return passed, seconds, "\n".join(output)


def attempt(condition):
    """Prepare a condition and run it: (name, passed, seconds to prepare, seconds of each command, output)."""
    start = time.perf_counter()
    try:
        name, commands, env = CONDITIONS[condition]()
    except subprocess.CalledProcessError as error:  # the environment could not be made
        return condition, time.perf_counter() - start, False, [], f"{' '.join(error.cmd)}: exit {error.returncode}"
    prepared = time.perf_counter() - start
    return (name, prepared, *run(commands, env))


def threads():
    env = threads_environment(sys.executable)
    described = ", ".join(f"{k}={v}" for k, v in env.items())
    return f"threads ({described})", [notebook_command(sys.executable)], env


def floors_condition():
    python = make_floors_venv()
    versions = installed_versions(python, list(floors()))
    described = ", ".join(f"{k} {v}" for k, v in versions.items())
    ui = [*notebook_command(python, ["tests/ui"]), "-m", FLOOR_UI_TESTS]
    # The Chinese edition: its code is the English one's (tests/test_editions.py), so it makes every call
    # the English edition makes with these versions, and draws with the Chinese font besides.
    return f"floors ({described})", [notebook_command(python, ["notebooks/zh"]), ui], {}


def nudged():
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "tools" / "nudged"), os.environ.get("PYTHONPATH")]))}
    paths = [p.relative_to(ROOT) for p in training_notebooks()]
    return f"nudged ({len(paths)} notebooks that train)", [notebook_command(sys.executable, paths)], env


CONDITIONS = {"threads": threads, "floors": floors_condition, "nudged": nudged}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("conditions", nargs="+", choices=sorted(CONDITIONS))
    args = parser.parse_args()
    with ThreadPoolExecutor(len(args.conditions)) as pool:
        results = list(pool.map(attempt, args.conditions))
    for name, prepared, passed, seconds, output in results:
        times = " + ".join(f"{s:.0f} s" for s in seconds)
        print(f"==== {name}: {'passed' if passed else 'FAILED'} in {times} (prepared in {prepared:.0f} s)")
        if not passed:
            print(output)
    sys.exit(0 if all(passed for _, _, passed, _, _ in results) else 1)


if __name__ == "__main__":
    main()
