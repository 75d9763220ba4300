"""Grading a learner's weights on a task: every context, a margin, and where it goes wrong.

The weights are data (a dict, ``Weights`` or what ``load_weights`` read), never code: they run
through ``handmade.weights.forward``, the same ``gpt()`` the series teaches, and nothing else.
Every graded context of the task is asked (``tasks.examples``), so there is no sampling and no
seed. A causal model's prediction at position i of a window that starts at position 0 is its
prediction for that prefix, so one pass over the longest context answers all its prefixes.

A pass needs every context right AND a margin above ``MARGIN_THRESHOLD``: the margin is the
smallest gap, over all graded contexts, between the right token's logit and the best wrong one.
A tie has margin 0, so a model that is "right" only because argmax breaks ties by order fails.

When the weights fail, the report says where: for the first failing context (or the one with the
smallest margin) it runs the learner's model and the task's reference solution through
``handmade.trace.trace`` and names the first stage, in the order the pass uses them, that differs
in a way that matters. Attention weights are compared by which keys get a real share of the
weight (more than ``ATTENDED``); other stages by which directions are used, their signs, and
their sizes to within a factor ``FACTOR``. Stages whose columns are named directions are compared
only when the learner's model names its directions as the reference does (a blank model does).
When the shapes differ (another number of blocks, heads, no MLP), the report still lists the
failing contexts and what the model predicted there.
"""

import os
from dataclasses import dataclass

import numpy as np

from .i18n import _, ngettext
from .inference import Example
from .labelled import fmt
from .tasks import get_task, graded_tokens, reference
from .tasks import examples as task_examples
from .trace import trace
from .weights import NonFiniteError, WeightsError, check_weights, count_nonzero, forward, labels_of, with_alphabet

# A logit gap of 1 makes the right token at least e = 2.7 times as likely as any wrong one, and
# it is 10^15 times float64's rounding error on these logits: a pass cannot come from a tie that
# argmax broke by order, or from rounding. It costs a correct design nothing (scale c_proj up);
# every reference solution clears it by a factor of more than 3, most by hundreds.
MARGIN_THRESHOLD = 1.0
SHOWN_FAILURES = 5  # failing contexts listed in a report

ATTENDED = 0.05  # a key whose attention weight is above this is read by the query
SHARES_DIFFER = 0.25  # same keys read, but a share differs by more than this: the mix differs
FACTOR = 2.0  # two numbers of the same sign differ when one is more than FACTOR times the other
NOISE = 1e-3  # a number below this fraction of its row's largest counts as zero
SHOWN_DIRECTIONS = 4  # differing directions named in one sentence


# ---- the report ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Miss:
    """A graded context the model got wrong (or right by too small a margin)."""

    example: Example
    predicted: str  # the token with the largest logit (the first of a tie)
    margin: float  # right logit minus best wrong logit: negative or 0 when wrong
    tie: bool  # whether the largest logit is shared


@dataclass(frozen=True)
class Report:
    task: str  # the task's name
    correct: int
    total: int
    margin: float  # the smallest margin over every graded context
    smallest_at: Example  # where it is smallest
    nonzero: int  # weights that are not zero, counted from the weights themselves
    failures: tuple  # Miss, for the first SHOWN_FAILURES failing contexts in grading order
    n_failures: int
    diagnosed: Example | None = None  # the context the diagnosis is about
    diagnosis: str | None = None  # where it goes wrong, as a sentence
    threshold: float = MARGIN_THRESHOLD

    @property
    def accuracy(self):
        return self.correct / self.total

    @property
    def passed(self):
        return self.correct == self.total and self.margin > self.threshold

    @property
    def exit_status(self):  # for the command line: 0 on a pass, 1 on a fail
        return 0 if self.passed else 1

    def __bool__(self):
        return self.passed

    def lines(self):
        verdict = _("PASS") if self.passed else _("FAIL")
        lines = [
            _("task {task}: {verdict}").format(task=self.task, verdict=verdict),
            _("  right: {correct} / {total} contexts ({percent:.1f}%)").format(
                correct=self.correct, total=self.total, percent=100 * self.accuracy
            ),
            _("  margin: {margin} (smallest at {context} -> {expected}); a pass needs 100% and more than {threshold}").format(
                margin=fmt(self.margin),
                context=repr(self.smallest_at.context),
                expected=self.smallest_at.expected,
                threshold=fmt(self.threshold),
            ),
            _("  non-zero weights: {n}").format(n=self.nonzero),
        ]
        if self.failures:
            lines.append(_("  first failing contexts ({n} in all):").format(n=self.n_failures))
            lines += [f"    {_miss_line(miss)}" for miss in self.failures]
        if self.diagnosis:
            lines.append(
                _("  where it goes wrong, for {context} -> {expected}: {diagnosis}").format(
                    context=repr(self.diagnosed.context), expected=self.diagnosed.expected, diagnosis=self.diagnosis
                )
            )
        return lines

    def __str__(self):
        return "\n".join(self.lines())


def _miss_line(miss):
    if miss.tie:
        return _("{context}: expected {expected}, the model predicted {predicted} by a tie (margin {margin})").format(
            context=repr(miss.example.context),
            expected=miss.example.expected,
            predicted=miss.predicted,
            margin=fmt(miss.margin),
        )
    return _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})").format(
        context=repr(miss.example.context), expected=miss.example.expected, predicted=miss.predicted, margin=fmt(miss.margin)
    )


# ---- grading -------------------------------------------------------------------------------


def submission(task, params):
    """``params`` checked for ``task``: Weights whose tokens are the task's alphabet, or WeightsError.

    A plain dict (no labels) is read with the task's named directions when it has the task's
    shape; weights labelled with another alphabet are graded by token id, in the task's alphabet.
    """
    task = get_task(task)
    if isinstance(params, (str, bytes, os.PathLike)):
        raise WeightsError(
            _("grade takes the weights themselves (a dict or handmade.Weights); load a file first with handmade.load_weights")
        )
    checked = check_weights(params)
    n_vocab, n_ctx = len(checked["wte"]), len(checked["wpe"])
    if n_vocab != task.n_vocab:
        raise WeightsError(
            _("wte has {n} token rows, but the task {task} has {want} tokens ({alphabet}): n_vocab must be {want}").format(
                n=n_vocab, task=task.name, want=task.n_vocab, alphabet=task.alphabet
            )
        )
    if n_ctx < task.n_ctx:
        raise WeightsError(
            _("wpe has {n} rows, but the task {task} grades contexts of up to {want} tokens: wpe needs at least {want} rows").format(
                n=n_ctx, task=task.name, want=task.n_ctx
            )
        )
    if labels_of(params) is None:
        try:
            return check_weights(checked, task.labels)
        except WeightsError:  # another width: keep the default names e0, e1, ...
            pass
    if checked.labels.alphabet != task.alphabet:
        checked = with_alphabet(checked, task.alphabet)
    return checked


def grade(task, params, *, diagnose=True):
    """Grade ``params`` on every context of ``task``; a Report. WeightsError for unusable weights.

    ``diagnose=False`` skips the search for where it goes wrong (for a quick score after an edit).
    """
    task = get_task(task)
    params = submission(task, params)
    examples, graded = task_examples(task), graded_tokens(task)
    logits = logits_per_context([tokens for tokens, _right in graded], params)  # [n_examples, n_vocab]
    right = np.array([r for _tokens, r in graded])
    margins, predicted = margins_of(logits, right)
    wrong = np.flatnonzero(predicted != right)
    smallest = int(np.argmin(margins))
    misses = [_miss(examples[i], logits[i], task.alphabet, margins[i]) for i in wrong[:SHOWN_FAILURES]]
    report = Report(
        task=task.name,
        correct=len(examples) - len(wrong),
        total=len(examples),
        margin=float(margins[smallest]),
        smallest_at=examples[smallest],
        nonzero=count_nonzero(params),
        failures=tuple(misses),
        n_failures=len(wrong),
    )
    if report.passed or not diagnose:
        return report
    about = examples[wrong[0]] if len(wrong) else examples[smallest]
    return Report(**{**report.__dict__, "diagnosed": about, "diagnosis": where_it_goes_wrong(task, params, about)})


def logits_per_context(contexts, params):  # contexts: token-id tuples -> [len(contexts), n_vocab]
    """The logits after each context (its last n_ctx tokens), one forward pass per longest window:
    the pass over a window gives the logits of every prefix of it too."""
    n_ctx = len(params["wpe"])
    windows = [tokens[-n_ctx:] for tokens in contexts]
    after = {}  # window prefix -> logits after its last token
    for window in sorted(set(windows), key=len, reverse=True):
        if window in after:
            continue
        try:
            logits = forward(window, params)  # [len(window), n_vocab]
        except NonFiniteError as error:
            raise WeightsError(str(error)) from None
        for end in range(1, len(window) + 1):
            after[window[:end]] = logits[end - 1]
    return np.array([after[window] for window in windows])


def margins_of(logits, right):  # [n, n_vocab], [n] -> margins [n], predicted ids [n]
    rows = np.arange(len(logits))
    wrong = logits.copy()
    wrong[rows, right] = -np.inf
    return logits[rows, right] - wrong.max(axis=1), logits.argmax(axis=1)


def _miss(example, logits, alphabet, margin):
    best = int(np.argmax(logits))
    tie = int(np.sum(logits == logits[best])) > 1
    return Miss(example, alphabet[best], float(margin), tie)


# ---- where it goes wrong -------------------------------------------------------------------

STAGES = {  # a place in the pass; {position} and {token} are filled in
    "embedding": N_ := None,
}
