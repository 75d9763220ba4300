"""The answers: the solutions of the challenges, with their reasons, and the tasks' reference
solutions as weights; shown to a learner who asks, and nowhere else.

The notebooks a learner opens hold the challenges, their hints and an empty answer cell; the
answers are here, in one file per language (``answers/en.md``, ``answers/zh.md``): a section per
task, ``## name``, a line saying where the task is, and the code that goes into its answer cell in
place of ``# YOUR CODE HERE``, its reasons in comments. ``solution("alternate")`` shows one, saying
that it is the answer; so does ``python -m handmade solution alternate``. ``tools/teacher_source.py``
puts them into the answer cells, between nbgrader's markers, to make a teacher's nbgrader source.

A task's reference solution (``reference("abc")``) is the weights its ``@task.reference`` builds:
the grader compares a failing model with it, and shows it only when asked. An install without the
answers (``HANDMADE_NO_REFERENCES``, or a wheel built without them) has no solutions and no built-in
reference (``tasks.withheld``; a teacher's own task keeps its reference in a wheel built without
them): ``solution()`` and ``reference()`` then say so.
"""

import html
import re
from dataclasses import dataclass
from pathlib import Path

from ..arguments import UnknownName, brief, with_names
from ..i18n import LANGUAGES, _, language, listed, tag
from ..weights import Weights, labels_of
from . import user_code
from .tasks import TASKS, get_task, references_off, withheld

FOLDER = Path(__file__).parent / "answers"
PLACEHOLDER = "# YOUR CODE HERE"  # where a solution goes in an answer cell (nbgrader's own words)


class NoReferences(ValueError):
    """The reference solutions are not installed here: an install for learners, without the answers."""


@dataclass(frozen=True)
class Solution:
    """One task's solution: where the task is, and the code of its answer cell with its reasons."""

    name: str  # the task's name, or the Try it's (xor_without_mlp)
    where: str  # "Notebook 17, challenge 1."
    code: str  # what replaces PLACEHOLDER in the answer cell

    def heading(self):
        if self.name not in TASKS:  # a Try it's: its code makes what it needs
            return _("The solution of {name}: the answer, shown because you asked for it. {where}").format(
                name=self.name, where=self.where
            )
        return _(
            "The solution of {name}: the answer, shown because you asked for it. {where} It goes into that answer cell, in place of # YOUR CODE HERE: the cell has made task, B and the blank model it starts from."
        ).format(name=self.name, where=self.where)

    def __str__(self):
        return f"{self.heading()}\n\n{self.code}"

    __repr__ = __str__

    def _repr_html_(self):
        from ..display.source import code_block

        head = self.heading()
        style = "border-left:4px solid #8250df;padding:2px 8px;margin:4px 0"
        return f'<div lang="{tag()}" style="{style}"><p style="margin:4px 0"><b>{html.escape(head)}</b></p>{code_block(self.code).markup}</div>'


def solutions(lang=None):
    """{name: Solution} of every challenge, in the order of the notebooks, in ``lang`` (the current
    language by default): the file ``answers/<lang>.md``. NoReferences in an install without the
    answers; ValueError (TypeError for what is not a string) when ``lang`` is not one of ``LANGUAGES``.
    Only str's own methods read ``lang``: a subclass of str runs none of its code here."""
    plain = str.__str__(lang) if isinstance(lang, str) else lang  # a plain str, or what it was
    if lang is not None and (not isinstance(plain, str) or plain not in LANGUAGES):
        raise (ValueError if isinstance(lang, str) else TypeError)(
            _("lang must be one of {languages}, or None for the current language; found {value}").format(
                languages=listed(LANGUAGES), value=brief(plain)
            )
        )
    file = FOLDER / f"{plain or language()}.md"
    if references_off() or not file.is_file():
        raise NoReferences(
            _("the solutions are not installed here (an install for learners, without the answers); grading needs none")
        )
    return _parsed(file.read_text(encoding="utf-8"))


def _parsed(text):
    """The sections of an answers file: ``## name``, a line of where, a fenced block of Python."""
    found = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        name, rest = section.split("\n", 1)
        code = re.search(r"```python\n(.*?)\n```", rest, re.S)
        where = " ".join(rest[: code.start()].split())
        found[name.strip()] = Solution(name.strip(), where, code.group(1))
    return found


def solution(name):
    """The solution of the challenge ``name`` (a built-in task's name, or ``xor_without_mlp``), with
    its reasons: the answer, for a learner who asks after the hints."""
    every = solutions()
    if not isinstance(name, str):
        raise TypeError(_("name must be the name of a challenge; found {value}").format(value=brief(name)))
    if name not in every:
        sentence = _("there is no solution called {name}; the solutions are {names}")
        raise UnknownName(with_names(sentence, every, name=brief(name, 40)))
    return every[name]


# ---- the reference solutions: the answers as weights ------------------------------------------


def reference(task):
    """The task's reference solution: the answer, never printed unasked. NoReferences (a
    ValueError) in an install without the answers; ValueError when the task has none, or its
    builder fails (run as a teacher's code: ``user_code``)."""
    task = get_task(task)
    if withheld(task):
        raise NoReferences(
            _(
                "task {name}: the reference solutions are not installed here (an install for learners, without the answers); grading needs none"
            ).format(name=task.name)
        )
    if task.build is None:
        raise ValueError(
            _("task {name} has no reference solution: write one below its rule with @{name}.reference").format(
                name=task.name
            )
        )
    return _built(task)


def teachers_reference(task):
    """The reference solution written for a teacher's ``task`` (with @task.reference), run even where the references
    are off (``HANDMADE_NO_REFERENCES``): the grader compares a passing model with it, so that handing it in records
    no pass of the learner's own, and shows it nowhere. The learners of such an install have the teacher's file, where
    it is written. None when there is none (a built-in task's are known by their fingerprints: ``shown_models``);
    ValueError when it fails, as for ``reference``."""
    task = get_task(task)
    return None if task.build is None or TASKS.get(task.name) is task else _built(task)


@user_code.failures_remembered
def _built(task):
    try:
        built = user_code.run_bounded(task.build)
    except user_code.Failed as failed:
        problem = _("its reference solution {failed}").format(failed=failed.clause)
        raise ValueError(task.saying(problem)) from failed.error
    if not isinstance(built, dict):
        problem = _("its reference solution returned {kind}, not weights").format(kind=type(built).__name__)
        raise ValueError(task.saying(problem))
    return built if labels_of(built) is not None else Weights(built, task.labels)
