"""One build option beside pyproject.toml: a wheel for learners, without the answers.

With ``HANDMADE_NO_REFERENCES=1`` set while it is built, the wheel leaves out
``handmade/course/references.py``, the built-in tasks' reference solutions (README, "For
teachers"); everything else is the same package, and its grader, blanks and explanations work
without them. Unset, this file changes nothing.

    HANDMADE_NO_REFERENCES=1 python3 -m pip wheel --no-deps -w dist .
"""

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

REFERENCES = ("handmade.course", "references")  # (package, module): the answers


def without_answers():
    return os.environ.get("HANDMADE_NO_REFERENCES", "").strip() not in ("", "0")


class BuildPy(build_py):
    """build_py that, for a wheel without the answers, copies every module but the references
    (and removes a copy that an earlier build left in the build folder)."""

    def find_package_modules(self, package, package_dir):
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if (m[0], m[1]) != REFERENCES] if without_answers() else modules

    def run(self):
        super().run()
        if without_answers():
            Path(self.build_lib, *REFERENCES[0].split("."), f"{REFERENCES[1]}.py").unlink(missing_ok=True)


setup(cmdclass={"build_py": BuildPy})
