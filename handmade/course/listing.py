"""The tasks as ``python -m handmade tasks`` lists them: each described, with what its author should know (its model
too large for a weights file; its reference solution broken), and a file's tasks asked about for LISTING_SECONDS in all:
each rule is bounded (``user_code.SECONDS``), but a file of many slow ones would take them all."""

import time

from ..arguments import shown_path, with_names
from ..files import BLANK_CHARACTERS, TRAINED_CHARACTERS, too_large_for_a_file
from ..i18n import N_, _, ngettext

LISTING_SECONDS = 60  # a listing of a file's tasks asks their rules (and builds their references) this long in all


def entries(tasks, passed):
    """(the lines of each task of ``tasks`` ({name: Task}) that can be used, those tasks, and a ValueError for each
    that cannot (over a limit, its rule fails), then one naming the tasks left when LISTING_SECONDS have gone by);
    ``passed(task)`` says whether this learner has passed it."""
    found, usable, refused = [], [], []
    start, in_order = time.monotonic(), list(tasks.values())
    for i, task in enumerate(in_order):
        if task.source is not None and time.monotonic() - start > LISTING_SECONDS:  # a file's, after slow ones
            refused.append(_not_checked(in_order[i:]))
            break
        try:
            found.append("\n".join([task.describe(passed=passed(task)), *_for_its_author(task)]))
            usable.append(task)
        except ValueError as error:  # this task alone: the file's others still work
            refused.append(error)
    return found, usable, refused


def _for_its_author(task):
    """The lines a listing adds for the author of ``task``: its model too large for a weights file, or a reference
    solution of theirs that is broken (built, within its bounds, as a grade would build it)."""
    from .grader import checked_reference

    problem = checked_reference(task)[1]
    return [
        *_too_large_for_a_file(task.structure),
        *([_("  for the task's author: {problem}").format(problem=problem)] if problem else []),
    ]


TOO_LARGE = N_(
    "  its model is too large for a weights file: blank and train refuse it (in Python, blank(task) still makes it)"
)
TOO_LARGE_TRAINED = N_("  train refuses it: its trained weights would be too large for a weights file")


def _too_large_for_a_file(structure):
    """[The line a listing adds when a model of ``structure`` is too large for a weights file (``blank``, or ``train``,
    whose numbers take more room, refuses it)], or []: the task is still designed and graded in Python."""
    for characters, line in ((BLANK_CHARACTERS, TOO_LARGE), (TRAINED_CHARACTERS, TOO_LARGE_TRAINED)):
        if too_large_for_a_file(structure, characters):
            return [_(line)]
    return []


def _not_checked(left):
    """The ValueError for a file's tasks ``left`` when a listing has asked rules for LISTING_SECONDS: theirs are
    not asked (each may take ``user_code.SECONDS``, and a file of many slow ones would take them all)."""
    sentence = ngettext(
        "{n} task in '{path}' was not checked ({names}): checking the tasks before it took more than {seconds} s (a rule that is slow, or never ends); mend those, then list the tasks again",
        "{n} tasks in '{path}' were not checked ({names}): checking the tasks before them took more than {seconds} s (a rule that is slow, or never ends); mend those, then list the tasks again",
        len(left),
    )
    fields = {"n": len(left), "path": shown_path(left[0].source, 40), "seconds": LISTING_SECONDS}
    return ValueError(with_names(sentence, [task.name for task in left], **fields))
