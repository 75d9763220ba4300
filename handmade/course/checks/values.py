"""The checker of notebook 06_values (values): ``check_values``, and the mistakes it knows by name."""

from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...blog import BASIS, blog_model
from ...display.trace import trace
from ...i18n import _
from ...inference import accuracy, next_in_pattern
from ...names import T
from ...parts import with_qkv
from ...weights import NonFiniteError
from ..verdict import Mistake, apart, checker, diagnose, ok, one_number, right, typed

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
        one_number(v_a, _("the value of {name}").format(name="a")),
        one_number(v_b, _("the value of {name}").format(name="b")),
    )
    if found.overflow is None and found.score.perfect:
        return ok(_values_right(found))
    return diagnose(found, VALUE_MISTAKES, _values_otherwise)
