"""A grade's text, made from its data (``Report.to_json``, what ``grade --json`` prints): the verdict, the score,
the margin, the first wrong predictions, the contexts right by too small a margin, where it goes wrong and the path
back (``explain`` finds them), the reference when asked, the progress note. Every number in the text is in the data."""

from ..arguments import fmt
from ..basis import TOKEN_SHOWN
from ..i18n import _, listed, ngettext

SHOWN_STEPS = 3  # steps of the path back shown in the text (--json has every step: at most path.MAX_PATH_STEPS)


def _shown(char):
    """A token's character as a line of the report shows it: a space ␣, a new line ⏎, a tab ⇥, any other
    that cannot show as its escape ('\\x00'), so that every line of a report stays one printable line."""
    return TOKEN_SHOWN.get(char, char) if char.isprintable() or char in TOKEN_SHOWN else repr(char)


def miss_said(miss):
    """A wrong prediction (``Miss.to_json()``) as the report prints it."""
    line = (
        _("{context}: expected {expected}, the model predicted {predicted} by a tie (margin {margin})")
        if miss["tie"]
        else _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})")
    )
    return line.format(
        context=repr(miss["context"]),
        expected=_shown(miss["expected"]),
        predicted=_shown(miss["predicted"]),
        margin=fmt(miss["margin"]),
    )


def report_lines(data):
    """The lines of a report, from its data (``Report.to_json``): the verdict, the score, the margin, the
    first wrong predictions, how many more are right by too small a margin, where it goes wrong and the path
    back, the reference when asked, the progress note."""
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
            margin=margin_said(data["margin"], data["threshold"]),
            context=repr(smallest["context"]),
            expected=_shown(smallest["expected"]),
            threshold=fmt(data["threshold"]),
        ),
        _("  non-zero weights: {n}").format(n=data["nonzero"]),
    ]
    if data["first_wrong"]:
        lines.append(
            ngettext(
                "  the wrong prediction ({n} in all):", "  first wrong predictions ({n} in all):", data["wrong"]
            ).format(n=data["wrong"])
        )
        lines += [f"    {miss_said(miss)}" for miss in data["first_wrong"]]
    if data["right_below_margin"]:  # right, but not by enough: they fail too
        below = data["right_below_margin"]
        said = ngettext(
            "  predicted right, but by a margin of {threshold} or less: {n} context",
            "  predicted right, but by a margin of {threshold} or less: {n} contexts",
            below,
        )
        lines.append(said.format(threshold=fmt(data["threshold"]), n=below))
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
        heading.format(
            margin=margin_said(focus["margin"], data["threshold"]), shares=shares_listed(focus["contributions"]), **said
        ),
        f"    {focus['sentence']}",
    ]
    if focus["window"] != focus["context"]:  # a context longer than the model's positions
        n = len(focus["window"])
        read = ngettext(
            "    The model reads only its last {n} letter, {window}: positions are counted from it.",
            "    The model reads only its last {n} letters, {window}: positions are counted from the first of them.",
            n,
        )
        lines.append(read.format(n=n, window=repr(focus["window"])))
    path = focus["path"] or []
    lines += [f"    → {step['text']}" for step in path[:SHOWN_STEPS]]
    if len(path) > SHOWN_STEPS:
        more = len(path) - SHOWN_STEPS
        lines.append(
            ngettext(
                "    → {n} more step back: grade --json has it",
                "    → {n} more steps back: grade --json has them",
                more,
            ).format(n=more)
        )
    return lines


def margin_said(margin, threshold, digits=4):
    """``margin`` as ``fmt`` writes it, with as many more digits as it takes to tell it from ``threshold``,
    which a pass needs more than: a margin of 1.00001 is not "1" beside "more than 1", nor 0.99999999."""
    for n in range(digits, 18):
        said = fmt(margin, n)
        if margin == threshold or said != fmt(threshold, n):
            return said
    return said


def shares_listed(found):  # {part: share} -> "wte 1.5, blocks[0].head0 -0.5, blocks[0].mlp 2"
    return listed(f"{name} {fmt(share)}" for name, share in found.items())
