"""The checker of notebook 12_attention_as_averaging (attention as averaging):
``check_averaging_weights``, and the mistakes it knows by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...i18n import _
from ...model import causal_mask, softmax
from ..verdict import Mistake, array, checker, diagnose, ok, row, rows_apart, whole_number


def _worst_row(f):
    return int(np.abs(f.got - f.want).sum(axis=1).argmax())


def _proportional(f):
    """Each row is the right one times some number, but the rows do not all sum to 1."""
    sums = f.got.sum(axis=1, keepdims=True)
    return np.allclose(f.got, f.want * sums) and not np.allclose(sums, 1)


AVERAGING_MISTAKES = (
    Mistake(
        lambda f: np.allclose(f.got, f.want > 0),
        lambda f: _("those weights add up the past instead of averaging it: divide each row by its sum"),
    ),
    Mistake(
        lambda f: np.allclose(f.got, 1 / f.n),
        lambda f: _("every token averages all the tokens, later ones too: mask the future (zeros above the diagonal)"),
    ),
    Mistake(
        lambda f: np.allclose(f.got, f.want.T),
        lambda f: _("that is the transpose: row t must look at columns 0..t, on and below the diagonal"),
    ),
    Mistake(
        lambda f: np.allclose(f.got, np.eye(f.n)),
        lambda f: _("each token only keeps itself; it should average itself and everything before it"),
    ),
    Mistake(lambda f: np.allclose(f.got, f.want, rtol=0, atol=0.005), lambda f: _rounded_row(f)),
    Mistake(
        _proportional,
        lambda f: _("row {t} should be {want}; yours is {got}: each row must sum to 1, and yours sum to {sums}").format(
            sums=row(f.got.sum(axis=1)), **_worst(f)
        ),
    ),
)


def _worst(f):
    """The row of the learner's weights furthest from the running mean's, and both of them as a sentence shows them."""
    t = _worst_row(f)
    want, got = rows_apart(f.want[t], f.got[t])
    return {"t": t, "want": want, "got": got}


def _rounded_row(f):
    return _(
        "close, but rounded: row {t} is {got}, not {want}; write fractions such as 1/3, which Python computes to full precision"
    ).format(**_worst(f))


def _averaging_row(f):
    return _("row {t} should be {want}; yours is {got}").format(**_worst(f))


@checker
def check_averaging_weights(weights, n=4):
    """The n x n matrix that makes row t of ``weights @ x`` the mean of rows 0..t of x."""
    n = whole_number(n, _("the number of tokens"), 1, 64)

    def wrong_shape(shape):
        return _(
            "the weights are {n}x{n}, one row per output token and one column per input token; yours has shape {shape}"
        ).format(n=n, shape=shape)

    got = array(weights, _("the weights"), (n, n), wrong_shape=wrong_shape)
    found = Found(got=got, want=softmax(causal_mask(n)), n=n)  # softmax(0 + causal mask): the running mean
    if np.allclose(got, found.want):
        return ok(_("row t gives 1/(t+1) to each of the first t+1 tokens: a running mean"))
    return diagnose(found, AVERAGING_MISTAKES, _averaging_row)
