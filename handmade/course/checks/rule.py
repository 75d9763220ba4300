"""The checker of notebook 02_task_and_tokens (the task): ``check_rule``, and the mistakes it knows by
name."""

import functools
from types import SimpleNamespace as Found

from ...i18n import _
from ...inference import unambiguous_examples
from ..verdict import Mistake, Unreadable, call, checker, describe, diagnose, ok


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
