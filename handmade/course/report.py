"""A grade's report: what grading found (``Report``), the contexts it got wrong (``Miss``), its data
(``Report.to_json``, what ``grade --json`` prints) and its text, made from that same data (``report_lines``).

``handmade.course.grader`` grades and fills a Report in; this module only says what one holds and how it
reads, in a notebook (the same lines, with a coloured edge) and on the command line.
"""

import html
from dataclasses import dataclass, field, replace

from ..arguments import fmt
from ..i18n import _, listed
from ..inference import Example

SHOWN_STEPS = 3  # steps of the path back shown in the text (--json has them all)


@dataclass(frozen=True)
class Miss:
    """A graded context the model got wrong."""

    example: Example
    predicted: str  # the token with the largest logit (the first of a tie)
    margin: float  # right logit minus best wrong logit: negative or 0 when wrong
    tie: bool  # whether the largest logit is shared

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


def miss_said(miss):
    """A wrong prediction (``Miss.to_json()``) as the report prints it."""
    line = (
        _("{context}: expected {expected}, the model predicted {predicted} by a tie (margin {margin})")
        if miss["tie"]
        else _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})")
    )
    return line.format(
        context=repr(miss["context"]),
        expected=miss["expected"],
        predicted=miss["predicted"],
        margin=fmt(miss["margin"]),
    )


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
    failures: tuple  # Miss, for the first few failing contexts in grading order
    n_failures: int
    threshold: float  # a pass needs every context right and a margin above it
    passed: bool  # whether it passes: every context right and the margin above the threshold
    explained: tuple = ()  # an Explanation per context below the margin, in grading order (none on a pass)
    diagnosed: Example | None = None  # the context the diagnosis is about
    diagnosis: str | None = None  # why the model goes wrong there, from its own numbers, as sentences
    shares: dict | None = None  # {part: share of the margin} there
    focus: object = None  # the Explanation of that context: its margin, its shares, its path back
    revealed: str | None = None  # the reference solution's shares there, only when asked
    progress_note: str | None = None  # what became of a pass handed in: recorded in the progress file, or why not
    recorded: bool = False  # whether that pass is in the progress file now
    # (index in ``explained``) -> its path back: followed when --json asks (``grade(every_path=True)``)
    follower: object = field(default=None, repr=False, compare=False)

    @property
    def accuracy(self):
        return self.correct / self.total

    def __bool__(self):
        return self.passed

    def lines(self):
        """The report's text, made from its data (``to_json``, without the paths the text does not show)."""
        return report_lines(self.to_json(every_path=False))

    def diagnosis_lines(self):
        """Where it goes wrong, in one go: the context and its margin, the parts' shares, the part named,
        then the path back to the cause, a line a step (the first SHOWN_STEPS of them)."""
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
            "failing": [e.to_json() for e in explained],
            "paths": sum(e.path is not None for e in explained),
            "diagnosed": next((i for i, e in enumerate(self.explained) if e is self.focus), None),
            "revealed": self.revealed,
            "progress_note": self.progress_note,
            "recorded": self.recorded,
        }

    def __str__(self):
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self):  # the same lines, wrapped at spaces on a narrow page, with a coloured edge
        colour = "#1a7f37" if self.passed else "#b3261e"
        style = f"white-space:pre-wrap;word-break:normal;border-left:4px solid {colour};padding:4px 8px;margin:0"
        return f'<pre style="{style}">{html.escape(str(self))}</pre>'


def report_lines(data):
    """The lines of a report, from its data (``Report.to_json``): the verdict, the score, the margin, the
    first wrong predictions, where it goes wrong and the path back, the reference when asked, the progress note."""
    verdict = _("PASS") if data["passed"] else _("FAIL")
    smallest = data["smallest_at"]
    lines = [
        _("task {task}: {verdict}").format(task=data["task"], verdict=verdict),
        _("  right: {correct} / {total} contexts ({percent:.1f}%)").format(
            correct=data["right"], total=data["graded"], percent=100 * data["right"] / data["graded"]
        ),
        _(
            "  margin: {margin} (smallest at {context} → {expected}); a pass needs 100% and more than {threshold}"
        ).format(
            margin=fmt(data["margin"]),
            context=repr(smallest["context"]),
            expected=smallest["expected"],
            threshold=fmt(data["threshold"]),
        ),
        _("  non-zero weights: {n}").format(n=data["nonzero"]),
    ]
    if data["first_wrong"]:
        lines.append(_("  first failing contexts ({n} in all):").format(n=data["wrong"]))
        lines += [f"    {miss_said(miss)}" for miss in data["first_wrong"]]
    if data["diagnosed"] is not None:
        lines += diagnosis_lines(data)
    if data["revealed"]:
        lines.append(data["revealed"])
    if data["progress_note"]:
        lines.append(f"  {data['progress_note']}")
    return lines


def diagnosis_lines(data):
    """Where it goes wrong (a report's data, ``Report.to_json``): the diagnosed context and its margin, the
    parts' shares, the sentence, then the path back, a line a step (the first SHOWN_STEPS of them)."""
    focus = data["failing"][data["diagnosed"]]
    heading = (
        _(
            "  where it goes wrong, for {context} → {expected}: the margin over {wrong} is {margin}; part by part: {shares}"
        )
        if data["right"] < data["graded"]  # a report whose predictions are all right speaks of the margin
        else _(
            "  why the margin is too small, for {context} → {expected}: the margin over {wrong} is {margin}; part by part: {shares}"
        )
    )
    said = {"context": repr(focus["context"]), "expected": focus["expected"], "wrong": focus["against"]}
    lines = [
        heading.format(margin=fmt(focus["margin"]), shares=shares_listed(focus["contributions"]), **said),
        f"    {focus['sentence']}",
    ]
    path = focus["path"] or []
    lines += [f"    → {step['text']}" for step in path[:SHOWN_STEPS]]
    if len(path) > SHOWN_STEPS:
        lines.append(_("    → {n} more steps back: grade --json has them").format(n=len(path) - SHOWN_STEPS))
    return lines


def shares_listed(found):  # {part: share} -> "wte 1.5, h0 -0.5 and mlp0 2"
    return listed(f"{name} {fmt(share)}" for name, share in found.items())
