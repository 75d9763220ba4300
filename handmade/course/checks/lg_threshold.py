"""The checker of notebook 07_projection_and_residual (projection and residual):
``check_lg_threshold``, and the mistakes it knows by name."""

import functools
from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...blog import blog_model
from ...i18n import _
from ...inference import accuracy, predict
from ...weights import NonFiniteError
from ..verdict import Mistake, checker, diagnose, ok, one_number, right, typed


def _bits(x):  # a float's bits as an int: for floats >= 0 they run in the same order as the floats
    return int(np.float64(x).view(np.int64))


def _unbits(bits):
    return float(np.int64(bits).view(np.float64))


def _lg_perfect(lg):
    return accuracy(blog_model(proj_lg=lg)).perfect


@functools.cache
def lg_boundary(low=0.0, high=16.0):
    """(the largest c_proj strength at which the blog's model fails the blog's test, the smallest at
    which it scores 27 / 27): two adjacent floats, found by bisection on the floats themselves."""
    lo, hi = _bits(low), _bits(high)
    assert not _lg_perfect(low) and _lg_perfect(high)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if _lg_perfect(_unbits(mid)) else (mid, hi)
    return _unbits(lo), _unbits(hi)


def _lg_found(lg):
    found = Found(lg=lg, boundary=lg_boundary(), overflow=False)
    try:
        found.params = blog_model(proj_lg=lg)
        found.score = accuracy(found.params)
    except NonFiniteError:
        found.overflow = True
    return found


LG_MISTAKES = (
    Mistake(
        lambda f: f.overflow,
        lambda f: _(
            "at Lg = {answer} the forward pass overflows float64, so the model cannot be scored; the point where it starts to fail is far lower"
        ).format(answer=typed(f.lg)),
    ),
    Mistake(
        lambda f: f.lg > f.boundary[0],
        lambda f: _(
            "at Lg = {answer} the model still gets {score} right: the point where it starts to fail is lower"
        ).format(answer=typed(f.lg), score=right(f.score)),
    ),
)


def _lg_lower(f):
    return _(
        "at Lg = {answer} the model already fails ({score} right): the point where it starts to fail is higher"
    ).format(answer=typed(f.lg), score=right(f.score))


def _lg_right(f):
    example, said = f.score.failures[0]
    la, lb = predict(example.context, f.params).logits[-1]
    above = f.boundary[1]
    common = {"lg": typed(f.lg), "score": right(f.score), "context": repr(example.context), "above": typed(above)}
    common["above_score"] = right(accuracy(blog_model(proj_lg=above)))
    if la == lb:
        return _(
            "at Lg = {lg} the model gets {score} right: after {context} the logits of a and b tie at {logit}, and argmax breaks the tie towards the first token, {said}, where {expected} should follow; at the next float up, {above}, it gets {above_score} right"
        ).format(logit=fmt(la), said=said, expected=example.expected, **common)
    return _(
        "at Lg = {lg} the model gets {score} right: after {context} the logits are a {la}, b {lb}, so it says {said} where {expected} should follow; at the next float up, {above}, it gets {above_score} right"
    ).format(la=fmt(la), lb=fmt(lb), said=said, expected=example.expected, **common)


@checker
def check_lg_threshold(answer):
    """The c_proj strength Lg at which the blog's model starts to fail: the largest Lg at which it
    scores less than 27 / 27, when it scores 27 / 27 at every Lg above (``lg_boundary``)."""
    found = _lg_found(one_number(answer, _("your answer")))
    if found.lg == found.boundary[0]:
        return ok(_lg_right(found))
    return diagnose(found, LG_MISTAKES, _lg_lower)
