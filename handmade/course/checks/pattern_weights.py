"""The checker of notebook 09_playground (the playground): ``check_pattern_weights``, and the mistakes
it knows by name."""

from types import SimpleNamespace as Found

from ...i18n import _
from ...inference import accuracy, prefix_examples
from ...weights import NonFiniteError, WeightsError, check_weights
from ..verdict import Mistake, Unreadable, checker, diagnose, letters, ok, right


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
