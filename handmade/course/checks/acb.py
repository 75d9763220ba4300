"""The checker of notebook 14, 14_design_together (design together: (acb)*): ``check_acb``, with the
known mistakes it names."""

import functools
from collections.abc import Mapping
from types import SimpleNamespace as Found

import numpy as np

from ...arguments import fmt
from ...i18n import _, listed, ngettext, then
from ...inference import predict, unambiguous_examples
from ...parts import with_parts
from ...weights import NonFiniteError, WeightsError, check_weights
from ..builtin_tasks import abc_model
from ..explain import margins_of
from ..grader import MARGIN_THRESHOLD
from ..tasks import get_task
from ..verdict import Mistake, Unreadable, checker, diagnose, named, ok

ACB = "acb"


@functools.cache
def _abc_design():
    """Notebook 14's finished (abc)* model (built there in the open; also the task's reference
    solution, but an install without the answers has it too) and its named directions."""
    task = get_task("abc")
    return abc_model(), task.labels.residual


def _directions():
    """{letter: the direction its embedding writes}, read off the design's wte."""
    model, basis = _abc_design()
    alphabet = model.labels.alphabet
    return {letter: basis.names[int(np.argmax(model["wte"][i]))] for i, letter in enumerate(alphabet)}


def acb_turn():
    """The right answer: each letter's direction goes to the direction of the letter after it in acb."""
    direction = _directions()
    return {direction[x]: direction[ACB[(ACB.index(x) + 1) % len(ACB)]] for x in ACB}


def acb_model(turn):
    """The design with ``turn`` in c_proj, at the design's own strength (Lg), as notebook 14 builds it."""
    model, basis = _abc_design()
    strength = np.abs(model["blocks"][0]["attn"]["c_proj"]["w"]).max()
    return with_parts(model, {"c_proj.w": basis.matrix({(src, dst): strength for src, dst in turn.items()})})


def _acb_results(params):
    """Per graded context (every unambiguous piece of acbacb... of 1 to n_ctx letters): the margin
    and the letter the model says."""
    alphabet = _abc_design()[0].labels.alphabet
    results = []
    for example in unambiguous_examples(get_task("abc").n_ctx, pattern=ACB):
        logits = predict(example.context, params, alphabet=alphabet).logits[-1]
        right = alphabet.index(example.expected)
        margins, predicted = margins_of(logits[None], [right], MARGIN_THRESHOLD)  # as the grader has them
        results.append(Found(example=example, margin=float(margins[0]), said=alphabet[int(predicted[0])]))
    return results


def _acb_found(answer):
    basis = list(_abc_design()[1])
    if isinstance(answer, Mapping) and "wte" in answer:  # whole weights, for a design changed elsewhere
        turn, params = None, answer
    else:
        turn = named(answer, _("your turn"), basis, basis)
        params = acb_model(turn)
    try:
        results = _acb_results(check_weights(params))
    except (WeightsError, NonFiniteError, ValueError) as error:
        raise Unreadable(str(error)) from None
    wrong = [r for r in results if r.said != r.example.expected]
    smallest = min(results, key=lambda r: r.margin)
    return Found(turn=turn, results=results, wrong=wrong, smallest=smallest)


def _acb_numbers(f):  # what the verdicts on (acb)* quote: the score, and where the margin is smallest
    return {
        "correct": len(f.results) - len(f.wrong),
        "total": len(f.results),
        "margin": fmt(f.smallest.margin),
        "context": repr(f.smallest.example.context),
        "threshold": fmt(MARGIN_THRESHOLD),
    }


def _acb_score(f):
    return _("{correct} / {total} contexts of (acb)* are right, smallest margin {margin} (after {context}).").format(
        **_acb_numbers(f)
    )


def _acb_turn_hint(f):
    """The score, then for each entry of the turn that differs from acb's, what it makes the model say."""
    letter_of = {direction: letter for letter, direction in _directions().items()}
    right = acb_turn()
    sentences = [_acb_score(f)]
    for source, target in f.turn.items():
        failing = [r for r in f.wrong if r.example.context[-1] == letter_of[source]]
        if target == right[source] or not failing:
            continue
        said = failing[0].said
        sentences.append(
            ngettext(
                "Your turn sends {source} to {target}, so after {letter} the model says {said}, as in {examples}; but in (acb)* {letter} is followed by {expected} ({n} context fails).",
                "Your turn sends {source} to {target}, so after {letter} the model says {said}, as in {examples}; but in (acb)* {letter} is followed by {expected} ({n} contexts fail).",
                len(failing),
            ).format(
                source=source,
                target=target,
                letter=letter_of[source],
                said=said,
                examples=listed([repr(r.example.context) for r in failing if r.said == said][:3]),
                expected=failing[0].example.expected,
                n=len(failing),
            )
        )
    return functools.reduce(then, sentences)


def _acb_failures(f):
    misses = [
        _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})").format(
            context=repr(r.example.context), expected=r.example.expected, predicted=r.said, margin=fmt(r.margin)
        )
        for r in f.wrong[:5]
    ]
    return _("{score} The first failing contexts: {misses}.").format(
        score=_acb_score(f), misses=listed(misses, clauses=True)
    )


ACB_MISTAKES = (
    Mistake(lambda f: f.turn is not None and f.wrong, _acb_turn_hint),
    Mistake(
        lambda f: not f.wrong,
        lambda f: _(
            "All {total} contexts of (acb)* are right, but the smallest margin is {margin}, after {context}: a pass needs more than {threshold}, so that a tie or a lead by a hair does not count."
        ).format(**_acb_numbers(f)),
    ),
)


@checker
def check_acb(answer):
    """The learner's turn for (acb)*: a dict like ``{"Ta": "Tc", ...}`` that c_proj of notebook 14's
    (abc)* model applies (or whole weights, for a design changed elsewhere), graded as the grader
    grades: every unambiguous piece of acbacb... right, with a margin above MARGIN_THRESHOLD."""
    found = _acb_found(answer)
    if not found.wrong and found.smallest.margin > MARGIN_THRESHOLD:
        return ok(
            _(
                "all {total} contexts of (acb)* are right, with a smallest margin of {margin} (after {context}), above the {threshold} a pass needs"
            ).format(**_acb_numbers(found))
        )
    return diagnose(found, ACB_MISTAKES, _acb_failures)
