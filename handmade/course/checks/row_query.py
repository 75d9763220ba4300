"""The checker of notebook 11_worked_example (the worked example): ``check_row_query``, and the
mistakes it knows by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...i18n import _
from ..verdict import Mistake, Unreadable, apart, array, checker, close, diagnose, ok, row, shaped
from ..worked_example import SENTENCE, TOKEN_IDS, VOCABULARY, E, K, Q, V


def _other_word(f):
    """The word (row of E) whose query the learner wrote instead of fox's, if any."""
    rows = (i for i in range(len(E)) if i != f.fox and close(f.flat, E[i] @ Q.T))
    return next(rows, None)


ROW_QUERY_MISTAKES = (
    Mistake(
        lambda f: f.got.shape == (f.want.size, 1) and close(f.flat, f.want),
        lambda f: _(
            "those are the right numbers, but as a column of shape {shape}: the package writes a query as a row, x @ Q.T, of shape ({n},)"
        ).format(shape=f.got.shape, n=f.want.size),
    ),
    Mistake(
        lambda f: close(f.flat, f.x @ Q),
        lambda f: _("that is x @ Q: the source's Q multiplies columns (Q @ x), so a row needs x @ Q.T"),
    ),
    Mistake(lambda f: close(f.flat, f.x @ K.T), lambda f: _("that is the key: use Q, not K")),
    Mistake(lambda f: close(f.flat, f.x @ V.T), lambda f: _("that is the value: use Q, not V")),
    Mistake(
        lambda f: _other_word(f) is not None,
        lambda f: _("that is the query of {word}, row {i} of E; fox is row {fox} of E").format(
            word=repr(VOCABULARY[_other_word(f)]), i=_other_word(f), fox=f.fox
        ),
    ),
)


def _row_query_entry(f):
    i = int(np.argmax(~np.isclose(f.flat, f.want, rtol=0, atol=1e-9)))
    want, got = apart(f.want[i], f.flat[i])
    return _(
        "expected fox's embedding {x} times Q.T; yours differs at entry {i}, where {x} · row {i} of Q is {want}, and yours is {got}"
    ).format(x=row(f.x), i=i, want=want, got=got)


@checker
def check_row_query(answer):
    """The query of "fox" as a row: its embedding times the transposed Q."""
    position = SENTENCE.index("fox")
    fox = TOKEN_IDS[position]
    x = E[fox]
    want = x @ Q.T
    got = array(answer, _("your query"), allowed=shaped(want.shape))
    if got.size != want.size:
        raise Unreadable(
            _("a query has {n} numbers, one per row of Q; yours has {found}").format(n=want.size, found=got.size)
        )
    found = Found(got=got, flat=got.ravel(), x=x, want=want, fox=fox)
    if got.shape in (want.shape, (1, want.size)) and close(found.flat, want):
        return ok(
            _("x @ Q.T = {want}: column {position} of the source's Q_x, written as a row").format(
                want=row(want), position=position
            )
        )
    return diagnose(found, ROW_QUERY_MISTAKES, _row_query_entry)
