"""What a failing model is compared with, where its task has a reference solution: the shares of the same margin in
the reference (``shares_in``), the part whose share falls furthest short of the reference's (``lagging``), which the
explanation speaks of, and a part of the task's designed shape that the model lacks (``missing``). The sentences still
speak only of the learner's numbers; the reference's are shown only when asked (``grade --reveal``)."""

from ..i18n import _, then
from .explain import SMALL, phrase, read_window, shares, tolerance


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
    less the margin) or more: a fault on its own, whatever scale each model is built at."""
    small, lacks = tolerance([*mine.values(), *theirs.values()]), threshold - sum(mine.values())
    short = {name: theirs[name] - mine[name] for name in mine if name in theirs}
    against = {name: gap for name, gap in short.items() if min(-lacks, -small) >= mine[name] and theirs[name] >= -small}
    against = against or short
    found = max(against, key=against.get, default=None)
    return found if found is not None and short[found] > small else None
