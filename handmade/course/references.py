"""The reference solutions of the built-in tasks: the answers, each built from rules over the
task's named directions, and attached to its task with ``@task.reference``.

They live apart from the tasks (``builtin_tasks``) so that a teacher can give learners the package
without them (README, "For teachers"): a wheel built with ``HANDMADE_NO_REFERENCES=1`` leaves this
module out, and with that setting at run time it is not loaded (``solutions.reference`` then says the
answers are not installed). The grader, the blanks and the explanations of a learner's own model
need nothing from here; the grader only compares a failing model with a reference when it has one.
"""

import numpy as np

from ..blog import BASIS as BLOG_BASIS
from ..blog import LG, N_CTX, blog_model
from ..parts import with_part, with_parts
from ..weights import Weights
from .builtin_tasks import (
    AB,
    ABC,
    AFTER_C_BASIS,
    FIRST_ABC,
    INDUCTION_BASIS,
    INDUCTION_CTX,
    MAJORITY_CTX,
    POSITIONS_ABC,
    SHORT,
    TWO_HEADS,
    XOR_BASIS,
    XOR_HIDDEN,
    aab,
    abb,
    abc,
    abc_model,
    after,
    after_last_c,
    alternate,
    attention_block,
    first,
    first_marked,
    first_not_last,
    induction,
    majority,
    positions,
    repeat,
    seen_b,
    token_direction,
    token_names,
    two_back,
    xor,
)

aab.reference(blog_model)  # the blog's own model
abc.reference(abc_model)  # notebook 14's design, built there in the open


def one_hot_model(basis, letters, places, blocks, labels):
    """A model whose letters and positions each write a direction of their own (one-hot wte and wpe
    rows), then ``blocks``."""
    return Weights({"wte": basis.one_hot_rows(letters), "wpe": basis.one_hot_rows(places), "blocks": blocks}, labels)


@alternate.reference
def alternate_model():
    """No block at all: the position embedding writes the answer straight into the token directions."""
    return Weights(
        {
            "wte": AB.one_hot_rows(["Ta", "Tb"]),  # [n_vocab, n_embd]: a -> Ta, b -> Tb
            # at position p the text has p + 1 letters: write LG on the letter the rule wants next
            "wpe": np.array([AB.vector({token_direction(alternate("x" * (p + 1))): LG}) for p in range(N_CTX)]),
            "blocks": [],
        },
        alternate.labels,
    )


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


@two_back.reference
def two_back_model():
    """Position i looks for position i - 1 and copies its token: the token two back from the next."""
    places, letters = positions(SHORT), token_names("abc")
    q = POSITIONS_ABC.matrix({(p, places[i - 1]): LG for i, p in enumerate(places) if i > 0})
    k = POSITIONS_ABC.matrix({(p, p): 1 for p in places})
    v = POSITIONS_ABC.matrix({(t, t): 1 for t in letters})
    c_proj_w = POSITIONS_ABC.matrix({(t, t): LG for t in letters})
    return one_hot_model(
        POSITIONS_ABC, letters, places, [attention_block(q, k, v, c_proj_w, POSITIONS_ABC.vector({}))], two_back.labels
    )


@abb.reference
def abb_model():
    """The blog's attention, a new c_proj: s (the average of the last two values) is 1, 0 or -1,
    and (abb)* says a only after bb (s = -1). So b gets LG * (s + 1/2): positive unless s = -1."""
    return with_parts(
        blog_model(),
        {"c_proj.w": BLOG_BASIS.matrix({("V", "Tb"): LG}), "c_proj.b": BLOG_BASIS.vector({"Tb": LG / 2})},
    )


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
    return one_hot_model(
        XOR_BASIS, bits, places, [attention_block(q, k, v, c_proj_w, XOR_BASIS.vector({}), mlp=mlp)], xor.labels
    )


@first_not_last.reference
def first_not_last_model():
    """Two heads, two places to look. Head 0 finds the first position (by q's bias) and reads its
    letter x; head 1 finds tokens like the last one and reads the last letter y. c_proj gives x
    2 LG and the letter after x LG, and takes 2 LG from y: x wins unless x = y, then the letter after."""
    # head 0's keys: only position 0 offers "first"; head 1's keys: every token offers its letter
    k = FIRST_ABC.matrix(
        {("first", "h0·first"): 1, **{(token_direction(c), f"h1·{c}"): 1 for c in "abc"}}, cols=TWO_HEADS
    )
    q = FIRST_ABC.matrix(
        {(token_direction(c), f"h1·{c}"): LG for c in "abc"}, cols=TWO_HEADS
    )  # head 1 looks for my letter
    v = FIRST_ABC.matrix(
        {(token_direction(c), f"{head}·{c}"): 1 for c in "abc" for head in ("h0", "h1")}, cols=TWO_HEADS
    )
    c_proj = {}
    for c in "abc":
        c_proj[(f"h0·{c}", token_direction(c))] = 2 * LG  # the first letter
        c_proj[(f"h0·{c}", token_direction(after(c)))] = LG  # the letter after it, as a runner-up
        c_proj[(f"h1·{c}", token_direction(c))] = -2 * LG  # never the last letter
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


@induction.reference
def induction_model():
    """Two blocks. Block 0: each position copies the token before it into "prev". Block 1: the
    last token looks for positions whose "prev" is itself, that is for what came right after its
    earlier appearances, and copies their token. Position 0 has no token before it: every query
    of block 1 avoids it."""
    places, letters = positions(INDUCTION_CTX), token_names("abc")
    previous = {token_direction(c): f"prev {c}" for c in "abc"}
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
    model = one_hot_model(
        basis,
        letters,
        places,
        [
            attention_block(q0, k0, v0, c_proj0, basis.vector({})),
            attention_block(q1, k1, v1, c_proj1, basis.vector({})),
        ],
        induction.labels,
    )
    return with_part(model, "blocks[1].q.b", basis.vector({"P0": -LG}))  # nobody matches position 0


@after_last_c.reference
def after_last_c_model():
    """Two blocks. Block 0: each position looks one back and, when it finds a c there, writes the
    flag "prev c". Block 1: every position looks for the flag through its query's bias, and for
    later positions a little more (a ramp over positions in the keys, Lg / 16 a step: the latest
    flag wins through softmax, and no unflagged key ever outscores a flag), never at position 0,
    which flags itself when it is a c; it copies the letter it finds, large."""
    places, letters = positions(INDUCTION_CTX), token_names("abc")
    basis = AFTER_C_BASIS
    # block 0: position i looks for position i - 1; a c there writes "prev c" here
    q0 = basis.matrix({(p, places[i - 1]): LG for i, p in enumerate(places) if i > 0})
    k0 = basis.matrix({(p, p): 1 for p in places})
    v0 = basis.matrix({("Tc", "prev c"): 1})
    c_proj0 = basis.matrix({("prev c", "prev c"): 1})
    # block 1: everyone looks for the flag, the latest most; reads the letter there, writes it large
    k1 = basis.matrix({("prev c", "prev c"): 1, ("P0", "P0"): 1, **{(p, p): i for i, p in enumerate(places) if i > 0}})
    q1_bias = basis.vector({"prev c": LG, "P0": -LG, **{p: LG / 16 for p in places[1:]}})
    v1 = basis.matrix({(t, t): 1 for t in letters})
    c_proj1 = basis.matrix({(t, t): LG for t in letters})
    model = one_hot_model(
        basis,
        letters,
        places,
        [
            attention_block(q0, k0, v0, c_proj0, basis.vector({})),
            attention_block(basis.matrix({}), k1, v1, c_proj1, basis.vector({})),
        ],
        after_last_c.labels,
    )
    return with_part(model, "blocks[1].q.b", q1_bias)
