"""Live editors for the notebooks (ipywidgets is imported here, and only here).

``Playground`` edits any model the package can run. It lays the model out by stage (the
embedding, each block's attention, values, projection and MLP, the output): in each stage the
weight grids sit beside the views they change, and a bar above all stages always shows the
context, the model's prediction and its score. Every view is a table of one ``trace()`` of the
package's ``gpt()``; one edit costs that one pass plus the passes the score needs.

A bad entry (not a number, not finite, or weights that overflow) shows a message beside the
editor and leaves the model as it was. In a viewer without a kernel the widgets do not render,
so each notebook also shows ``playground.snapshot()``: the same views as static HTML, collapsed
and titled as the state saved with the notebook.
"""

import html
import re
from dataclasses import dataclass

import ipywidgets as W
import numpy as np

from .. import parts as P
from ..blog import BASIS, LG, blog_model
from ..display.labelled import LabelledMatrix, fmt
from ..display.labelled import width as text_width
from ..display.outputs import Html, side_by_side, softmax_story
from ..display.trace import trace, weight_tables
from ..i18n import _
from ..inference import accuracy, complete, prepare
from ..structure import INTERMEDIATES
from ..weights import NonFiniteError, WeightsError, check_weights

CONTROLS = ("text", "reset", "lg", "break", "save")
OUTCOMES = ("accuracy", "predictions", "completion")  # views of what the model says, not of a matrix
CELL = "46px"
STYLE = """<style>
.hm-playground .hm-grid .widget-text {height: 22px; margin: 0; width: 46px}
.hm-playground .hm-grid .widget-text input {font-size: 12px; padding: 0 3px; height: 22px}
.hm-playground .hm-grid .widget-html, .hm-playground .hm-grid .widget-html-content {height: 22px; line-height: 22px; margin: 0}
.hm-playground table.handmade-matrix th, .hm-playground table.handmade-matrix td {line-height: 18px; font-size: 12px}
</style>"""  # compact grids: a row of text boxes 23 px tall instead of 33
NARROW = {"description_width": "initial"}  # a widget's label takes only the room it needs
MAX_CONTEXT_CHARS = 10_000  # what the context box accepts (the model reads the last n_ctx)


class Quiet(W.VBox):
    """A VBox whose plain-text form is one fixed line (what a viewer without widgets shows)."""

    def __init__(self, children, label, **kwargs):
        super().__init__(children, **kwargs)
        self._label = label

    def __repr__(self):
        return _("[{name}: an interactive widget; run the notebook in Jupyter to use it]").format(name=self._label)


def message_html(text, ok=False):
    colour = "#1a7f37" if ok else "#b3261e"
    return f'<span style="color:{colour}">{html.escape(text, quote=False)}</span>' if text else ""


def _css(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# ---- one editable matrix ------------------------------------------------------------------


class MatrixEditor:
    """A grid of text boxes for one labelled matrix, with a message beside it.

    ``on_edit(name, values)`` is called with the whole new array after each valid entry; it
    returns an error message (the edit is then undone in the model) or "".
    """

    def __init__(self, name, matrix, on_edit, label_width=56, heading=True):
        self.name, self.matrix, self.on_edit = name, matrix, on_edit
        self.values = matrix.values.copy()
        self._quiet = False
        self._boxes = self._widget = None  # built when first shown: a big model has thousands of boxes
        self.message = W.HTML(layout=W.Layout(max_width="360px", margin="0 0 0 8px"))
        self.message.add_class(f"hm-message-{_css(name)}")
        self.label_width, self.heading = label_width, heading

    @property
    def boxes(self):  # [n_rows][n_cols] of text boxes
        if self._boxes is None:
            self._boxes = [[self._box(i, j) for j in range(self.matrix.shape[1])] for i in range(self.matrix.shape[0])]
        return self._boxes

    @property
    def widget(self):
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self):
        """The grid, its label column ``label_width`` px wide, with or without its heading."""
        matrix, name, label_width, heading = self.matrix, self.name, self.label_width, self.heading
        header = [W.HTML("")] + [self._label(c, j) for j, c in enumerate(matrix.cols)] if heading else []
        rows = [[self._label(r)] + self.boxes[i] for i, r in enumerate(matrix.rows)]
        grid = W.GridBox(
            [cell for row in [header, *rows] for cell in row],
            layout=W.Layout(
                grid_template_columns=f"{label_width}px repeat({matrix.shape[1]}, {CELL})",
                grid_gap="1px 2px",
                flex="0 0 auto",
            ),
        )
        grid.add_class("hm-grid")
        parts = [W.HBox([W.Box([grid], layout=W.Layout(overflow="auto", max_width="100%")), self.message])]
        if heading:
            title = f"<b style='font-size:12px'>{html.escape(matrix.title)}</b>"
            parts.insert(0, W.HTML(title))
        widget = W.VBox(parts, layout=W.Layout(margin="0 0 4px 0" if heading else "0 0 8px 0"))
        widget.add_class(f"hm-editor-{_css(name)}")
        return widget

    def _label(self, text, j=None):
        edge = "border-left:2px solid #555;padding-left:2px;" if j in self.matrix.col_splits else ""
        return W.HTML(
            f'<div style="font-family:monospace;font-size:11px;white-space:nowrap;{edge}">{html.escape(text)}</div>'
        )

    def _box(self, i, j):
        box = W.Text(
            value=fmt(self.values[i, j]),
            continuous_update=False,
            layout=W.Layout(width=CELL, height="24px", margin="0"),
        )
        box.add_class(f"hm-cell-{_css(self.name)}-{i}-{j}")
        box.observe(lambda change: self._typed(i, j, change["new"]), names="value")
        return box

    def _typed(self, i, j, text):
        if self._quiet:
            return
        where = f"{self.name}[{self.matrix.rows[i]}, {self.matrix.cols[j]}]"
        keeps = fmt(self.values[i, j])
        try:
            value = float(text)
        except (ValueError, OverflowError):
            return self.show(
                _("{where}: {text} is not a number; the model keeps {keeps}").format(
                    where=where, text=repr(text[:40]), keeps=keeps
                )
            )
        if not np.isfinite(value):
            return self.show(
                _("{where}: {text} is not finite; the model keeps {keeps}").format(
                    where=where, text=text[:40], keeps=keeps
                )
            )
        new = self.values.copy()
        new[i, j] = value
        problem = self.on_edit(self.name, new)
        if problem:
            return self.show(
                _("{where} = {text}: {problem}; the model keeps {keeps}").format(
                    where=where, text=text[:40], problem=problem, keeps=keeps
                )
            )
        self.values = new
        self.show("")

    def show(self, text):
        self.message.value = message_html(text)

    def set_values(self, values):
        """Show new values (reset, load, Lg) without treating them as typed edits."""
        self.values = np.array(values, dtype=float).reshape(self.values.shape)
        if self._boxes is None:  # not shown yet: the boxes will start from these values
            return self.show("")
        self._quiet = True
        try:
            for (i, j), value in np.ndenumerate(self.values):
                self._boxes[i][j].value = fmt(value)
        finally:
            self._quiet = False
        self.show("")


# ---- the stages of a model ----------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    key: str  # "embedding", "blocks[1].attention", ...
    label: str  # the tab's title
    parts: tuple  # the weights edited here (names from handmade.parts)
    views: tuple  # the intermediates shown here (view names, see VIEW_KINDS)
    block: int = -1  # the block whose intermediates the views show (-1: none)


VIEW_KINDS = {  # a view name -> the trace intermediates it shows
    "embedding": ("embedding",),
    "ln_1": ("ln_1",),
    "scores": ("scores",),
    "attention": ("attention_weights",),
    "v": ("v",),
    "attention_output": ("attention_output",),
    "residual": ("residual",),
    "mlp_hidden": ("ln_2", "mlp_hidden"),
    "mlp_residual": ("mlp_residual",),
    "logits": ("ln_f", "logits", "probabilities"),
}
HEATED = {"scores", "attention_weights", "logits", "probabilities"}  # shaded like heatmaps
assert {kind for kinds in VIEW_KINDS.values() for kind in kinds} <= set(INTERMEDIATES), (
    "views show intermediates the trace names"
)


def stages(params):
    """The stages of ``params`` in the order of the pass: each grid with the views it changes."""
    n = len(params["blocks"])
    found = [Stage("embedding", "wte · wpe", ("wte", "wpe"), ("embedding",))]
    for i, block in enumerate(params["blocks"]):
        p, at = ("" if n == 1 else f"blocks[{i}]."), ("" if n == 1 else f"{i}·")
        if "ln_1" in block:
            found.append(Stage(f"{p}ln_1", at + "ln_1", (f"{p}ln_1.g", f"{p}ln_1.b"), ("ln_1",), i))
        found += [
            Stage(f"{p}q", at + "q", (f"{p}q", f"{p}q.b"), ("scores", "attention"), i),
            Stage(f"{p}k", at + "k", (f"{p}k", f"{p}k.b"), ("scores", "attention"), i),
            Stage(f"{p}v", at + "v", (f"{p}v", f"{p}v.b"), ("v", "attention_output"), i),
            Stage(f"{p}c_proj", at + "c_proj", (f"{p}c_proj.w", f"{p}c_proj.b"), ("residual",), i),
        ]
        if "mlp" in block:
            norm = (f"{p}ln_2.g", f"{p}ln_2.b") if "ln_2" in block else ()
            found.append(
                Stage(f"{p}mlp.c_fc", at + "mlp.c_fc", (*norm, f"{p}mlp.c_fc.w", f"{p}mlp.c_fc.b"), ("mlp_hidden",), i)
            )
            found.append(
                Stage(
                    f"{p}mlp.c_proj", at + "mlp.c_proj", (f"{p}mlp.c_proj.w", f"{p}mlp.c_proj.b"), ("mlp_residual",), i
                )
            )
    if "ln_f" in params:
        found.append(Stage("ln_f", "ln_f", ("ln_f.g", "ln_f.b"), ("logits",), n - 1))
    else:  # the logits join the last stage: what it writes into the stream is what they read
        last = found[-1]
        found[-1] = Stage(last.key, last.label, last.parts, (*last.views, "logits"), last.block)
    return found


def _layer(part):
    """The layer a part belongs to: "c_proj" for c_proj.w and c_proj.b, "q" for q and q.b."""
    return part[:-2] if part.endswith((".w", ".b", ".g")) else part


def _view_names(t, view, block):
    """The trace names a view shows, for one block (several heads: one per head)."""
    kinds = VIEW_KINDS[view]
    names = []
    for name in t:
        kind = name.rsplit(".", 1)[-1]
        in_block = name.startswith(f"blocks[{block}].") if block >= 0 and name.startswith("blocks[") else True
        per_head = name.count(".") > 1
        if kind in kinds and in_block and not (kind == "attention_output" and per_head):  # heads: their concatenation
            names.append(name)
    return names


def _changed(before, after):
    """The cells of ``after`` that differ from ``before`` (same shape), as a set of (row, col)."""
    if before is None or before.shape != after.shape:
        return frozenset()
    with np.errstate(all="ignore"):
        differ = ~np.isclose(before, after, rtol=1e-12, atol=1e-12, equal_nan=True)
    return frozenset(map(tuple, np.argwhere(differ)))


def view_html(t, name, before=None, caption=True):
    """One intermediate of a trace as an HTML table that scrolls inside itself when wide."""
    matrix = t[name]
    kind = name.rsplit(".", 1)[-1]
    changed = _changed(None if before is None or name not in before else before[name].values, matrix.values)
    table = matrix.html(heat=kind in HEATED, changed=changed, caption=caption)
    return f'<div style="overflow-x:auto;max-width:100%">{table}</div>'


# ---- scoring --------------------------------------------------------------------------------


class TaskScore:
    """A task's grade (every context, and the margin): the score a task's playground shows."""

    def __init__(self, task):
        self.task, self.label = task, f"{task.name}:"

    def __call__(self, params):
        from ..course.grader import grade

        report = grade(self.task, params)
        summary = _("{correct} / {total} right, margin {margin} (a pass needs all and more than {threshold})").format(
            correct=report.correct, total=report.total, margin=fmt(report.margin, 3), threshold=fmt(report.threshold)
        )
        if report.passed:
            summary = _("PASS: {summary}").format(summary=summary)
        details = []
        if report.failures:
            details.append(_("first miss: {miss}").format(miss=report.failures[0]))
        if report.diagnosis:
            details.append(_("where it goes wrong: {diagnosis}").format(diagnosis=report.diagnosis))
        return report.passed, summary, details


class BlogScore:
    """The blog's accuracy on (aab)*: the score the playground shows for a blog-shaped model."""

    label = "(aab)*"

    def __call__(self, params):
        score = accuracy(params)
        misses = [
            _("missed: {context} → expected {expected}, got {got}").format(
                context=e.context, expected=e.expected, got=got
            )
            for e, got in score.failures[:4]
        ]
        return score.perfect, str(score), misses


# ---- the playground -----------------------------------------------------------------------


class Playground:
    """Edit a model's weights and watch every view of it update at once.

    ``params``: any model (the blog's when None). ``edit``: which parts get grids (names from
    ``handmade.parts``; default: all). ``views``: which views to show (keys of VIEW_KINDS and
    OUTCOMES; default: every stage's views, the predictions and the accuracy). ``controls``: any of
    "text" (the context), "reset", "lg" (c_proj's strength, blog-shaped models only), "break",
    "save". ``score``: a function ``params -> (passed, summary, details)`` shown in the bar (the
    blog's accuracy for a model over a and b).
    """

    def __init__(
        self, params=None, *, task=None, text=None, edit=None, views=None, controls=None, save_path=None, score=None
    ):
        if task is not None:
            from ..course.tasks import blank, get_task

            task = get_task(task)
            params = blank(task) if params is None else params
            score = TaskScore(task) if score is None else score
        self.task = task
        self.original = prepare(params)
        self.params = self.original
        alphabet = self.params.labels.alphabet
        self.text = text if text is not None else _first_context(task, alphabet, len(self.params["wpe"]))
        if controls is None:  # the Lg control sets c_proj by the blog's rule: only for the blog's directions
            blog_shaped = self.params.labels.residual == BASIS and len(self.params["blocks"]) == 1
            controls = CONTROLS if blog_shaped and task is None else tuple(c for c in CONTROLS if c != "lg")
        all_parts = list(P.parts(self.params))
        self.stages = stages(self.params)
        edit = all_parts if edit is None else list(edit)
        default_views = {view for stage in self.stages for view in stage.views} | {"accuracy"}
        views = default_views if views is None else set(views)
        self._refuse_unknown(_("no part called {name}; choose from {allowed}"), edit, all_parts)
        self._refuse_unknown(_("no view called {name}; choose from {allowed}"), views, [*VIEW_KINDS, *OUTCOMES])
        self._refuse_unknown(_("no control called {name}; choose from {allowed}"), controls, CONTROLS)
        self.score = score if score is not None else (BlogScore() if alphabet == "ab" and "accuracy" in views else None)
        self.view_names, self.controls = views, tuple(controls)
        self.save_path, self._start_text = save_path, self.text
        tables = weight_tables(self.params)
        self.editors = {name: MatrixEditor(name, tables[name], self._edited) for name in all_parts if name in edit}
        self.panels = {}  # (stage key, view name) -> W.HTML
        self.status = W.HTML()
        self.status.add_class("hm-status")
        self.summary = {name: W.HTML() for name in ("prediction", "accuracy")}
        for name, box in self.summary.items():
            box.add_class(f"hm-view-{name}")
        self.outcomes = {name: W.HTML() for name in ("predictions", "completion") if name in views}
        for name, box in self.outcomes.items():
            box.add_class(f"hm-view-{name}")
        self._last = None  # the trace on screen, to mark what an edit changed
        self.lg = LgControl(self._lg_changed) if "lg" in self.controls else None
        bar = self._bar()
        body = self._stage_boxes()
        self.widget = Quiet(
            [W.HTML(STYLE), bar, *self.outcomes.values(), body], "Playground", layout=W.Layout(max_width="100%")
        )
        self.widget.add_class("hm-playground")
        self._show(self._render(self.params, self.text, self._last))

    def _refuse_unknown(self, sentence, names, allowed):
        unknown = [name for name in names if name not in allowed]
        if unknown:
            raise ValueError(sentence.format(name=repr(unknown[0]), allowed=", ".join(allowed)))

    # ---- layout

    def _stage_boxes(self):
        """A box per stage that has grids (its grids beside its views); several stages become tabs."""
        t = trace(self.text, self.params)  # which intermediates this model has
        laid_out, covered = [], set()
        for stage in self.stages:
            grids = [name for name in stage.parts if name in self.editors]
            views = [v for v in stage.views if v in self.view_names and _view_names(t, v, stage.block)]
            laid_out.append((stage, grids, views))
            if grids:
                covered.update((stage.block, v) for v in views)
        boxes, titles, self._unbuilt = [], [], {}
        for stage, grids, views in laid_out:
            if not grids:  # views alone: only those no stage with grids shows already
                views = [v for v in views if (stage.block, v) not in covered]
                covered.update((stage.block, v) for v in views)
            if grids or views:
                box, fill = self._stage_box(stage, grids, views)
                self._unbuilt[len(boxes)] = fill
                boxes.append(box)
                titles.append(stage.label)
        tools, tools_title = self._tools()
        if tools is not None and len(boxes) > 1:
            boxes.append(tools)
            titles.append(tools_title)
        elif tools is not None:
            boxes.insert(0, tools)
            self._unbuilt = {i + 1: fill for i, fill in self._unbuilt.items()}
        if len(boxes) == 1 or len(titles) < len(boxes):  # one stage (and its tools): no tabs
            for fill in self._unbuilt.values():
                fill()
            return boxes[0] if len(boxes) == 1 else W.VBox(boxes)
        tabs = W.Tab(boxes, titles=titles, layout=W.Layout(max_width="100%"))
        tabs.add_class("hm-stages")
        tabs.observe(lambda change: self._open(change["new"]), names="selected_index")
        self._open(0)
        return tabs

    def _open(self, index):
        """Build the grids of the tab at ``index`` the first time it is shown."""
        fill = self._unbuilt.pop(index, None) if index is not None else None
        if fill is not None:
            fill()

    def _tools(self):
        """The tools' box and its tab's title (None, None when there are none)."""
        rows, names = [], []
        if "break" in self.controls and self.editors:
            rows.append(self._break_control())
            names.append(_("break"))
        if "save" in self.controls:
            rows.append(self._save_control())
            names.append(_("save"))
        if not rows:
            return None, None
        return W.VBox(rows, layout=W.Layout(padding="4px 0")), " · ".join(names)

    def _stage_box(self, stage, grids, views):
        """(the stage's box, a function that puts its grids in): views now, grids when first shown."""
        labels = [row for name in grids for row in self.editors[name].matrix.rows]
        width = 12 + 7 * max(map(text_width, labels), default=4)
        for k, name in enumerate(grids):  # a bias right under its weights, as one table
            self.editors[name].label_width = width
            self.editors[name].heading = not (k > 0 and _layer(name) == _layer(grids[k - 1]))
        panels = []
        for view in views:
            panel = W.HTML(layout=W.Layout(max_width="100%"))
            panel.add_class(f"hm-view-{view}")
            panel.add_class(f"hm-view-{_css(stage.key)}-{view}")
            self.panels[(stage.key, view)] = panel
            panels.append(panel)
        left = W.VBox(layout=W.Layout(flex="0 1 auto", margin="0 16px 0 0", max_width="100%"))

        def fill():
            lg = [self.lg.widget] if self.lg is not None and stage.key == "c_proj" else []  # c_proj's strength
            left.children = lg + [self.editors[name].widget for name in grids]

        right = W.VBox(panels, layout=W.Layout(flex="1 1 300px", min_width="0", max_width="100%"))
        row = W.HBox([left, right], layout=W.Layout(flex_flow="row wrap", align_items="flex-start", max_width="100%"))
        row.add_class(f"hm-stage-{_css(stage.key)}")
        return row, fill

    def _bar(self):
        """The bar above the stages: the context, what the model predicts, its score, the controls."""
        first = []
        self._text_box, self._text_message = None, W.HTML()
        if "text" in self.controls:
            self._text_box = W.Text(
                value=self.text,
                description=_("context"),
                continuous_update=False,
                layout=W.Layout(width="200px"),
                style=NARROW,
            )
            self._text_box.add_class("hm-context")
            self._text_box.observe(lambda change: self._use_text(change["new"]), names="value")
            first.append(self._text_box)
        if "reset" in self.controls:
            reset = W.Button(
                description=_("reset"),
                tooltip=_("back to the weights and controls this playground started with"),
                layout=W.Layout(width="70px"),
            )
            reset.add_class("hm-reset")
            reset.on_click(lambda _button: self.reset())
            first.append(reset)
        if "predictions" in self.view_names or "accuracy" in self.view_names:
            first.append(self.summary["prediction"])
        if self.score is not None:
            first.append(self.summary["accuracy"])
        rows = (
            [W.HBox(first, layout=W.Layout(flex_flow="row wrap", align_items="center", grid_gap="4px 12px"))]
            if first
            else []
        )
        rows += [self._text_message, self.status]
        bar = W.VBox(rows, layout=W.Layout(border="1px solid #ddd", padding="4px 8px", margin="0 0 6px 0"))
        bar.add_class("hm-bar")
        return bar

    # ---- the public surface: what notebooks and tests use

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def snapshot(self):
        """The current views as static HTML, collapsed, titled as the state saved with the notebook."""
        _t, shown = self._render(self.params, self.text, None)  # the live views' markup, unmarked
        parts = [f"<p>{shown['prediction']} {shown['accuracy']}</p>"]
        parts += [shown[outcome] for outcome in ("predictions", "completion") if outcome in shown]
        seen = set()  # a view two tabs share (q and k both show the scores) is shown once
        for stage in self.stages:
            views = [v for v in stage.views if (stage.key, v) in shown and (stage.block, v) not in seen]
            seen.update((stage.block, v) for v in views)
            if views:
                parts.append(f"<h4 style='margin:8px 0 2px'>{html.escape(stage.label)}</h4>")
                parts += [shown[(stage.key, v)] for v in views]
        summary = _(
            "Snapshot saved with the notebook, for readers without a running kernel (context {text}); the live playground above is the one to use"
        ).format(text=repr(self.text))
        markup = f"<details class='hm-snapshot'><summary style='color:#555'><i>{html.escape(summary)}</i></summary>{''.join(parts)}</details>"
        return Html(markup, _("(snapshot of the playground on {text})").format(text=repr(self.text)))

    def refresh(self):
        """Redraw every view from the current weights and context."""
        self._show(self._render(self.params, self.text, self._last))

    def replace(self, params, note=""):
        """Take new weights and show them everywhere; if they cannot run, keep the old ones."""
        try:
            params = check_weights(params)
            self._check_fits(params)
            rendered = self._render(params, self.text, self._last)
        except (NonFiniteError, ValueError) as error:
            self.status.value = message_html(_("{error}; the model is unchanged").format(error=error))
            return False
        self.params = params
        self._show(rendered)  # the views first, then the grids: a page that shows the new grids shows their effect
        tables = weight_tables(params)
        for name, editor in self.editors.items():
            editor.set_values(tables[name].values)
        self.status.value = message_html(note, ok=True)
        return True

    def reset(self):
        """Every weight and every control back to where this playground started."""
        self.text = self._start_text
        if self._text_box is not None:
            self._text_box.value = self.text
        if self.lg is not None:
            self.lg.set(LG, quietly=True)
        self._last = None
        self.replace(self.original, _("reset to the starting weights"))

    # ---- computing what is shown

    def _render(self, params, text, before):
        """(trace, {what: html}) for the bar and every panel, the cells that changed since the trace
        ``before`` (None: nothing to compare with) outlined; raises if these weights cannot run on ``text``."""
        t = trace(text, params)
        shown = {"prediction": self._prediction_html(t), "accuracy": self._score_html(params)}
        if "predictions" in self.outcomes:
            shown["predictions"] = self._predictions_html(t)
        if "completion" in self.outcomes:
            shown["completion"] = self._completion_html(params, text)
        for stage in self.stages:
            for view in stage.views:
                if (stage.key, view) in self.panels:
                    names = _view_names(t, view, stage.block)
                    tables = "".join(
                        f"<div style='margin:0 16px 4px 0'><div style='font-size:12px;margin-top:4px'><b>{html.escape(t[name].title)}</b></div>"
                        + view_html(t, name, before, caption=False)
                        + "</div>"
                        for name in names
                    )
                    shown[(stage.key, view)] = (
                        f"<div style='display:flex;flex-wrap:wrap;align-items:flex-start'>{tables}</div>"
                    )
        return t, shown

    def _show(self, rendered):
        t, shown = rendered
        for key, value in shown.items():
            target = self.panels.get(key) or self.summary.get(key) or self.outcomes.get(key)
            if target is not None and target.value != value:
                target.value = value
        self._last = t

    def _prediction_html(self, t):
        probs = t["probabilities"]  # its columns name the tokens of the weights it ran
        best = int(np.argmax(probs.values[-1]))
        token, p = probs.cols[best], probs.values[-1, best]
        context = t.text if len(t.text) <= 24 else "…" + t.text[-23:]
        return _("after <code>{context}</code> the model predicts <b>{token}</b> (p = {p})").format(
            context=html.escape(context), token=html.escape(token), p=fmt(p, 3)
        )

    def _score_html(self, params):
        if self.score is None:
            return ""
        passed, summary, details = self.score(params)
        colour = "#1a7f37" if passed else "#b3261e"
        label = html.escape(getattr(self.score, "label", ""))
        line = "font-size:11px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:640px"
        more = "".join(  # at most two short lines, however much there is to say: the bar keeps its height
            f"<div style='{line}' title='{html.escape(d, quote=True)}'>{html.escape(d)}</div>" for d in details[:2]
        )
        return f"<div style='line-height:1.3'><span style='color:{colour}'>{label} <b>{html.escape(summary)}</b></span>{more}</div>"

    def _predictions_html(self, t):
        probs = t["probabilities"]
        tokens = probs.cols  # the tokens of the weights that ran, not of those on screen before
        table = LabelledMatrix(
            probs.values, probs.rows, [f"P({c})" for c in tokens], title=_("prediction at each position")
        )
        guesses = "".join(
            "<li>{}</li>".format(
                _("after {row}: {token}").format(
                    row=html.escape(row), token=f"<b>{html.escape(tokens[int(np.argmax(p))])}</b>"
                )
            )
            for row, p in zip(probs.rows, probs.values)
        )
        return side_by_side(table.html(heat=True), f"<ul style='margin:0'>{guesses}</ul>").markup

    def _completion_html(self, params, text):
        return f"<pre>{html.escape(complete(text, 10, params))}</pre>"

    # ---- editing

    def _edited(self, name, values):
        try:
            candidate = P.with_part(self.params, name, values)
            rendered = self._render(candidate, self.text, self._last)
        except (NonFiniteError, ValueError) as error:
            return str(error)
        self.params = candidate
        self._show(rendered)
        self.status.value = ""
        return ""

    def _use_text(self, text):
        if len(text) > MAX_CONTEXT_CHARS:
            self._text_message.value = message_html(
                _("a context of at most {limit} characters, please; still showing {text}").format(
                    limit=MAX_CONTEXT_CHARS, text=repr(self.text)
                )
            )
            return
        try:
            rendered = self._render(self.params, text, None)  # another context: nothing to compare with
        except (NonFiniteError, ValueError) as error:
            self._text_message.value = message_html(
                _("{error}; still showing {text}").format(error=error, text=repr(self.text))
            )
            return
        self.text = text
        self._text_message.value = ""
        self._show(rendered)

    def _check_fits(self, params):
        """The grids need the same parts of the same shapes as the model this playground started with."""
        mine = {name: p.shape for name, p in P.parts(self.params).items()}
        theirs = {name: p.shape for name, p in P.parts(params).items()}
        if mine != theirs:
            raise WeightsError(
                _("this playground edits a model with parts {mine}; these weights have {theirs}").format(
                    mine=_shape_summary(mine), theirs=_shape_summary(theirs)
                )
            )

    # ---- controls

    def _lg_changed(self, value):
        if len(self.params["blocks"]) != 1 or self.params.labels.residual != BASIS:
            self.lg.show(_("the Lg control sets c_proj by the blog's rule, so it needs the blog's directions"))
            return False
        c_proj = blog_model(proj_lg=value)["blocks"][0]["attn"]["c_proj"]
        new = P.with_parts(self.params, {"c_proj.w": c_proj["w"], "c_proj.b": c_proj["b"]})
        return self.replace(new, _("c_proj set to the blog's rule with Lg = {lg}").format(lg=fmt(value)))

    def _break_control(self):
        names = list(self.editors)
        start = "c_proj.w" if "c_proj.w" in names else names[0]
        which = W.Dropdown(
            options=names, value=start, description=_("break"), layout=W.Layout(width="170px"), style=NARROW
        )
        row = W.Dropdown(layout=W.Layout(width="90px"))
        col = W.Dropdown(layout=W.Layout(width="90px"))
        actions = {_("set to 0"): lambda x: 0.0, _("flip sign"): lambda x: -x, _("add 1"): lambda x: x + 1}
        action = W.Dropdown(options=list(actions), layout=W.Layout(width="100px"))
        go = W.Button(description=_("break it"), button_style="warning", layout=W.Layout(width="90px"))
        for widget, name in ((which, "matrix"), (row, "row"), (col, "col"), (action, "action"), (go, "go")):
            widget.add_class(f"hm-break-{name}")

        def chosen(_change=None):
            m = self.editors[which.value].matrix
            row.options, col.options = list(m.rows), list(m.cols)
            if which.value == "c_proj.w" and "V" in m.rows and "Tb" in m.cols:
                row.value, col.value = "V", "Tb"  # the blog's Lg that writes b

        def press(_button):
            editor = self.editors[which.value]
            i, j = editor.matrix.rows.index(row.value), editor.matrix.cols.index(col.value)
            values = editor.values.copy()
            values[i, j] = actions[action.value](values[i, j])
            candidate = P.with_part(self.params, which.value, values)
            self.replace(
                candidate,
                _("{name}[{row}, {col}] is now {value}").format(
                    name=which.value, row=row.value, col=col.value, value=fmt(values[i, j])
                ),
            )

        which.observe(chosen, names="value")
        go.on_click(press)
        chosen()
        return W.HBox([which, row, col, action, go], layout=W.Layout(flex_flow="row wrap"))

    def _save_control(self):
        default = str(self.save_path or "my_weights.json")
        path = W.Text(value=default, description=_("file"), layout=W.Layout(width="260px"), style=NARROW)
        save = W.Button(description=_("save weights"), layout=W.Layout(width="120px"))
        load = W.Button(description=_("load weights"), layout=W.Layout(width="120px"))
        for widget, name in ((path, "path"), (save, "save"), (load, "load")):
            widget.add_class(f"hm-file-{name}")

        def do_save(_button):
            from ..files import save_weights

            try:
                done = save_weights(self.params, path.value)
            except (OSError, WeightsError) as error:
                self.status.value = message_html(_("could not save: {error}").format(error=error))
                return
            self.status.value = message_html(_("saved: {done}").format(done=done), ok=True)

        def do_load(_button):
            from ..files import load_weights

            try:
                loaded = load_weights(path.value)
            except (OSError, ValueError) as error:
                self.status.value = message_html(_("{error}; the model is unchanged").format(error=error))
                return
            self.replace(loaded, _("loaded the weights from {path}").format(path=path.value))

        save.on_click(do_save)
        load.on_click(do_load)
        return W.HBox([path, save, load], layout=W.Layout(flex_flow="row wrap"))


def _first_context(task, alphabet, n_ctx):
    if task is not None:  # the longest graded context: every position of it is a question of the task
        from ..course.tasks import examples

        return max((e.context for e in examples(task)), key=len)[-n_ctx:]
    return "aabaa" if alphabet == "ab" else alphabet[:n_ctx]


def _shape_summary(shapes, limit=4):
    items = [f"{name} {rows}x{cols}" for name, (rows, cols) in shapes.items()]
    return ", ".join(items[:limit]) + (f", … ({len(items)} parts)" if len(items) > limit else "")


# ---- the Lg control -----------------------------------------------------------------------


class LgControl:
    """c_proj's strength: a box that takes any exact value (0, 1, 1.01, 1024) and a slider that follows.

    ``on_change(value)`` applies a value and returns True, or False to keep the old one.
    """

    def __init__(self, on_change, value=LG):
        self.on_change, self.value, self._quiet = on_change, float(value), False
        self.box = W.FloatText(
            value=self.value, description=_("c_proj Lg"), layout=W.Layout(width="160px"), style=NARROW,
            tooltip=_("type any value (0, 1, 1.01, 1024) or slide"),
        )  # fmt: skip
        self.slider = W.FloatLogSlider(
            value=self.value, base=2, min=-4, max=11, step=0.05, readout=False, layout=W.Layout(width="200px")
        )
        self.message = W.HTML()
        self.box.add_class("hm-lg-box")
        self.slider.add_class("hm-lg")
        self.message.add_class("hm-lg-message")
        self.box.observe(lambda change: self._typed(change["new"]), names="value")
        self.slider.observe(lambda change: self._slid(change["new"]), names="value")
        self.widget = W.HBox(
            [self.box, self.slider, self.message], layout=W.Layout(flex_flow="row wrap", align_items="center")
        )

    def _typed(self, value):
        if self._quiet or value == self.value:
            return
        if not np.isfinite(value) or abs(value) > 1e300:
            self.show(_("Lg must be a finite number; keeping {lg}").format(lg=fmt(self.value)))
            return self.set(self.value, quietly=True)
        if self.on_change(value):
            self.set(value, quietly=True)
            self.show("")
        else:
            self.set(self.value, quietly=True)

    def _slid(self, value):
        if self._quiet:
            return
        value = float(f"{value:.4g}")  # a slider position is not an exact value: round it for the box
        if self.on_change(value):
            self.set(value, quietly=True)
            self.show("")

    def set(self, value, quietly=False):
        """Show ``value`` in the box and move the slider to it (as near as it goes), without applying it."""
        self._quiet = quietly
        try:
            self.value = float(value)
            self.box.value = self.value
            self.slider.value = min(max(self.value, 2.0**self.slider.min), 2.0**self.slider.max)
        finally:
            self._quiet = False

    def show(self, text):
        self.message.value = message_html(text)


# ---- the smaller explorers ----------------------------------------------------------------


class ProductExplorer:
    """Pick an output cell of A @ B and see which row and column make it."""

    def __init__(self, a, b, i=0, j=0):
        from ..display.outputs import dot_product_story

        self.a, self.b, self._story = np.asarray(a), np.asarray(b), dot_product_story
        self.row = W.ToggleButtons(options=list(range(self.a.shape[0])), value=i, description=_("row"))
        self.col = W.ToggleButtons(options=list(range(self.b.shape[1])), value=j, description=_("column"))
        self.view = W.HTML()
        for widget, name in ((self.row, "row"), (self.col, "col"), (self.view, "view")):
            widget.add_class(f"hm-product-{name}")
        for control in (self.row, self.col):
            control.observe(lambda _change: self.refresh(), names="value")
        self.widget = Quiet([self.row, self.col, self.view], "ProductExplorer")
        self.refresh()

    def refresh(self):
        self.view.value = self._story(self.a, self.b, self.row.value, self.col.value).markup

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


class SoftmaxExplorer:
    """Type a row of numbers and scale it: softmax turns into argmax as the scale grows."""

    MAX_NUMBERS = 12

    def __init__(self, row=(1.0, 0.0, 0.0), scale=1.0):
        self.row, self._scale = np.array(row, dtype=float), float(scale)
        self.text = W.Text(value=", ".join(fmt(x) for x in self.row), description=_("row"), continuous_update=False)
        self.scale = W.FloatLogSlider(value=scale, base=10, min=-2, max=3, step=0.05, description=_("scale"))
        self.message, self.view = W.HTML(), W.HTML()
        for widget, name in ((self.text, "row"), (self.scale, "scale"), (self.message, "message"), (self.view, "view")):
            widget.add_class(f"hm-softmax-{name}")
        self.text.observe(lambda change: self._typed(change["new"]), names="value")
        self.scale.observe(lambda change: self._scaled(change["new"]), names="value")
        self.widget = Quiet([W.HBox([self.text, self.message]), self.scale, self.view], "SoftmaxExplorer")
        self.refresh()

    def _typed(self, text):
        try:
            row = np.array([float(part) for part in text.split(",")[: self.MAX_NUMBERS + 1]])
            if not np.isfinite(row).all() or not 1 <= len(row) <= self.MAX_NUMBERS:
                raise ValueError
        except (ValueError, OverflowError):
            self.message.value = message_html(
                _("{text} is not a list of 1 to {n} numbers like 1, 0, 0; keeping the last row").format(
                    text=repr(text[:40]), n=self.MAX_NUMBERS
                )
            )
            return
        self._try(row, self._scale)

    def _scaled(self, scale):
        self._try(self.row, scale)

    def _try(self, row, scale):
        with np.errstate(over="ignore"):  # an overflow is what this checks for, and says so below
            overflows = not np.isfinite(row * scale).all()
        if overflows:
            self.message.value = message_html(
                _(
                    "{x} × {scale} is larger than float64 can hold (about 1.8e308); showing the last row that fits"
                ).format(x=fmt(np.abs(row).max()), scale=fmt(scale))
            )
            return
        self.row, self._scale = row, scale
        self.message.value = ""
        self.refresh()

    def refresh(self):
        self.view.value = softmax_story(self.row, self._scale).html()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
