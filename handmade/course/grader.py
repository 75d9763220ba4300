"""Grading a learner's weights on a task: every context, a margin, and where it goes wrong.

The weights are data (a dict, ``Weights`` or what ``load_weights`` read), never code: they run through
``weights.finite_pass``, the same ``gpt()`` the series teaches. Every graded context is asked (``tasks.examples``):
no sampling, no seed; one pass over the longest context answers all its prefixes. A pass needs every context right
AND a margin above ``MARGIN_THRESHOLD``: the smallest gap, over all graded contexts, between the right token's logit
and the best wrong one (a tie has margin 0: argmax breaking ties by order earns nothing).

When the weights fail, the report says why, from the learner's own model: for every context under the margin the
margin is shared out among the parts that wrote into the residual stream (``course.explain``), the part that pushed
the wrong way, or did not push enough, is named, and the path back from it (``course.path``) is followed to the
weight entries that did it: for the context the text speaks of, and for every one in the data (``--json``). A
task's reference solution may choose which part to speak of, but the sentence speaks only of the learner's numbers;
the reference is shown only when asked (``reveal=True``, ``grade --reveal``). ``grade`` returns a ``Report``: its
data (``report.to_json()``, ``--json``) and its text (``explain.report_lines``).
"""

import functools
import html
import os
import sys
from dataclasses import dataclass, field, replace

import numpy as np

from ..arguments import brief, fmt_apart, yes_or_no
from ..i18n import N_, _, language, tag, then
from ..inference import Example
from ..parts import with_part
from ..weights import (
    NonFiniteError,
    Weights,
    WeightsError,
    check_weights,
    count_nonzero,
    finite_pass,
    labels_of,
    with_alphabet,
)
from . import progress
from .compared import lagging, missing, not_compared, revealed_line, shares_in
from .explain import diagnosis_lines, explain, margin_direction, margins_of, miss_said, read_window, report_lines
from .path import follow
from .shown_models import shown_model
from .solutions import reference, teachers_reference
from .tasks import TASKS, check_grading, get_task, graded_tokens, passes, usable, withheld
from .tasks import examples as task_examples

# A logit gap of 1 makes the right token at least e = 2.7 times as likely as any wrong one, and
# it is 10^15 times float64's rounding error on these logits: a pass cannot come from a tie that
# argmax broke by order, or from rounding (a margin within rounding of it is it: ``margins_of``). It
# costs a correct design nothing (scale c_proj up); every reference solution clears it by a factor
# of more than 3, most by hundreds.
MARGIN_THRESHOLD = 1.0
SHOWN_FAILURES = 5  # failing contexts listed in a report
NOTHING_TO_REVEAL = N_("  (the model passes: there is no failing context to show the reference's shares on)")


# ---- the report ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Miss:
    """A graded context the model got wrong."""

    example: Example
    predicted: str  # the best wrong token: the largest logit, or the one tied with the right token
    margin: float  # right logit minus best wrong logit: negative or 0 when wrong
    tie: bool  # whether the largest logit is shared (with the right token's, to within rounding: margin 0)

    def __str__(self):  # 'ab': expected a, the model predicted b (margin -1)
        return miss_said(self.to_json())

    def to_json(self):
        return {
            "context": self.example.context,
            "expected": self.example.expected,
            "predicted": self.predicted,
            "margin": self.margin,
            "tie": self.tie,
        }


@dataclass(frozen=True, repr=False)
class Report:
    """What grading found: ``print(report)`` reads it, ``report.passed`` decides, and in a
    notebook the report shows itself as the same few lines."""

    task: str  # the task's name
    correct: int
    total: int
    margin: float  # the smallest margin over every graded context
    smallest_at: Example  # where it is smallest
    nonzero: int  # weights that are not zero, counted from the weights themselves
    failures: tuple  # Miss, for the first few wrong predictions in grading order
    n_failures: int  # how many predictions are wrong
    threshold: float  # a pass needs every context right and a margin above it
    passed: bool  # whether it passes: every context right and the margin above the threshold
    explained: tuple = ()  # an Explanation per context below the margin, in grading order (none on a pass)
    diagnosed: Example | None = None  # the context the diagnosis is about
    diagnosis: str | None = None  # why the model goes wrong there, from its own numbers, as sentences
    shares: dict | None = None  # {part: share of the margin} there
    focus: object = None  # the Explanation of that context: its margin, its shares, its path back
    revealed: str | None = None  # the reference solution's shares there, only when asked, or why there are none
    answer_shares: dict | None = None  # those shares, {part: share}, when ``revealed`` shows them
    reference_problem: str | None = None  # the line saying the task's reference is broken, unasked, or None
    progress_note: str | None = None  # what became of a pass handed in: recorded in the progress file, or why not
    recorded: bool = False  # whether that pass is in the progress file now
    right_below: int = 0  # contexts predicted right, but by a margin not above the threshold
    # (index in ``explained``) -> its path back: followed when --json asks (``grade(every_path=True)``)
    follower: object = field(default=None, repr=False, compare=False)

    def __bool__(self):
        return self.passed

    def lines(self):
        """The report's text, made from its data (``to_json``, without the paths the text does not show)."""
        return report_lines(self.to_json(every_path=False))

    def diagnosis_lines(self):
        """Where it goes wrong, in one go: the context and its margin, the parts' shares, the part named,
        then the path back to the cause, a line a step (the first ``explain.SHOWN_STEPS`` of them)."""
        data = self.to_json(every_path=False)
        return diagnosis_lines(data) if data["diagnosed"] is not None else []

    def to_json(self, every_path=True):
        """The report as data: what the command line's ``grade --json`` prints, and what its text is made
        from. Every context under the margin has its path back (``every_path``, on a report graded with
        ``every_path=True``, whose estimate counted them; the text needs only the diagnosed one's)."""
        explained = list(self.explained)
        if every_path and self.follower is not None:
            explained = [
                e if e.path is not None else replace(e, path=self.follower(i)) for i, e in enumerate(explained)
            ]
        return {
            "task": self.task,
            "passed": self.passed,
            "right": self.correct,
            "graded": self.total,
            "margin": self.margin,
            "smallest_at": {"context": self.smallest_at.context, "expected": self.smallest_at.expected},
            "threshold": self.threshold,
            "nonzero": self.nonzero,
            "wrong": self.n_failures,
            "first_wrong": [miss.to_json() for miss in self.failures],
            "right_below_margin": self.right_below,
            "failing": [e.to_json() for e in explained],
            "paths": sum(e.path is not None for e in explained),
            "diagnosed": next((i for i, e in enumerate(self.explained) if e.context == self.diagnosed.context), None),
            "revealed": self.revealed,
            "answer_shares": self.answer_shares,
            "reference_problem": self.reference_problem,
            "progress_note": self.progress_note,
            "recorded": self.recorded,
        }

    def __str__(self):
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self):  # the same lines, wrapped at spaces on a narrow page, with a coloured edge
        colour = "#1a7f37" if self.passed else "#b3261e"
        style = f"white-space:pre-wrap;word-break:normal;border-left:4px solid {colour};padding:4px 8px;margin:0"
        return f'<pre lang="{tag()}" style="{style}">{html.escape(str(self))}</pre>'


# ---- grading -------------------------------------------------------------------------------


def submission(task, params):
    """``params`` checked for ``task``: Weights whose tokens are the task's alphabet, or WeightsError.

    The alphabet weights state is what their token ids mean: the task's characters in another order
    are graded with wte's rows put in the task's order, other characters refused; a plain dict, or
    weights without an alphabet, is read in the task's. Directions' names only name: weights keep
    theirs where they fit, else take the task's (at the task's width), else e0, e1, ...
    """
    task = get_task(task)
    if isinstance(params, (str, bytes, os.PathLike)):
        raise WeightsError(
            _(
                "the weights themselves are graded (a dict or handmade.Weights), not a file's name: load the file first with handmade.load_weights"
            )
        )
    if not isinstance(params, dict) and isinstance(getattr(params, "params", None), dict):  # a playground
        raise TypeError(_("a playground is graded by its weights: give its params (playground.params)"))
    if isinstance(params, Weights) and params.checked:  # checked where it came in: taken as it is
        checked = params
    else:  # checked here, once: the numbers alone, then the names that fit them
        checked = check_weights(dict(params) if isinstance(params, dict) else params)
    n_vocab, n_ctx = len(checked["wte"]), len(checked["wpe"])
    if n_vocab != task.n_vocab:
        raise WeightsError(
            _(
                "n_vocab, the token rows of wte, is {n}, but the task {task} has {want} tokens ({alphabet}): n_vocab must be {want}"
            ).format(n=n_vocab, task=task.name, want=task.n_vocab, alphabet=task.alphabet)
        )
    if n_ctx < task.n_ctx:
        raise WeightsError(
            _(
                "n_ctx, the rows of wpe, is {n}, but the task {task} grades contexts of up to {want} tokens: wpe needs at least {want} rows"
            ).format(n=n_ctx, task=task.name, want=task.n_ctx)
        )
    own = labels_of(params)  # none for a plain dict, or a file without labels: its defaults state nothing
    for labels in (own, task.labels):  # its own names if they fit, else the task's
        if labels is not None:
            try:
                checked = check_weights(checked, labels)
                break
            except WeightsError:  # names that no longer fit (a part was removed): set them aside
                continue
    if own is not None and own.alphabet not in (None, task.alphabet):  # its ids mean other letters: put in order
        return _in_task_order(checked, own.alphabet, task)
    if checked.labels.alphabet != task.alphabet:
        checked = with_alphabet(checked, task.alphabet)
    return checked


def _in_task_order(params, stated, task):
    """``params``, whose token ids mean the characters of ``stated``, with wte's rows in the task's
    order: the same model on every text. WeightsError when ``stated`` has other characters."""
    if sorted(stated) != sorted(task.alphabet):
        raise WeightsError(
            _(
                "these weights say their tokens are {stated}, but the task {task} has {alphabet}: grade them on a task of their alphabet, or label them with {alphabet}"
            ).format(stated=brief(stated), task=task.name, alphabet=repr(task.alphabet))
        )
    moved = check_weights(params, replace(params.labels, alphabet=task.alphabet))
    return with_part(moved, "wte", params["wte"][[stated.index(char) for char in task.alphabet]])


def grade(task, params, *, diagnose=True, reveal=False, every_path=False):
    """Grade ``params`` on every context of ``task``; a Report. WeightsError for unusable weights.

    ``diagnose=False`` skips explaining why (for a quick score after an edit); ``reveal=True`` adds the reference
    solution's shares on the diagnosed context: the answer, shown only when asked; ``every_path=True`` lets
    ``report.to_json()`` follow every failing context's path back (the text follows the diagnosed one's alone). Grading
    records nothing: where a learner hands a model in, ``handed_in`` grades it and records a pass of the learner's own
    in the progress file. A grade that would cost more than ``tasks.MAX_GRADING`` operations is refused before any pass,
    with its estimate; with ``every_path``, once the grade knows which contexts fail, if their paths back would take it
    over, before any is followed.
    """
    diagnose, reveal, every_path = map(yes_or_no, (diagnose, reveal, every_path), ("diagnose", "reveal", "every_path"))
    task = usable(task)  # a task that cannot be used (a limit it is over) says so first, whatever the weights
    examples, graded = task_examples(task), graded_tokens(task)
    params = submission(task, params)
    check_grading(task, params.structure, explained=diagnose)  # the paths back, once it is known which fail
    logits = logits_per_context([tokens for tokens, _right in graded], params)  # [n_examples, n_vocab]
    right = np.array([r for _tokens, r in graded])
    margins, predicted = margins_of(logits, right, MARGIN_THRESHOLD)
    wrong = np.flatnonzero(predicted != right)
    smallest = int(np.argmin(margins))
    tied = ((logits == logits.max(axis=1, keepdims=True)).sum(axis=1) > 1) | (margins == 0)  # [n]: to within rounding
    misses = [
        Miss(examples[i], task.alphabet[predicted[i]], float(margins[i]), bool(tied[i])) for i in wrong[:SHOWN_FAILURES]
    ]
    report = Report(
        task=task.name,
        correct=len(examples) - len(wrong),
        total=len(examples),
        margin=float(margins[smallest]),
        smallest_at=examples[smallest],
        nonzero=count_nonzero(params),
        failures=tuple(misses),
        n_failures=len(wrong),
        threshold=MARGIN_THRESHOLD,
        passed=bool(len(wrong) == 0 and margins[smallest] > MARGIN_THRESHOLD),
        right_below=int(((predicted == right) & ~(margins > MARGIN_THRESHOLD)).sum()),
    )
    if report.passed and reveal:  # asked for, and nothing to show them beside: said so
        return replace(report, revealed=_(NOTHING_TO_REVEAL))
    if report.passed or not diagnose:
        return report
    below = [int(i) for i in np.flatnonzero(~(margins > report.threshold))]  # every context under the margin
    # the one the text speaks of: where some context is predicted wrong outright, the first whose largest logit (as
    # argmax reads it, the first of a tie) is a wrong token's; else the first that fails (a tie); else the smallest
    outright = np.flatnonzero(logits.argmax(axis=1) != right) if (margins < 0).any() else wrong
    focus = int(outright[0]) if len(outright) else smallest
    cases = [(examples[i], graded[i]) for i in below]
    if every_path:  # every path back of these, estimated before any is followed
        followed = [len(tokens[-params.structure.n_ctx :]) for _example, (tokens, _right) in cases]
        check_grading(task, params.structure, followed=followed)
    return _explained(report, task, params, cases, below.index(focus), reveal, every_path)


def handed_in(task, params, *, reveal=False, every_path=False):
    """Grade a model the learner hands in (the command line's ``grade``, a task's playground): the
    Report, and a pass of the learner's own recorded in the progress file (the report's last line
    says when a pass is not recorded, and why); ``every_path`` as for ``grade`` (``grade --json``)."""
    task = usable(task)  # a task over a limit says so before the weights are read for it
    params = submission(task, params)
    report = grade(task, params, reveal=reveal, every_path=every_path)
    if not report.passed:
        return report
    recorded, note, broken = _recorded(task, params)
    return replace(report, progress_note=note, recorded=recorded, reference_problem=broken)


def _recorded(task, params):
    """Record the pass of ``params`` (checked, passing) in the progress file: (whether it is recorded,
    a sentence saying so or why not, the line saying that a teacher's reference, built to tell the pass from it, is
    broken, or None). A model the course shows is not the learner's (``shown_models``), and the file may not take it
    (``progress.add`` says why)."""
    theirs, problem = checked_reference(task)
    broken = not_compared(problem) if problem else None
    shown = shown_model(task, params, theirs)
    if shown is not None:
        kept = _("Your earlier pass of {task} stays in your progress.").format(task=task.name)
        return False, then(shown, kept) if progress.read().has(task) else shown, broken
    problem = progress.add(task)
    return problem is None, problem or progress.recorded_where(task), broken


# ---- a challenge's graded cell ---------------------------------------------------------------

NBGRADER = "NBGRADER_EXECUTION"  # set by nbgrader while it autogrades ("autograde") or validates a notebook


@dataclass(frozen=True)
class Graded:
    """What a challenge's graded cell says: whether the model passes, and what was recorded."""

    passed: bool
    lines: tuple

    def __str__(self):
        return "\n".join(self.lines)

    __repr__ = __str__
    _repr_html_ = Report._repr_html_  # the same coloured edge

    def _ipython_display_(self):
        """A pass shown as display data (nbgrader: full credit), "not yet" on stderr (nbgrader: none, set or not)."""
        if not self.passed:
            print(self, file=sys.stderr)
            return
        from IPython.display import display

        display({"text/plain": str(self), "text/html": self._repr_html_()}, raw=True)


def graded(task, params):
    """A challenge's graded cell: whether ``params`` pass ``task``.

    Under nbgrader (``NBGRADER_EXECUTION`` set) a model that does not pass raises AssertionError; elsewhere
    it says "not yet" (``Graded``) and Run All goes on; a pass of the learner's own is recorded."""
    task = usable(task)
    params = submission(task, params)
    report = grade(task, params, diagnose=False)
    if os.environ.get(NBGRADER):
        if not report.passed:
            raise AssertionError(_("{task}: the model does not pass it yet").format(task=task.name))
        return Graded(True, (_("{task}: passed").format(task=task.name),))
    if not report.passed:
        if report.nonzero == 0:  # the answer cell's blank, untouched: no report says more than that
            line = _(
                "{task}: not yet. Every weight of the model graded is 0: it is still the blank one. Build yours in the answer cell above; a playground's edits are not in it."
            )
        elif report.correct == report.total:
            line = _(
                "{task}: not yet. Every prediction is right, but the margin is too small: the report above says where."
            )
        else:
            line = _("{task}: not yet. Your model does not pass it: the report above says where it goes wrong.")
        return Graded(False, (line.format(task=task.name),))
    _passed_recorded, note, broken = _recorded(task, params)  # whether it is recorded: the note says
    return Graded(True, (_("{task}: passed.").format(task=task.name), *([broken.strip()] if broken else []), note))


def _explained(report, task, params, cases, focus, reveal, every_path):
    """The report with an Explanation per case (every context under the margin), the path back followed
    for ``cases[focus]``, which the text speaks of (the others' when ``to_json`` asks, with ``every_path``:
    ``Report.follower``); and the reference's shares there when ``reveal``."""
    readings = _readings([tuple(tokens[-len(params["wpe"]) :]) for _example, (tokens, _right) in cases], params)
    explained = [  # their paths followed when asked for (``follower``), the focus's below, once
        _explain(params, example, tokens, right, report.threshold, readings, follow_path=False)
        for example, (tokens, right) in cases
    ]
    example, (tokens, right) = cases[focus]
    first, window = explained[focus], tuple(tokens[-len(params["wpe"]) :])
    # a model of the designed shape in which no part tells the tokens apart: the reference changes no word
    unmoved = first.named is None and first.part is None and params.structure == task.structure
    reference_model, unusable = (None, None) if unmoved and not reveal else _reference_of(task)
    # a reference that _reference_of returns passes its task: its passes here are finite
    theirs = shares_in(reference_model, tokens, right, first, window) if reference_model is not None else None
    compared = bool(theirs) and not unmoved  # the part whose share falls furthest short of the reference's: spoken of
    prefer = lagging(first.shares, theirs, report.threshold) if compared else None
    first = _explain(params, example, tokens, right, report.threshold, readings, prefer)
    if compared:
        first = replace(first, sentence=first.sentence + missing(first.shares, theirs, first.expected))
    explained[focus] = first
    read = reference_model and (min(len(tokens), len(reference_model["wpe"])), len(window))  # the letters each reads

    def follower(i):  # the path back of the explanation ``i``: the one --json adds to each
        example, (tokens, right) = cases[i]
        return _explain(params, example, tokens, right, report.threshold, readings).path

    return replace(
        report,
        explained=tuple(explained),
        diagnosed=example,
        diagnosis=first.sentence,
        shares=first.shares,
        focus=first,
        revealed=revealed_line(theirs, task, unusable, read) if reveal else None,
        answer_shares=theirs if reveal else None,  # what revealed_line shows, as numbers (None: why there are none)
        reference_problem=not_compared(unusable) if unusable and not reveal else None,  # said once: the reveal says it
        follower=follower if every_path else None,
    )


def _explain(params, example, tokens, right, threshold, readings, prefer=None, follow_path=True):
    """The Explanation of ``example`` (its tokens and right token id), with its path back when ``follow_path``:
    from the head or MLP it starts from, along the direction the margin reads, back to the cause."""
    reading, position = readings[tuple(tokens[-len(params["wpe"]) :])]
    found = explain(reading, position, params, example, right, threshold, prefer)
    if not follow_path or found.part is None:
        return replace(found, path=()) if follow_path else found
    wrong = params.labels.token_names(params.structure.n_vocab).index(found.wrong)
    direction = margin_direction(reading, position, params, right, wrong)
    reader = ("margin", found.expected, found.wrong)
    return replace(found, path=follow(reading, position, params, found.part, direction, reader))


def _readings(windows, params):
    """{window: (a recorded pass, the position of the window's last token in it)}: one pass per longest
    window (``tasks.passes``), which a causal model's prefixes of it are read from too. Only the windows
    explained are recorded: a pass that is kept holds every array it tapped."""
    found = {}
    for run, answered in passes(windows):
        reading = read_window(run, params)
        found.update({window: (reading, len(window) - 1) for window in answered})
    return found


def checked_reference(task):
    """(a teacher's task's own reference, checked, or None; why not), known even where the references are off (the
    learners have its file); (None, None) for a built-in task."""
    task = get_task(task)
    return _reference_built(task, task.build, False, language()) if TASKS.get(task.name) is not task else (None, None)


def _reference_of(task):
    """(the task's reference solution, checked for it, or None; why not: it is broken, or fails its task)."""
    return _reference_built(task, task.build, withheld(task), language())


@functools.lru_cache(maxsize=16)
def _reference_built(task, build, hidden, _language):  # once per reference written, installed, and language
    if build is None or hidden:  # a task without one (a teacher's may have none), or not here
        return None, None
    try:
        built = teachers_reference(task)  # None for a built-in task: its reference, if this install shows it
        model = submission(task, reference(task) if built is None else built)
    except WeightsError as error:  # weights that do not fit the task: said after its name, as the rest, whole
        said = (_("its reference solution does not fit it: {error}"), _("its reference solution: {error}"))
        short = _("its reference solution does not fit the task's alphabet or shape")
        return None, task.saying(*(sentence.format(error=error) for sentence in said), short)
    except ValueError as error:  # it raises, or returns no weights: said after the task's name already
        return None, str(error)
    failing = _reference_fails(task, model)
    return (None, failing) if failing else (model, None)


def _reference_fails(task, model):
    """Why the reference solution ``model`` of ``task`` does not pass it, graded as any model is, or None."""
    try:
        report = grade(task, model, diagnose=False)
    except WeightsError as error:  # its own pass overflows: its fault, not the learner's weights'
        return task.saying(  # the whole sentence, or said shorter, never cut through where it overflowed
            _("its reference solution fails on its task: {error}").format(error=error),
            _("its reference solution fails on its task: its forward pass produces inf or nan, too large for float64"),
        )
    if report.passed:
        return None
    problem = _("its reference solution does not pass it: it gets {right} of {total} right, smallest margin {margin}")
    margin = fmt_apart(report.margin, report.threshold)
    return task.saying(problem.format(right=report.correct, total=report.total, margin=margin))


def logits_per_context(contexts, params):  # contexts: token-id tuples -> [len(contexts), n_vocab]
    """The logits after each context (its last n_ctx tokens), one forward pass per longest window
    (``tasks.passes``): the pass over a window gives the logits of every prefix of it too."""
    n_ctx = len(params["wpe"])
    windows = [tokens[-n_ctx:] for tokens in contexts]
    after = {}  # window -> logits after its last token
    for run, answered in passes(windows):
        try:
            logits = finite_pass(list(run), params)  # [len(run), n_vocab]: its own tokens, checked weights
        except NonFiniteError as error:
            raise WeightsError(str(error)) from None
        for window in answered:
            after[window] = logits[len(window) - 1]
    return np.array([after[window] for window in windows])
