"""The checker of notebook 04_queries_and_keys (queries and keys): ``check_window_q``, and the mistakes
it knows by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...blog import LG, N_CTX, N_EMBD, blog_model
from ...display.trace import trace
from ...i18n import _
from ...names import T
from ...parts import with_qkv
from ...weights import NonFiniteError, WeightsError
from ..verdict import Mistake, array, checker, diagnose, hint, ok, rows_apart, whole_number

WINDOW_TEXT = "aabaa"  # the context the checker runs: every position of the model's window
WINDOW_TOLERANCE = 1e-3  # how far an attention weight may be from the even split over the window


def window_attention(width, n=N_CTX):
    """The attention pattern where each position averages itself and the width-1 before it."""
    target = np.zeros((n, n))
    for i in range(n):
        lo = max(0, i - width + 1)
        target[i, lo : i + 1] = 1 / (i + 1 - lo)
    return target


def _window_found(q, width):
    t = trace(WINDOW_TEXT, with_qkv(blog_model(), q=q))
    want = window_attention(width)
    causal = np.tri(N_CTX, dtype=bool)
    return Found(
        width=width,
        d=q.shape[1],  # the head's width: scores are divided by its square root
        got=t[T.attention_weights].values,
        want=want,
        scaled=t[T.scaled_scores].values,
        causal=causal,
        outside=causal & (want == 0),  # keys a position may see but should not read
    )


def _window_of(f):
    """The width of the even window the learner's q makes, if it makes one."""
    widths = range(1, N_CTX + 1)
    return next((w for w in widths if np.allclose(f.got, window_attention(w), atol=WINDOW_TOLERANCE)), None)


def _outside_share(f):  # [n_ctx]: the attention each position gives to keys outside its window
    return (f.got * f.outside).sum(axis=1)


def _window_leads(f):
    """Every position scores each key of its window above every key outside it."""
    rows = [i for i in range(N_CTX) if f.outside[i].any()]
    return all(f.scaled[i][f.want[i] > 0].min() > f.scaled[i][f.outside[i]].max() for i in rows)


def _soft_window(f):
    i = int(_outside_share(f).argmax())
    gap = f.scaled[i][f.want[i] > 0].min() - f.scaled[i][f.outside[i]].max()
    return _(
        "position {i} still gives {share} of its attention to keys outside its window: after dividing by √{d} the window's scores are only {gap} above the others; use larger entries, like {lg}"
    ).format(i=i, share=fmt(_outside_share(f)[i]), d=f.d, gap=fmt(gap), lg=LG)


WINDOW_MISTAKES = (
    Mistake(
        lambda f: all(np.ptp(f.scaled[i, : i + 1]) < 1e-9 for i in range(N_CTX)),
        lambda f: _(
            "your q gives every key the same score, so attention spreads evenly over all earlier positions: put a large number only where Pi should look"
        ),
    ),
    Mistake(
        lambda f: f.width == 3 and _window_of(f) == 2,
        lambda f: _("that is still the blog's window of two: also give the query of Pi a large entry at P(i-2)"),
    ),
    Mistake(
        lambda f: _window_of(f) not in (None, f.width),
        lambda f: _("your window is {other} wide: each position should see itself and the {n} before it").format(
            other=_window_of(f), n=f.width - 1
        ),
    ),
    Mistake(lambda f: _window_leads(f) and _outside_share(f).max() > WINDOW_TOLERANCE, _soft_window),
)


def _window_row(f):
    i = int(np.abs(f.got - f.want).sum(axis=1).argmax())
    want, got = rows_apart(f.want[i], f.got[i])
    return _(
        "position {i} attends {got}, but should attend {want}; remember row Pi of q says what the token at position i looks for"
    ).format(i=i, got=got, want=want)


@checker
def check_window_q(q, width=3):
    """A q block (8x8, with the blog's k) that makes each position attend evenly to itself and
    the ``width - 1`` positions before it."""
    width = whole_number(width, _("the window's width"), 1, N_CTX)
    q = array(q, _("the q block"), (N_EMBD, N_EMBD))
    try:
        found = _window_found(q, width)
    except (NonFiniteError, WeightsError):
        return hint(
            _("your largest entry, {big}, makes the scores overflow float64; entries of {lg} are plenty").format(
                big=fmt(np.abs(q).max()), lg=LG
            )
        )
    if np.allclose(found.got, found.want, atol=WINDOW_TOLERANCE):
        return ok(_("every position now attends evenly to a window of {width}").format(width=width))
    return diagnose(found, WINDOW_MISTAKES, _window_row)
