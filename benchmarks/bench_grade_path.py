"""How long a way one call goes: ``python -m handmade grade abc --weights x.json``, traced.

Runs the command line's ``main`` in this process, on a failing model (the task's blank, which the
grader explains from its own numbers and compares with the reference) and on a passing one (the
reference), with ``sys.setprofile`` listening, and prints, for each:

- the distinct functions of the package that run (each function or method once, however often it
  is called; the code objects of comprehensions and generator expressions, which Python 3.12 no
  longer makes, are not counted), the modules they are in, and how many calls there are in all
  (targets for the failing model: at most 80 functions in at most 11 modules);
- how many times a weights dict is checked, that is, validated array by array
  (``handmade.weights._checked_arrays``): the learner's once (target), and the reference's once
  when the grader compares with it;
- how many times the Structure is read off weights (``Structure.of``) and how many passes run.

Every module of the package is imported first: what is measured is the way the call goes, not
the imports. The progress file goes to a temporary folder.

    python benchmarks/bench_grade_path.py
"""

import collections
import contextlib
import importlib
import io
import os
import pkgutil
import subprocess
import sys
import tempfile
from pathlib import Path

import handmade

PACKAGE = str(Path(handmade.__file__).resolve().parent) + os.sep
COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")
COUNTED = {"_checked_arrays": "weights checked", "Structure.of": "structures read", "gpt": "passes"}


def import_everything():
    for module in pkgutil.walk_packages(handmade.__path__, "handmade."):
        if module.name != "handmade.__main__":  # which would run the command line
            importlib.import_module(module.name)


def traced(argv):
    """(exit status, Counter of (file, first line, qualified name) -> calls) of ``main(argv)``."""
    from handmade.cli import main

    calls = collections.Counter()

    def listen(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(PACKAGE) and not code.co_name.startswith(COMPREHENSIONS):
            calls[(code.co_filename, code.co_firstlineno, code.co_qualname)] += 1

    with contextlib.redirect_stdout(io.StringIO()):
        sys.setprofile(listen)
        try:
            status = main(argv)
        finally:
            sys.setprofile(None)
    return status, calls


def report(label, status, calls):
    modules = {file for file, _line, _name in calls}
    by_name = collections.Counter()
    for (_file, _line, name), n in calls.items():
        by_name[name] += n
    print(f"{label} (exit status {status}):")
    print(f"  {len(calls)} distinct functions in {len(modules)} modules, {sum(calls.values())} calls")
    print("  " + ", ".join(f"{what} {by_name[name]}" for name, what in COUNTED.items()))
    print("  modules: " + ", ".join(sorted(file[len(PACKAGE) : -len(".py")] for file in modules)))
    return len(calls), len(modules), by_name["_checked_arrays"]


def one(kind, folder):
    """Trace one grade, in this fresh process: ``kind`` is blank or reference."""
    os.environ["HANDMADE_DATA"] = folder  # a pass is recorded there, not in the learner's file
    import_everything()
    from handmade.course import tasks

    path = os.path.join(folder, f"{kind}.json")
    handmade.save_weights(getattr(tasks, kind)("abc"), path)
    status, calls = traced(["grade", "abc", "--weights", path])
    return report(f"grade abc --weights {kind}.json", status, calls)


def main():
    found = {}
    for kind in ("blank", "reference"):  # each in a process of its own: nothing cached from the other
        with tempfile.TemporaryDirectory() as folder:
            out = subprocess.run(
                [sys.executable, __file__, kind, folder], capture_output=True, text=True, encoding="utf-8", check=True
            )
        *lines, numbers = out.stdout.splitlines()
        print("\n".join(lines))
        found[kind] = [int(n) for n in numbers.split()]
    functions, modules, _checks = found["blank"]
    print(f"failing model: {functions} functions (target <= 80), {modules} modules (target <= 11)")
    print(f"the learner's weights checked {found['reference'][2]} time(s) on a pass (target 1)")


if __name__ == "__main__":
    if len(sys.argv) == 3:  # one grade, in the process main() started: its report, then its numbers alone
        print(*one(*sys.argv[1:]))
    else:
        main()
