"""The checker of notebook 10_the_full_block (the full block): ``check_undo_layer_norm``, and the
mistakes it knows by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...blog import N_EMBD, blog_model
from ...display.trace import trace
from ...i18n import _
from ...inference import accuracy
from ...names import T
from ...structure import LAYER_NORM_EPS
from ...weights import NonFiniteError, WeightsError
from ..verdict import Mistake, Unreadable, array, checker, close, diagnose, ok, right, row, typed

LN_CONTEXTS = ("aabaa", "bbbbb", "ab")


def _per_direction(value, name):
    allowed = _("one number, or one per direction ({n} numbers)").format(n=N_EMBD)
    values = array(value, name, allowed=allowed)
    if values.shape not in ((), (1,), (N_EMBD,)):
        raise Unreadable(
            _("{what} should be {allowed}; yours has shape {shape}").format(
                what=name, allowed=allowed, shape=values.shape
            )
        )
    return np.broadcast_to(values, (N_EMBD,))


def _ln_found(g, b):
    params = blog_model()
    params["blocks"][0]["ln_1"] = {"g": g, "b": b}
    embeddings = [trace(c)[T.embedding].values for c in LN_CONTEXTS]
    try:
        worst = max(np.abs(trace(c, params)[T.ln_1].values - e).max() for c, e in zip(LN_CONTEXTS, embeddings))
    except (NonFiniteError, WeightsError) as error:
        raise Unreadable(str(error)) from None
    rows = np.concatenate(embeddings)  # every row: a one-hot position plus a one-hot token
    mean, var = rows[0].mean(), rows[0].var()
    eps = LAYER_NORM_EPS
    return Found(g=g, b=b, params=params, worst=worst, mean=mean, var=var, eps=eps, std=np.sqrt(var + eps))


def _uniform(values):
    return np.ptp(values) == 0


def _shown(values):  # gamma or beta as the learner gave it: one number, or one per direction
    return typed(values[0]) if _uniform(values) else row(values)


LN_MISTAKES = (
    Mistake(
        lambda f: np.allclose(f.g, f.mean) and np.allclose(f.b, f.std),
        lambda f: _(
            "gamma and beta are swapped: gamma multiplies (undo the division), beta adds (undo the subtraction)"
        ),
    ),
    Mistake(
        lambda f: _uniform(f.g) and np.allclose(f.b, 0),
        lambda f: _("the normalised rows are centred on 0: beta must add back each row's mean, {mean}").format(
            mean=fmt(f.mean)
        ),
    ),
    Mistake(
        lambda f: np.allclose(f.g, 1) and _uniform(f.b),
        lambda f: _(
            "the normalised rows have variance 1: gamma must multiply by the standard deviation, sqrt({var} + eps)"
        ).format(var=fmt(f.var)),
    ),
    Mistake(
        lambda f: close(f.g, np.full(N_EMBD, np.sqrt(f.var))) and close(f.b, np.full(N_EMBD, f.mean)),  # beta right
        lambda f: _(
            "close: layer norm divides by sqrt(variance + eps) with eps = {eps}, so gamma needs the eps too"
        ).format(eps=fmt(f.eps)),
    ),
    Mistake(
        lambda f: np.allclose(f.g, f.var),
        lambda f: _("gamma is the standard deviation, the square root of the variance {var} (+ eps)").format(
            var=fmt(f.var)
        ),
    ),
    Mistake(
        lambda f: np.allclose(f.g, -f.std) and np.allclose(f.b, f.mean),
        lambda f: _(
            "gamma = {g} flips every row around its mean: gamma must be the standard deviation, a positive number"
        ).format(g=_shown(f.g)),
    ),
    Mistake(
        lambda f: close(f.g, np.full(N_EMBD, f.std), atol=1e-3) and close(f.b, np.full(N_EMBD, f.mean), atol=1e-3),
        lambda f: _(
            "close: gamma = {g} and beta = {b} are rounded, and ln_1 still changes the rows by up to {worst}; compute them, np.sqrt({var} + {eps}) and {mean}, rather than round them"
        ).format(g=_shown(f.g), b=_shown(f.b), worst=fmt(f.worst), var=fmt(f.var), eps=fmt(f.eps), mean=fmt(f.mean)),
    ),
)


def _ln_otherwise(f):
    return _("ln_1 still changes the rows (by up to {worst}); every row has mean {mean} and variance {var}").format(
        worst=fmt(f.worst), mean=fmt(f.mean), var=fmt(f.var)
    )


@checker
def check_undo_layer_norm(gamma, beta):
    """Gamma and beta for ln_1 (numbers, or one per direction) that give every embedding back."""
    found = _ln_found(_per_direction(gamma, "gamma"), _per_direction(beta, "beta"))
    if found.worst < 1e-9:
        return ok(
            _("ln_1 now returns each embedding row unchanged (largest difference {worst:.1g}); {score} right").format(
                worst=found.worst, score=right(accuracy(found.params))
            )
        )
    return diagnose(found, LN_MISTAKES, _ln_otherwise)
