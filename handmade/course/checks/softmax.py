"""The checker of notebook 05_softmax_and_mask (softmax): ``check_softmax``, and the mistakes it knows
by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...i18n import _
from ...model import softmax
from ..verdict import Mistake, call, checker, diagnose, ok, returned, row, rows_apart

SOFTMAX_INPUT = np.array([[1.0, 0, 0], [2, 1, 1], [0, -10, -10], [1000, 0, 0]])  # exp overflows in the last row


def _whole_matrix_max(x):  # softmax with the largest entry of the whole matrix subtracted
    e = np.exp(x - x.max())
    return e / e.sum(axis=-1, keepdims=True)


def _only_overflow(f):
    """The rows that are not finite are those whose exp overflows, and every other row is right."""
    finite = np.setdiff1d(np.arange(len(f.x)), f.nan_rows)
    overflows = np.isinf(np.exp(f.x[f.nan_rows].max(axis=1))).all()
    return len(f.nan_rows) > 0 and overflows and np.allclose(f.got[finite], f.want[finite], atol=1e-6)


def _whole_matrix_hint(f):
    r = f.nan_rows[0]
    return _(
        "you subtracted the largest number of the whole matrix ({big}), so in the row {row} even the largest entry becomes e^{low} ≈ 0, and 0 / 0 gives nan: subtract each row's own max, np.max(x, axis=-1, keepdims=True)"
    ).format(big=fmt(f.x.max()), row=row(f.x[r]), low=fmt(f.x[r].max() - f.x.max()))


SOFTMAX_MISTAKES = (
    Mistake(
        lambda f: len(f.nan_rows) > 0 and np.allclose(f.got, _whole_matrix_max(f.x), atol=1e-6, equal_nan=True),
        _whole_matrix_hint,
    ),
    Mistake(
        _only_overflow,
        lambda f: _("the row {row} gives nan: subtract each row's max before exp (e^{big} overflows)").format(
            row=row(f.x[f.nan_rows[0]]), big=fmt(f.x[f.nan_rows[0]].max())
        ),
    ),
    Mistake(
        lambda f: np.allclose(f.got.sum(axis=0), 1) and not np.allclose(f.got.sum(axis=1), 1),
        lambda f: _("your columns sum to 1; softmax normalises each row: use axis=-1"),
    ),
    Mistake(
        lambda f: np.isclose(f.got.sum(), 1),
        lambda f: _("the whole matrix sums to 1; each row must sum to 1 on its own: axis=-1, keepdims=True"),
    ),
    Mistake(
        lambda f: np.allclose(f.got, f.x / f.x.sum(axis=-1, keepdims=True), equal_nan=True),
        lambda f: _("you divided the raw numbers by their sum: take exp first"),
    ),
    Mistake(
        lambda f: np.allclose(f.got, np.exp(f.x - f.x.max(axis=-1, keepdims=True))),
        lambda f: _("the exponentials are right; now divide each row by its sum"),
    ),
)


def _softmax_row(f):
    r = next(i for i in range(len(f.x)) if not np.allclose(f.got[i], f.want[i], atol=1e-6))
    want, got = rows_apart(f.want[r], f.got[r])
    return _("for {row} expected {want}, got {got}").format(row=row(f.x[r]), want=want, got=got)


@checker
def check_softmax(fn):
    """A learner's ``softmax(x)`` over the last axis of a 2-D array."""
    x = SOFTMAX_INPUT

    def wrong_shape(shape):
        return _("softmax keeps the shape of its input, {want}; yours returned {found}").format(
            want=x.shape, found=shape
        )

    result = call(fn, x.copy(), on=_("the matrix {x}").format(x=row(x)))
    got = returned(result, _("what your softmax returned"), x.shape, finite=False, wrong_shape=wrong_shape)
    found = Found(x=x, got=got, want=softmax(x), nan_rows=np.flatnonzero(~np.isfinite(got).all(axis=1)))
    if np.allclose(got, found.want, atol=1e-6):
        return ok(_("rows sum to 1, the largest entry wins, and {big} does not overflow").format(big=fmt(x.max())))
    return diagnose(found, SOFTMAX_MISTAKES, _softmax_row)
