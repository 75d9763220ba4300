"""One build option beside pyproject.toml: a wheel for learners, without the answers.

With ``HANDMADE_NO_REFERENCES=1`` set while it is built, the wheel leaves out the answers:
``handmade/course/references.py``, the built-in tasks' reference solutions, and
``handmade/course/answers/``, the challenges' solutions (README, "For teachers"); everything else
is the same package, and its grader, blanks and explanations work without them. Unset, this file
changes nothing.

    HANDMADE_NO_REFERENCES=1 python3 -m pip wheel --no-deps -w dist .
"""

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

REFERENCES = ("handmade.course", "references")  # (package, module): the answers
ANSWERS = "answers/"  # the solutions' files, under handmade/course


def without_answers():
    return os.environ.get("HANDMADE_NO_REFERENCES", "").strip() not in ("", "0")


class BuildPy(build_py):
    """build_py that, for a wheel without the answers, copies every module but the references and
    every data file but the solutions (and removes copies that an earlier build left behind)."""

    def find_package_modules(self, package, package_dir):
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if (m[0], m[1]) != REFERENCES] if without_answers() else modules

    def find_data_files(self, package, src_dir):
        files = super().find_data_files(package, src_dir)
        answers = str(Path(src_dir, "course", ANSWERS))
        return [f for f in files if not f.startswith(answers)] if without_answers() else files

    def run(self):
        super().run()
        if without_answers():
            course = Path(self.build_lib, *REFERENCES[0].split("."))
            (course / f"{REFERENCES[1]}.py").unlink(missing_ok=True)
            for stale in (course / ANSWERS).glob("*"):
                stale.unlink()


setup(cmdclass={"build_py": BuildPy})
