"""The playground's tools: "break it" (change one weight by a rule) and saving and loading weights.

Each is a row of widgets that acts on a playground through its public surface (``replace``,
``params``, ``editors``, ``status``), so it works the same on any model.
"""

import ipywidgets as W

from .. import parts as P
from ..arguments import shown_path
from ..display.labelled import fmt
from ..i18n import N_, _
from ..weights import WeightsError
from .editors import NARROW, QUIET_LABEL, message_html

ACTIONS = {N_("set to 0"): lambda x: 0.0, N_("flip sign"): lambda x: -x, N_("add 1"): lambda x: x + 1}


def break_control(playground, at=None):
    """Dropdowns for a part, a row, a column and an action, and a button that applies it.

    ``at`` (part, row, column) is where it starts; by default the first part's first weight. A
    part, a row and a column are always chosen, so the button always has something to break.
    """
    p, names = playground, list(playground.editors)
    part, row, col = at if at is not None and at[0] in names else (names[0], None, None)
    which = W.Dropdown(options=names, value=part, description=_("break"), layout=W.Layout(width="170px"), style=NARROW)
    rows = W.Dropdown(description=_("row"), layout=W.Layout(width="120px"), style=NARROW)
    cols = W.Dropdown(description=_("column"), layout=W.Layout(width="130px"), style=NARROW)
    labels = {_(name): action for name, action in ACTIONS.items()}
    action = W.Dropdown(options=list(labels), description=_("what to do to it"), layout=W.Layout(width="100px"))
    action.add_class(QUIET_LABEL)  # its options say what it is
    go = W.Button(description=_("break it"), button_style="warning", layout=W.Layout(width="90px"))
    for widget, name in ((which, "matrix"), (rows, "row"), (cols, "col"), (action, "action"), (go, "go")):
        widget.add_class(f"hm-break-{name}")

    def chosen(_change=None, row=None, col=None):
        m = p.editors[which.value].matrix
        rows.options, cols.options = list(m.rows), list(m.cols)
        rows.value = row if row in m.rows else m.rows[0]
        cols.value = col if col in m.cols else m.cols[0]

    def press(_button):
        editor = p.editors[which.value]
        i, j = editor.matrix.rows.index(rows.value), editor.matrix.cols.index(cols.value)
        values = editor.values.copy()
        values[i, j] = labels[action.value](values[i, j])
        done = _("{name}[{row}, {col}] is now {value}").format(
            name=which.value, row=rows.value, col=cols.value, value=fmt(values[i, j])
        )
        p.replace(P.with_part(p.params, which.value, values), done)

    which.observe(chosen, names="value")
    go.on_click(press)
    chosen(row=row, col=col)
    return W.HBox([which, rows, cols, action, go], layout=W.Layout(flex_flow="row wrap"))


def save_control(playground, save_path=None):
    """A file name, and buttons that save the weights there and load them back."""
    p = playground
    path = W.Text(
        value=str(save_path or "my_weights.json"), description=_("file"), layout=W.Layout(width="260px"), style=NARROW
    )
    save = W.Button(description=_("save weights"), layout=W.Layout(width="120px"))
    load = W.Button(description=_("load weights"), layout=W.Layout(width="120px"))
    for widget, name in ((path, "path"), (save, "save"), (load, "load")):
        widget.add_class(f"hm-file-{name}")

    def do_save(_button):
        from ..files import NotWeightsFile, save_weights

        try:
            done = save_weights(p.params, path.value)
        except NotWeightsFile as error:  # no --force here: what the learner can do in the playground
            p.status.value = message_html(
                _(
                    "could not save: '{path}' exists and is not a weights file; it is kept as it is: type another file name above, or move that file away first"
                ).format(path=shown_path(error.path))
            )
            return
        except (OSError, WeightsError) as error:
            p.status.value = message_html(_("could not save: {error}").format(error=error))
            return
        p.status.value = message_html(_("saved: {done}").format(done=done), ok=True)

    def do_load(_button):
        from ..files import load_weights

        try:
            loaded = load_weights(path.value)
        except (OSError, ValueError) as error:
            p.status.value = message_html(_("{error}; the model is unchanged").format(error=error))
            return
        p.replace(loaded, _("loaded the weights from {path}").format(path=path.value))

    save.on_click(do_save)
    load.on_click(do_load)
    return W.HBox([path, save, load], layout=W.Layout(flex_flow="row wrap"))


def reveal_control(playground):
    """A button that adds the reference solution's shares to the score's lines: the answer, shown
    only to a learner who asks for it (and a second press hides it again)."""
    p = playground
    button = W.ToggleButton(value=False, description=_("show the answer's shares"), layout=W.Layout(width="200px"))
    button.tooltip = _("the reference solution's share of the margin, part by part, beside yours: the answer")
    button.add_class("hm-reveal")

    def toggled(change):
        p.score.reveal = change["new"]
        p.refresh()

    button.observe(toggled, names="value")
    return button
