"""Checkers for the notebooks' "Try it" exercises: ``check_values(1, -1)`` gives a ``Verdict``.

Every checker is written in the same three steps (the mechanism is in ``verdict``):

1. read the learner's answer with a reader (``number``, ``array``, ``named``, ``letters``, ``call``),
   so that whatever a learner types gets a verdict, never a traceback;
2. compute the right answer from the package itself (the model, the blog's builders, the worked
   example's matrices, the FLOP counter), never from a number typed into the checker;
3. if the answer is wrong, try the checker's list of known mistakes in order, each a test and a
   hint computed from the learner's own numbers (``Mistake``), and give the first that fits.

A verdict only says what the learner's numbers show: the numbers it quotes are theirs, computed,
and the contexts it names as failing fail.
"""

import functools
import inspect
from collections.abc import Mapping
from types import SimpleNamespace as Found

import numpy as np

from ..blog import BASIS, LG, N_CTX, N_EMBD, N_VOCAB, blog_model
from ..display.labelled import fmt
from ..display.trace import trace
from ..i18n import _
from ..inference import accuracy, continuation, next_in_pattern, predict, prefix_examples, unambiguous_examples
from ..model import causal_mask, layer_norm, recording, softmax
from ..names import T
from ..parts import with_parts, with_qkv
from ..weights import NonFiniteError, WeightsError, check_weights, forward
from .builtin_tasks import abc_model
from .efficiency import blog_flops, count_flops
from .grader import MARGIN_THRESHOLD
from .tasks import get_task
from .verdict import (
    Mistake,
    Unreadable,
    Verdict,
    apart,
    array,
    call,
    checker,
    close,
    describe,
    diagnose,
    hint,
    letters,
    named,
    number,
    ok,
    returned,
    row,
    rows_apart,
    typed,
    whole,
)
from .worked_example import SENTENCE, TOKEN_IDS, VOCABULARY, E, K, Q, V


def right(score):
    """A Score as the numbers a sentence inserts, "26 / 27", without the label ACCURACY."""
    return f"{score.correct} / {score.total}"


__all__ = [
    "Verdict",
    "ok",
    "hint",
    "check_matmul",
    "check_rule",
    "check_embedding",
    "check_window_q",
    "check_softmax",
    "check_values",
    "check_lg_threshold",
    "check_completion",
    "check_pattern_weights",
    "check_undo_layer_norm",
    "check_row_query",
    "check_averaging_weights",
    "check_flop_count",
    "check_acb",
]


# ---- 01: the matrix product ---------------------------------------------------------------

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
    ).format(a=f.a.tolist(), b=f.b.tolist(), **entry)


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
        found = Found(a=a, b=b, want=a @ b, got=returned(result, _("the result of your function")))
        if found.got.shape != found.want.shape or not np.allclose(found.got, found.want):
            return diagnose(found, MATMUL_MISTAKES, _matmul_entry)
    product = BLOG_A @ BLOG_B
    return ok(
        _("your loops agree with @ on every test, including the blog's {first} and {last}").format(
            first=fmt(product[0, 0]), last=fmt(product[-1, -1])
        )
    )


# ---- 02: the task -------------------------------------------------------------------------


@functools.cache
def rule_examples():
    """Every context of (aab)* of 1 to 8 letters whose next letter the pattern decides."""
    return tuple(unambiguous_examples(8, pattern="aab"))


def _ab_rule(context):  # the (ab)* rule: the other letter than the last
    return "b" if context[-1] == "a" else "a"


def _blind_pair(f):
    """(a wrong context, a context that ends in the same letter but needs the other answer) when
    the rule answers by the last letter alone; None when it does not."""
    by_last = {}
    for e in f.examples:
        by_last.setdefault(e.context[-1], set()).add(f.answers[e.context])
    if any(len(said) > 1 for said in by_last.values()):
        return None
    pairs = ((e, t) for e in f.wrong for t in f.examples if t.context[-1] == e.context[-1] and t.expected != e.expected)
    return next(pairs, None)


def _blind_hint(f):
    e, twin = _blind_pair(f)
    return _(
        "after {context} the next token is {expected}, your rule says {got}: it gives the same answer after every context that ends in {last}, yet {context} and {twin} both end in {last} and need different answers ({expected} and {twin_expected}); look at the last two tokens"
    ).format(
        context=repr(e.context),
        expected=repr(e.expected),
        got=repr(f.answers[e.context]),
        last=e.context[-1],
        twin=repr(twin.context),
        twin_expected=repr(twin.expected),
    )


def _rule_first_wrong(f):
    e = f.wrong[0]
    return _("after {context} the next token is {expected}, your rule says {got} ({n} wrong)").format(
        context=repr(e.context), expected=repr(e.expected), got=repr(f.answers[e.context]), n=len(f.wrong)
    )


RULE_MISTAKES = (
    Mistake(
        lambda f: all(f.answers[e.context] == _ab_rule(e.context) for e in f.examples),
        lambda f: _(
            "your rule only looks at the last token, the (ab)* rule: 'aa' and 'ba' both end in a but "
            "need different answers, so look at the last two tokens"
        ),
    ),
    Mistake(lambda f: _blind_pair(f) is not None, _blind_hint),
)


def _rule_answer(next_token, context):
    def index_advice(reason):
        return _(
            "your rule raised IndexError on the context {context} ({reason}): the shortest contexts have a single letter"
        ).format(context=repr(context), reason=reason)

    on = _("the context {context}").format(context=repr(context))
    said = call(next_token, context, on=on, index_advice=index_advice)
    if not (isinstance(said, str) and said in ("a", "b")):
        raise Unreadable(
            _("your rule should return a letter, 'a' or 'b'; after {context} it returned {found}").format(
                context=repr(context), found=describe(said)
            )
        )
    return said


@checker
def check_rule(next_token):
    """``next_token(context)`` must give the next letter of (aab)* after every context that decides it."""
    examples = rule_examples()
    answers = {e.context: _rule_answer(next_token, e.context) for e in examples}
    found = Found(examples=examples, answers=answers, wrong=[e for e in examples if answers[e.context] != e.expected])
    if not found.wrong:
        return ok(_("your rule is right on all {n} contexts that decide the next token").format(n=len(examples)))
    return diagnose(found, RULE_MISTAKES, _rule_first_wrong)


# ---- 03: embeddings -----------------------------------------------------------------------

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


# ---- 04: queries and keys -----------------------------------------------------------------

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
    return _(
        "position {i} attends {got}, but should attend {want}; remember row Pi of q says what the token at position i looks for"
    ).format(i=i, got=np.round(f.got[i], 2).tolist(), want=np.round(f.want[i], 2).tolist())


@checker
def check_window_q(q, width=3):
    """A q block (8x8, with the blog's k) that makes each position attend evenly to itself and
    the ``width - 1`` positions before it."""
    width = whole(width, _("the window's width"), 1, N_CTX)
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


# ---- 05: softmax --------------------------------------------------------------------------

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


# ---- 06: values ---------------------------------------------------------------------------

VALUES_TEXT = "aaba"  # position p reads tokens p-1 and p: the pairs aa, ab and ba, all the pattern has


def switch_point(params):
    """The scratch value at which c_proj writes as much into Ta as into Tb: above it, more into Tb."""
    c_proj = params["blocks"][0]["attn"]["c_proj"]
    ta, tb, v = (BASIS.index(name) for name in ("Ta", "Tb", "V"))
    return (c_proj["b"][ta] - c_proj["b"][tb]) / (c_proj["w"][v, tb] - c_proj["w"][v, ta])


def _pair(t, position):
    """What the model makes of the pair of tokens that ``position`` reads, from the trace ``t``."""
    pair = VALUES_TEXT[position - 1 : position + 1]
    logits = t[T.logits].values[position]
    expected = next(iter(next_in_pattern(pair)))
    right = "ab".index(expected)
    return Found(
        s=t[T.attention_output]["V"][position],  # the average of the two values
        ta=t[T.c_proj_output]["Ta"][position],
        tb=t[T.c_proj_output]["Tb"][position],
        la=logits[0],
        lb=logits[1],
        said="ab"[int(np.argmax(logits))],
        expected=expected,
        margin=logits[right] - logits[1 - right],
    )


def _values_found(v_a, v_b):
    params = with_qkv(blog_model(), v=BASIS.matrix({("Ta", "V"): v_a, ("Tb", "V"): v_b}))
    found = Found(a=v_a, b=v_b, cut=switch_point(params), overflow=None)
    try:
        found.score, t = accuracy(params), trace(VALUES_TEXT, params)
    except NonFiniteError as error:
        found.overflow = str(error)  # where it overflowed; the verdict needs only that it did
        return found
    found.pairs = {VALUES_TEXT[p - 1 : p + 1]: _pair(t, p) for p in range(1, len(VALUES_TEXT))}
    return found


def _values_said(f):  # the letter the model says after each pair, and the letter that should follow
    aa, ab, ba = (f.pairs[pair] for pair in ("aa", "ab", "ba"))
    return {
        "aa": aa.said,
        "ab": ab.said,
        "ba": ba.said,
        "want_aa": aa.expected,
        "want_ab": ab.expected,
        "want_ba": ba.expected,
    }


def _same_values(f):
    return _(
        "a and b give the same number, {a}, so aa, ab and ba all average to {s} and attention cannot tell aa from ab: the model says {aa} after aa, {ab} after ab and {ba} after ba, where {want_aa}, {want_ab} and {want_ba} should follow"
    ).format(a=typed(f.a), s=fmt(f.pairs["aa"].s, 6), **_values_said(f))


def _pair_numbers(pair):  # what c_proj writes and the logits, with the digits that tell them apart
    (ta, tb), (la, lb) = apart(pair.ta, pair.tb), apart(pair.la, pair.lb)
    return {"ta": ta, "tb": tb, "la": la, "lb": lb}


def _aa_wrong(f):
    aa = f.pairs["aa"]
    return _(
        "aa averages to {s}, which c_proj turns into Ta = {ta} and Tb = {tb}; with the residual's 1 for a, the logits are a {la}, b {lb}, so the model says a after aa, where b should follow: give a a value clearly above {cut}"
    ).format(s=fmt(aa.s, 6), cut=fmt(f.cut), **_pair_numbers(aa))


def _ab_wrong(f):
    ab = f.pairs["ab"]
    return _(
        "ab averages to ({a} + {b}) / 2 = {s}, which c_proj turns into Ta = {ta} and Tb = {tb}; with the residual's 1 for b, the logits are a {la}, b {lb}, so the model says b after ab, where a should follow: the two values must average to clearly below {cut}"
    ).format(
        a=typed(f.a),
        b=typed(f.b),
        s=fmt(ab.s, 6),
        cut=fmt(f.cut),
        **_pair_numbers(ab),
    )


VALUE_MISTAKES = (
    Mistake(
        lambda f: f.overflow is not None,
        lambda f: _(
            "with a = {a} and b = {b} the numbers of the forward pass overflow float64; values near 1 are enough"
        ).format(a=typed(f.a), b=typed(f.b)),
    ),
    Mistake(lambda f: f.a == f.b, _same_values),
    Mistake(lambda f: f.pairs["aa"].said != f.pairs["aa"].expected, _aa_wrong),
    Mistake(lambda f: f.pairs["ab"].said != f.pairs["ab"].expected, _ab_wrong),
)


def _values_otherwise(f):
    return _(
        "{score} right: the model says {aa} after aa, {ab} after ab and {ba} after ba, where {want_aa}, {want_ab} and {want_ba} should follow"
    ).format(score=right(f.score), **_values_said(f))


def _values_right(f):
    smallest = min(f.pairs, key=lambda pair: f.pairs[pair].margin)
    return _(
        "a = {a}, b = {b}: aa averages to {aa}, above {cut}, where c_proj starts writing more into Tb than into Ta, so the model says b; ab and ba average to {mix}, below {cut}, so it says a; the smallest margin is {margin}, after {pair}; {score} right"
    ).format(
        a=typed(f.a),
        b=typed(f.b),
        aa=fmt(f.pairs["aa"].s, 6),
        mix=fmt(f.pairs["ab"].s, 6),
        cut=fmt(f.cut),
        margin=fmt(f.pairs[smallest].margin),
        pair=smallest,
        score=right(f.score),
    )


@checker
def check_values(v_a, v_b):
    """The numbers an a and a b put in the scratch direction V, so that with the blog's
    attention and c_proj the model scores 27 / 27."""
    found = _values_found(
        number(v_a, _("the value of {name}").format(name="a")), number(v_b, _("the value of {name}").format(name="b"))
    )
    if found.overflow is None and found.score.perfect:
        return ok(_values_right(found))
    return diagnose(found, VALUE_MISTAKES, _values_otherwise)


# ---- 07: projection and residual ----------------------------------------------------------


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
    found = _lg_found(number(answer, _("your answer")))
    if found.lg == found.boundary[0]:
        return ok(_lg_right(found))
    return diagnose(found, LG_MISTAKES, _lg_lower)


# ---- 08: predictions ----------------------------------------------------------------------


def _first_difference(f):
    return next(i for i, (a, b) in enumerate(zip(f.answer, f.want)) if a != b)


COMPLETION_MISTAKES = (
    Mistake(
        lambda f: f.answer == f.text + f.want,
        lambda f: _("you wrote the context {text} too: write only the {n} letters the model adds after it").format(
            text=repr(f.text), n=len(f.want)
        ),
    ),
    Mistake(
        lambda f: len(f.answer) != len(f.want),
        lambda f: _("write {n} letters, one per generated token; yours has {found}").format(
            n=len(f.want), found=len(f.answer)
        ),
    ),
    Mistake(
        lambda f: f.answer[_first_difference(f)] not in "ab",
        lambda f: _("letter {k} is {char}; the model only writes a and b").format(
            k=_first_difference(f) + 1, char=repr(f.answer[_first_difference(f)])
        ),
    ),
)


def _completion_token(f):
    k = _first_difference(f)
    context = (f.text + f.want[:k])[-N_CTX:]  # what the model sees when it writes token k
    s = trace(context)[T.attention_output]["V"][-1]  # what gpt() computed
    common = {"k": k + 1, "s": fmt(s), "want": repr(f.want[k]), "got": repr(f.answer[k])}
    if len(context) == 1:
        return _(
            "token {k}: the context is the single token {context}, so attention reads its value, {s}, and c_proj turns that into {want} (you wrote {got})"
        ).format(context=repr(context), **common)
    return _(
        "token {k}: the last two tokens are {context}, so attention averages their values to {s} and c_proj turns that into {want} (you wrote {got})"
    ).format(context=repr(context[-2:]), **common)


@checker
def check_completion(text, answer, max_new_tokens=6):
    """The learner's by-hand continuation of ``text`` (``max_new_tokens`` letters) against the model's."""
    text = letters(text, _("the context"), 1, 100)
    n = whole(max_new_tokens, _("the number of letters"), 1, 100)
    if not isinstance(answer, str):
        raise Unreadable(
            _("write your answer as text in quotes, {n} letters a and b; yours is {found}").format(
                n=n, found=describe(answer)
            )
        )
    found = Found(text=text, answer=answer, want=continuation(text, n))
    if answer == found.want:
        return ok(_("{text} :: {want}, exactly what the model writes").format(text=text, want=found.want))
    return diagnose(found, COMPLETION_MISTAKES, _completion_token)


# ---- 09: the playground -------------------------------------------------------------------


def _first_miss(f):
    example, got = f.score.failures[0]
    return _("{score} right; first miss: after {context} expected {expected}, got {got}").format(
        score=right(f.score), context=repr(example.context), expected=repr(example.expected), got=repr(got)
    )


PATTERN_MISTAKES = (
    Mistake(
        lambda f: f.blog.perfect,
        lambda f: _(
            "these weights still generate (aab)*. In ({pattern})* which pair of tokens is followed by a? "
            "Change what c_proj writes by default and what it writes when the scratch value is 1, 0 or -1"
        ).format(pattern=f.pattern),
    ),
)


@checker
def check_pattern_weights(params, pattern="abb"):
    """Weights that predict every token of ``pattern`` * 10 from its prefix, as the blog's do for aab."""
    pattern = letters(pattern, _("the pattern"), 2, 10)
    try:
        params = check_weights(params)
        score = accuracy(params, examples=prefix_examples(pattern * 10), alphabet="ab")
        blog = accuracy(params, alphabet="ab")
    except (WeightsError, NonFiniteError, ValueError) as error:
        raise Unreadable(str(error)) from None
    if score.perfect:
        return ok(_("your weights generate ({pattern})*: {score} right").format(pattern=pattern, score=right(score)))
    return diagnose(Found(pattern=pattern, score=score, blog=blog), PATTERN_MISTAKES, _first_miss)


# ---- 10: the full block -------------------------------------------------------------------

LN_CONTEXTS = ("aabaa", "bbbbb", "ab")


def _per_direction(value, name):
    values = array(value, name)
    if values.shape not in ((), (1,), (N_EMBD,)):
        raise Unreadable(
            _("{name} is one number, or one per direction ({n} numbers); yours has shape {shape}").format(
                name=name, n=N_EMBD, shape=values.shape
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
    eps = inspect.signature(layer_norm).parameters["eps"].default
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
        lambda f: close(f.g, np.full(N_EMBD, np.sqrt(f.var))),
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


# ---- 11: the worked example ---------------------------------------------------------------


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
    ).format(x=f.x.tolist(), i=i, want=want, got=got)


@checker
def check_row_query(answer):
    """The query of "fox" as a row: its embedding times the transposed Q."""
    position = SENTENCE.index("fox")
    fox = TOKEN_IDS[position]
    x = E[fox]
    want = x @ Q.T
    got = array(answer, _("your query"))
    if got.size != want.size:
        raise Unreadable(
            _("a query has {n} numbers, one per row of Q; yours has {found}").format(n=want.size, found=got.size)
        )
    found = Found(got=got, flat=got.ravel(), x=x, want=want, fox=fox)
    if got.shape in (want.shape, (1, want.size)) and close(found.flat, want):
        return ok(
            _("x @ Q.T = {want}: column {position} of the source's Q_x, written as a row").format(
                want=want.tolist(), position=position
            )
        )
    return diagnose(found, ROW_QUERY_MISTAKES, _row_query_entry)


# ---- 12: attention as averaging -----------------------------------------------------------


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
            t=_worst_row(f),
            want=np.round(f.want[_worst_row(f)], 3).tolist(),
            got=np.round(f.got[_worst_row(f)], 3).tolist(),
            sums=row(f.got.sum(axis=1)),
        ),
    ),
)


def _rounded_row(f):
    t = _worst_row(f)
    want, got = rows_apart(f.want[t], f.got[t])
    return _(
        "close, but rounded: row {t} is {got}, not {want}; write fractions such as 1/3, which Python computes to full precision"
    ).format(t=t, got=got, want=want)


def _averaging_row(f):
    t = _worst_row(f)
    return _("row {t} should be {want}; yours is {got}").format(
        t=t, want=np.round(f.want[t], 3).tolist(), got=np.round(f.got[t], 3).tolist()
    )


@checker
def check_averaging_weights(weights, n=4):
    """The n x n matrix that makes row t of ``weights @ x`` the mean of rows 0..t of x."""
    n = whole(n, _("the number of tokens"), 1, 64)

    def wrong_shape(shape):
        return _(
            "the weights are {n}x{n}, one row per output token and one column per input token; yours has shape {shape}"
        ).format(n=n, shape=shape)

    got = array(weights, _("the weights"), (n, n), wrong_shape=wrong_shape)
    found = Found(got=got, want=softmax(causal_mask(n)), n=n)  # softmax(0 + causal mask): the running mean
    if np.allclose(got, found.want):
        return ok(_("row t gives 1/(t+1) to each of the first t+1 tokens: a running mean"))
    return diagnose(found, AVERAGING_MISTAKES, _averaging_row)


# ---- 13: efficiency -----------------------------------------------------------------------

PRODUCTS = (
    T.qkv,
    T.scores,
    T.attention_output,
    T.c_proj_output,
    T.mlp_hidden,
    T.mlp_output,
    T.logits,
)  # taps that multiply matrices


def dot_products(n_seq):
    """How many dot products one pass of the blog's model over ``n_seq`` tokens computes: one per
    entry of each matrix product the pass taps."""
    sizes = []

    def listen(name, values):
        if name.kind in PRODUCTS:
            sizes.append(values.size)

    with recording(listen):
        forward(np.zeros(n_seq, dtype=int), blog_model())
    return sum(sizes)


def _other_length(f):  # the context length whose count the learner gave instead, if any
    return next((m for m, count in f.counts.items() if m != f.n and count == f.answer), None)


def _other_length_hint(f):
    m = _other_length(f)
    if m == N_CTX:
        return _("that is the count for a full window of {m} tokens; this asks for {n}").format(m=m, n=f.n)
    return _("that is the count for {m} tokens; this asks for {n}").format(m=m, n=f.n)


def _left_out(f):  # the term of the formula table the learner's count lacks, if exactly one
    return next((part for part, flops in f.terms.items() if f.want - f.answer == flops), None)


FLOP_MISTAKES = (
    Mistake(
        lambda f: f.answer == f.want + f.dots,
        lambda f: _("a dot product of k terms needs k multiplications but only k - 1 additions"),
    ),
    Mistake(lambda f: _other_length(f) is not None, _other_length_hint),
    Mistake(
        lambda f: _left_out(f) is not None,
        lambda f: _("{diff} short: exactly the term {part} of the table; did you leave it out?").format(
            diff=f.want - f.answer, part=repr(_left_out(f))
        ),
    ),
)


def _flops_off(f):
    biggest = max(f.terms, key=f.terms.get)
    return _("off by {diff}; the largest part is {part}: {flops} operations").format(
        diff=f"{f.answer - f.want:+d}", part=biggest, flops=f.terms[biggest]
    )


@checker
def check_flop_count(n_seq, answer):
    """The operations of one forward pass of the blog model over ``n_seq`` tokens."""
    n = whole(n_seq, _("the context length"), 1, N_CTX)
    count = number(answer, _("your count"))
    if not count.is_integer():
        raise Unreadable(_("a count of operations is a whole number; yours is {found}").format(found=typed(count)))
    counts = {m: count_flops("a" * m).total for m in range(1, N_CTX + 1)}
    found = Found(n=n, answer=int(count), want=counts[n], counts=counts, dots=dot_products(n))
    found.terms = blog_flops(n, N_EMBD, N_VOCAB)
    if found.answer == found.want:
        return ok(_("{want} operations for {n} tokens").format(want=found.want, n=n))
    return diagnose(found, FLOP_MISTAKES, _flops_off)


# ---- 14: design together: (acb)* ----------------------------------------------------------

ACB = "acb"


@functools.cache
def _abc_design():
    """Notebook 14's finished (abc)* model (built there in the open; also the task's reference
    solution, but an install without the answers has it too) and its named directions."""
    task = get_task("abc")
    return abc_model(), task.labels.residual


def _directions():
    """{letter: the direction its embedding writes}, read off the design's wte."""
    model, basis = _abc_design()
    alphabet = model.labels.alphabet
    return {letter: basis.names[int(np.argmax(model["wte"][i]))] for i, letter in enumerate(alphabet)}


def acb_turn():
    """The right answer: each letter's direction goes to the direction of the letter after it in acb."""
    direction = _directions()
    return {direction[x]: direction[ACB[(ACB.index(x) + 1) % len(ACB)]] for x in ACB}


def acb_model(turn):
    """The design with ``turn`` in c_proj, at the design's own strength (Lg), as notebook 14 builds it."""
    model, basis = _abc_design()
    strength = np.abs(model["blocks"][0]["attn"]["c_proj"]["w"]).max()
    return with_parts(model, {"c_proj.w": basis.matrix({(src, dst): strength for src, dst in turn.items()})})


def _acb_results(params):
    """Per graded context (every unambiguous piece of acbacb... of 1 to n_ctx letters): the margin
    and the letter the model says."""
    alphabet = _abc_design()[0].labels.alphabet
    results = []
    for example in unambiguous_examples(get_task("abc").n_ctx, pattern=ACB):
        logits = predict(example.context, params, alphabet=alphabet).logits[-1]
        right = alphabet.index(example.expected)
        said = alphabet[int(np.argmax(logits))]
        results.append(Found(example=example, margin=logits[right] - np.delete(logits, right).max(), said=said))
    return results


def _acb_found(answer):
    basis = list(_abc_design()[1])
    if isinstance(answer, Mapping) and "wte" in answer:  # whole weights, for a design changed elsewhere
        turn, params = None, answer
    else:
        turn = named(answer, _("your turn"), basis, basis)
        params = acb_model(turn)
    try:
        results = _acb_results(check_weights(params))
    except (WeightsError, NonFiniteError, ValueError) as error:
        raise Unreadable(str(error)) from None
    wrong = [r for r in results if r.said != r.example.expected]
    smallest = min(results, key=lambda r: r.margin)
    return Found(turn=turn, results=results, wrong=wrong, smallest=smallest)


def _acb_numbers(f):  # what the verdicts on (acb)* quote: the score, and where the margin is smallest
    return {
        "correct": len(f.results) - len(f.wrong),
        "total": len(f.results),
        "margin": fmt(f.smallest.margin),
        "context": repr(f.smallest.example.context),
        "threshold": fmt(MARGIN_THRESHOLD),
    }


def _acb_score(f):
    return _("{correct} / {total} contexts of (acb)* are right, smallest margin {margin} (after {context}).").format(
        **_acb_numbers(f)
    )


def _acb_turn_hint(f):
    """The score, then for each entry of the turn that differs from acb's, what it makes the model say."""
    letter_of = {direction: letter for letter, direction in _directions().items()}
    right = acb_turn()
    sentences = [_acb_score(f)]
    for source, target in f.turn.items():
        failing = [r for r in f.wrong if r.example.context[-1] == letter_of[source]]
        if target == right[source] or not failing:
            continue
        said = failing[0].said
        sentences.append(
            _(
                "Your turn sends {source} to {target}, so after {letter} the model says {said}, as in {examples}; but in (acb)* {letter} is followed by {expected} ({n} contexts fail)."
            ).format(
                source=source,
                target=target,
                letter=letter_of[source],
                said=said,
                examples=", ".join([repr(r.example.context) for r in failing if r.said == said][:3]),
                expected=failing[0].example.expected,
                n=len(failing),
            )
        )
    return " ".join(sentences)


def _acb_failures(f):
    misses = [
        _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})").format(
            context=repr(r.example.context), expected=r.example.expected, predicted=r.said, margin=fmt(r.margin)
        )
        for r in f.wrong[:5]
    ]
    return " ".join([_acb_score(f), _("The first failing contexts: {misses}.").format(misses="; ".join(misses))])


ACB_MISTAKES = (
    Mistake(lambda f: f.turn is not None and f.wrong, _acb_turn_hint),
    Mistake(
        lambda f: not f.wrong,
        lambda f: _(
            "All {total} contexts of (acb)* are right, but the smallest margin is {margin}, after {context}: a pass needs more than {threshold}, so that a tie or a lead by a hair does not count."
        ).format(**_acb_numbers(f)),
    ),
)


@checker
def check_acb(answer):
    """The learner's turn for (acb)*: a dict like ``{"Ta": "Tc", ...}`` that c_proj of notebook 14's
    (abc)* model applies (or whole weights, for a design changed elsewhere), graded as the grader
    grades: every unambiguous piece of acbacb... right, with a margin above MARGIN_THRESHOLD."""
    found = _acb_found(answer)
    if not found.wrong and found.smallest.margin > MARGIN_THRESHOLD:
        return ok(
            _(
                "all {total} contexts of (acb)* are right, with a smallest margin of {margin} (after {context}), above the {threshold} a pass needs"
            ).format(**_acb_numbers(found))
        )
    return diagnose(found, ACB_MISTAKES, _acb_failures)
