"""Checkers for the notebooks' "Try it" exercises.

Each checker runs the learner's answer against the package's own model or reference and
returns a Verdict. A wrong answer gets a hint that names the likely mistake, not just "wrong".
Whatever a learner types (None, text, a list of the wrong shape, nan, a function that raises),
the checker answers with a verdict and never raises.
"""

import html
from dataclasses import dataclass

import numpy as np

from ..basis import brief
from ..blog import BASIS, N_CTX, N_EMBD, blog_model
from ..display.labelled import fmt
from ..display.trace import trace
from ..i18n import _
from ..inference import accuracy, continuation, next_in_pattern, prefix_examples
from ..model import softmax
from ..parts import with_qkv
from ..weights import NonFiniteError, WeightsError, check_weights
from .efficiency import blog_flops, count_flops
from .worked_example import TOKEN_IDS, E, K, Q


@dataclass(frozen=True)
class Verdict:
    passed: bool
    message: str

    def __bool__(self):
        return self.passed

    def __str__(self):
        return ("✓ " if self.passed else "✗ ") + self.message

    def __repr__(self):
        return str(self)

    def _repr_html_(self):
        colour, mark = ("#1a7f37", "✓") if self.passed else ("#b3261e", "✗")
        return f'<div style="border-left:4px solid {colour};padding:4px 8px"><b>{mark}</b> {html.escape(self.message)}</div>'


def ok(message):
    return Verdict(True, message)


def hint(message):
    return Verdict(False, message)


def checker(fn):
    """Wrap a checker so that an answer it did not foresee still gets a verdict, never a traceback."""

    def safe(*args, **kwargs):
        try:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 (a learner's answer may fail in any way)
            return hint(
                _("this answer could not be checked ({kind}: {reason})").format(
                    kind=type(error).__name__, reason=brief(str(error), 160)
                )
            )

    safe.__name__, safe.__doc__, safe.__wrapped__ = fn.__name__, fn.__doc__, fn
    return safe


def _describe(value):
    if isinstance(value, np.ndarray):
        return _("an array of shape {shape}").format(shape=value.shape)
    return _("{value} (a {kind})").format(value=brief(value), kind=type(value).__name__)


def numbers(answer, what, shape=None):
    """``answer`` as a float array (of ``shape``, if given), or a Verdict saying what is wrong with it."""
    if isinstance(answer, (str, bytes)) or answer is None or callable(answer):
        return hint(_("{what} should be numbers; yours is {found}").format(what=what, found=_describe(answer)))
    try:
        array = np.asarray(answer)
        if array.dtype.kind not in "iuf":
            raise TypeError
        array = array.astype(float)
    except (TypeError, ValueError):
        return hint(
            _("{what} should be numbers (in a list of rows); yours is {found}").format(
                what=what, found=_describe(answer)
            )
        )
    if shape is not None and array.shape != shape:
        return hint(
            _("{what} should have shape {want}; yours has shape {found}").format(
                what=what, want=shape, found=array.shape
            )
        )
    if not np.isfinite(array).all():
        return hint(_("{what} contains nan or inf; every entry must be a finite number").format(what=what))
    return array


def _call(fn, *args):
    """(result, None) from the learner's function, or (None, a hint) if it is not one or it fails."""
    if not callable(fn):
        return None, hint(
            _(
                "pass your function itself, without calling it (for example check(matmul), not check(matmul())); got {found}"
            ).format(found=_describe(fn))
        )
    try:
        return fn(*args), None
    except IndexError as error:
        return None, hint(
            _(
                "your function raised IndexError ({reason}): an index is out of range; check which index runs over rows and which over columns"
            ).format(reason=brief(str(error), 80))
        )
    except Exception as error:  # noqa: BLE001 (the learner's code: any failure becomes a hint)
        return None, hint(
            _("your function raised {kind}: {reason}").format(kind=type(error).__name__, reason=brief(str(error), 120))
        )


# ---- 01: the matrix product ---------------------------------------------------------------

BLOG_A = np.arange(1, 9).reshape(2, 4)
BLOG_B = np.arange(1, 13).reshape(4, 3)


@checker
def check_matmul(matmul):
    """``matmul(a, b)`` written with loops must equal ``a @ b`` on several shapes."""
    rng = np.random.default_rng(0)
    cases = [(BLOG_A, BLOG_B), (rng.integers(-5, 5, (3, 2)), rng.integers(-5, 5, (2, 4)))]
    cases.append((rng.integers(-5, 5, (3, 3)), rng.integers(-5, 5, (3, 3))))
    for a, b in cases:
        got, failed = _call(matmul, a, b)
        if failed is not None:
            return failed
        want = a @ b
        got = numbers(got, _("the result of your function"))
        if isinstance(got, Verdict):
            return got
        if got.shape == want.shape and np.allclose(got, want):
            continue
        if got.shape == want.T.shape and np.allclose(got, want.T) and want.shape != want.T.shape:
            return hint(_("you built the transpose: entry (i, j) comes from row i of A and column j of B"))
        if got.shape != want.shape:
            return hint(
                _(
                    "A is {a0}x{a1} and B is {b0}x{b1}, so A @ B is {w0}x{w1} (rows of A by columns of B); yours is {found}"
                ).format(
                    a0=a.shape[0],
                    a1=a.shape[1],
                    b0=b.shape[0],
                    b1=b.shape[1],
                    w0=want.shape[0],
                    w1=want.shape[1],
                    found=got.shape,
                )
            )
        if a.shape == b.shape and np.allclose(got, a * b):
            return hint(_("that is the element-wise product; the matrix product sums row times column"))
        if b.shape[1] == a.shape[0] and (b @ a).shape == got.shape and np.allclose(got, b @ a):
            return hint(_("that is B @ A: the order matters; take rows from the first matrix"))
        i, j = np.argwhere(~np.isclose(got, want))[0]
        return hint(
            _("entry ({i}, {j}) should be row {i} of A · column {j} of B = {want}; yours is {got}").format(
                i=i, j=j, want=fmt(want[i, j]), got=fmt(got[i, j])
            )
        )
    return ok(_("your loops agree with @ on every test, including the blog's 70 and 210"))


# ---- 02: the task -------------------------------------------------------------------------


@checker
def check_rule(next_token):
    """``next_token(context)`` must give the next character of (aab)* for every context whose
    next character is determined (lengths 1 to 8)."""
    contexts = []
    for start in range(3):
        for length in range(1, 9):
            context = ("aab" * 6)[start : start + length]
            following = next_in_pattern(context)
            if len(following) == 1 and context not in [c for c, _e in contexts]:
                contexts.append((context, following.pop()))
    wrong = []
    for context, expected in contexts:
        got, failed = _call(next_token, context)
        if failed is not None:
            return failed
        if got != expected:
            wrong.append((context, expected, got))
    if not wrong:
        return ok(_("your rule is right on all {n} contexts that decide the next token").format(n=len(contexts)))
    answers = {context: got for context, _e, got in wrong}
    if all(answers.get(c, e) == ("b" if c.endswith("a") else "a") for c, e in contexts):
        return hint(
            _(
                "your rule only looks at the last token, the (ab)* rule: 'aa' and 'ba' both end in a but "
                "need different answers, so look at the last two tokens"
            )
        )
    context, expected, got = wrong[0]
    if not isinstance(got, str):
        return hint(
            _("your rule should return a letter, 'a' or 'b'; after {context} it returned {found}").format(
                context=repr(context), found=_describe(got)
            )
        )
    return hint(
        _("after {context} the next token is {expected}, your rule says {got} ({n} wrong)").format(
            context=repr(context), expected=repr(expected), got=brief(got), n=len(wrong)
        )
    )


# ---- 03: embeddings -----------------------------------------------------------------------


def _context(text, what=None):
    """``text`` as a context of the blog's model (1 to n_ctx letters of a and b), or a Verdict."""
    if not isinstance(text, str) or not 1 <= len(text) <= N_CTX or set(text) - set("ab"):
        return hint(
            _("{what} should be 1 to {n} letters a and b (the model sees at most {n} tokens); yours is {found}").format(
                what=what or _("the context"), n=N_CTX, found=_describe(text)
            )
        )
    return text


@checker
def check_embedding(text, answer):
    """``answer`` must be the blog model's embedding of ``text``: one row per token."""
    text = _context(text)
    if isinstance(text, Verdict):
        return text
    want = trace(text)["embedding"]
    got = numbers(answer, _("your embedding"))
    if isinstance(got, Verdict):
        return got
    if got.shape != want.shape:
        return hint(
            _(
                "{text} has {n} tokens, so its embedding is {n}x{width}, one row of {width} numbers per token; yours has shape {found}"
            ).format(text=repr(text), n=len(text), width=N_EMBD, found=got.shape)
        )
    if np.array_equal(got, want.values):
        return ok(
            _("that is the embedding of {text}: a position one-hot plus a token one-hot in every row").format(
                text=repr(text)
            )
        )
    where = [BASIS.index(f"P{i}") for i in range(N_CTX)]  # the columns that say where, and what
    what = [BASIS.index("Ta"), BASIS.index("Tb")]
    positions, tokens = want.values[:, where], want.values[:, what]
    rest = [i for i in range(N_EMBD) if i not in where]
    if np.array_equal(got[:, where], positions) and np.array_equal(got[:, what], tokens[:, ::-1]):
        return hint(_("a and b are swapped: token a (id 0) is a 1 in column Ta, token b in column Tb"))
    if not got[:, where].any() and np.array_equal(got[:, rest], want.values[:, rest]):
        return hint(_("the tokens are right but the positions are missing: add wpe, a 1 in column Pi for row i"))
    if not got[:, what].any() and np.array_equal(got[:, where], positions):
        return hint(_("the positions are right but the tokens are missing: add wte, a 1 in Ta or Tb"))
    if len(text) > 1 and np.array_equal(got[:, where], positions[::-1]):
        return hint(_("positions run the wrong way: the first token is position 0 (column P0)"))
    i, j = np.argwhere(got != want.values)[0]
    return hint(
        _("row {row}, column {col} should be {want}; yours is {got}").format(
            row=want.rows[i], col=want.cols[j], want=fmt(want.values[i, j]), got=fmt(got[i, j])
        )
    )


# ---- 04: queries and keys -----------------------------------------------------------------


def window_attention(width, n=N_CTX):
    """The attention pattern where each position averages itself and the width-1 before it."""
    target = np.zeros((n, n))
    for i in range(n):
        lo = max(0, i - width + 1)
        target[i, lo : i + 1] = 1 / (i + 1 - lo)
    return target


@checker
def check_window_q(q, width=3):
    """A q block (8x8, with the blog's k) that makes each position attend evenly to itself and
    the ``width - 1`` positions before it."""
    q = numbers(q, _("the q block"), (N_EMBD, N_EMBD))
    if isinstance(q, Verdict):
        return q
    try:
        t = trace("aabaa", with_qkv(blog_model(), q=q))
    except (NonFiniteError, WeightsError):
        return hint(_("your entries are so large that the scores overflow float64; 1024 is plenty"))
    got, want = t["attention_weights"].values, window_attention(width)
    if np.allclose(got, want, atol=1e-3):
        return ok(_("every position now attends evenly to a window of {width}").format(width=width))
    if np.allclose(got, window_attention(2), atol=1e-3) and width != 2:
        return hint(_("that is still the blog's window of two: also give the query of Pi a large entry at P(i-2)"))
    for other in (width - 1, width + 1):
        if other > 0 and np.allclose(got, window_attention(other), atol=1e-3):
            return hint(
                _("your window is {other} wide: each position should see itself and the {n} before it").format(
                    other=other, n=width - 1
                )
            )
    scaled = t["scaled_scores"].values
    inside, outside = want > 0, np.tri(N_CTX, dtype=bool) & (want == 0)
    gaps = [scaled[i][inside[i]].min() - scaled[i][outside[i]].max() for i in range(N_CTX) if outside[i].any()]
    spread = np.ptp(scaled[np.tri(N_CTX, dtype=bool)]) < 1e-9
    if spread:
        return hint(
            _(
                "your q gives every key the same score, so attention spreads evenly over all earlier positions: put a large number only where Pi should look"
            )
        )
    if gaps and 0 < min(gaps) < 20:
        return hint(
            _(
                "the window's scores are only {gap} above the others after dividing by √8; softmax picks clearly only with a gap of about 20: use larger entries, like 1024"
            ).format(gap=fmt(min(gaps)))
        )
    i = int(np.abs(got - want).sum(axis=1).argmax())
    return hint(
        _(
            "position {i} attends {got}, but should attend {want}; remember row Pi of q says what the token at position i looks for"
        ).format(i=i, got=np.round(got[i], 2).tolist(), want=np.round(want[i], 2).tolist())
    )


# ---- 05: softmax --------------------------------------------------------------------------


@checker
def check_softmax(fn):
    """A learner's ``softmax(x)`` over the last axis of a 2-D array."""
    x = np.array([[1.0, 0, 0], [2, 1, 1], [0, -10, -10], [1000, 0, 0]])
    got, failed = _call(fn, x.copy())
    if failed is not None:
        return failed
    want = softmax(x)
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return hint(_("softmax should return an array of numbers; yours returned {found}").format(found=_describe(got)))
    if got.shape != want.shape:
        return hint(
            _("softmax keeps the shape of its input, {want}; yours returned {found}").format(
                want=x.shape, found=got.shape
            )
        )
    if np.allclose(got, want, atol=1e-6):
        return ok(_("rows sum to 1, the largest entry wins, and 1000 does not overflow"))
    whole_max = np.exp(x - x.max())
    whole_max = whole_max / whole_max.sum(axis=-1, keepdims=True)
    if np.allclose(got, whole_max, atol=1e-6, equal_nan=True):
        return hint(
            _(
                "you subtracted the largest number of the whole matrix (1000), so the other rows become e^-999 ≈ 0 and 0 / 0: subtract each row's own max, np.max(x, axis=-1, keepdims=True)"
            )
        )
    if not np.isfinite(got).all() and np.allclose(got[:3], want[:3], atol=1e-6):
        return hint(_("the row [1000, 0, 0] gives nan: subtract each row's max before exp (e^1000 overflows)"))
    if np.allclose(got.sum(axis=0), 1) and not np.allclose(got.sum(axis=1), 1):
        return hint(_("your columns sum to 1; softmax normalises each row: use axis=-1"))
    if np.isclose(got.sum(), 1):
        return hint(_("the whole matrix sums to 1; each row must sum to 1 on its own: axis=-1, keepdims=True"))
    if np.allclose(got[:3], x[:3] / x[:3].sum(axis=-1, keepdims=True), equal_nan=True):
        return hint(_("you divided the raw numbers by their sum: take exp first"))
    if np.allclose(got[:3], np.exp(x[:3] - x[:3].max(axis=-1, keepdims=True))):
        return hint(_("the exponentials are right; now divide each row by its sum"))
    return hint(
        _("for {row} expected {want}, got {got}").format(
            row=x[1].tolist(), want=np.round(want[1], 4).tolist(), got=np.round(got[1], 4).tolist()
        )
    )


# ---- 06: values ---------------------------------------------------------------------------


@checker
def check_values(v_a, v_b):
    """The numbers an a and a b put in the scratch direction V, so that with the blog's
    attention and c_proj the model scores 27 / 27."""
    for value, name in ((v_a, "a"), (v_b, "b")):
        number = numbers(value, _("the value of {name}").format(name=name), ())
        if isinstance(number, Verdict):
            return number
    v_a, v_b = float(v_a), float(v_b)
    model = blog_model()
    v = model.labels.residual.matrix({("Ta", "V"): v_a, ("Tb", "V"): v_b})
    try:
        score = accuracy(with_qkv(model, v=v))
    except NonFiniteError:
        return hint(_("values that large overflow once c_proj multiplies them by 1024; stay near 1"))
    if score.perfect:
        return ok(
            _("a = {a}, b = {b}: aa averages to {a}, ab and ba cancel to 0; {score}").format(
                a=fmt(v_a), b=fmt(v_b), score=score
            )
        )
    if v_a == v_b:
        return hint(_("a and b give the same number, so attention cannot tell aa from ab"))
    if not np.isclose(v_a + v_b, 0):
        return hint(
            _(
                "ab averages to ({a} + {b}) / 2 = {s}, but c_proj reads 0 as 'predict a': the two values must cancel"
            ).format(a=fmt(v_a), b=fmt(v_b), s=fmt((v_a + v_b) / 2))
        )
    return hint(
        _(
            "aa averages to {a}; c_proj turns a scratch value s into Ta = 1024·(1 − s) and Tb = 1024·s, so 'predict b' needs s clearly above 0.5 (with the residual's 1, above about 0.5005): {score}"
        ).format(a=fmt(v_a), score=score)
    )


# ---- 07: projection and residual ----------------------------------------------------------


def lg_threshold(lo=0.0, hi=16.0, steps=40):
    """The c_proj strength below which the blog's model stops scoring 27 / 27 (by bisection)."""
    for _step in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if accuracy(blog_model(proj_lg=mid)).perfect else (mid, hi)
    return hi


@checker
def check_lg_threshold(answer, tolerance=0.01):
    """The Lg at which the model starts to fail: perfect just above it, not at or below it."""
    number = numbers(answer, _("your answer"), ())
    if isinstance(number, Verdict):
        return number
    answer, threshold = float(number), lg_threshold()
    try:
        score = accuracy(blog_model(proj_lg=answer))
    except NonFiniteError:
        return hint(
            _(
                "at Lg = {answer} the model works only when c_proj does not overflow; the answer is a small number, near where the residual's 1 starts to matter"
            ).format(answer=fmt(answer))
        )
    if abs(answer - threshold) <= tolerance + 1e-6:
        return ok(
            _(
                "below Lg = {t} the token's own 1 in the residual stream outvotes c_proj; at {t} it is a tie, which argmax breaks towards a"
            ).format(t=fmt(threshold))
        )
    if answer > threshold:
        return hint(
            _("at Lg = {answer} the model still scores {score}: the point where it starts to fail is lower").format(
                answer=fmt(answer), score=score
            )
        )
    return hint(
        _("at Lg = {answer} the model already fails ({score}): the point where it starts to fail is higher").format(
            answer=fmt(answer), score=score
        )
    )


# ---- 08: predictions ----------------------------------------------------------------------


@checker
def check_completion(text, answer, max_new_tokens=6):
    """The learner's by-hand continuation of ``text`` (``max_new_tokens`` letters) against the model's."""
    if not isinstance(text, str) or not text or set(text) - set("ab") or len(text) > 100:
        return hint(_("the context should be 1 to 100 letters a and b; yours is {found}").format(found=_describe(text)))
    if not isinstance(answer, str):
        return hint(
            _("write your answer as text in quotes, {n} letters a and b; yours is {found}").format(
                n=max_new_tokens, found=_describe(answer)
            )
        )
    want = continuation(text, max_new_tokens)
    if answer == want:
        return ok(_("{text} :: {want}, exactly what the model writes").format(text=text, want=want))
    if len(answer) != len(want):
        return hint(
            _("write {n} letters, one per generated token; yours has {found}").format(n=len(want), found=len(answer))
        )
    k = next(i for i, (a, b) in enumerate(zip(answer, want)) if a != b)
    if answer[k] not in "ab":
        return hint(_("letter {k} is {char}; the model only writes a and b").format(k=k + 1, char=repr(answer[k])))
    context = (text + want[:k])[-2:]
    s = trace(text + want[:k])["attention_output"]["V"][-1]  # what gpt() computed
    return hint(
        _(
            "token {k}: the last two tokens are {context}, so attention averages their values to {s} and c_proj turns that into {want} (you wrote {got})"
        ).format(k=k + 1, context=repr(context), s=fmt(s), want=repr(want[k]), got=repr(answer[k]))
    )


# ---- 09: the playground -------------------------------------------------------------------


@checker
def check_pattern_weights(params, pattern="abb"):
    """Weights that predict every token of ``pattern`` * 10 from its prefix, as the blog's do
    for aab."""
    if not isinstance(pattern, str) or not 2 <= len(pattern) <= 10 or set(pattern) - set("ab"):
        return hint(
            _("the pattern should be 2 to 10 letters a and b; yours is {found}").format(found=_describe(pattern))
        )
    try:
        params = check_weights(params)
        score = accuracy(params, examples=prefix_examples(pattern * 10), alphabet="ab")
    except (WeightsError, NonFiniteError, ValueError) as error:
        return hint(str(error))
    if score.perfect:
        return ok(_("your weights generate ({pattern})*: {score}").format(pattern=pattern, score=score))
    if accuracy(params, alphabet="ab").perfect:
        return hint(
            _(
                "these weights still generate (aab)*. In ({pattern})* which pair of tokens is followed by a? "
                "Change what c_proj writes by default and what it writes when the scratch value is 1, 0 or -1"
            ).format(pattern=pattern)
        )
    example, got = score.failures[0]
    return hint(
        _("{score}; first miss: after {context} expected {expected}, got {got}").format(
            score=score, context=repr(example.context), expected=repr(example.expected), got=repr(got)
        )
    )


# ---- 10: the full block -------------------------------------------------------------------


@checker
def check_undo_layer_norm(gamma, beta):
    """Gamma and beta for ln_1 (numbers, or one per direction) that give every embedding back."""
    values = []
    for value, name in ((gamma, "gamma"), (beta, "beta")):
        array = numbers(value, name)
        if isinstance(array, Verdict):
            return array
        if array.shape not in ((), (1,), (N_EMBD,)):
            return hint(
                _("{name} is one number, or one per direction ({n} numbers); yours has shape {shape}").format(
                    name=name, n=N_EMBD, shape=array.shape
                )
            )
        values.append(np.broadcast_to(array, (N_EMBD,)))
    g, b = values
    params = blog_model()
    params["blocks"][0]["ln_1"] = {"g": g, "b": b}
    contexts = ["aabaa", "bbbbb", "ab"]
    try:
        worst = max(np.abs(trace(c, params)["ln_1"].values - trace(c)["embedding"].values).max() for c in contexts)
    except (NonFiniteError, WeightsError) as error:
        return hint(str(error))
    if worst < 1e-9:
        return ok(
            _("ln_1 now returns each embedding row unchanged (largest difference {worst:.1g}); {score}").format(
                worst=worst, score=accuracy(params)
            )
        )
    std = np.sqrt(0.1875 + 1e-5)
    if np.allclose(g, 0.25) and np.allclose(b, std):
        return hint(
            _("gamma and beta are swapped: gamma multiplies (undo the division), beta adds (undo the subtraction)")
        )
    if np.allclose(b, 0):
        return hint(_("the normalised rows are centred on 0: beta must add back each row's mean, 0.25"))
    if np.allclose(g, 1):
        return hint(
            _("the normalised rows have variance 1: gamma must multiply by the standard deviation, sqrt(0.1875 + eps)")
        )
    if np.allclose(g, np.sqrt(0.1875), rtol=0, atol=1e-9):
        return hint(_("close: layer norm divides by sqrt(variance + eps) with eps = 1e-5, so gamma needs the eps too"))
    if np.allclose(g, 0.1875):
        return hint(_("gamma is the standard deviation, the square root of the variance 0.1875 (+ eps)"))
    return hint(
        _("ln_1 still changes the rows (by up to {worst}); every row has mean 0.25 and variance 0.1875").format(
            worst=fmt(worst)
        )
    )


# ---- 11: the worked example ---------------------------------------------------------------


@checker
def check_row_query(answer):
    """The query of "fox" (position 2) as a row: its embedding times the transposed Q."""
    x = E[TOKEN_IDS[2]]
    want = x @ Q.T
    got = numbers(answer, _("your query"))
    if isinstance(got, Verdict):
        return got
    got = got.ravel()
    if got.shape != want.shape:
        return hint(_("a query has 3 numbers, one per row of Q; yours has {n}").format(n=got.size))
    if np.array_equal(got, want):
        return ok(_("x @ Q.T = {want}: column 2 of the source's Q_x, written as a row").format(want=want.tolist()))
    if np.array_equal(got, x @ Q):
        return hint(_("that is x @ Q: the source's Q multiplies columns (Q @ x), so a row needs x @ Q.T"))
    if np.array_equal(got, x @ K.T):
        return hint(_("that is the key: use Q, not K"))
    return hint(
        _("expected fox's embedding {x} times Q.T; yours differs at entry {i}").format(
            x=x.tolist(), i=int(np.argmax(got != want))
        )
    )


# ---- 12: attention as averaging -----------------------------------------------------------


@checker
def check_averaging_weights(weights, n=4):
    """The n x n matrix that makes row t of ``weights @ x`` the mean of rows 0..t of x."""
    got = numbers(weights, _("the weights"))
    if isinstance(got, Verdict):
        return got
    if got.shape != (n, n):
        return hint(
            _(
                "the weights are {n}x{n}, one row per output token and one column per input token; yours has shape {shape}"
            ).format(n=n, shape=got.shape)
        )
    want = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    if np.allclose(got, want):
        return ok(_("row t gives 1/(t+1) to each of the first t+1 tokens: a running mean"))
    if np.allclose(got, np.tril(np.ones((n, n)))):
        return hint(_("those weights add up the past instead of averaging it: divide each row by its sum"))
    if np.allclose(got, np.full((n, n), 1 / n)):
        return hint(
            _("every token averages all the tokens, later ones too: mask the future (zeros above the diagonal)")
        )
    if np.allclose(got, want.T):
        return hint(_("that is the transpose: row t must look at columns 0..t, on and below the diagonal"))
    if np.allclose(got, np.eye(n)):
        return hint(_("each token only keeps itself; it should average itself and everything before it"))
    t = int(np.abs(got - want).sum(axis=1).argmax())
    return hint(
        _("row {t} should be {want}; yours is {got}").format(
            t=t, want=np.round(want[t], 3).tolist(), got=np.round(got[t], 3).tolist()
        )
    )


# ---- 13: efficiency -----------------------------------------------------------------------


@checker
def check_flop_count(n_seq, answer):
    """The operations of one forward pass of the blog model over ``n_seq`` tokens."""
    if isinstance(n_seq, bool) or not isinstance(n_seq, (int, np.integer)) or not 1 <= n_seq <= N_CTX:
        return hint(
            _("the context length should be a whole number from 1 to {n}; yours is {found}").format(
                n=N_CTX, found=_describe(n_seq)
            )
        )
    number = numbers(answer, _("your count"), ())
    if isinstance(number, Verdict):
        return number
    if not float(number).is_integer():
        return hint(_("a count of operations is a whole number; yours is {found}").format(found=fmt(number)))
    answer = int(number)
    want = count_flops("a" * n_seq).total
    terms = blog_flops(n_seq, 8, 2)
    if answer == want:
        return ok(_("{want} operations for {n} tokens").format(want=want, n=n_seq))
    dot_products = n_seq * 24 + n_seq * n_seq + n_seq * 8 + n_seq * 8 + n_seq * 2  # qkv, scores, @ v, c_proj, logits
    if answer == want + dot_products:
        return hint(_("a dot product of k terms needs k multiplications but only k - 1 additions"))
    if answer == sum(blog_flops(N_CTX, 8, 2).values()) and n_seq != N_CTX:
        return hint(_("that is the count for a full window of 5 tokens; this asks for {n}").format(n=n_seq))
    biggest = max(terms, key=terms.get)
    return hint(
        _("off by {diff}; the largest part is {part}: {flops} operations").format(
            diff=f"{answer - want:+d}", part=biggest, flops=terms[biggest]
        )
    )
