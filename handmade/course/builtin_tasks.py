"""The built-in tasks, easiest first, each in one place: its rule, whose docstring is its statement;
its alphabet, context length and shape in ``@task``; and the named directions a solution is built
from. The statements are in the message catalogue (tools/messages.py extracts the docstrings of
``@task`` rules), so a learner reads them in their own language.

Their reference solutions, the answers, are in ``references``, apart, so that learners can be
given the package without them (README, "For teachers"). The one design here is notebook 14's for
``abc``, which that notebook builds in the open and its checker builds on; the blog's model, the
reference of ``aab``, is ``blog_model()``. A block is attention (q, k, v and c_proj), optionally
followed by an MLP; ``attention_block`` puts the pieces where gpt() wants them.
"""

import numpy as np

from ..basis import Basis, Labels, qkv_weights
from ..blog import LABELS as BLOG_LABELS
from ..blog import LG, N_CTX
from ..inference import next_in_pattern, prefix_examples
from ..weights import Weights
from .task_options import positions, token_direction, token_names
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


@task(alphabet="abc", n_ctx=SHORT, n_layer=0, labels=Labels("abc", ABC))
def repeat(context):
    """Say the last letter again. Only the current token matters, and there is no block: the
    logits are x @ wte.T, so think about what a row of wte scores against itself, and remember
    that a pass needs a margin above 1."""
    return context[-1]


# ---- one block: attention as an average ----------------------------------------------------------


@task(alphabet="ab", n_ctx=N_CTX, labels=Labels("ab", AB))
def seen_b(context):
    """Say b once a b has appeared anywhere in the text, a until then. The answer depends on all
    the tokens so far, not on their order: an average over all earlier tokens, which is what
    attention does when every score is the same."""
    return "b" if "b" in context else "a"


@task(alphabet="ab", n_ctx=MAJORITY_CTX, labels=Labels("ab", AB))
def majority(context):
    """Say the letter that is in the majority so far: a if the text has more a's than b's, b if
    more b's. Texts with as many a's as b's are not graded. Another average over all earlier
    tokens."""
    a, b = context.count("a"), context.count("b")
    return None if a == b else "a" if a > b else "b"  # a tie has no answer: not graded


# ---- one block: attention that finds one position ----------------------------------------------


@task(alphabet="abc", n_ctx=N_CTX, labels=Labels("abc", ABC))
def abc(context):
    """Continue (abc)*: after a comes b, after b comes c, after c comes a. Every piece of
    abcabc... of 1 to 5 letters is graded. The next letter depends on the current one alone, yet
    the embedding by itself cannot turn a into b, b into c and c into a: with logits x @ wte.T,
    a's row would have to score b's above its own, b's c's, and c's a's, which no three rows can
    do. It takes a block."""
    return in_pattern(context, "abc")


def abc_model():
    """Notebook 14's design for (abc)*, built there step by step in the open (and the task's
    reference solution): the next letter follows from the last one alone, so attention reads the
    last token.

    No positions needed: a query looks for tokens like its own, and every token it finds is its
    own letter, so the average is that letter. c_proj then writes the letter after it.
    """
    letters = token_names("abc")
    q = ABC.matrix({(t, t): LG for t in letters})  # a looks for a, b for b, c for c
    k = ABC.matrix({(t, t): 1 for t in letters})  # every token offers what it is
    v = ABC.matrix({(t, t): 1 for t in letters})  # and passes it on
    c_proj_w = ABC.matrix({(token_direction(c), token_direction(after(c))): LG for c in "abc"})  # a -> b -> c -> a
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


POSITIONS_ABC = Basis({"position": positions(SHORT), "token": token_names("abc")})  # P0..P3 | Ta Tb Tc


@task(alphabet="abc", n_ctx=SHORT, labels=Labels("abc", POSITIONS_ABC))
def two_back(context):
    """Say the letter before the last one: after xy comes x. A text of one letter is not graded.
    Each position has to find the position just before it."""
    return context[-2] if len(context) >= 2 else None


# ---- the blog's task and its neighbour: the last two letters -----------------------------------


@task(alphabet="ab", n_ctx=N_CTX, labels=BLOG_LABELS, extra_examples=tuple(prefix_examples()))
def aab(context):
    """The blog's task: continue (aab)*. Graded on the blog's accuracy test (every prefix of aab
    repeated 10 times, 27 of them) and on every piece of aabaab... of 1 to 5 letters that has
    exactly one possible next letter. The next letter depends on the last two."""
    return in_pattern(context, "aab")


@task(alphabet="ab", n_ctx=N_CTX, labels=BLOG_LABELS)
def abb(context):
    """Continue (abb)*: every piece of abbabb... of 1 to 5 letters that has exactly one possible
    next letter. Like the blog's task, it depends on the last two letters, but a different pair
    is followed by a."""
    return in_pattern(context, "abb")


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


AFTER_C_BASIS = Basis(
    {
        "position": positions(INDUCTION_CTX),
        "token": token_names("abc"),
        "flag": ["prev c"],  # block 0 marks the positions that follow a c
    }
)


@task(alphabet="abc", n_ctx=INDUCTION_CTX, n_layer=2, labels=Labels("abc", AFTER_C_BASIS))
def after_last_c(context):
    """Say the letter that came right after the last c before the end of the text (graded when there
    is one). One block cannot find it: block 0 must first mark the positions that follow a c. Then
    every position looks for the marks, and when there are several, the latest one must win
    (notebook 16, step 4)."""
    # the letter after the last c among all but the final letter; None when there is none
    before_end = context[:-1]
    return context[before_end.rindex("c") + 1] if "c" in before_end else None


BUILTIN = (
    *(alternate, repeat, seen_b, majority, abc, first, two_back, aab, abb, xor),
    *(first_not_last, induction, after_last_c),
)
"""The built-in tasks, easiest first."""
TASKS.update({t.name: t for t in BUILTIN})
