"""Tasks to design a transformer for: an alphabet, a context length, a rule, and nothing else.

The series teaches a learner to read the blog's model; a task asks them to make one. Each task
says which token must follow a context (or that the context is not graded: ambiguous, like the
blog's first position, or outside the task's domain), in a one-paragraph statement, and names
the directions a solution can be built from (``task.labels``: the blank model is readable from
the start). It also gives the shape a solution needs (width, blocks, heads, MLP): the shape the
task is designed for and its reference solution has, built from rules over those named
directions as ``blog_model()`` is. The grader grades what a model says, not its shape: a
cleverer design of another shape passes too (the xor statement dares the learner to find one).
The reference is there to be compared with, in the grader's diagnosis and
behind a collapsed answer in the notebooks, never printed unasked.

Every task is small enough to grade exhaustively: all strings over its alphabet of 1 to
``n_ctx`` characters whose rule gives an answer (``examples(task)``), so no sampling and no seed.

    task = TASKS["abc"]          # or get_task("abc")
    params = blank(task)         # all-zero weights of the task's shape, with its labels
    grader.grade(task, params)   # fails, and says where
"""

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..basis import Basis, Labels, qkv_weights
from ..blog import BASIS as BLOG_BASIS
from ..blog import LABELS as BLOG_LABELS
from ..blog import LG, N_CTX, blog_model
from ..i18n import N_, _, ngettext
from ..inference import Example, next_in_pattern, prefix_examples
from ..parts import with_part, with_parts
from ..tokenizer import tokenize
from ..weights import Weights

MAX_GRADED = 2000  # contexts one task may grade: enough to enumerate them all, few enough to grade fast
MAJORITY_CTX = 7  # an odd length, so that the longest texts never tie
INDUCTION_CTX = 6  # room for x y, something else, then x again
SHORT = 4  # n_ctx of the three-letter copying tasks: 81 texts of 4 letters hold all 120 graded contexts


@dataclass(frozen=True)
class Task:
    """One task: what must follow each context, and the model shape it is designed for."""

    name: str  # what the command line, the notebooks and the grader call it
    alphabet: str  # token i is alphabet[i]; a solution has exactly len(alphabet) rows in wte
    n_ctx: int  # the longest context graded; a solution needs at least this many rows in wpe
    next_token: Callable  # the rule: context -> the character that must follow, or None (not graded)
    statement: str  # one paragraph for the learner, marked with N_ (``describe()`` translates it)
    labels: Labels  # the named directions of the blank model and of the reference solution
    build: Callable = field(repr=False)  # () -> the reference solution, a Weights with ``labels``
    n_layer: int = 1  # blocks the design needs (0: the embedding alone reaches the logits)
    n_head: int = 1  # heads in each block
    mlp: bool = False  # whether the design has an MLP (its hidden units are named in labels.hidden)
    extra_examples: tuple = ()  # graded too, before the enumerated contexts (aab: the blog's 27)

    def __post_init__(self):  # the task's own parts must agree; these messages are for task authors
        problems = [
            (self.labels.alphabet != self.alphabet, _("its labels' alphabet is not its alphabet")),
            (len(self.labels.attention) > self.n_layer, _("its labels name attention for blocks it does not have")),
            (
                self.mlp != any(b is not None for b in self.labels.hidden),
                _("mlp must be True exactly when labels.hidden names the MLP's hidden units"),
            ),
        ]
        for wrong, problem in problems:
            if wrong:
                raise ValueError(_("task {name}: {problem}").format(name=self.name, problem=problem))

    @property
    def n_vocab(self):
        return len(self.alphabet)

    @property
    def n_embd(self):  # the width of the residual stream: one direction per label
        return len(self.labels.residual)

    def shape(self):
        """The shape the task is designed for, as a sentence: width, blocks, heads, MLP."""
        blocks = ngettext("{n} block", "{n} blocks", self.n_layer).format(n=self.n_layer)
        heads = ngettext("{n} head", "{n} heads", self.n_head).format(n=self.n_head)
        mlp = _("an MLP") if self.mlp else _("no MLP")
        if self.n_layer == 0:
            return _("n_embd = {width}, no blocks: the embedding goes straight to the logits").format(width=self.n_embd)
        return _("n_embd = {width}, {blocks}, {heads} each, {mlp}").format(
            width=self.n_embd, blocks=blocks, heads=heads, mlp=mlp
        )

    def describe(self):
        """A few lines for a list of tasks: the statement, the alphabet, what is graded, the shape."""
        graded = len(examples(self))
        return "\n".join(
            [
                _("{name}: {statement}").format(name=self.name, statement=_(self.statement)),
                _("  alphabet {alphabet}, contexts of 1 to {n_ctx} tokens, {graded} graded").format(
                    alphabet=repr(self.alphabet), n_ctx=self.n_ctx, graded=graded
                ),
                _("  designed for: {shape}").format(shape=self.shape()),
            ]
        )


# ---- the contexts a task grades -----------------------------------------------------------


@functools.cache
def examples(task):
    """Every graded (context, next token): the task's extra examples, then every string over its
    alphabet of 1 to n_ctx characters for which the rule gives an answer, shortest first."""
    enumerated = []
    for length in range(1, task.n_ctx + 1):
        for letters in itertools.product(task.alphabet, repeat=length):
            context = "".join(letters)
            expected = task.next_token(context)
            if expected is not None:
                enumerated.append(Example(context, expected))
    found = (*task.extra_examples, *enumerated)
    if len(found) > MAX_GRADED:
        raise ValueError(
            _("task {name} grades {n} contexts; at most {limit} keep grading fast").format(
                name=task.name, n=len(found), limit=MAX_GRADED
            )
        )
    return found


@functools.cache
def graded_tokens(task):
    """``examples(task)`` as (token ids of the context, id of the expected token), tokenized once."""
    return tuple((tuple(tokenize(e.context, task.alphabet)), task.alphabet.index(e.expected)) for e in examples(task))


# ---- rules ----------------------------------------------------------------------------------


def in_pattern(context, pattern):
    """The token after ``context`` in ``pattern`` repeated forever, if exactly one can follow."""
    following = next_in_pattern(context, pattern)
    return next(iter(following)) if len(following) == 1 else None


def alternate_rule(context):  # a after an even number of letters, b after an odd one
    return "ab"[len(context) % 2]


def repeat_rule(context):
    return context[-1]


def seen_b_rule(context):
    return "b" if "b" in context else "a"


def majority_rule(context):  # a tie has no answer: not graded
    a, b = context.count("a"), context.count("b")
    return None if a == b else "a" if a > b else "b"


def first_rule(context):
    return context[0]


def two_back_rule(context):
    return context[-2] if len(context) >= 2 else None


def xor_rule(context):  # 1 when the last two bits differ
    return str(int(context[-1] != context[-2])) if len(context) >= 2 else None


def after(letter, alphabet="abc"):  # a -> b -> c -> a
    return alphabet[(alphabet.index(letter) + 1) % len(alphabet)]


def first_not_last_rule(context):
    return after(context[0]) if context[0] == context[-1] else context[0]


def induction_rule(context):
    """What followed the last token where it appeared before, if every earlier appearance was
    followed by the same token; None when the last token is new or its followers disagree."""
    last = context[-1]
    followers = {context[j + 1] for j in range(len(context) - 1) if context[j] == last}
    return followers.pop() if len(followers) == 1 else None


# ---- the named directions -------------------------------------------------------------------


def positions(n):
    return [f"P{i}" for i in range(n)]


def T(letter):  # the direction that says "the token is <letter>"
    return f"T{letter}"


def token_names(alphabet):
    return [T(c) for c in alphabet]


def first_marked(n_ctx, basis):  # wpe: position 0 carries the direction "first", the others nothing
    return np.array([basis.vector({"first": 1} if p == 0 else {}) for p in range(n_ctx)])


AB = Basis({"token": token_names("ab")})  # Ta Tb
ABC = Basis({"token": token_names("abc")})  # Ta Tb Tc
FIRST_ABC = Basis({"position": ["first"], "token": token_names("abc")})  # first | Ta Tb Tc
POSITIONS_ABC = Basis({"position": positions(SHORT), "token": token_names("abc")})  # P0..P3 | Ta Tb Tc
XOR_BASIS = Basis({"position": positions(N_CTX), "token": token_names("01"), "scratch": ["V"]})
XOR_HIDDEN = Basis({"detectors": ["s>0", "s<0"]})  # fire when the average s is positive, negative
TWO_HEADS = Basis(
    {
        "head 0": ["h0·first", "h0·a", "h0·b", "h0·c"],  # looks for the first position, reads its token
        "head 1": ["h1·-", "h1·a", "h1·b", "h1·c"],  # looks for its own token, reads it
    }
)
INDUCTION_BASIS = Basis(
    {
        "position": positions(INDUCTION_CTX),
        "token": token_names("abc"),
        "previous token": ["prev a", "prev b", "prev c"],  # block 0 writes the token before here
    }
)

ALTERNATE_LABELS = Labels("ab", AB)
REPEAT_LABELS = Labels("abc", ABC)
SEEN_B_LABELS = Labels("ab", AB)
MAJORITY_LABELS = Labels("ab", AB)
ABC_LABELS = Labels("abc", ABC)
FIRST_LABELS = Labels("abc", FIRST_ABC)
TWO_BACK_LABELS = Labels("abc", POSITIONS_ABC)
XOR_LABELS = Labels("01", XOR_BASIS, hidden=(XOR_HIDDEN,))
FIRST_NOT_LAST_LABELS = Labels("abc", FIRST_ABC, attention=(TWO_HEADS,))
INDUCTION_LABELS = Labels("abc", INDUCTION_BASIS)


# ---- the reference solutions ----------------------------------------------------------------
# Each builds its matrices from rules over named directions. A block is attention (q, k, v and
# c_proj), optionally followed by an MLP; ``attention_block`` puts the pieces where gpt() wants them.


def attention_block(q, k, v, c_proj_w, c_proj_b, **extra):
    """One block's dict: c_attn from q | k | v, then c_proj; ``extra`` adds n_head or mlp."""
    return {"attn": {"c_attn": qkv_weights(q, k, v), "c_proj": {"w": c_proj_w, "b": c_proj_b}}, **extra}


def alternate_model():
    """No block at all: the position embedding writes the answer straight into the token directions."""
    return Weights(
        {
            "wte": AB.one_hot_rows(["Ta", "Tb"]),  # [n_vocab, n_embd]: a -> Ta, b -> Tb
            # at position p the text has p + 1 letters: write LG on the letter the rule wants next
            "wpe": np.array([AB.vector({T(alternate_rule("x" * (p + 1))): LG}) for p in range(N_CTX)]),
            "blocks": [],
        },
        ALTERNATE_LABELS,
    )


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
        REPEAT_LABELS,
    )


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
        SEEN_B_LABELS,
    )


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
        MAJORITY_LABELS,
    )


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
        ABC_LABELS,
    )


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
        FIRST_LABELS,
    )
    return with_part(model, "q.b", FIRST_ABC.vector({"first": LG}))  # the same query everywhere


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
        TWO_BACK_LABELS,
    )


def abb_model():
    """The blog's attention, a new c_proj: s (the average of the last two values) is 1, 0 or -1,
    and (abb)* says a only after bb (s = -1). So b gets LG * (s + 1/2): positive unless s = -1."""
    return with_parts(
        blog_model(),
        {"c_proj.w": BLOG_BASIS.matrix({("V", "Tb"): LG}), "c_proj.b": BLOG_BASIS.vector({"Tb": LG / 2})},
    )


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
        XOR_LABELS,
    )


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
        FIRST_NOT_LAST_LABELS,
    )
    return with_part(model, "q.b", TWO_HEADS.vector({"h0·first": LG}))  # head 0: position 0, from everywhere


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
        INDUCTION_LABELS,
    )
    return with_part(model, "blocks[1].q.b", basis.vector({"P0": -LG}))  # nobody matches position 0


# ---- the tasks, easiest first ---------------------------------------------------------------

_TASKS = [
    Task(
        "alternate",
        "ab",
        N_CTX,
        alternate_rule,
        N_(
            "Write abab... whatever the text says: after an odd number of letters comes b, after an "
            "even number a. Only the position matters, and the model has no block at all: the "
            "embedding x = wte[token] + wpe[position] goes straight to the logits x @ wte.T."
        ),
        ALTERNATE_LABELS,
        alternate_model,
        n_layer=0,
    ),
    Task(
        "repeat",
        "abc",
        SHORT,
        repeat_rule,
        N_(
            "Say the last letter again. Only the current token matters, and there is no block: the "
            "logits are x @ wte.T, so think about what a row of wte scores against itself, and "
            "remember that a pass needs a margin above 1."
        ),
        REPEAT_LABELS,
        repeat_model,
        n_layer=0,
    ),
    Task(
        "seen_b",
        "ab",
        N_CTX,
        seen_b_rule,
        N_(
            "Say b once a b has appeared anywhere in the text, a until then. The answer depends on "
            "all the tokens so far, not on their order: an average over all earlier tokens, which "
            "is what attention does when every score is the same."
        ),
        SEEN_B_LABELS,
        seen_b_model,
    ),
    Task(
        "majority",
        "ab",
        MAJORITY_CTX,
        majority_rule,
        N_(
            "Say the letter that is in the majority so far: a if the text has more a's than b's, b "
            "if more b's. Texts with as many a's as b's are not graded. Another average over all "
            "earlier tokens."
        ),
        MAJORITY_LABELS,
        majority_model,
    ),
    Task(
        "abc",
        "abc",
        N_CTX,
        functools.partial(in_pattern, pattern="abc"),
        N_(
            "Continue (abc)*: after a comes b, after b comes c, after c comes a. Every piece of "
            "abcabc... of 1 to 5 letters is graded. The next letter depends on the current one "
            "alone, yet the embedding by itself cannot turn a into b, b into c and c into a: with "
            "logits x @ wte.T, a's row would have to score b's above its own, b's c's, and c's a's, "
            "which no three rows can do. It takes a block."
        ),
        ABC_LABELS,
        abc_model,
    ),
    Task(
        "first",
        "abc",
        SHORT,
        first_rule,
        N_(
            "Say the first letter of the text again, however long the text. Every position has to "
            "find position 0 and copy its token."
        ),
        FIRST_LABELS,
        first_model,
    ),
    Task(
        "two_back",
        "abc",
        SHORT,
        two_back_rule,
        N_(
            "Say the letter before the last one: after xy comes x. A text of one letter is not "
            "graded. Each position has to find the position just before it."
        ),
        TWO_BACK_LABELS,
        two_back_model,
    ),
    Task(
        "aab",
        "ab",
        N_CTX,
        functools.partial(in_pattern, pattern="aab"),
        N_(
            "The blog's task: continue (aab)*. Graded on the blog's accuracy test (every prefix of "
            "aab repeated 10 times, 27 of them) and on every piece of aabaab... of 1 to 5 letters "
            "that has exactly one possible next letter. The next letter depends on the last two."
        ),
        BLOG_LABELS,
        blog_model,
        extra_examples=tuple(prefix_examples()),
    ),
    Task(
        "abb",
        "ab",
        N_CTX,
        functools.partial(in_pattern, pattern="abb"),
        N_(
            "Continue (abb)*: every piece of abbabb... of 1 to 5 letters that has exactly one "
            "possible next letter. Like the blog's task, it depends on the last two letters, but "
            "a different pair is followed by a."
        ),
        BLOG_LABELS,
        abb_model,
    ),
    Task(
        "xor",
        "01",
        N_CTX,
        xor_rule,
        N_(
            "Say 1 if the last two bits differ, 0 if they are the same (their XOR). Attention can "
            "average the last two bits, as in the blog, but the answer is not a linear function of "
            "that average (1 in the middle, 0 at both ends): that takes the MLP's non-linearity. "
            "(Softmax is not linear either: once you have passed, try one head and no MLP.)"
        ),
        XOR_LABELS,
        xor_model,
        mlp=True,
    ),
    Task(
        "first_not_last",
        "abc",
        SHORT,
        first_not_last_rule,
        N_(
            "Say the first letter of the text again, but never the letter just read: when the last "
            "letter is the first letter, say the letter after it (a to b, b to c, c to a). One head "
            "mixes whatever it reads into one average; this task wants two separate looks, one at "
            "the first letter and one at the last: give each its own head."
        ),
        FIRST_NOT_LAST_LABELS,
        first_not_last_model,
        n_head=2,
    ),
    Task(
        "induction",
        "abc",
        INDUCTION_CTX,
        induction_rule,
        N_(
            "Induction: after x y ... x, say y. The last letter appeared earlier; say the letter "
            "that came right after it there. Graded when the last letter appeared before and was "
            "followed by the same letter every time. One block cannot do it: a position must first "
            "learn which token came before it (block 0), so that the last token can look for it (block 1)."
        ),
        INDUCTION_LABELS,
        induction_model,
        n_layer=2,
    ),
]

TASKS = {task.name: task for task in _TASKS}
"""Every task by name, easiest first."""


def get_task(task):
    """``task`` itself, or the task of that name; ValueError naming the tasks there are."""
    if isinstance(task, Task):
        return task
    if isinstance(task, str) and task in TASKS:
        return TASKS[task]
    raise ValueError(
        _("there is no task {name}; the tasks are {names}").format(name=repr(task), names=", ".join(TASKS))
    )


# ---- blank models and reference solutions ---------------------------------------------------


def blank(task):
    """All-zero weights of the shape the task is designed for, labelled with its named directions."""
    task = get_task(task)
    labels, n_embd = task.labels, task.n_embd
    blocks = []
    for i in range(task.n_layer):
        named = labels.attention[i] if i < len(labels.attention) else None
        n_attn = n_embd if named is None else len(named)
        zero = np.zeros((n_embd, n_attn))
        block = attention_block(zero, zero, zero, np.zeros((n_attn, n_embd)), np.zeros(n_embd))
        if task.n_head > 1:
            block["n_head"] = task.n_head
        hidden = labels.hidden[i] if i < len(labels.hidden) else None
        if hidden is not None:
            block["mlp"] = {
                "c_fc": {"w": np.zeros((n_embd, len(hidden))), "b": np.zeros(len(hidden))},
                "c_proj": {"w": np.zeros((len(hidden), n_embd)), "b": np.zeros(n_embd)},
            }
        blocks.append(block)
    params = {"wte": np.zeros((task.n_vocab, n_embd)), "wpe": np.zeros((task.n_ctx, n_embd)), "blocks": blocks}
    return Weights(params, labels)


def reference(task):
    """The task's reference solution: the answer. The notebooks keep it behind a collapsed cell."""
    return get_task(task).build()
