"""Where the playground's pieces go: a bar on top, then a tab per stage with its grids beside its views.

The bar always shows the context, the model's prediction and its score, with room for two lines of
what the last action said; the score's details (why a task fails) sit below the stages, wrapped
and whole, so however long they are they never move the grids. Grids are built when their tab
is first shown (a big model has thousands of boxes). Nothing here computes
anything: ``build(playground)`` makes the widgets and gives the playground its slots to fill.
"""

import html
from dataclasses import dataclass

import ipywidgets as W

from ..display.labelled import width as text_width
from ..display.views import view_names
from ..i18n import _
from .choice import in_order
from .editors import NARROW, NumberControl, Quiet, css, message_html, refusing, say_in
from .marks import LIVE, READER_ONLY
from .textbox import TextBox

STYLE = """<style>
.hm-playground .hm-grid .widget-text {height: 22px; margin: 0; width: 46px}
.hm-playground .hm-grid .widget-text input {font-size: 12px; padding: 0 3px; height: 22px}
.hm-playground .hm-grid .widget-html, .hm-playground .hm-grid .widget-html-content {height: 22px; line-height: 22px; margin: 0}
.hm-playground .hm-panel > .widget-html-content {min-width: 0}
.hm-playground table.handmade-matrix th, .hm-playground table.handmade-matrix td {line-height: 18px; font-size: 12px}
.hm-playground .hm-stages.jupyter-widgets > .lm-TabBar {height: auto; min-height: 0}
.hm-playground .hm-stages.jupyter-widgets > .lm-TabBar .lm-TabBar-content {flex-wrap: wrap}
.hm-playground .hm-stages.jupyter-widgets > .lm-TabBar .lm-TabBar-tab {flex: 0 0 auto; max-width: none; color: #333}
.hm-playground .hm-stages.jupyter-widgets > .lm-TabBar .lm-TabBar-tabLabel {overflow: visible; text-overflow: clip}
.hm-playground .jupyter-button.mod-warning {background-color: #b34a00; color: #fff}
.hm-playground .jupyter-button.mod-warning:hover:enabled {background-color: #8f3b00}
</style>"""
# Compact grids (a row of text boxes 23 px tall instead of 33; the focus ring is every widget's, in
# marks.MARKS_CSS); a view's panel no wider than its column (a table wider than that scrolls in its own
# region, which the keyboard reaches, not in the column, which it does not); every tab's title whole
# (the tabs wrap onto a second line rather than cutting a title short), in text at 12:1; "break it"
# in a darker orange, its white text at 5.4:1 (ipywidgets' warning orange gives 2.7:1).
MESSAGE_LINES = "2.6em"  # room for two lines of what the last action said: a longer message is shown whole


@dataclass
class Screen:
    """The widgets a playground writes into."""

    widget: W.Widget  # the whole playground
    panels: dict  # (stage key, view name) -> W.HTML
    summary: dict  # "prediction", "accuracy" -> W.HTML
    outcomes: dict  # "predictions", "completion" -> W.HTML, when shown
    status: W.HTML  # what the last action did
    text_box: TextBox | None  # the context, when it can be typed
    text_message: W.HTML  # why a context was refused
    unseen: dict  # tab index -> Unseen: what the status line said of its boxes once it was hidden


@dataclass(frozen=True)
class Unseen:
    """What the status line said of a hidden tab's boxes (markup, or None), taken back when the tab is shown again;
    for a refusal, which stands while it is so, where it is read again: the tab's ``stage`` and ``editors`` (None:
    news, which the next edit takes back)."""

    said: str | None
    stage: object = None
    editors: list | None = None

    def now(self):
        """What the status line would say of these editors' refusals now (``_refusal_left``)."""
        return _refusal_left(self.stage, self.editors)


def _html(css_class, **layout):
    widget = W.HTML(layout=W.Layout(**layout))
    widget.add_class(css_class)
    return widget


def build(playground):
    """The playground's widgets, laid out: (its Screen, and the tabs' builders)."""
    p = playground
    summary = {  # what an edit changes that a screen reader should hear: status regions (marks.LIVE)
        "prediction": _html("hm-view-prediction"),
        "accuracy": _html("hm-view-accuracy", flex="1 1 320px"),
    }
    for region in summary.values():
        region.add_class(LIVE)
    if p.score is not None:  # the score's details, below the stages: however long, they never move the grids
        summary["diagnosis"] = _html("hm-diagnosis", margin="2px 0 0 0")
    outcomes = {name: _html(f"hm-view-{name}") for name in ("predictions", "completion") if name in p.view_names}
    status, text_message = _html("hm-status"), _html("hm-text-message")
    text_box = _context_box(p) if "text" in p.controls else None
    screen = Screen(None, {}, summary, outcomes, status, text_box, text_message, {})
    bar = _bar(p, screen)
    body = _stages(p, screen)
    # the grade's details, under a heading a screen reader moves to (they come after every grid: hundreds of boxes)
    below = (
        [W.HTML(_hidden_heading("h4", _("the grader's explanation"))), summary["diagnosis"]]
        if "diagnosis" in summary
        else []
    )
    screen.widget = Quiet(
        [W.HTML(STYLE + _heading(p)), bar, *outcomes.values(), body, *below],
        "Playground",
        layout=W.Layout(max_width="100%"),
    )
    screen.widget.add_class("hm-playground")
    return screen


def _heading(p):
    """A heading a screen reader finds and the page does not show, naming the playground: on a page of four, a
    learner moving by headings knows which one the context box, reset and grids below it belong to."""
    label = getattr(p.score, "label", "")  # a score's own label, if it has one that is text
    label = label.rstrip(":：") if isinstance(label, str) else ""
    said = _("playground: {name}").format(name=label) if label else _("playground")
    return _hidden_heading("h3", said, "hm-playground-heading")


def _hidden_heading(level, said, css=""):
    """A heading (``level``, "h3") that a screen reader finds and the page does not show."""
    named = f' class="{css}"' if css else ""
    return f'<{level}{named} style="{READER_ONLY}">{html.escape(said)}</{level}>'


def _context_box(p):
    box = TextBox(value=p.text, description=_("context"), description_width=NARROW, layout=W.Layout(width="200px"))
    box.add_class("hm-context")
    box.observe(lambda change: p._use_text(change["new"]), names="value")
    return box


def _bar(p, screen):
    """Above the stages: the context, reset, the prediction and the score; then a box, two lines
    high or more, for what the last action said."""
    first = [screen.text_box] if screen.text_box is not None else []
    if "reset" in p.controls:
        reset = W.Button(
            description=_("reset"),
            tooltip=_("back to the weights and controls this playground started with"),
            layout=W.Layout(width="70px"),
        )
        in_order(reset).add_class("hm-reset")
        reset.on_click(lambda _button: p.reset())
        undo = W.Button(
            description=_("undo reset"),
            tooltip=_("back to the weights and the context from before the reset"),
            layout=W.Layout(width="auto"),
        )
        in_order(undo).add_class("hm-undo-reset")
        p.undo.add("reset", undo, reset, p._undo)  # shown by a reset that changed something, until the next change
        first += [reset, undo]
    first.append(screen.summary["prediction"])
    if p.score is not None:
        first.append(screen.summary["accuracy"])
    row = W.HBox(first, layout=W.Layout(flex_flow="row wrap", align_items="center", grid_gap="4px 12px"))
    messages = W.VBox([screen.text_message, screen.status], layout=W.Layout(min_height=MESSAGE_LINES))
    bar = W.VBox([row, messages], layout=W.Layout(border="1px solid #ddd", padding="4px 8px", margin="0 0 6px 0"))
    bar.add_class("hm-bar")
    return bar


def _stages(p, screen):
    """A box per stage that has grids (its grids beside its views); several stages become tabs."""
    laid_out = p.laid_out
    boxes, titles, builders = [], [], {}
    for stage, grids, views in laid_out:
        box, fill = _stage_box(p, screen, stage, grids, views)
        builders[len(boxes)] = fill
        boxes.append(box)
        titles.append(stage.label)
    tools, tools_title = _tools(p)
    if not boxes:  # nothing to edit (a playground that shows, edit=()): no tabs, no empty box below
        return W.VBox([] if tools is None else [tools])
    if len(boxes) == 1:  # one stage: no tabs, its tools above it
        builders[0]()
        return boxes[0] if tools is None else W.VBox([tools, boxes[0]])
    if tools is not None:
        boxes.append(tools)
        titles.append(tools_title)
    tabs = in_order(W.Tab(boxes, titles=titles, layout=W.Layout(max_width="100%")))
    tabs.add_class("hm-stages")
    tabs.observe(lambda change: _open(builders, change["new"]), names="selected_index")
    unseen = screen.unseen
    tabs.observe(lambda change: _left(p, laid_out, change["old"], unseen), names="selected_index")
    tabs.observe(lambda change: _back(p, unseen, change["new"]), names="selected_index")
    for index, (stage, grids, _views) in enumerate(laid_out):
        editors = _editors(p, stage, grids)
        for editor in editors:  # the tab's editors read from the one whose message came
            editor.message.observe(_when_hidden(p, tabs, index, stage, [editor, *editors]), names="value")
    _open(builders, 0)
    return tabs


def _open(builders, index):
    """Build the grids of the tab at ``index`` the first time it is shown."""
    fill = builders.pop(index, None) if index is not None else None
    if fill is not None:
        fill()


def _left(p, laid_out, index, unseen):
    """The tab at ``index`` is hidden now: what its boxes refuse is said in the status line (``_unseen``)."""
    if index is not None and index < len(laid_out):  # not the tools' tab
        stage, grids, _views = laid_out[index]
        editors = _editors(p, stage, grids)
        unseen[index] = Unseen(_unseen(p, stage, editors), stage, editors)


def _back(p, unseen, index):
    """The tab at ``index`` is shown again: what the status line said of its refusals is taken back, if it still says
    it (the boxes and their messages say it there)."""
    said = unseen.pop(index, Unseen(None)).said
    if said and p.status.value == said:
        p.status.value = ""


def _when_hidden(p, tabs, index, stage, editors):
    """What says a refusal of ``editors[0]``, or a grid's news (boxes put back), that comes once its tab (at ``index``;
    ``editors``: it, then every editor of the tab) is hidden: a click on a tab changes it before the box it leaves
    sends its text. While another box of the tab still refuses, no news is said: what the status line says of the tab
    is read again (a box's edit is seen here before its own red edge goes)."""
    editor = editors[0]

    def said(change):
        unseen = p.screen.unseen
        if tabs.selected_index == index:
            return
        if not change["new"]:  # a refusal mended (the box left by the click held the mended text): no longer said
            return recheck_refusal_left(p)
        if refusing(editor):  # a refusal of its own
            unseen[index] = Unseen(_unseen(p, stage, editors), stage, editors)
        elif isinstance(editor, NumberControl) or any(refusing(other) for other in editors):
            # no news (the Lg box's follows the tools', a load's): what the status line says, read again
            recheck_refusal_left(p)
        else:  # out of sight, and so unheard beside the grid: said in the status line, as news
            say_in(p.status, message_html(_in_tab(stage, editor), ok=True))
            unseen[index] = Unseen(p.status.value)

    return said


def _unseen(p, stage, editors):
    """What a box of these ``editors`` of a hidden tab refuses, said beside it and so out of sight, is said again in
    the status line, with the tab's name (the box keeps its red edge): what it says, or None."""
    said = _refusal_left(stage, editors)
    if said:
        say_in(p.status, said)
    return said


def _refusal_left(stage, editors):
    """The status line's words (marked) for what the first of ``editors`` (of a hidden tab) that refuses says, or
    None."""
    refused = [editor for editor in editors if refusing(editor)]
    return message_html(_in_tab(stage, refused[0])) if refused else None


def says_a_refusal_left(p):
    """Whether the status line says what a box of a hidden tab still refuses: it stands, while it is so, through
    edits and contexts (``Playground._news_past``), until the tab is shown again."""
    return any(u.editors and u.said == p.status.value == u.now() for u in p.screen.unseen.values())


def recheck_refusal_left(p):
    """What the status line says of a hidden tab's refusals, after a box there changed: said again as it is now; once
    nothing there refuses, another hidden tab's refusal that still stands, or nothing."""
    unseen = p.screen.unseen
    for index, left in unseen.items():
        if left.editors and left.said == p.status.value:
            unseen[index] = Unseen(left.now(), left.stage, left.editors)
            if unseen[index].said != left.said:
                p.status.value = unseen[index].said or _another_refusal_left(unseen) or ""
            return


def _another_refusal_left(unseen):
    """What a hidden tab's boxes still refuse, said once it was hidden and since replaced (the status line's words), or
    None."""
    for index, left in unseen.items():
        now = left.now() if left.editors else None
        if now:
            unseen[index] = Unseen(now, left.stage, left.editors)
            return now
    return None


def _in_tab(stage, editor):
    """What ``editor`` said beside it, with the name of its tab: a grid's message names the weight; a number
    control's is named by its label."""
    if isinstance(editor, NumberControl):
        return _("in the tab “{tab}”, {name}: {said}").format(tab=stage.label, name=editor.label, said=editor.said)
    return _("in the tab “{tab}”: {said}").format(tab=stage.label, said=editor.said)


def _editors(p, stage, grids):
    """The editors of a stage's ``grids``, and its number control (Lg) if it is there."""
    here = p.strength is not None and p.strength_option.stage == stage.key
    return [p.editors[name] for name in grids] + ([p.strength] if here else [])


def what_each_stage_shows(p, t):
    """[(stage, its grids, its views)] for the stages that show anything (``t``: a trace of the
    model, which says which intermediates it has); a view shown beside grids is not shown again by a
    stage without grids."""
    laid_out, covered = [], set()
    for stage in p.stages:
        grids = [name for name in stage.parts if name in p.editors]
        views = [v for v in stage.views if v in p.view_names and view_names(t, v, stage.block)]
        laid_out.append((stage, grids, views))
        if grids:
            covered.update((stage.block, v) for v in views)
    shown = []
    for stage, grids, views in laid_out:
        if not grids:
            views = [v for v in views if (stage.block, v) not in covered]
            covered.update((stage.block, v) for v in views)
        if grids or views:
            shown.append((stage, grids, views))
    return shown


def _stage_box(p, screen, stage, grids, views):
    """(the stage's box, a function that puts its grids in): views now, grids when first shown. The views take
    the room beside the grids when their widest table fits there, else the line below them."""
    heads = _joined([p.editors[name] for name in grids])
    panels = []
    for view in views:
        panel = _html(f"hm-view-{view}", max_width="100%")
        panel.add_class(f"hm-view-{css(stage.key)}-{view}")
        panel.add_class("hm-panel")
        screen.panels[(stage.key, view)] = panel
        panels.append(panel)
    left = W.VBox(layout=W.Layout(flex="0 1 auto", margin="0 16px 0 0", max_width="100%"))

    def fill():
        strength = p.strength
        here = [strength.widget] if strength is not None and p.strength_option.stage == stage.key else []
        left.children = here + [editor.widget for editor in heads]

    # as wide as its widest table at least (min-content: the tables wrap beside each other), else on a line of its own
    right = W.VBox(panels, layout=W.Layout(flex="1 1 auto", width="min-content", min_width="0", max_width="100%"))
    row = W.HBox([left, right], layout=W.Layout(flex_flow="row wrap", align_items="flex-start", max_width="100%"))
    row.add_class(f"hm-stage-{css(stage.key)}")
    return row, fill


def _joined(editors):
    """The editors whose grids a stage shows, each with the label column of the widest row label; an editor of the
    layer of the one before it, with its columns (a bias under its weights), shown in that one's grid, as one table
    (``MatrixEditor.under``): each box of a bias under its column."""
    labels = [row for editor in editors for row in editor.matrix.rows]
    label_width = 12 + 7 * max(map(text_width, labels), default=4)
    heads = []
    for editor in editors:
        editor.label_width = label_width
        head = heads[-1] if heads else None
        if head is not None and _layer(editor.name) == _layer(head.name) and editor.matrix.cols == head.matrix.cols:
            head.under = (*head.under, editor)
        else:
            editor.under, editor.heading = (), True
            heads.append(editor)
    return heads


def _layer(part):
    """The layer a part belongs to: "c_proj" for c_proj.w and c_proj.b, "q" for q and q.b."""
    return part[:-2] if part.endswith((".w", ".b", ".g")) else part


def _tools(p):
    """The tools' box and its tab's title (None, None when there are none)."""
    rows, names = [], []
    if "break" in p.controls and p.editors:
        rows.append(p.break_control())
        names.append(_("break"))
    if "save" in p.controls:
        rows.append(p.save_control())
        names.append(_("save"))
    if p.task is not None and getattr(p.score, "reveal", None) is not None:
        rows.append(p.reveal_control())
        names.append(_("answer"))
    if not rows:
        return None, None
    return W.VBox(rows, layout=W.Layout(padding="4px 0")), " · ".join(names)
