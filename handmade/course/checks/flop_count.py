"""The checker of notebook 13_efficiency (efficiency): ``check_flop_count``, and the mistakes it knows
by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...arguments import is_whole
from ...blog import N_CTX, N_EMBD, N_VOCAB, blog_model
from ...i18n import _, listed
from ...model import recording
from ...names import T
from ...weights import forward
from ..efficiency import blog_flops, count_flops
from ..verdict import Mistake, Unreadable, checker, diagnose, ok, one_number, typed, whole_number

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


def _missing_terms(f):  # the terms of the formula table the learner's count lacks, if it lacks exactly one
    return [part for part, flops in f.terms.items() if f.want - f.answer == flops]


def _missing_hint(f):  # where two terms are the same size, either may be the one left out: both are named
    parts = _missing_terms(f)
    if len(parts) == 1:
        return _("{diff} short: exactly the term {part} of the table; did you leave it out?").format(
            diff=f.want - f.answer, part=repr(parts[0])
        )
    return _("{diff} short: exactly the size of each of the terms {parts} of the table; did you leave one out?").format(
        diff=f.want - f.answer, parts=listed(map(repr, parts))
    )


FLOP_MISTAKES = (
    Mistake(
        lambda f: f.answer == f.want + f.dots,
        lambda f: _("a dot product of k terms needs k multiplications but only k - 1 additions"),
    ),
    Mistake(lambda f: _other_length(f) is not None, _other_length_hint),
    Mistake(lambda f: bool(_missing_terms(f)), _missing_hint),
)


def _flops_off(f):
    biggest = max(f.terms, key=f.terms.get)
    return _("off by {diff}; the largest part is {part}: {flops} operations").format(
        diff=f"{f.answer - f.want:+d}", part=biggest, flops=f.terms[biggest]
    )


@checker
def check_flop_count(n_seq, answer):
    """The operations of one forward pass of the blog model over ``n_seq`` tokens."""
    n = whole_number(n_seq, _("the context length"), 1, N_CTX)
    count = one_number(answer, _("your count"))
    if not is_whole(count, floats=True):
        raise Unreadable(_("a count of operations is a whole number; yours is {found}").format(found=typed(count)))
    counts = {m: count_flops("a" * m).total for m in range(1, N_CTX + 1)}
    found = Found(n=n, answer=int(count), want=counts[n], counts=counts, dots=dot_products(n))
    found.terms = blog_flops(n, N_EMBD, N_VOCAB)
    if found.answer == found.want:
        return ok(_("{want} operations for {n} tokens").format(want=found.want, n=n))
    return diagnose(found, FLOP_MISTAKES, _flops_off)
