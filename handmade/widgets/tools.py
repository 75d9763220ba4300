"""The playground's tools: "break it" (change one weight by a rule) and saving and loading weights.

Each is a row of widgets that acts on a playground through what it offers its rows (``params``, ``editors``,
``status``, ``_take`` and ``_load``, and ``undo``, its undo's buttons), so it works the same on any model.
"""

import hashlib
import os
from pathlib import Path

import ipywidgets as W

from .. import parts as P
from ..arguments import exact, shown_path
from ..files import read_bounded
from ..i18n import N_, _, listed
from .choice import Menu, in_order
from .editors import NARROW, NumberControl, message_html, refusing, say_in
from .marks import give_focus
from .textbox import TextBox

ACTIONS = {N_("set to 0"): lambda x: 0.0, N_("flip sign"): lambda x: -x, N_("add 1"): lambda x: x + 1}


def break_control(playground, at=None):
    """Menus for a part, a row, a column and an action, and a button that applies it.

    ``at`` (part, row, column) is where it starts; by default the first part's first weight. A
    part, a row and a column are always chosen, so the button always has something to break.
    """
    p, names = playground, list(playground.editors)
    part, row, col = at if at is not None and at[0] in names else (names[0], None, None)
    m = p.editors[part].matrix
    which = Menu(names, part, _("break"))  # each menu as wide as its longest name (MENU_CSS caps it)
    rows = Menu(list(m.rows), label=_("row"))
    cols = Menu(list(m.cols), label=_("column"))
    labels = {_(name): action for name, action in ACTIONS.items()}
    # the action's names say what it is: its label is for a screen reader alone
    action = Menu(list(labels), label=_("what to do to it"), quiet=True)
    go = in_order(W.Button(description=_("break it"), button_style="warning", layout=W.Layout(width="90px")))
    for widget, name in ((which, "matrix"), (rows, "row"), (cols, "col"), (action, "action"), (go, "go")):
        widget.add_class(f"hm-break-{name}")

    def chosen(_change=None, row=None, col=None):
        m = p.editors[which.value].matrix
        with rows.hold_sync(), cols.hold_sync():  # each menu's new names and choice in one message
            rows.options, cols.options = list(m.rows), list(m.cols)
            rows.value = row if row in m.rows else m.rows[0]
            cols.value = col if col in m.cols else m.cols[0]

    def press(_button):
        editor = p.editors[which.value]
        i, j = editor.matrix.rows.index(rows.value), editor.matrix.cols.index(cols.value)
        values = editor.values.copy()
        values[i, j] = labels[action.value](values[i, j])
        done = _("{name}[{row}, {col}] is now {value}").format(
            name=which.value, row=rows.value, col=cols.value, value=exact(values[i, j])
        )
        p._take(P.with_part(p.params, which.value, values), done)

    which.observe(chosen, names="value")
    go.on_click(press)
    chosen(row=row, col=col)
    return W.HBox([which, rows, cols, action, go], layout=W.Layout(flex_flow="row wrap"))


def save_control(playground, save_path):
    """A file name, and buttons that save the weights there and load them back.

    A save never replaces a file that holds another model without asking: when the file holds
    weights other than those this playground last saved there or loaded from it, the row asks
    whether to replace them, and only a click on "replace it" does.
    """
    return _SaveRow(playground, save_path).row


class _SaveRow:
    """The widgets of ``save_control`` and what their buttons do."""

    def __init__(self, playground, save_path):
        self.p, self.known = playground, {}  # file name -> digest of the bytes last saved there or loaded
        self.asked = None  # the file name the question (replace it / keep it) is about
        # sent when the box is left (or Enter pressed), not key by key, as a message of its own (TextBox), which keeps
        # its place before a click made after it: the click reads the name as typed, however busy the kernel is
        self.path = TextBox(
            value=str(save_path), description=_("file"), description_width=NARROW, layout=W.Layout(width="260px")
        )
        self.buttons = buttons = {
            "save": W.Button(description=_("save weights"), layout=W.Layout(width="120px")),
            "load": W.Button(description=_("load weights"), layout=W.Layout(width="120px")),
            "replace": W.Button(description=_("replace it"), button_style="danger", layout=W.Layout(width="100px")),
            "keep": W.Button(description=_("keep it"), layout=W.Layout(width="100px")),
            "undo": W.Button(
                description=_("undo load"),
                tooltip=_("back to the weights from before the load"),
                layout=W.Layout(width="auto"),
            ),
        }
        for name, widget in {"path": self.path, **buttons}.items():
            widget.add_class(f"hm-file-{name}")
        for button in buttons.values():
            in_order(button)  # the path, a TextBox, is in order as every Chosen is
        self.asking = W.HBox([buttons["replace"], buttons["keep"]], layout=W.Layout(display="none"))
        buttons["save"].on_click(lambda _button: self.save())
        buttons["replace"].on_click(lambda _button: self.save(replacing=True))
        buttons["keep"].on_click(lambda _button: self.keep())
        buttons["load"].on_click(lambda _button: self.load())
        # "undo load": shown after a load that changed the model, until the next change
        playground.undo.add("load", buttons["undo"], buttons["load"], playground._undo)
        # the question right after the button that asked it: the next stop of the Tab key, where a screen reader
        # that heard the question (in the status line) looks for its answers
        self.row = W.HBox([self.path, buttons["save"], self.asking, buttons["load"], buttons["undo"]])
        self.row.layout.flex_flow = "row wrap"

    def say(self, sentence, ok=False):
        say_in(self.p.status, message_html(sentence, ok=ok))

    def save(self, replacing=False):
        if self.asking.layout.display != "none":  # the question answered: back to the button it came from
            self.asking.layout.display = "none"
            give_focus(self.buttons["save"])
        target = self.path.value.strip()
        if not target:
            return self.say(_("could not save: type a file name first"))
        # "replace it" answers for the file it was asked about: a name typed since is asked about in its turn
        if not (replacing and target == self.asked) and _holds_another_model(target, self.known.get(target)):
            self.asked, self.asking.layout.display = target, "flex"
            question = _("'{path}' holds another model: replace it with this playground's weights?")
            return self.say(question.format(path=shown_path(target)))
        done = _save(self.p, str(Path(target).absolute()), force=False)  # the message says where it went
        if done is not None:
            self.known[target] = _digest(target)
            refused = _showing_refused(self.p)
            if not refused:
                return self.say(_("saved: {done}").format(done=done), ok=True)
            self.say(
                _(
                    "saved: {done}; but {parts} still show text the model did not take: the file holds the numbers the model uses, not that text"
                ).format(done=done, parts=listed(refused))
            )

    def keep(self):
        self.asking.layout.display = "none"
        give_focus(self.buttons["save"])
        self.say(_("nothing saved: '{path}' is kept as it was").format(path=shown_path(self.asked)), ok=True)

    def load(self):
        from ..files import load_weights

        target = self.path.value.strip()
        if not target:
            return self.say(_("could not load: type a file name first"))
        try:
            loaded = load_weights(target)
        except (OSError, ValueError) as error:
            return self.say(_("{error}; the model is unchanged").format(error=error))
        if self.p._load(loaded, target) is None:
            self.known[target] = _digest(target)  # the playground holds them now: saving there replaces nothing else


def _showing_refused(p):
    """The names of the playground's grids and number control (Lg) that show text the model did not take."""
    editors = [*p.editors.values(), *([p.strength] if p.strength is not None else [])]
    return [e.label if isinstance(e, NumberControl) else e.name for e in editors if refusing(e)]


def _save(p, target, force):
    """Save the playground's weights at ``target``: the sentence saying so, or None after putting
    why it could not into the status line."""
    from ..files import NotWeightsFile, save_weights

    try:
        return save_weights(p.params, target, force=force)
    except NotWeightsFile as error:  # no --force here: what the learner can do in the playground
        kept = _(
            "could not save: '{path}' is not a weights file, and it is kept as it is: type another file name in the file box, or move that file away first"
        )
        say_in(p.status, message_html(kept.format(path=shown_path(error.path))))
    except (OSError, ValueError) as error:  # WeightsError is a ValueError; so is a file name no system can use
        say_in(p.status, message_html(_("could not save: {error}").format(error=error)))  # again: read again
    return None


def _digest(target):
    """A digest of the file's bytes, or None when it cannot be read."""
    try:
        return hashlib.sha256(read_bounded(target).encode("utf-8")).hexdigest()
    except (OSError, ValueError):
        return None


def _holds_another_model(target, known):
    """Whether ``target`` holds weights other than those this playground last saved or loaded there
    (``known``: their digest): a learner's other work, not to be replaced unasked."""
    from ..files import is_weights_file

    try:
        there = os.path.lexists(target) and is_weights_file(target)
    except (OSError, ValueError):
        return False  # the save itself says what is wrong with the name
    return there and _digest(target) != known


def reveal_control(playground):
    """A button that adds the reference solution's shares to the score's lines: the answer, shown
    only to a learner who asks for it (and a second press hides it again)."""
    p = playground
    button = in_order(
        W.ToggleButton(value=False, description=_("show the answer's shares"), layout=W.Layout(width="200px"))
    )
    button.tooltip = _("the reference solution's share of the margin, part by part, beside yours: the answer")
    button.add_class("hm-reveal")

    def toggled(change):  # its name says what a press does next, and the status says what it did
        p.score.reveal = change["new"]
        button.description = _("hide the answer's shares") if change["new"] else _("show the answer's shares")
        p.refresh()
        if not change["new"]:
            said = _("the answer's shares are hidden")
        elif p.score.answer_shown:
            said = _("the diagnosis now shows the answer's shares, beside yours")
        elif p.score.revealed:  # why there are none to show (not installed, none written, another window)
            said = _("the answer's shares cannot be shown: the diagnosis says why")
        else:  # a model that passes has no diagnosis: they show when it fails
            said = _(
                "the model passes, so there is no diagnosis to show the answer's shares in; they show when it fails"
            )
        say_in(p.status, message_html(said, ok=True))

    button.observe(toggled, names="value")
    return button
