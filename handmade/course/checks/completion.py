"""The checker of notebook 08_predict_and_complete (predictions): ``check_completion``, and the
mistakes it knows by name."""

from types import SimpleNamespace as Found

from ...arguments import fmt
from ...blog import N_CTX
from ...display.trace import trace
from ...i18n import _
from ...inference import continuation
from ...names import T
from ..verdict import Mistake, Unreadable, checker, describe, diagnose, letters, ok, whole_number


def _first_difference(f):
    return next(i for i, (a, b) in enumerate(zip(f.answer, f.want)) if a != b)


COMPLETION_MISTAKES = (
    Mistake(
        lambda f: f.answer == f.text + f.want,
        lambda f: _("you wrote the context {text} too: write only the {n} letters the model adds after it").format(
            text=repr(f.text), n=len(f.want)
        ),
    ),
    Mistake(
        lambda f: len(f.answer) != len(f.want),
        lambda f: _("write {n} letters, one per generated token; yours has {found}").format(
            n=len(f.want), found=len(f.answer)
        ),
    ),
    Mistake(
        lambda f: f.answer[_first_difference(f)] not in "ab",
        lambda f: _("letter {k} is {char}; the model only writes a and b").format(
            k=_first_difference(f) + 1, char=repr(f.answer[_first_difference(f)])
        ),
    ),
)


def _completion_token(f):
    k = _first_difference(f)
    context = (f.text + f.want[:k])[-N_CTX:]  # what the model sees when it writes token k
    s = trace(context)[T.attention_output]["V"][-1]  # what gpt() computed
    common = {"k": k + 1, "s": fmt(s), "want": repr(f.want[k]), "got": repr(f.answer[k])}
    if len(context) == 1:
        return _(
            "token {k}: the context is the single token {context}, so attention reads its value, {s}, and c_proj turns that into {want} (you wrote {got})"
        ).format(context=repr(context), **common)
    return _(
        "token {k}: the last two tokens are {context}, so attention averages their values to {s} and c_proj turns that into {want} (you wrote {got})"
    ).format(context=repr(context[-2:]), **common)


@checker
def check_completion(text, answer, max_new_tokens=6):
    """The learner's by-hand continuation of ``text`` (``max_new_tokens`` letters) against the model's."""
    text = letters(text, _("the context"), 1, 100)
    n = whole_number(max_new_tokens, _("the number of letters"), 1, 100)
    if not isinstance(answer, str):
        raise Unreadable(
            _("write your answer as text in quotes, {n} letters a and b; yours is {found}").format(
                n=n, found=describe(answer)
            )
        )
    found = Found(text=text, answer=answer, want=continuation(text, n))
    if answer == found.want:
        return ok(_("{text} :: {want}, exactly what the model writes").format(text=text, want=found.want))
    return diagnose(found, COMPLETION_MISTAKES, _completion_token)
