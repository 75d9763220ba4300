"""The models the course shows a learner, known by their fingerprints: a pass by one is not the learner's.

The built-in tasks' reference solutions, the blog's models and the designs that notebooks 14 to 17
build with the learner all pass a task; the progress file records a pass only for a model of the
learner's own (``grader.handed_in``). ``SHOWN`` holds their fingerprints (``model_fingerprint``
of the weights in the task's token order): fingerprints, not weights, so an install without the
answers knows them too. ``python3 tools/shown_models.py --write`` makes it again from the references,
the blog's models and the notebooks, and ``tests/test_learners_edition.py`` checks that it is whole.
A teacher's task is compared with its own reference solution, when it has one.
"""

from ..i18n import _

# ---- made by tools/shown_models.py: do not edit by hand ----
SHOWN = {
    "aab": {"1fba645f630e9634": "blog", "622cd444b338f9b2": "reference"},
    "abb": {"bd2d282504800cec": "reference"},
    "abc": {"5169a2003449ffa6": "14", "c547fc051a749960": "reference"},
    "after_last_c": {"66e5bedcc1823336": "reference"},
    "alternate": {"b19c803aed0c612d": "reference"},
    "first": {"984d2ffe1b8a053c": "reference"},
    "first_not_last": {"7862cd4265ecc007": "reference"},
    "induction": {"52b96745c4654fbc": "reference"},
    "majority": {"25239661a64d4e83": "reference"},
    "repeat": {"f408d2eb7d7a1e78": "reference"},
    "seen_b": {"e20a8bf9393f9334": "reference"},
    "two_back": {"40dc31d98046db85": "reference"},
    "xor": {"77df08bf513b052a": "reference", "e751b398b1187c10": "15"},
}
# ---- end of what tools/shown_models.py makes ----

BUILT_WITH_YOU = {"abc": "14"}
"""The built-in tasks whose reference solution is not a challenge's answer but the model a notebook
builds with the learner, by that notebook: no hint and no ``solution()`` shows it. Every other built-in
task is a challenge, whose reference is the solution that ``solution()`` shows when asked."""


def shown_model(task, params, their_reference=None):
    """Sentences saying that the pass of ``params`` is not recorded and why: which model the course
    shows they are, number for number, and that a model of the learner's own is recorded; None
    when they are none of them. ``params``: weights checked for ``task`` (``grader.submission``);
    ``their_reference``: a teacher's task's reference solution, checked the same way, if it has one."""
    from .progress import model_fingerprint
    from .tasks import TASKS

    fingerprint = model_fingerprint(params)
    if TASKS.get(task.name) is task:
        source = SHOWN.get(task.name, {}).get(fingerprint)
    else:
        theirs = their_reference is not None and model_fingerprint(their_reference) == fingerprint
        source = "their reference" if theirs else None
    if source is None:
        return None
    if source == "reference" and task.name in BUILT_WITH_YOU:
        return _(
            "This pass is not recorded in your progress: these weights are, number for number, the reference solution of {task}, the model notebook {notebook} builds with you. Your progress records designs of your own: another passing model of yours is recorded."
        ).format(task=task.name, notebook=BUILT_WITH_YOU[task.name])
    if source == "reference":
        return _(
            'This pass is not recorded in your progress: these weights are, number for number, the reference solution of {task}, the answer that solution("{task}") shows when asked (python -m handmade solution {task} in a terminal). Your progress records designs of your own: another passing model of yours is recorded.'
        ).format(task=task.name)
    if source == "their reference":
        return _(
            "This pass is not recorded in your progress: these weights are, number for number, the reference solution that the file of {task} holds. Your progress records designs of your own: another passing model of yours is recorded."
        ).format(task=task.name)
    if source == "blog":
        return _(
            "This pass is not recorded in your progress: these weights are, number for number, the blog's model, which the series builds. Your progress records designs of your own: another passing model of yours is recorded."
        )
    return _(
        "This pass is not recorded in your progress: these weights are, number for number, the model notebook {notebook} builds with you. Your progress records designs of your own: another passing model of yours is recorded."
    ).format(notebook=source)
