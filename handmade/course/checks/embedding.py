"""The checker of notebook 03_embeddings (embeddings): ``check_embedding``, and the mistakes it knows
by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...blog import BASIS, N_CTX, N_EMBD
from ...display.trace import trace
from ...i18n import _
from ...names import T
from ..verdict import Mistake, Unreadable, apart, array, checker, describe, diagnose, ok

POSITIONS = [BASIS.index(f"P{i}") for i in range(N_CTX)]  # the columns that say where a token is
TOKENS = [BASIS.index("Ta"), BASIS.index("Tb")]  # and the columns that say what it is


def model_context(text):
    """``text`` as a context of the blog's model, 1 to n_ctx letters a and b, or Unreadable."""
    if not isinstance(text, str) or not 1 <= len(text) <= N_CTX or set(text) - set("ab"):
        raise Unreadable(
            _("{what} should be 1 to {n} letters a and b (the model sees at most {n} tokens); yours is {found}").format(
                what=_("the context"), n=N_CTX, found=describe(text)
            )
        )
    return text


def _embedding_with(f, positions=None, tokens=None):
    """Is the learner's embedding the right one with these position or token columns instead?"""
    changed = f.want.copy()
    if positions is not None:
        changed[:, POSITIONS] = positions
    if tokens is not None:
        changed[:, TOKENS] = tokens
    return np.array_equal(f.got, changed)


EMBEDDING_MISTAKES = (
    Mistake(
        lambda f: _embedding_with(f, tokens=f.want[:, TOKENS][:, ::-1]),
        lambda f: _("a and b are swapped: token a (id 0) is a 1 in column Ta, token b in column Tb"),
    ),
    Mistake(
        lambda f: _embedding_with(f, positions=0),
        lambda f: _("the tokens are right but the positions are missing: add wpe, a 1 in column Pi for row i"),
    ),
    Mistake(
        lambda f: _embedding_with(f, tokens=0),
        lambda f: _("the positions are right but the tokens are missing: add wte, a 1 in Ta or Tb"),
    ),
    Mistake(
        lambda f: len(f.text) < N_CTX and _embedding_with(f, positions=np.roll(f.want[:, POSITIONS], 1, axis=1)),
        lambda f: _("positions start at 0: row 0 is position 0 (column P0), and yours puts it in P1"),
    ),
    Mistake(
        lambda f: len(f.text) > 1 and _embedding_with(f, positions=f.want[:, POSITIONS][::-1]),
        lambda f: _("positions run the wrong way: the first token is position 0 (column P0)"),
    ),
)


def _embedding_entry(f):
    i, j = np.argwhere(f.got != f.want)[0]
    want, got = apart(f.want[i, j], f.got[i, j])
    return _("row {row}, column {col} should be {want}; yours is {got}").format(
        row=f.table.rows[i], col=f.table.cols[j], want=want, got=got
    )


@checker
def check_embedding(text, answer):
    """``answer`` must be the blog model's embedding of ``text``: one row per token."""
    table = trace(model_context(text))[T.embedding]

    def wrong_shape(shape):
        return _(
            "{text} has {n} tokens, so its embedding is {n}x{width}, one row of {width} numbers per token; yours has shape {found}"
        ).format(text=repr(text), n=len(text), width=N_EMBD, found=shape)

    got = array(answer, _("your embedding"), table.values.shape, wrong_shape=wrong_shape)
    found = Found(text=text, table=table, want=table.values, got=got)
    if np.array_equal(got, found.want):
        return ok(
            _("that is the embedding of {text}: a position one-hot plus a token one-hot in every row").format(
                text=repr(text)
            )
        )
    return diagnose(found, EMBEDDING_MISTAKES, _embedding_entry)
