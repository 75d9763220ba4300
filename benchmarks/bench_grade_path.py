"""How long a way one call goes: ``python -m handmade grade abc --weights x.json``, traced.

Runs the command line's ``main`` in this process, on a failing model (the task's blank, which the
grader explains from its own numbers and compares with the reference) and on a passing one (the
reference), with ``sys.setprofile`` listening, and prints, for each:

- the distinct functions of the package that run (each function, method or lambda once, however
  often it is called), the modules they are in, and how many calls there are in all (targets for
  the failing model: at most 80 functions in at most 11 modules). Comprehensions and generator
  expressions are not counted as functions: each is an expression inside the function that holds
  it, read as part of it. Python 3.12 inlines list, dict and set comprehensions into that function
  (PEP 709), so counting them would make the figure depend on the version; generator expressions
  still run in a frame of their own on every version, so how many distinct ones run is printed
  beside the functions, with the total they make together;
- how many times a weights dict is checked, that is, validated array by array
  (``handmade.weights._checked_arrays``): the learner's once (target), and the reference's once
  when the grader compares with it;
- how many times the Structure is read off weights (``Structure.of``) and how many passes run.

Every module of the package is imported first: what is measured is the way the call goes, not
the imports. The weights file is written in the same process just before (``tasks.blank`` or
``solutions.reference``), which enumerates the task's contexts and caches them, as a second grade in a
notebook finds them: the trace is of grading them, not of enumerating them. The progress file goes
to a temporary folder.

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
COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>")  # inlined into their function from Python 3.12
GENERATORS = "<genexpr>"  # a frame of its own on every version: counted apart
COUNTED = {"_checked_arrays": "weights checked", "Structure.of": "structures read", "gpt": "passes"}


def import_everything():
    for module in pkgutil.walk_packages(handmade.__path__, "handmade."):
        if module.name != "handmade.__main__":  # which would run the command line
            importlib.import_module(module.name)


def traced(argv):
    """(exit status, Counter of (file, first line, qualified name) -> calls) of ``main(argv)``: its
    functions, and the generator expressions among them (their name ends in ``<genexpr>``)."""
    from handmade.cli import main

    calls = collections.Counter()

    def listen(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(PACKAGE) and code.co_name not in COMPREHENSIONS:
            calls[(code.co_filename, code.co_firstlineno, code.co_qualname)] += 1

    with contextlib.redirect_stdout(io.StringIO()):
        sys.setprofile(listen)
        try:
            status = main(argv)
        finally:
            sys.setprofile(None)
    return status, calls


def report(label, status, calls):
    generators = {key for key in calls if key[2].endswith(GENERATORS)}
    functions = {key: n for key, n in calls.items() if key not in generators}
    modules = {file for file, _line, _name in calls}
    by_name = collections.Counter()
    for (_file, _line, name), n in calls.items():
        by_name[name] += n
    print(f"{label} (exit status {status}):")
    print(
        f"  {len(functions)} distinct functions in {len(modules)} modules, {sum(functions.values())} calls; "
        f"and {len(generators)} generator expressions ({len(functions) + len(generators)} with them)"
    )
    print("  " + ", ".join(f"{what} {by_name[name]}" for name, what in COUNTED.items()))
    print("  modules: " + ", ".join(sorted(file[len(PACKAGE) : -len(".py")] for file in modules)))
    per_module = collections.Counter(file[len(PACKAGE) : -len(".py")] for file, _line, _name in functions)
    print("  functions by module: " + ", ".join(f"{module} {n}" for module, n in per_module.most_common()))
    return len(functions), len(modules), by_name["_checked_arrays"]


def one(kind, folder):
    """Trace one grade, in this fresh process: ``kind`` is blank or reference."""
    os.environ["HANDMADE_DATA"] = folder  # a pass is recorded there, not in the learner's file
    import_everything()
    from handmade.course import solutions, tasks

    path = os.path.join(folder, f"{kind}.json")
    handmade.save_weights({"blank": tasks.blank, "reference": solutions.reference}[kind]("abc"), path)
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
