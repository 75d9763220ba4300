"""The built-in tasks, easiest first, each in one place: its rule, whose docstring is its statement;
its alphabet, context length and shape in ``@task``; the named directions a solution is built
from; and, just below, its reference solution.

Each reference builds its matrices from rules over named directions. A block is attention (q, k,
v and c_proj), optionally followed by an MLP; ``attention_block`` puts the pieces where gpt()
wants them. The statements are in the message catalogue (tools/messages.py extracts the
docstrings of ``@task`` rules), so a learner reads them in their own language.
"""

import numpy as np

from ..basis import Basis, Labels, qkv_weights
from ..blog import BASIS as BLOG_BASIS
from ..blog import LABELS as BLOG_LABELS
from ..blog import LG, N_CTX, blog_model
from ..inference import next_in_pattern, prefix_examples
from ..parts import with_part, with_parts
from ..weights import Weights
from .tasks import TASKS, task

MAJORITY_CTX = 7  # an odd length, so that the longest texts never tie
INDUCTION_CTX = 6  # room for x y, something else, then x again
SHORT = 4  # n_ctx of the three-letter copying tasks: 81 texts of 4 letters hold all 120 graded contexts


# ---- the pieces the rules and the solutions share ----------------------------------------------


def in_pattern(context, pattern):
    """The token after ``context`` in ``pattern`` repeated forever, if exactly one can follow."""
    following = next_in_pattern(context, pattern)
    return next(iter(following)) if len(following) == 1 else None


def after(letter, alphabet="abc"):  # a -> b -> c -> a
    return alphabet[(alphabet.index(letter) + 1) % len(alphabet)]


def positions(n):
    return [f"P{i}" for i in range(n)]


def T(letter):  # the direction that says "the token is <letter>"
    return f"T{letter}"


def token_names(alphabet):
    return [T(c) for c in alphabet]


def first_marked(n_ctx, basis):  # wpe: position 0 carries the direction "first", the others nothing
    return np.array([basis.vector({"first": 1} if p == 0 else {}) for p in range(n_ctx)])


def attention_block(q, k, v, c_proj_w, c_proj_b, **extra):
    """One block's dict: c_attn from q | k | v, then c_proj; ``extra`` adds n_head or mlp."""
    return {"attn": {"c_attn": qkv_weights(q, k, v), "c_proj": {"w": c_proj_w, "b": c_proj_b}}, **extra}


AB = Basis({"token": token_names("ab")})  # Ta Tb
ABC = Basis({"token": token_names("abc")})  # Ta Tb Tc
FIRST_ABC = Basis({"position": ["first"], "token": token_names("abc")})  # first | Ta Tb Tc


# ---- no block: the embedding alone -----------------------------------------------------------


@task(alphabet="ab", n_ctx=N_CTX, n_layer=0, labels=Labels("ab", AB))
def alternate(context):
    """Write abab... whatever the text says: after an odd number of letters comes b, after an
    even number a. Only the position matters, and the model has no block at all: the embedding
    x = wte[token] + wpe[position] goes straight to the logits x @ wte.T."""
    return "ab"[len(context) % 2]  # a after an even number of letters, b after an odd one


@alternate.reference
def alternate_model():
    """No block at all: the position embedding writes the answer straight into the token directions."""
    return Weights(
        {
            "wte": AB.one_hot_rows(["Ta", "Tb"]),  # [n_vocab, n_embd]: a -> Ta, b -> Tb
            # at position p the text has p + 1 letters: write LG on the letter the rule wants next
            "wpe": np.array([AB.vector({T(alternate("x" * (p + 1))): LG}) for p in range(N_CTX)]),
            "blocks": [],
        },
        alternate.labels,
    )


@task(alphabet="abc", n_ctx=SHORT, n_layer=0, labels=Labels("abc", ABC))
def repeat(context):
    """Say the last letter again. Only the current token matters, and there is no block: the
    logits are x @ wte.T, so think about what a row of wte scores against itself, and remember
    that a pass needs a margin above 1."""
    return context[-1]


@repeat.reference
def repeat_model():
    """No block: logits = x @ wte.T, so a token's row scores itself by its length squared."""
    return Weights(
        {
            # rows of length 2: the token read scores 2 * 2 = 4, the others 0. One-hot rows would
            # give a margin of exactly 1, and a pass needs more.
            "wte": 2 * ABC.one_hot_rows(token_names("abc")),
            "wpe": np.zeros((SHORT, len(ABC))),  # the position does not matter
            "blocks": [],
        },
        repeat.labels,
    )


# ---- one block: attention as an average ----------------------------------------------------------


@task(alphabet="ab", n_ctx=N_CTX, labels=Labels("ab", AB))
def seen_b(context):
    """Say b once a b has appeared anywhere in the text, a until then. The answer depends on all
    the tokens so far, not on their order: an average over all earlier tokens, which is what
    attention does when every score is the same."""
    return "b" if "b" in context else "a"


@seen_b.reference
def seen_b_model():
    """Attention with q = k = 0 is a plain average: the share of b's among the tokens so far."""
    zero = AB.matrix({})
    v = AB.matrix({("Tb", "Tb"): 1})  # a b passes on 1 in Tb, an a nothing: the average is the share of b's
    # b gets LG times that share (at least LG / 5 once a b is there); a gets a head start half that size
    c_proj_w, c_proj_b = AB.matrix({("Tb", "Tb"): LG}), AB.vector({"Ta": LG / (2 * N_CTX)})
    return Weights(
        {
            "wte": AB.one_hot_rows(["Ta", "Tb"]),
            "wpe": np.zeros((N_CTX, len(AB))),
            "blocks": [attention_block(zero, zero, v, c_proj_w, c_proj_b)],
        },
        seen_b.labels,
    )


@task(alphabet="ab", n_ctx=MAJORITY_CTX, labels=Labels("ab", AB))
def majority(context):
    """Say the letter that is in the majority so far: a if the text has more a's than b's, b if
    more b's. Texts with as many a's as b's are not graded. Another average over all earlier
    tokens."""
    a, b = context.count("a"), context.count("b")
    return None if a == b else "a" if a > b else "b"  # a tie has no answer: not graded


@majority.reference
def majority_model():
    """The same average, of both tokens: the larger share wins."""
    zero = AB.matrix({})
    v = AB.matrix({("Ta", "Ta"): 1, ("Tb", "Tb"): 1})  # each token passes on itself
    c_proj_w = AB.matrix({("Ta", "Ta"): LG, ("Tb", "Tb"): LG})  # the shares differ by at least 1/7
    return Weights(
        {
            "wte": AB.one_hot_rows(["Ta", "Tb"]),
            "wpe": np.zeros((MAJORITY_CTX, len(AB))),
            "blocks": [attention_block(zero, zero, v, c_proj_w, AB.vector({}))],
        },
        majority.labels,
    )


# ---- one block: attention that finds one position ----------------------------------------------


@task(alphabet="abc", n_ctx=N_CTX, labels=Labels("abc", ABC))
def abc(context):
    """Continue (abc)*: after a comes b, after b comes c, after c comes a. Every piece of
    abcabc... of 1 to 5 letters is graded. The next letter depends on the current one alone, yet
    the embedding by itself cannot turn a into b, b into c and c into a: with logits x @ wte.T,
    a's row would have to score b's above its own, b's c's, and c's a's, which no three rows can
    do. It takes a block."""
    return in_pattern(context, "abc")


@abc.reference
def abc_model():
    """(abc)*: the next letter follows from the last one alone, so attention reads the last token.

    No positions needed: a query looks for tokens like its own, and every token it finds is its
    own letter, so the average is that letter. c_proj then writes the letter after it.
    """
    letters = token_names("abc")
    q = ABC.matrix({(t, t): LG for t in letters})  # a looks for a, b for b, c for c
    k = ABC.matrix({(t, t): 1 for t in letters})  # every token offers what it is
    v = ABC.matrix({(t, t): 1 for t in letters})  # and passes it on
    c_proj_w = ABC.matrix({(T(c), T(after(c))): LG for c in "abc"})  # a -> b -> c -> a
    return Weights(
        {
            "wte": ABC.one_hot_rows(letters),
            "wpe": np.zeros((N_CTX, len(ABC))),
            "blocks": [attention_block(q, k, v, c_proj_w, ABC.vector({}))],
        },
        abc.labels,
    )


@task(alphabet="abc", n_ctx=SHORT, labels=Labels("abc", FIRST_ABC))
def first(context):
    """Say the first letter of the text again, however long the text. Every position has to
    find position 0 and copy its token."""
    return context[0]


@first.reference
def first_model():
    """Every query looks for the position marked first (through q's bias) and copies its token."""
    letters = token_names("abc")
    k = FIRST_ABC.matrix({("first", "first"): 1})  # only position 0 offers "first"
    v = FIRST_ABC.matrix({(t, t): 1 for t in letters})
    c_proj_w = FIRST_ABC.matrix({(t, t): LG for t in letters})
    model = Weights(
        {
            "wte": FIRST_ABC.one_hot_rows(letters),
            "wpe": first_marked(SHORT, FIRST_ABC),
            "blocks": [attention_block(FIRST_ABC.matrix({}), k, v, c_proj_w, FIRST_ABC.vector({}))],
        },
        first.labels,
    )
    return with_part(model, "q.b", FIRST_ABC.vector({"first": LG}))  # the same query everywhere


POSITIONS_ABC = Basis({"position": positions(SHORT), "token": token_names("abc")})  # P0..P3 | Ta Tb Tc


@task(alphabet="abc", n_ctx=SHORT, labels=Labels("abc", POSITIONS_ABC))
def two_back(context):
    """Say the letter before the last one: after xy comes x. A text of one letter is not graded.
    Each position has to find the position just before it."""
    return context[-2] if len(context) >= 2 else None


@two_back.reference
def two_back_model():
    """Position i looks for position i - 1 and copies its token: the token two back from the next."""
    places, letters = positions(SHORT), token_names("abc")
    q = POSITIONS_ABC.matrix({(p, places[i - 1]): LG for i, p in enumerate(places) if i > 0})
    k = POSITIONS_ABC.matrix({(p, p): 1 for p in places})
    v = POSITIONS_ABC.matrix({(t, t): 1 for t in letters})
    c_proj_w = POSITIONS_ABC.matrix({(t, t): LG for t in letters})
    return Weights(
        {
            "wte": POSITIONS_ABC.one_hot_rows(letters),
            "wpe": POSITIONS_ABC.one_hot_rows(places),
            "blocks": [attention_block(q, k, v, c_proj_w, POSITIONS_ABC.vector({}))],
        },
        two_back.labels,
    )


# ---- the blog's task and its neighbour: the last two letters -----------------------------------


@task(alphabet="ab", n_ctx=N_CTX, labels=BLOG_LABELS, extra_examples=tuple(prefix_examples()))
def aab(context):
    """The blog's task: continue (aab)*. Graded on the blog's accuracy test (every prefix of aab
    repeated 10 times, 27 of them) and on every piece of aabaab... of 1 to 5 letters that has
    exactly one possible next letter. The next letter depends on the last two."""
    return in_pattern(context, "aab")


aab.reference(blog_model)  # the blog's own model


@task(alphabet="ab", n_ctx=N_CTX, labels=BLOG_LABELS)
def abb(context):
    """Continue (abb)*: every piece of abbabb... of 1 to 5 letters that has exactly one possible
    next letter. Like the blog's task, it depends on the last two letters, but a different pair
    is followed by a."""
    return in_pattern(context, "abb")


@abb.reference
def abb_model():
    """The blog's attention, a new c_proj: s (the average of the last two values) is 1, 0 or -1,
    and (abb)* says a only after bb (s = -1). So b gets LG * (s + 1/2): positive unless s = -1."""
    return with_parts(
        blog_model(),
        {"c_proj.w": BLOG_BASIS.matrix({("V", "Tb"): LG}), "c_proj.b": BLOG_BASIS.vector({"Tb": LG / 2})},
    )


# ---- an MLP, two heads, two blocks -----------------------------------------------------------------

XOR_BASIS = Basis({"position": positions(N_CTX), "token": token_names("01"), "scratch": ["V"]})
XOR_HIDDEN = Basis({"detectors": ["s>0", "s<0"]})  # fire when the average s is positive, negative


@task(alphabet="01", n_ctx=N_CTX, mlp=True, labels=Labels("01", XOR_BASIS, hidden=(XOR_HIDDEN,)))
def xor(context):
    """Say 1 if the last two bits differ, 0 if they are the same (their XOR). Attention can
    average the last two bits, as in the blog, but the answer is not a linear function of that
    average (1 in the middle, 0 at both ends): that takes the MLP's non-linearity. (Softmax is
    not linear either: once you have passed, try one head and no MLP.)"""
    return str(int(context[-1] != context[-2])) if len(context) >= 2 else None  # 1 when the last two bits differ


@xor.reference
def xor_model():
    """The blog's attention averages the last two bits (0 is +1, 1 is -1) into s: 1, 0 or -1.
    XOR is 1 exactly when s = 0, which no straight line through s can say: the MLP computes |s|."""
    places, bits = positions(N_CTX), token_names("01")
    q = XOR_BASIS.matrix({(p, places[j]): LG for i, p in enumerate(places) for j in (i - 1, i) if j >= 0})
    k = XOR_BASIS.matrix({(p, p): 1 for p in places})
    v = XOR_BASIS.matrix({("T0", "V"): 1, ("T1", "V"): -1})
    c_proj_w = XOR_BASIS.matrix({("V", "V"): 1})  # keep s in the residual stream, for the MLP
    mlp = {
        # gelu(LG * s) + gelu(-LG * s) is LG * |s|: LG when the bits agree, 0 when they differ
        "c_fc": {"w": XOR_BASIS.matrix({("V", "s>0"): LG, ("V", "s<0"): -LG}, cols=XOR_HIDDEN), "b": np.zeros(2)},
        # 0 gets LG * |s|, 1 a constant LG / 2 in between
        "c_proj": {
            "w": XOR_HIDDEN.matrix({("s>0", "T0"): 1, ("s<0", "T0"): 1}, cols=XOR_BASIS),
            "b": XOR_BASIS.vector({"T1": LG / 2}),
        },
    }
    return Weights(
        {
            "wte": XOR_BASIS.one_hot_rows(bits),
            "wpe": XOR_BASIS.one_hot_rows(places),
            "blocks": [attention_block(q, k, v, c_proj_w, XOR_BASIS.vector({}), mlp=mlp)],
        },
        xor.labels,
    )


TWO_HEADS = Basis(
    {
        "head 0": ["h0·first", "h0·a", "h0·b", "h0·c"],  # looks for the first position, reads its token
        "head 1": ["h1·-", "h1·a", "h1·b", "h1·c"],  # looks for its own token, reads it
    }
)


@task(alphabet="abc", n_ctx=SHORT, n_head=2, labels=Labels("abc", FIRST_ABC, attention=(TWO_HEADS,)))
def first_not_last(context):
    """Say the first letter of the text again, but never the letter just read: when the last
    letter is the first letter, say the letter after it (a to b, b to c, c to a). One head mixes
    whatever it reads into one average; this task wants two separate looks, one at the first
    letter and one at the last: give each its own head."""
    return after(context[0]) if context[0] == context[-1] else context[0]


@first_not_last.reference
def first_not_last_model():
    """Two heads, two places to look. Head 0 finds the first position (by q's bias) and reads its
    letter x; head 1 finds tokens like the last one and reads the last letter y. c_proj gives x
    2 LG and the letter after x LG, and takes 2 LG from y: x wins unless x = y, then the letter after."""
    # head 0's keys: only position 0 offers "first"; head 1's keys: every token offers its letter
    k = FIRST_ABC.matrix({("first", "h0·first"): 1, **{(T(c), f"h1·{c}"): 1 for c in "abc"}}, cols=TWO_HEADS)
    q = FIRST_ABC.matrix({(T(c), f"h1·{c}"): LG for c in "abc"}, cols=TWO_HEADS)  # head 1 looks for my letter
    v = FIRST_ABC.matrix({(T(c), f"{head}·{c}"): 1 for c in "abc" for head in ("h0", "h1")}, cols=TWO_HEADS)
    c_proj = {}
    for c in "abc":
        c_proj[(f"h0·{c}", T(c))] = 2 * LG  # the first letter
        c_proj[(f"h0·{c}", T(after(c)))] = LG  # the letter after it, as a runner-up
        c_proj[(f"h1·{c}", T(c))] = -2 * LG  # never the last letter
    model = Weights(
        {
            "wte": FIRST_ABC.one_hot_rows(token_names("abc")),
            "wpe": first_marked(SHORT, FIRST_ABC),
            "blocks": [
                attention_block(q, k, v, TWO_HEADS.matrix(c_proj, cols=FIRST_ABC), FIRST_ABC.vector({}), n_head=2)
            ],
        },
        first_not_last.labels,
    )
    return with_part(model, "q.b", TWO_HEADS.vector({"h0·first": LG}))  # head 0: position 0, from everywhere


INDUCTION_BASIS = Basis(
    {
        "position": positions(INDUCTION_CTX),
        "token": token_names("abc"),
        "previous token": ["prev a", "prev b", "prev c"],  # block 0 writes the token before here
    }
)


@task(alphabet="abc", n_ctx=INDUCTION_CTX, n_layer=2, labels=Labels("abc", INDUCTION_BASIS))
def induction(context):
    """Induction: after x y ... x, say y. The last letter appeared earlier; say the letter that
    came right after it there. Graded when the last letter appeared before and was followed by
    the same letter every time. One block cannot do it: a position must first learn which token
    came before it (block 0), so that the last token can look for it (block 1)."""
    # what followed the last token where it appeared before; None when it is new or its followers disagree
    last = context[-1]
    followers = {context[j + 1] for j in range(len(context) - 1) if context[j] == last}
    return followers.pop() if len(followers) == 1 else None


@induction.reference
def induction_model():
    """Two blocks. Block 0: each position copies the token before it into "prev". Block 1: the
    last token looks for positions whose "prev" is itself, that is for what came right after its
    earlier appearances, and copies their token. Position 0 has no token before it: every query
    of block 1 avoids it."""
    places, letters = positions(INDUCTION_CTX), token_names("abc")
    previous = {T(c): f"prev {c}" for c in "abc"}
    basis = INDUCTION_BASIS
    # block 0: position i looks for position i - 1 and writes its token into "prev"
    q0 = basis.matrix({(p, places[i - 1]): LG for i, p in enumerate(places) if i > 0})
    k0 = basis.matrix({(p, p): 1 for p in places})
    v0 = basis.matrix({(t, previous[t]): 1 for t in letters})
    c_proj0 = basis.matrix({(name, name): 1 for name in previous.values()})
    # block 1: my token looks for "prev" = my token, reads the token there and writes it large
    q1 = basis.matrix({(t, previous[t]): LG for t in letters})
    k1 = basis.matrix({**{(name, name): 1 for name in previous.values()}, ("P0", "P0"): 1})
    v1 = basis.matrix({(t, t): 1 for t in letters})
    c_proj1 = basis.matrix({(t, t): LG for t in letters})
    model = Weights(
        {
            "wte": basis.one_hot_rows(letters),
            "wpe": basis.one_hot_rows(places),
            "blocks": [
                attention_block(q0, k0, v0, c_proj0, basis.vector({})),
                attention_block(q1, k1, v1, c_proj1, basis.vector({})),
            ],
        },
        induction.labels,
    )
    return with_part(model, "blocks[1].q.b", basis.vector({"P0": -LG}))  # nobody matches position 0


BUILTIN = (alternate, repeat, seen_b, majority, abc, first, two_back, aab, abb, xor, first_not_last, induction)
"""The built-in tasks, easiest first."""
TASKS.update({t.name: t for t in BUILTIN})
