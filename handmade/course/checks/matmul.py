"""The checker of notebook 01_matrix_refresher (the matrix product): ``check_matmul``, and the mistakes
it knows by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...i18n import _
from ..verdict import Mistake, apart, call, checker, diagnose, ok, returned, row, shaped

BLOG_A = np.arange(1, 9).reshape(2, 4)  # notebook 01's a and b
BLOG_B = np.arange(1, 13).reshape(4, 3)


def matmul_cases():
    """The (A, B) a learner's matmul must agree with @ on: the blog's first, then two other shapes."""
    rng = np.random.default_rng(0)
    shapes = [((3, 2), (2, 4)), ((3, 3), (3, 3))]
    return [(BLOG_A, BLOG_B)] + [(rng.integers(-5, 5, a), rng.integers(-5, 5, b)) for a, b in shapes]


def _matmul_shape(f):
    (a0, a1), (b0, b1), (w0, w1) = f.a.shape, f.b.shape, f.want.shape
    return _(
        "A is {a0}x{a1} and B is {b0}x{b1}, so A @ B is {w0}x{w1} (rows of A by columns of B); yours is {found}"
    ).format(a0=a0, a1=a1, b0=b0, b1=b1, w0=w0, w1=w1, found=f.got.shape)


def _matmul_entry(f):
    i, j = np.argwhere(~np.isclose(f.got, f.want))[0]
    want, got = apart(f.want[i, j], f.got[i, j])
    entry = {"i": i, "j": j, "want": want, "got": got}
    if f.a is BLOG_A:  # the A and B the notebook shows
        return _("entry ({i}, {j}) should be row {i} of A · column {j} of B = {want}; yours is {got}").format(**entry)
    return _(
        "with A = {a} and B = {b}, entry ({i}, {j}) should be row {i} of A · column {j} of B = {want}; yours is {got}"
    ).format(a=row(f.a), b=row(f.b), **entry)


MATMUL_MISTAKES = (
    Mistake(
        lambda f: f.got.shape == f.want.T.shape != f.want.shape and np.allclose(f.got, f.want.T),
        lambda f: _("you built the transpose: entry (i, j) comes from row i of A and column j of B"),
    ),
    Mistake(lambda f: f.got.shape != f.want.shape, _matmul_shape),
    Mistake(
        lambda f: f.a.shape == f.b.shape and np.allclose(f.got, f.a * f.b),
        lambda f: _("that is the element-wise product; the matrix product sums row times column"),
    ),
    Mistake(
        lambda f: f.a.shape == f.b.shape and np.allclose(f.got, f.b @ f.a),
        lambda f: _("that is B @ A: the order matters; take rows from the first matrix"),
    ),
)


def _index_advice(reason):
    return _(
        "your function raised IndexError ({reason}): an index is out of range; check which index runs over rows and which over columns"
    ).format(reason=reason)


@checker
def check_matmul(matmul):
    """``matmul(a, b)`` written with loops must equal ``a @ b`` on every case of ``matmul_cases``."""
    for a, b in matmul_cases():
        on = _("A of shape {a} and B of shape {b}").format(a=a.shape, b=b.shape)
        result = call(matmul, a.copy(), b.copy(), on=on, index_advice=_index_advice)
        got = returned(result, _("the result of your function"), allowed=shaped((a @ b).shape))
        found = Found(a=a, b=b, want=a @ b, got=got)
        if found.got.shape != found.want.shape or not np.allclose(found.got, found.want):
            return diagnose(found, MATMUL_MISTAKES, _matmul_entry)
    product = BLOG_A @ BLOG_B
    return ok(
        _("your loops agree with @ on every test, including the blog's {first} and {last}").format(
            first=fmt(product[0, 0]), last=fmt(product[-1, -1])
        )
    )
