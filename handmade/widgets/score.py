"""A task's score in its playground: the learner's model graded on every context at each edit, the line the bar
shows (right, margin, pass and whether it is recorded) and the lines below it (the first miss, why, the path back),
from the grader's report; the answer's shares only when asked (``reveal``)."""

from ..arguments import fmt_apart
from ..display.labelled import fmt
from ..i18n import _


class TaskScore:
    """A task's grade (every context, and the margin), and why it fails, from the learner's model:
    the score a task's playground shows. ``reveal`` adds the reference solution's shares."""

    def __init__(self, task):
        from ..course.tasks import get_task

        self.task = get_task(task)
        self.label, self.reveal = _("{task}:").format(task=self.task.name), False
        self.revealed = None  # what the last grade said of the answer (reveal on, a model that fails), or None
        self.answer_shown = False  # whether the last grade showed the answer's shares (else why there are none)

    def __call__(self, params):
        from ..basis import context_said, token_shown
        from ..course.explain import SHOWN_STEPS, shares_listed
        from ..course.grader import handed_in

        report = handed_in(self.task, params, reveal=self.reveal)  # the learner's work: a pass is recorded
        self.revealed = None if report.passed else report.revealed  # a pass has no diagnosis to show them in
        self.answer_shown = report.answer_shares is not None  # none on a pass: it has no diagnosis
        summary = _(
            "{correct} / {total} right, margin {margin} (smallest at {context} → {expected}; a pass needs all and more than {threshold})"
        ).format(
            correct=report.correct,
            total=report.total,
            margin=fmt_apart(report.margin, report.threshold, 3),
            context=context_said(report.smallest_at.context),
            expected=token_shown(report.smallest_at.expected),
            threshold=fmt(report.threshold),
        )
        if report.passed and report.recorded:
            summary = _("PASS, recorded in your progress: {summary}").format(summary=summary)
        elif report.passed:
            summary = _("PASS, not recorded (below, why): {summary}").format(summary=summary)
        details = []
        if report.failures:
            details.append(_("first miss: {miss}").format(miss=report.failures[0]))
        if report.diagnosis:
            details.append(
                _("why, for {context} → {expected}: {diagnosis}").format(
                    context=context_said(report.diagnosed.context),
                    expected=report.focus.expected,  # the token's name, as the report's text says it (␣ for a space)
                    diagnosis=report.diagnosis,
                )
            )
            shares = shares_listed(report.shares)  # the learner's, which the answer's are shown beside when asked
            details.append(_("your model's shares of that margin, part by part: {shares}").format(shares=shares))
            details += [f"→ {step.text}" for step in (report.focus.path or ())[:SHOWN_STEPS]]  # the path back
        details += [line.strip() for line in (report.revealed, report.reference_problem) if line]
        if report.progress_note:
            details.append(report.progress_note)
        return report.passed, summary, details
