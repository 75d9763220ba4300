"""Live editors for the notebooks (ipywidgets is imported here, and only here).

``Playground`` is the one model editor: choose which weight matrices are editable, which views
update on every edit, and which controls appear. Every view is drawn by the same functions the
static tables use (``LabelledMatrix.html``), from a ``trace()`` of the package's ``gpt()``.

A bad entry (not a number, not finite, or weights that overflow) shows a message beside the
editor and leaves the model as it was. In a notebook viewer without a kernel the widgets do not
render, so each notebook also shows ``playground.snapshot()``: the same views, as static HTML.
"""

import html
from pathlib import Path

import ipywidgets as W
import numpy as np

from .blog import ALPHABET, BASIS, blog_model
from .display import Html, dot_product_story, side_by_side, softmax_story
from .inference import accuracy, complete, predict, prepare
from .labelled import LabelledMatrix, fmt
from .model import NonFiniteError
from .trace import trace, weight_tables
from .weights import WeightsError, check_weights, load_weights, save_weights

EDITABLE = ("wte", "wpe", "q", "k", "v", "c_proj.w", "c_proj.b")
VIEWS = ("embedding", "qkv", "scores", "attention", "attention_output", "c_proj_output", "residual", "logits")
VIEWS += ("predictions", "completion", "accuracy")
CONTROLS = ("text", "reset", "lg", "break", "save")
CELL = "58px"


class Quiet(W.VBox):
    """A VBox whose plain-text form is one fixed line (what a viewer without widgets shows)."""

    def __init__(self, children, label):
        super().__init__(children)
        self._label = label

    def __repr__(self):
        return f"[{self._label}: an interactive widget; run the notebook in Jupyter to use it]"


def message_html(text, ok=False):
    colour = "#1a7f37" if ok else "#b3261e"
    return f'<span style="color:{colour}">{html.escape(text, quote=False)}</span>' if text else ""


# ---- one editable matrix ------------------------------------------------------------------


class MatrixEditor:
    """A grid of text boxes for one labelled matrix, with a message beside it.

    ``on_edit(name, values)`` is called with the whole new array after each valid entry; it
    returns an error message (the edit is then undone in the model) or "".
    """

    def __init__(self, name, matrix, on_edit):
        self.name, self.matrix, self.on_edit = name, matrix, on_edit
        self.values = matrix.values.copy()
        self._quiet = False
        self.boxes = [[self._box(i, j) for j in range(matrix.shape[1])] for i in range(matrix.shape[0])]
        self.message = W.HTML(layout=W.Layout(width="320px", margin="0 0 0 12px"))
        self.message.add_class(f"hm-message-{_css(name)}")
        header = [W.HTML("")] + [self._label(c, j) for j, c in enumerate(matrix.cols)]
        rows = [[self._label(r)] + self.boxes[i] for i, r in enumerate(matrix.rows)]
        grid = W.GridBox(
            [cell for row in [header, *rows] for cell in row],
            layout=W.Layout(
                grid_template_columns=f"84px repeat({matrix.shape[1]}, {CELL})", grid_gap="2px", flex="0 0 auto"
            ),
        )
        title = W.HTML(f"<b>{html.escape(matrix.title or name)}</b>")
        self.widget = W.VBox([title, W.HBox([grid, self.message])])
        self.widget.add_class(f"hm-editor-{_css(name)}")

    def _label(self, text, j=None):
        edge = "border-left:2px solid #555;padding-left:2px;" if j in self.matrix.col_splits else ""
        return W.HTML(f'<div style="font-family:monospace;font-size:11px;{edge}">{html.escape(text)}</div>')

    def _box(self, i, j):
        box = W.Text(
            value=fmt(self.matrix.values[i, j]), continuous_update=False, layout=W.Layout(width=CELL, margin="0")
        )
        box.add_class(f"hm-cell-{_css(self.name)}-{i}-{j}")
        box.observe(lambda change: self._typed(i, j, change["new"]), names="value")
        return box

    def _typed(self, i, j, text):
        if self._quiet:
            return
        where = f"{self.name}[{self.matrix.rows[i]}, {self.matrix.cols[j]}]"
        try:
            value = float(text)
        except ValueError:
            return self.show(f"{where}: {text!r} is not a number; the model keeps {fmt(self.values[i, j])}")
        if not np.isfinite(value):
            return self.show(f"{where}: {text} is not finite; the model keeps {fmt(self.values[i, j])}")
        new = self.values.copy()
        new[i, j] = value
        problem = self.on_edit(self.name, new)
        if problem:
            return self.show(f"{where} = {text}: {problem}; the model keeps {fmt(self.values[i, j])}")
        self.values = new
        self.show("")

    def show(self, text):
        self.message.value = message_html(text)

    def set_values(self, values):
        """Show new values (reset, load, Lg) without treating them as typed edits."""
        self.values = np.array(values, dtype=float).reshape(self.values.shape)
        self._quiet = True
        try:
            for (i, j), value in np.ndenumerate(self.values):
                self.boxes[i][j].value = fmt(value)
        finally:
            self._quiet = False
        self.show("")


def _css(name):
    return name.replace(".", "-").replace("_", "-")


# ---- reading and writing the matrices a learner edits ------------------------------------


def with_matrix(params, name, values):
    """A copy of ``params`` with one editable matrix replaced."""
    new = check_weights(params)
    attn = new["blocks"][0]["attn"]
    values = np.asarray(values, dtype=float)
    if name in ("wte", "wpe"):
        new[name] = values
    elif name in ("q", "k", "v"):
        n = values.shape[0]
        start = "qkv".index(name) * n
        attn["c_attn"]["w"][:, start : start + n] = values
    elif name == "c_proj.w":
        attn["c_proj"]["w"] = values
    elif name == "c_proj.b":
        attn["c_proj"]["b"] = values.ravel()
    else:
        raise KeyError(f"no editable matrix {name!r}; choose from {', '.join(EDITABLE)}")
    return new


# ---- the views ----------------------------------------------------------------------------


def render_view(view, params, text, alphabet=ALPHABET, basis=BASIS):
    """HTML for one view of the model on ``text`` (shared by the widget and the snapshot)."""
    return f'<div style="overflow-x:auto">{_view_markup(view, params, text, alphabet, basis)}</div>'  # wide ones scroll


def _view_markup(view, params, text, alphabet, basis):
    if view in ("completion", "accuracy", "predictions"):
        return _render_outcome(view, params, text, alphabet)
    t = trace(text, params, alphabet=alphabet, basis=basis)
    if view == "logits":  # two tables: their captions tell them apart
        return side_by_side(t["logits"].html(heat=True), t["probabilities"].html(heat=True)).markup
    name = {"scores": "scores", "attention": "attention_weights"}.get(view, view)
    return t[name].html(heat=view in ("scores", "attention"), caption=False)  # the page shows a heading


def _render_outcome(view, params, text, alphabet):
    if view == "completion":
        return f"<pre>{html.escape(complete(text, 10, params, alphabet=alphabet))}</pre>"
    if view == "accuracy":
        score = accuracy(params, alphabet=alphabet)
        misses = "".join(
            f"<br>missed: {html.escape(e.context)} → expected {e.expected}, got {got}" for e, got in score.failures[:5]
        )
        more = f"<br>… and {len(score.failures) - 5} more" if len(score.failures) > 5 else ""
        return f"<pre><b>{score}</b>{misses}{more}</pre>"
    p = predict(text, params, alphabet=alphabet)
    rows = [f"pos {i} · {alphabet[tok]}" for i, tok in enumerate(p.tokens)]
    next_tokens = [alphabet[int(np.argmax(row))] for row in p.probs]
    table = LabelledMatrix(p.probs, rows, [f"P({c})" for c in alphabet], title="prediction at each position")
    guesses = "".join(f"<li>after {html.escape(r)}: <b>{n}</b></li>" for r, n in zip(rows, next_tokens))
    return side_by_side(table.html(heat=True), f"<ul style='margin:0'>{guesses}</ul>").markup


# ---- the playground -----------------------------------------------------------------------


class Playground:
    """Edit a model's weights and watch every chosen view update at once.

    ``edit``: which matrices get editors (any of EDITABLE). ``views``: what is redrawn on each
    edit (any of VIEWS). ``controls``: "text" (the context), "reset", "lg" (the strength of
    c_proj), "break" (zero or perturb one weight), "save" (save and load JSON).
    """

    def __init__(self, params=None, *, text="aabaa", edit=EDITABLE, views=VIEWS, controls=CONTROLS, save_path=None):
        self.original = prepare(params)
        self.params = check_weights(self.original)
        self.text, self.view_names = text, tuple(views)
        for kind, names, allowed in (
            ("matrix", edit, EDITABLE),
            ("view", views, VIEWS),
            ("control", controls, CONTROLS),
        ):
            unknown = [name for name in names if name not in allowed]
            if unknown:
                raise ValueError(f"no {kind} called {unknown[0]!r}; choose from {', '.join(allowed)}")
        matrices = weight_tables(self.params)
        self.editors = {name: MatrixEditor(name, matrices[name], self._edited) for name in edit}
        self.views = {name: W.HTML() for name in views}
        for name, view in self.views.items():
            view.add_class(f"hm-view-{_css(name)}")
        self.status = W.HTML()
        self.status.add_class("hm-status")
        self.save_path = save_path or "my_weights.json"
        parts = [self._controls(controls), self.status]
        for name, view in self.views.items():
            parts += [W.HTML(f"<h4 style='margin:10px 0 2px'>{_VIEW_TITLES[name]}</h4>"), view]
        parts += [editor.widget for editor in self.editors.values()]
        self.widget = Quiet(parts, "Playground")
        self.refresh()

    # the public surface: what notebooks and tests use

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def snapshot(self):
        """The current views as static HTML, for readers without a running kernel."""
        parts = [
            f"<h4>{_VIEW_TITLES[name]}</h4>{render_view(name, self.params, self.text)}" for name in self.view_names
        ]
        return Html(f"<p><i>Context: {html.escape(self.text)}</i></p>" + "".join(parts), f"(snapshot of {self.text!r})")

    def refresh(self):
        """Redraw every view from the current weights and context."""
        self._show(self._render(self.params, self.text))

    def _render(self, params, text):  # {view: html}; raises if these weights cannot run
        with np.errstate(all="ignore"):  # overflow is reported as NonFiniteError, not as warnings
            return {name: render_view(name, params, text) for name in self.view_names}

    def _show(self, rendered):
        for name, value in rendered.items():
            self.views[name].value = value

    def replace(self, params, note=""):
        """Take new checked weights and show them everywhere; if they cannot run, keep the old ones."""
        try:
            self._check_fits(params)
            rendered = self._render(params, self.text)
        except (NonFiniteError, ValueError) as error:
            self.status.value = message_html(f"{error}; the model is unchanged")
            return False
        self.params = params
        for name, matrix in weight_tables(params).items():
            if name in self.editors:
                self.editors[name].set_values(matrix.values)
        self._show(rendered)
        self.status.value = message_html(note, ok=True)
        return True

    # editing

    def _edited(self, name, values):
        candidate = with_matrix(self.params, name, values)
        try:
            rendered = self._render(candidate, self.text)
        except (NonFiniteError, ValueError) as error:
            return str(error)
        self.params = candidate
        self._show(rendered)
        self.status.value = ""
        return ""

    def _use_text(self, text):
        try:
            rendered = self._render(self.params, text)
        except (NonFiniteError, ValueError) as error:
            self._text_message.value = message_html(f"{error}; still showing {self.text!r}")
            return
        self.text = text
        self._text_message.value = ""
        self._show(rendered)

    def _check_fits(self, params):
        """The editors need the same shapes as before: one block, the same n_ctx and n_embd."""
        if len(params["blocks"]) != 1 or params["wpe"].shape != self.params["wpe"].shape:
            raise WeightsError(
                f"this playground edits one block with wpe of shape {self.params['wpe'].shape}; the file has "
                f"{len(params['blocks'])} block(s) and wpe of shape {params['wpe'].shape}"
            )

    # controls

    def _controls(self, controls):
        rows = []
        self._text_box = None
        self._text_message = W.HTML()
        if "text" in controls:
            self._text_box = W.Text(value=self.text, description="context", continuous_update=False)
            self._text_box.add_class("hm-context")
            self._text_box.observe(lambda change: self._use_text(change["new"]), names="value")
            rows.append(W.HBox([self._text_box, self._text_message]))
        buttons = []
        if "reset" in controls:
            reset = W.Button(description="reset", tooltip="back to the weights this playground started with")
            reset.add_class("hm-reset")
            reset.on_click(lambda _: self.replace(check_weights(self.original), "reset to the starting weights"))
            buttons.append(reset)
        if "lg" in controls:
            buttons.append(self._lg_control())
        if buttons:
            rows.append(W.HBox(buttons))
        if "break" in controls:
            rows.append(self._break_control())
        if "save" in controls:
            rows.append(self._save_control())
        return W.VBox(rows)

    def _lg_control(self):
        slider = W.FloatLogSlider(
            value=1024, base=2, min=-4, max=11, step=0.25, description="c_proj Lg", readout_format=".4g"
        )
        slider.add_class("hm-lg")

        def moved(change):
            c_proj = blog_model(proj_lg=change["new"])["blocks"][0]["attn"]["c_proj"]
            new = with_matrix(with_matrix(self.params, "c_proj.w", c_proj["w"]), "c_proj.b", c_proj["b"][None, :])
            self.replace(new, f"c_proj set to the blog's rule with Lg = {fmt(change['new'])}")

        slider.observe(moved, names="value")
        return slider

    def _break_control(self):
        which = W.Dropdown(
            options=list(EDITABLE), value="c_proj.w", description="break", layout=W.Layout(width="180px")
        )
        row = W.Dropdown(layout=W.Layout(width="110px"))
        col = W.Dropdown(layout=W.Layout(width="110px"))
        action = W.Dropdown(options=["set to 0", "flip sign", "add 1"], layout=W.Layout(width="110px"))
        go = W.Button(description="break it", button_style="warning")
        for widget, name in ((which, "matrix"), (row, "row"), (col, "col"), (action, "action"), (go, "go")):
            widget.add_class(f"hm-break-{name}")

        def chosen(_=None):
            m = weight_tables(self.params)[which.value]
            row.options, col.options = list(m.rows), list(m.cols)
            if which.value == "c_proj.w":
                row.value, col.value = "V", "Tb"  # the blog's Lg that writes b

        def press(_):
            m = weight_tables(self.params)[which.value]
            i, j = m.rows.index(row.value), m.cols.index(col.value)
            values = m.values.copy()
            values[i, j] = {"set to 0": 0.0, "flip sign": -values[i, j], "add 1": values[i, j] + 1}[action.value]
            candidate = with_matrix(self.params, which.value, values)
            self.replace(candidate, f"{which.value}[{row.value}, {col.value}] is now {fmt(values[i, j])}")

        which.observe(chosen, names="value")
        go.on_click(press)
        chosen()
        return W.HBox([which, row, col, action, go])

    def _save_control(self):
        path = W.Text(value=str(self.save_path), description="file", layout=W.Layout(width="320px"))
        save, load = W.Button(description="save weights"), W.Button(description="load weights")
        for widget, name in ((path, "path"), (save, "save"), (load, "load")):
            widget.add_class(f"hm-file-{name}")

        def do_save(_):
            try:
                save_weights(self.params, path.value)
            except (OSError, WeightsError) as error:
                self.status.value = message_html(f"could not save: {error}")
                return
            self.status.value = message_html(f"saved the weights to {Path(path.value).resolve()}", ok=True)

        def do_load(_):
            try:
                loaded = prepare(load_weights(path.value))
            except ValueError as error:
                self.status.value = message_html(f"{error}; the model is unchanged")
                return
            self.replace(loaded, f"loaded the weights from {path.value}")

        save.on_click(do_save)
        load.on_click(do_load)
        return W.HBox([path, save, load])


_VIEW_TITLES = {
    "embedding": "Embedding x = wte[tokens] + wpe[positions]",
    "qkv": "qkv = x @ c_attn.w + c_attn.b (split into q | k | v)",
    "scores": "Scores q @ k.T",
    "attention": "Attention weights softmax(q @ k.T / √d + mask)",
    "attention_output": "Attention output: weights @ v",
    "c_proj_output": "c_proj output",
    "residual": "Residual stream: x + c_proj output",
    "logits": "Logits and probabilities",
    "predictions": "Predictions",
    "completion": "Completion",
    "accuracy": "Accuracy on (aab)*",
}


# ---- the smaller explorers ----------------------------------------------------------------


class ProductExplorer:
    """Pick an output cell of A @ B and see which row and column make it."""

    def __init__(self, a, b, i=0, j=0):
        self.a, self.b = np.asarray(a), np.asarray(b)
        self.row = W.ToggleButtons(options=list(range(self.a.shape[0])), value=i, description="row")
        self.col = W.ToggleButtons(options=list(range(self.b.shape[1])), value=j, description="column")
        self.view = W.HTML()
        for widget, name in ((self.row, "row"), (self.col, "col"), (self.view, "view")):
            widget.add_class(f"hm-product-{name}")
        for control in (self.row, self.col):
            control.observe(lambda _: self.refresh(), names="value")
        self.widget = Quiet([self.row, self.col, self.view], "ProductExplorer")
        self.refresh()

    def refresh(self):
        self.view.value = dot_product_story(self.a, self.b, self.row.value, self.col.value).markup

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


class SoftmaxExplorer:
    """Type a row of numbers and scale it: softmax turns into argmax as the scale grows."""

    def __init__(self, row=(1.0, 0.0, 0.0), scale=1.0):
        self.row = np.array(row, dtype=float)
        self.text = W.Text(value=", ".join(fmt(x) for x in self.row), description="row", continuous_update=False)
        self.scale = W.FloatLogSlider(value=scale, base=10, min=-2, max=3, step=0.05, description="scale")
        self.message, self.view = W.HTML(), W.HTML()
        for widget, name in ((self.text, "row"), (self.scale, "scale"), (self.message, "message"), (self.view, "view")):
            widget.add_class(f"hm-softmax-{name}")
        self.text.observe(lambda change: self._typed(change["new"]), names="value")
        self.scale.observe(lambda _: self.refresh(), names="value")
        self.widget = Quiet([W.HBox([self.text, self.message]), self.scale, self.view], "SoftmaxExplorer")
        self.refresh()

    def _typed(self, text):
        try:
            row = np.array([float(part) for part in text.split(",")])
            if not np.isfinite(row).all():
                raise ValueError
        except ValueError:
            self.message.value = message_html(f"{text!r} is not a list of numbers like 1, 0, 0; keeping the last row")
            return
        self.row = row
        self.message.value = ""
        self.refresh()

    def refresh(self):
        self.view.value = softmax_story(self.row, self.scale.value).html()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
