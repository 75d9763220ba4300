"""What a failing model is compared with, where its task has a reference solution: the shares of the same margin in
the reference (``shares_in``), the part whose share falls furthest short of the reference's (``lagging``), which the
explanation speaks of, and a part of the task's designed shape that the model lacks (``missing``). The sentences still
speak only of the learner's numbers; the reference's are shown only when asked (``grade --reveal``: ``revealed_line``).
A reference that cannot be used (a teacher's that fails) is said unasked (``not_compared``): never passed over."""

from ..i18n import _, then
from .explain import SMALL, phrase, read_window, shares, shares_listed, tolerance
from .tasks import withheld


def shares_in(model, tokens, right, explanation, window):
    """The shares of the same margin (right over the same wrong token) in another model, or None
    when that model reads another window of the context (its n_ctx differs)."""
    if tuple(tokens[-len(model["wpe"]) :]) != window:
        return None
    wrong = model.labels.token_names(model.structure.n_vocab).index(explanation.wrong)
    return shares(read_window(window, model), len(window) - 1, model, right, wrong)


def missing(mine, theirs, expected):
    """A sentence when the part that pushes most in ``theirs`` (the task's designed shape) is not in this model, else ""."""
    part = max(theirs, key=theirs.get, default=None)
    if part is None or part in mine or theirs[part] <= SMALL:
        return ""
    sentence = _(
        "This model lacks {part}: in the shape this task is designed for, the push toward {expected} can come from there."
    )
    return then("", sentence.format(part=phrase(part), expected=expected))


def lagging(mine, theirs, threshold):
    """The part whose share falls furthest short of the same part's share in ``theirs`` (a reference's), or None; first
    of those that push the wrong way where the reference's do not, each by as much as the margin lacks (``threshold``
    less the margin) or more: a fault on its own, whatever scale each model is built at. A part the reference does
    not have (a second block, ln_f) has no share there: 0."""
    small, lacks = tolerance([*mine.values(), *theirs.values()]), threshold - sum(mine.values())
    reference = {name: theirs.get(name, 0.0) for name in mine}
    short = {name: reference[name] - mine[name] for name in mine}
    against = {
        name: gap for name, gap in short.items() if min(-lacks, -small) >= mine[name] and reference[name] >= -small
    }
    against = against or short
    found = max(against, key=against.get, default=None)
    return found if found is not None and short[found] > small else None


def revealed_line(theirs, task, unusable=None, read=None):
    """The line ``--reveal`` adds: the reference's shares ``theirs``, or why there are none (``read``: how many
    letters of the context the reference reads, and how many the model)."""
    if unusable:  # a teacher's reference that is broken: said, not taken for an absent one
        return _("  (the reference solution cannot be shown: {problem})").format(problem=unusable)
    if theirs is None and read:  # it reads another window of a context longer than one of them
        return _(
            "  (the reference solution reads the last {theirs} letters of this context, and this model the last {mine}: its shares are of another margin, so they are not shown)"
        ).format(theirs=read[0], mine=read[1])
    if theirs is None and withheld(task):  # an install for learners: the answers are not here
        return _("  (the answers are not installed here: this install has no reference solution to show)")
    if theirs is None:
        return _("  (this task has no reference solution to show)")
    return _("  the reference solution, on the same context, part by part (the answer, as you asked): {shares}").format(
        shares=shares_listed(theirs)
    )


def not_compared(problem):
    """The line a report adds, unasked, when the task's reference solution cannot be used (``problem`` says why: a
    teacher's that fails): the explanation speaks of the learner's model alone, and the time it took is accounted for."""
    sentence = _(
        "  (this task's reference solution is broken, and your grade does not depend on it; for the task's author: {problem})"
    )
    return sentence.format(problem=problem)
