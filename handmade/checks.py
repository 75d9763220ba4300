"""Checkers for the notebooks' "Try it" exercises.

Each checker runs the learner's answer against the package's own model or reference and
returns a Verdict. A wrong answer gets a hint that names the likely mistake, not just "wrong".
"""

import html
from dataclasses import dataclass

import numpy as np

from .basis import split_qkv
from .blog import BASIS, N_CTX, blog_model
from .efficiency import blog_flops, count_flops
from .inference import accuracy, continuation, next_in_pattern, prefix_examples
from .labelled import fmt
from .model import NonFiniteError, softmax
from .trace import trace
from .weights import WeightsError, check_weights
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


def _call(fn, *args):
    try:
        return fn(*args), None
    except Exception as error:  # the learner's code: any failure becomes a hint
        return None, hint(f"your function raised {type(error).__name__}: {error}")


# ---- 01: the matrix product ---------------------------------------------------------------

BLOG_A = np.arange(1, 9).reshape(2, 4)
BLOG_B = np.arange(1, 13).reshape(4, 3)


def check_matmul(matmul):
    """``matmul(a, b)`` written with loops must equal ``a @ b`` on several shapes."""
    rng = np.random.default_rng(0)
    cases = [(BLOG_A, BLOG_B), (rng.integers(-5, 5, (3, 2)), rng.integers(-5, 5, (2, 4)))]
    cases.append((rng.integers(-5, 5, (3, 3)), rng.integers(-5, 5, (3, 3))))
    for a, b in cases:
        got, failed = _call(matmul, a, b)
        if failed is not None:
            return failed
        got, want = np.asarray(got, dtype=float), a @ b
        if got.shape == want.shape and np.allclose(got, want):
            continue
        if got.shape == want.T.shape and np.allclose(got, want.T) and want.shape != want.T.shape:
            return hint("you built the transpose: entry (i, j) comes from row i of A and column j of B")
        if got.shape != want.shape:
            return hint(
                f"A is {a.shape[0]}x{a.shape[1]} and B is {b.shape[0]}x{b.shape[1]}, so A @ B is "
                f"{want.shape[0]}x{want.shape[1]} (rows of A by columns of B); yours is {got.shape}"
            )
        if a.shape == b.shape and np.allclose(got, a * b):
            return hint("that is the element-wise product; the matrix product sums row times column")
        if b.shape[1] == a.shape[0] and (b @ a).shape == got.shape and np.allclose(got, b @ a):
            return hint("that is B @ A: the order matters; take rows from the first matrix")
        i, j = np.argwhere(~np.isclose(got, want))[0]
        return hint(
            f"entry ({i}, {j}) should be row {i} of A · column {j} of B = {fmt(want[i, j])}; yours is {fmt(got[i, j])}"
        )
    return ok("your loops agree with @ on every test, including the blog's 70 and 210")


# ---- 02: the task -------------------------------------------------------------------------


def check_rule(next_token):
    """``next_token(context)`` must give the next character of (aab)* for every context whose
    next character is determined (lengths 1 to 8)."""
    contexts = []
    for start in range(3):
        for length in range(1, 9):
            context = ("aab" * 6)[start : start + length]
            following = next_in_pattern(context)
            if len(following) == 1 and context not in [c for c, _ in contexts]:
                contexts.append((context, following.pop()))
    wrong = []
    for context, expected in contexts:
        got, failed = _call(next_token, context)
        if failed is not None:
            return failed
        if got != expected:
            wrong.append((context, expected, got))
    if not wrong:
        return ok(f"your rule is right on all {len(contexts)} contexts that decide the next token")
    answers = {context: got for context, _, got in wrong}
    if all(answers.get(c, e) == ("b" if c.endswith("a") else "a") for c, e in contexts):
        return hint(
            "your rule only looks at the last token, the (ab)* rule: 'aa' and 'ba' both end in a but "
            "need different answers, so look at the last two tokens"
        )
    context, expected, got = wrong[0]
    return hint(f"after {context!r} the next token is {expected!r}, your rule says {got!r} ({len(wrong)} wrong)")


# ---- 03: embeddings -----------------------------------------------------------------------


def check_embedding(text, answer):
    """``answer`` must be the blog model's embedding of ``text``: one row per token."""
    want = trace(text)["embedding"]
    got = np.asarray(answer, dtype=float)
    if got.shape != want.shape:
        return hint(f"{text!r} has {len(text)} tokens, so its embedding is {len(text)}x8; yours is {got.shape}")
    if np.array_equal(got, want.values):
        return ok(f"that is the embedding of {text!r}: a position one-hot plus a token one-hot in every row")
    positions, tokens = want.values[:, :5], want.values[:, 5:7]
    if np.array_equal(got[:, :5], positions) and np.array_equal(got[:, 5:7], tokens[:, ::-1]):
        return hint("a and b are swapped: token a (id 0) is a 1 in column Ta, token b in column Tb")
    if not got[:, :5].any() and np.array_equal(got[:, 5:], want.values[:, 5:]):
        return hint("the tokens are right but the positions are missing: add wpe, a 1 in column Pi for row i")
    if not got[:, 5:7].any() and np.array_equal(got[:, :5], positions):
        return hint("the positions are right but the tokens are missing: add wte, a 1 in Ta or Tb")
    if np.array_equal(got[:, :5], positions[::-1]):
        return hint("positions run the wrong way: the first token is position 0 (column P0)")
    i, j = np.argwhere(got != want.values)[0]
    return hint(
        f"row {want.rows[i]}, column {want.cols[j]} should be {fmt(want.values[i, j])}; yours is {fmt(got[i, j])}"
    )


# ---- 04: queries and keys -----------------------------------------------------------------


def window_attention(width, n=N_CTX):
    """The attention pattern where each position averages itself and the width-1 before it."""
    target = np.zeros((n, n))
    for i in range(n):
        lo = max(0, i - width + 1)
        target[i, lo : i + 1] = 1 / (i + 1 - lo)
    return target


def check_window_q(q, width=3):
    """A q block (8x8, with the blog's k) that makes each position attend evenly to itself and
    the ``width - 1`` positions before it."""
    q = np.asarray(q, dtype=float)
    if q.shape != (8, 8):
        return hint(f"the q block is 8x8 (input direction by query direction); yours is {q.shape}")
    params = blog_model()
    params["blocks"][0]["attn"]["c_attn"]["w"][:, :8] = q
    try:
        got = trace("aabaa", params)["attention_weights"].values
    except (NonFiniteError, WeightsError) as error:
        return hint(str(error))
    want = window_attention(width)
    if np.allclose(got, want, atol=1e-3):
        return ok(f"every position now attends evenly to a window of {width}")
    if np.allclose(got, window_attention(2), atol=1e-3):
        return hint("that is still the blog's window of two: also give the query of Pi a large entry at P(i-2)")
    if np.allclose(got, window_attention(width + 1), atol=1e-3) or np.allclose(
        got, window_attention(width - 1), atol=1e-3
    ):
        return hint(
            f"your window is one too wide or too narrow: each position should see itself and {width - 1} before"
        )
    if got.max(axis=1).min() < 0.3:
        return hint(
            "the attention is spread over every position: your entries are too small. Scores are divided "
            "by √8, and softmax only picks clearly when they differ by 20 or more; use Lg = 1024"
        )
    i = int(np.abs(got - want).sum(axis=1).argmax())
    return hint(
        f"position {i} attends {np.round(got[i], 2).tolist()}, but should attend {np.round(want[i], 2).tolist()}; "
        "remember row Pi of q says what the token at position i looks for"
    )


# ---- 05: softmax --------------------------------------------------------------------------


def check_softmax(fn):
    """A learner's ``softmax(x)`` over the last axis of a 2-D array."""
    x = np.array([[1.0, 0, 0], [2, 1, 1], [0, -10, -10], [1000, 0, 0]])
    with np.errstate(all="ignore"):
        got, failed = _call(fn, x.copy())
    if failed is not None:
        return failed
    got, want = np.asarray(got, dtype=float), softmax(x)
    if got.shape != want.shape:
        return hint(f"softmax keeps the shape of its input, {x.shape}; yours returned {got.shape}")
    if np.allclose(got, want, atol=1e-6):
        return ok("rows sum to 1, the largest entry wins, and 1000 does not overflow")
    if not np.isfinite(got).all() and np.allclose(got[:3], want[:3], atol=1e-6):
        return hint("the row [1000, 0, 0] gives nan: subtract each row's max before exp (e^1000 overflows)")
    if np.allclose(got.sum(axis=0), 1) and not np.allclose(got.sum(axis=1), 1):
        return hint("your columns sum to 1; softmax normalises each row: use axis=-1")
    if np.isclose(got.sum(), 1):
        return hint("the whole matrix sums to 1; each row must sum to 1 on its own: axis=-1, keepdims=True")
    if np.allclose(got[:3], x[:3] / x[:3].sum(axis=-1, keepdims=True), equal_nan=True):
        return hint("you divided the raw numbers by their sum: take exp first")
    if np.allclose(got[:3], np.exp(x[:3] - x[:3].max(axis=-1, keepdims=True))):
        return hint("the exponentials are right; now divide each row by its sum")
    return hint(f"for {x[1].tolist()} expected {np.round(want[1], 4).tolist()}, got {np.round(got[1], 4).tolist()}")


# ---- 06: values ---------------------------------------------------------------------------


def check_values(v_a, v_b):
    """The numbers an a and a b put in the scratch direction V, so that with the blog's
    attention and c_proj the model scores 27 / 27."""
    params = blog_model()
    v = split_qkv(params["blocks"][0]["attn"]["c_attn"]["w"])[2]
    v[BASIS.index("Ta"), BASIS.index("V")], v[BASIS.index("Tb"), BASIS.index("V")] = v_a, v_b
    params["blocks"][0]["attn"]["c_attn"]["w"][:, 16:] = v
    score = accuracy(params)
    if score.perfect:
        return ok(f"a = {fmt(v_a)}, b = {fmt(v_b)}: aa averages to {fmt(v_a)}, ab and ba cancel to 0; {score}")
    if v_a == v_b:
        return hint("a and b give the same number, so attention cannot tell aa from ab")
    if not np.isclose(v_a + v_b, 0):
        return hint(
            f"ab averages to ({fmt(v_a)} + {fmt(v_b)}) / 2 = {fmt((v_a + v_b) / 2)}, but c_proj reads 0 as "
            "'predict a': the two values must cancel"
        )
    return hint(f"aa averages to {fmt(v_a)}, but c_proj reads exactly 1 as 'predict b'; {score}")


# ---- 07: projection and residual ----------------------------------------------------------


def lg_threshold(lo=0.0, hi=16.0, steps=40):
    """The c_proj strength below which the blog's model stops scoring 27 / 27 (by bisection)."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if accuracy(blog_model(proj_lg=mid)).perfect else (mid, hi)
    return hi


def check_lg_threshold(answer, tolerance=0.01):
    """The Lg at which the model starts to fail: perfect just above it, not at or below it."""
    answer = float(answer)
    threshold = lg_threshold()
    if abs(answer - threshold) <= tolerance:
        return ok(
            f"below Lg = {fmt(threshold)} the token's own 1 in the residual stream outvotes c_proj; "
            f"at {fmt(threshold)} it is a tie, which argmax breaks towards a"
        )
    if answer > threshold:
        return hint(f"at Lg = {fmt(answer)} the model still scores {accuracy(blog_model(proj_lg=answer))}: go lower")
    return hint(
        f"at Lg = {fmt(answer + tolerance)} it already fails ({accuracy(blog_model(proj_lg=answer + tolerance))}): go higher"
    )


# ---- 08: predictions ----------------------------------------------------------------------


def check_completion(text, answer, max_new_tokens=None):
    """The learner's by-hand continuation of ``text`` against the model's."""
    max_new_tokens = len(answer) if max_new_tokens is None else max_new_tokens
    want = continuation(text, max_new_tokens)
    if answer == want:
        return ok(f"{text} :: {want}, exactly what the model writes")
    if len(answer) != len(want):
        return hint(f"write {len(want)} characters, one per generated token; yours has {len(answer)}")
    k = next(i for i, (a, b) in enumerate(zip(answer, want)) if a != b)
    context = (text + want[:k])[-2:]
    s = trace(text + want[:k])["attention_output"].values[-1, BASIS.index("V")]  # what gpt() computed
    return hint(
        f"token {k + 1}: the last two tokens are {context!r}, so attention averages their values to {fmt(s)} "
        f"and c_proj turns that into {want[k]!r} (you wrote {answer[k]!r})"
    )


# ---- 09: the playground -------------------------------------------------------------------


def check_pattern_weights(params, pattern="abb"):
    """Weights that predict every token of ``pattern`` * 10 from its prefix, as the blog's do
    for aab."""
    try:
        params = check_weights(params)
        score = accuracy(params, examples=prefix_examples(pattern * 10))
    except (WeightsError, NonFiniteError, ValueError) as error:
        return hint(str(error))
    if score.perfect:
        return ok(f"your weights generate ({pattern})*: {score}")
    if accuracy(params).perfect:
        return hint(
            f"these weights still generate (aab)*. In ({pattern})* which pair of tokens is followed by a? "
            "Change what c_proj writes by default and what it writes when the scratch value is 1, 0 or -1"
        )
    example, got = score.failures[0]
    return hint(f"{score}; first miss: after {example.context!r} expected {example.expected!r}, got {got!r}")


# ---- 10: the full block -------------------------------------------------------------------


def check_undo_layer_norm(gamma, beta):
    """Gamma and beta for ln_1 (numbers, or one per direction) that give every embedding back."""
    g = np.broadcast_to(np.asarray(gamma, dtype=float), (8,))
    b = np.broadcast_to(np.asarray(beta, dtype=float), (8,))
    params = blog_model()
    params["blocks"][0]["ln_1"] = {"g": g, "b": b}
    contexts = ["aabaa", "bbbbb", "ab"]
    worst = max(np.abs(trace(c, params)["ln_1"].values - trace(c)["embedding"].values).max() for c in contexts)
    if worst < 1e-9:
        return ok(f"ln_1 now returns each embedding row unchanged (largest difference {worst:.1g}); {accuracy(params)}")
    std = np.sqrt(0.1875 + 1e-5)
    if np.allclose(g, 0.25) and np.allclose(b, std):
        return hint(
            "gamma and beta are swapped: gamma multiplies (undo the division), beta adds (undo the subtraction)"
        )
    if np.allclose(b, 0):
        return hint("the normalised rows are centred on 0: beta must add back each row's mean, 0.25")
    if np.allclose(g, 1):
        return hint(
            "the normalised rows have variance 1: gamma must multiply by the standard deviation, sqrt(0.1875 + eps)"
        )
    if np.allclose(g, np.sqrt(0.1875), rtol=0, atol=1e-9):
        return hint("close: layer norm divides by sqrt(variance + eps) with eps = 1e-5, so gamma needs the eps too")
    if np.allclose(g, 0.1875):
        return hint("gamma is the standard deviation, the square root of the variance 0.1875 (+ eps)")
    return hint(f"ln_1 still changes the rows (by up to {fmt(worst)}); every row has mean 0.25 and variance 0.1875")


# ---- 11: the worked example ---------------------------------------------------------------


def check_row_query(answer):
    """The query of "fox" (position 2) as a row: its embedding times the transposed Q."""
    x = E[TOKEN_IDS[2]]
    got, want = np.asarray(answer, dtype=float).ravel(), x @ Q.T
    if got.shape != want.shape:
        return hint(f"a query has 3 numbers, one per row of Q; yours has {got.size}")
    if np.array_equal(got, want):
        return ok(f"x @ Q.T = {want.tolist()}: column 2 of the source's Q_x, written as a row")
    if np.array_equal(got, x @ Q):
        return hint("that is x @ Q: the source's Q multiplies columns (Q @ x), so a row needs x @ Q.T")
    if np.array_equal(got, x @ K.T):
        return hint("that is the key: use Q, not K")
    return hint(
        f"expected fox's embedding {x.tolist()} times Q.T; yours differs at entry {int(np.argmax(got != want))}"
    )


# ---- 12: attention as averaging -----------------------------------------------------------


def check_averaging_weights(weights, n=4):
    """The n x n matrix that makes row t of ``weights @ x`` the mean of rows 0..t of x."""
    got = np.asarray(weights, dtype=float)
    if got.shape != (n, n):
        return hint(
            f"the weights are {n}x{n}, one row per output token and one column per input token; yours is {got.shape}"
        )
    want = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    if np.allclose(got, want):
        return ok("row t gives 1/(t+1) to each of the first t+1 tokens: a running mean")
    if np.allclose(got, np.tril(np.ones((n, n)))):
        return hint("those weights add up the past instead of averaging it: divide each row by its sum")
    if np.allclose(got, np.full((n, n), 1 / n)):
        return hint("every token averages all the tokens, later ones too: mask the future (zeros above the diagonal)")
    if np.allclose(got, want.T):
        return hint("that is the transpose: row t must look at columns 0..t, below the diagonal")
    if np.allclose(got, np.eye(n)):
        return hint("each token only keeps itself; it should average itself and everything before it")
    t = int(np.abs(got - want).sum(axis=1).argmax())
    return hint(f"row {t} should be {np.round(want[t], 3).tolist()}; yours is {np.round(got[t], 3).tolist()}")


# ---- 13: efficiency -----------------------------------------------------------------------


def check_flop_count(n_seq, answer):
    """The operations of one forward pass of the blog model over ``n_seq`` tokens."""
    want = count_flops("a" * n_seq).total
    terms = blog_flops(n_seq, 8, 2)
    if answer == want:
        return ok(f"{want} operations for {n_seq} tokens")
    dot_products = n_seq * 24 + n_seq * n_seq + n_seq * 8 + n_seq * 8 + n_seq * 2  # qkv, scores, @ v, c_proj, logits
    if answer == want + dot_products:
        return hint("a dot product of k terms needs k multiplications but only k - 1 additions")
    if answer == sum(blog_flops(5, 8, 2).values()):
        return hint(f"that is the count for a full window of 5 tokens; this asks for {n_seq}")
    biggest = max(terms, key=terms.get)
    return hint(f"off by {answer - want:+d}; the largest part is {biggest}: {terms[biggest]} operations")
