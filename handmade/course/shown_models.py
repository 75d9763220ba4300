"""The models the course shows a learner, known by their fingerprints: a pass by one is not the learner's.

The built-in tasks' reference solutions, the blog's models and the designs that notebooks 14 to 17
build with the learner all pass a task; the progress file records a pass only for a model of the
learner's own (``grader.handed_in``). ``SHOWN`` holds their fingerprints (``model_fingerprint``
of the weights in the task's token order): fingerprints, not weights, so an install without the
answers knows them too. ``python3 tools/shown_models.py --write`` makes it again from the references,
the blog's models and the notebooks, and ``tests/test_learners_edition.py`` checks that it is whole.
A teacher's task is compared with its own reference solution, when it has one.
"""

import numpy as np

from ..arguments import fmt
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
    "induction": {"52b96745c4654fbc": "reference", "6121202630d63e84": "16", "9e561f2bf093db8d": "16"},
    "majority": {"25239661a64d4e83": "reference"},
    "repeat": {"b0f868da3b6af0cc": "14", "f408d2eb7d7a1e78": "reference"},
    "seen_b": {"e20a8bf9393f9334": "reference"},
    "two_back": {"40dc31d98046db85": "reference"},
    "xor": {"4ad9c7f336f19195": "xor_without_mlp", "77df08bf513b052a": "reference", "e751b398b1187c10": "15"},
}
# ---- end of what tools/shown_models.py makes ----

BUILT_WITH_YOU = {"abc": "14", "xor": "15", "induction": "16"}
"""The built-in tasks whose reference solution is the model a notebook builds with the learner, by that
notebook. abc's is that alone (no ``solution()`` shows it); xor and induction are challenges of notebook 19
too, whose answer ``solution()`` shows when asked. Every other built-in task is a challenge alone."""
CHALLENGES_TOO = ("xor", "induction")  # of BUILT_WITH_YOU: the tasks whose reference solution() shows too


def shown_model(task, params, their_reference=None):
    """Sentences saying that the pass of ``params`` is not recorded and why: which model the course
    shows they are, number for number, and that a model of the learner's own is recorded; None
    when they are none of them. ``params``: weights checked for ``task`` (``grader.submission``);
    ``their_reference``: a teacher's task's reference solution, checked the same way, if it has one."""
    from .progress import model_fingerprint, read
    from .tasks import TASKS

    fingerprint = model_fingerprint(params)
    if (task.name, fingerprint) in read().trained:
        return _(
            "This pass is not recorded in your progress: these weights are, number for number, a model that python -m handmade train made for {task}: training found them, they are not a design. Your progress records designs of your own: another passing model of yours is recorded."
        ).format(task=task.name)
    if TASKS.get(task.name) is task:
        source = SHOWN.get(task.name, {}).get(fingerprint)
        if source is None:
            return _blog_at_any_strength(task, params, fingerprint)
    else:
        theirs = their_reference is not None and model_fingerprint(their_reference) == fingerprint
        source = "their reference" if theirs else None
    return None if source is None else _said(source, task)


def _said(source, task):
    """The sentence for a pass by a model the course shows: ``source`` says which (``SHOWN``'s words)."""
    from .tasks import withheld

    answer = source not in ("blog", "their reference") and not source.isdigit()  # a reference, or a solution's
    if answer and withheld(task) and not (source == "reference" and task.name in BUILT_WITH_YOU):  # no solution()
        return _(
            "This pass is not recorded in your progress: these weights are, number for number, an answer the course holds for {task} (an install for learners leaves the answers out). Your progress records designs of your own: another passing model of yours is recorded."
        ).format(task=task.name)
    if source == "reference" and task.name in CHALLENGES_TOO and not withheld(task):
        return _(
            'This pass is not recorded in your progress: these weights are, number for number, the reference solution of {task}, the model notebook {notebook} builds with you, which solution("{task}") shows too. Your progress records designs of your own: another passing model of yours is recorded.'
        ).format(task=task.name, notebook=BUILT_WITH_YOU[task.name])
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
            "This pass is not recorded in your progress: these weights are, number for number, the reference solution written for {task} (with @{task}.reference). Your progress records designs of your own: another passing model of yours is recorded."
        ).format(task=task.name)
    if source == "blog":
        return _(
            "This pass is not recorded in your progress: these weights are, number for number, the blog's model, which the series builds. Your progress records designs of your own: another passing model of yours is recorded."
        )
    if not source.isdigit():  # another challenge's solution (xor_without_mlp passes xor)
        return _(
            'This pass is not recorded in your progress: these weights are, number for number, the answer that solution("{name}") shows when asked (python -m handmade solution {name} in a terminal). Your progress records designs of your own: another passing model of yours is recorded.'
        ).format(name=source)
    return _(
        "This pass is not recorded in your progress: these weights are, number for number, the model notebook {notebook} builds with you. Your progress records designs of your own: another passing model of yours is recorded."
    ).format(notebook=source)


def _blog_at_any_strength(task, params, fingerprint):
    """The sentence for the blog's model at other strengths (its Lg slider, ``blog_model(q_lg=..., proj_lg=...)``),
    read off its query's and c_proj's largest weights and built again the same number for number; else None."""
    from ..blog import blog_model
    from ..structure import attention_width
    from ..weights import check_weights
    from .progress import model_fingerprint

    if len(params["blocks"]) != 1 or params.structure != task.structure:
        return None
    attn = params["blocks"][0]["attn"]
    q_lg = float(np.abs(attn["c_attn"]["w"][:, : attention_width(attn["c_attn"]["w"])]).max())  # q's columns
    proj_lg = float(np.abs(attn["c_proj"]["w"]).max())
    try:
        theirs = check_weights(blog_model(q_lg=q_lg, proj_lg=proj_lg))
    except (ValueError, TypeError):  # strengths the blog's model cannot take
        return None
    if theirs.labels.alphabet != task.alphabet or model_fingerprint(theirs) != fingerprint:  # in the task's order
        return None
    return _(
        "This pass is not recorded in your progress: these weights are the blog's model, which the series builds, at other strengths (its query's {q_lg}, its c_proj's {proj_lg}). Your progress records designs of your own: another passing model of yours is recorded."
    ).format(q_lg=fmt(q_lg), proj_lg=fmt(proj_lg))
