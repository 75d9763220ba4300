"""The pieces a person types into: a grid of boxes for one matrix, and a box for one number with a
slider beside it. Each shows a message beside itself when what was typed cannot be used, and
keeps the last good value; neither knows what model it edits.
"""

import html
import math
import re
import unicodedata

import ipywidgets as W
import numpy as np

from ..arguments import brief, exact, few, function, number, real_array, text_of, whole, yes_or_no
from ..basis import text_shown
from ..display.labelled import LabelledMatrix
from ..i18n import _, tag
from .marks import QUIET_LABEL, REFUSED, RINGED, SAYS, Marks
from .slider import LogSlider
from .textbox import TextBox
from .typed import Unusable, typed_number, typed_shown

CELL = "46px"
CELL_WIDTHS = (46, 8, 12)  # px: a grid box's least width, per character of its text (a wide one: two), padding
LONGEST_NUMBER = len("-1.2345678901234567e-300")  # characters: the longest text ``exact`` writes for a float64
LABEL_ROOM = 8  # px: the gap after a number box's label
SPLIT = "2px solid #555"  # the line between two heads (a matrix's col_splits), down its column of boxes too
SPLIT_ROOM = 4  # px: that line and the gap after it, added to a box's width
MESSAGE_WIDTH = 360  # px: the least a grid's message may take, a sentence in two or three lines
MAX_BOXES = 512  # boxes in a part's grid (a bias under it adds a row): 16 x 32, built in 0.8 s (1.5 ms a box)
NARROW = "initial"  # a box's label (its description_width) takes only the room it needs


def _ringed(box):
    """``box`` (the outermost box of a widget of the package's) with the package's style in it, and the
    language its words are in (``Marks``, hidden), whichever of the package's widgets a notebook shows,
    alone or in a playground."""
    box.children = (Marks(box=RINGED, lang=tag(), layout=W.Layout(display="none")), *box.children)
    box.add_class(RINGED)
    return box


class Quiet(W.VBox):
    """A VBox whose plain-text form is one fixed line (what a viewer without widgets shows), ringed."""

    def __init__(self, children, label, **kwargs):
        super().__init__(children, **kwargs)
        self._label = label
        _ringed(self)

    def __repr__(self):
        return _(
            "[{name}: an interactive widget; run this cell in Jupyter to use it (again, if it does not show)]"
        ).format(name=self._label)


def marked(box, name, why):
    """Mark ``box`` while it holds text the model did not take, ``why`` saying why ("": it took it): a red edge,
    ``why`` as the box's description, which a screen reader reads with it, and a grid's box (``QUIET_LABEL``: its
    label only a screen reader reads) called "``name``, not used" then, ``name`` else."""
    if QUIET_LABEL in box._dom_classes:
        said = _("{name}, not used").format(name=name) if why else name
        if box.description != said:  # a grid written again changes no label that stays as it was
            box.description = said
    box.why = text_shown(why)
    (box.add_class if why else box.remove_class)(REFUSED)


def refusing(editor):
    """Whether a box of ``editor`` (a grid, or a number control) holds text the model did not take: its red edge.
    A grid not yet shown has no boxes, and refuses nothing."""
    boxes = [editor.box] if isinstance(editor, NumberControl) else [b for row in editor._boxes or () for b in row]
    return any(REFUSED in box._dom_classes for box in boxes)


def css_class(value, name):
    """``value`` if it can name a CSS class: letters, digits, - and _, from a letter, at most 40."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,39}", text_of(value, name, 1000)):
        raise ValueError(
            _("{name} must be a name of letters, digits, - and _, from a letter, at most 40; found {value}").format(
                name=name, value=brief(value)
            )
        )
    return value


def message_html(text, ok=False):
    """What an editor or the playground says, marked (``SAYS``) for the live regions of the box it is in (``Marks``):
    a screen reader reads a refusal out at once (an alert) and any other news when it is free (a status). One line, a character that
    cannot be shown (a new line in a file name) as its escape, and every word of it: a sentence cut in its
    middle would lose what it says (where a pass overflowed); a long piece of it (a file name, what was
    typed) is shortened where it is put in, and the line wraps in the room beside the editor, every space of
    what it quotes kept (two typed spaces are shown as two)."""
    if not text:
        return ""
    text = text_shown(text)
    colour, kind = ("#1a7f37", "status") if ok else ("#b3261e", "alert")
    style = f"color:{colour};white-space:pre-wrap"  # wrapped at spaces, none of them merged
    return f'<span {SAYS}="{kind}" style="{style}">{html.escape(text, quote=False)}</span>'


def say_in(region, markup):
    """Put ``markup`` (``message_html``) in the live region ``region`` (an HTML widget). The same message
    again is taken out first: a screen reader reads out a change, and the region would not change."""
    if markup and region.value == markup:
        region.value = ""
    region.value = markup


NUMBER_BOX = 160  # px: the least width of a number box, its label included
LARGEST = 1e300  # what a number box takes: beyond it, the weights it sets overflow at once


def _grid_matrix(matrix):
    """``matrix`` if it is a LabelledMatrix small enough for a grid of boxes."""
    if not isinstance(matrix, LabelledMatrix):
        raise TypeError(
            _("matrix must be a LabelledMatrix (handmade.display.labelled); found {value}").format(value=brief(matrix))
        )
    rows, cols = matrix.shape
    if rows * cols > MAX_BOXES:
        raise ValueError(
            _("matrix has {rows} x {cols} = {n} numbers, more boxes than a grid holds ({limit})").format(
                rows=rows, cols=cols, n=f"{rows * cols:,}", limit=f"{MAX_BOXES:,}"
            )
        )
    return matrix


def css(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# ---- one editable matrix ------------------------------------------------------------------


class MatrixEditor:
    """A grid of text boxes for one labelled matrix, with a message beside it.

    ``on_edit(name, values)`` is called with the whole new array after each valid entry; it
    returns an error message (the edit is then undone in the model) or "".
    """

    def __init__(self, name, matrix, on_edit, label_width=56, heading=True):
        self.name, self.matrix = text_of(name, "name", 100), _grid_matrix(matrix)
        self.on_edit = function(on_edit, _("on_edit must be a function (name, values) -> message; found {value}"))
        label_width = whole(label_width, "label_width", 0, 1000)
        self.values = matrix.values.copy()
        self._quiet = False
        self._refused = set()  # (i, j) of the boxes that hold text the model did not take, said in the message
        self._boxes = self._widget = None  # built when first shown: a big model has thousands of boxes
        self.message, self.said = W.HTML(), ""  # said: what the message says (show)
        self.message.add_class(f"hm-message-{css(name)}")
        self.label_width, self.heading = label_width, heading
        self.under = ()  # editors whose rows this grid shows under its own, in its columns (a bias under its weights)

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
        """The grid, its label column ``label_width`` px wide, with or without its heading; the rows of the
        editors ``under`` it below its own, in the same columns, and their messages below its own."""
        matrix, name, label_width, heading = self.matrix, self.name, self.label_width, self.heading
        header = [W.HTML("")] + [self._label(c, j) for j, c in enumerate(matrix.cols)] if heading else []
        rows = [row for editor in (self, *self.under) for row in editor._rows()]
        grid = W.GridBox(
            [cell for row in [header, *rows] for cell in row],
            layout=W.Layout(
                # a column as wide as its box, or as its heading when that is wider ("h0·first"): never overlapping
                grid_template_columns=f"{label_width}px repeat({matrix.shape[1]}, minmax({CELL}, max-content))",
                grid_gap="1px 2px",
                flex="0 0 auto",
            ),
        )
        grid.add_class("hm-grid")
        messages = [editor.message for editor in (self, *self.under)]
        for message in messages:  # below, as wide as the grid, and wide enough for a sentence beside a narrow one
            message.layout = W.Layout(max_width=f"{max(label_width + matrix.shape[1] * 48, MESSAGE_WIDTH)}px")
        parts = [W.Box([grid], layout=W.Layout(overflow="auto", max_width="100%")), *messages]
        if heading:
            title = f"<b style='font-size:12px'>{html.escape(matrix.title)}</b>"
            parts.insert(0, W.HTML(title))
        widget = W.VBox(parts, layout=W.Layout(margin="0 0 4px 0" if heading else "0 0 8px 0"))
        widget.add_class(f"hm-editor-{css(name)}")
        return _ringed(widget)

    def _rows(self):
        """Each row of the grid: its label, then its boxes."""
        return [[self._label(r)] + self.boxes[i] for i, r in enumerate(self.matrix.rows)]

    def _label(self, text, j=None):
        edge = f"border-left:{SPLIT};padding-left:2px;" if j in self.matrix.col_splits else ""
        edge += "padding-right:4px;" if j is not None else ""  # a heading wider than its box keeps apart from the next
        return W.HTML(
            f'<div style="font-family:monospace;font-size:11px;white-space:nowrap;{edge}">{html.escape(text)}</div>'
        )

    def _box(self, i, j):
        box = TextBox(
            value=exact(self.values[i, j]),
            description=self.box_name(i, j),  # its label, for a screen reader only (see QUIET_LABEL)
            placeholder="",  # not ipywidgets' zero-width space, which a checker would take for a name
            layout=W.Layout(width=self._box_width(j, exact(self.values[i, j])), height="24px", margin="0"),
        )
        if j in self.matrix.col_splits:  # the heads' line, from the heading down to the last row (a bias's too)
            box.layout.border_left, box.layout.padding = SPLIT, "0 0 0 2px"
        box.add_class(f"hm-cell-{css(self.name)}-{i}-{j}")
        box.add_class(QUIET_LABEL)
        box.observe(lambda change: self._typed(i, j, change["new"]), names="value")
        return box

    def _box_width(self, j, text):
        """The width of the box in column ``j`` that shows ``text`` whole, and the heads' line before it if any."""
        return f"{_fitting(text) + (SPLIT_ROOM if j in self.matrix.col_splits else 0)}px"

    def box_name(self, i, j):
        """What the box at row ``i``, column ``j`` is called: "q, row P3, column P2"."""
        i, j = whole(i, "i", 0, self.matrix.shape[0] - 1), whole(j, "j", 0, self.matrix.shape[1] - 1)
        return _("{matrix}, row {row}, column {column}").format(
            matrix=self.name, row=self.matrix.rows[i], column=self.matrix.cols[j]
        )

    def _typed(self, i, j, text):
        if self._quiet:
            return
        self.boxes[i][j].layout.width = self._box_width(j, text)  # what was typed stays, used or not: all of it shown
        problem = self._refusal(i, j, text)
        if problem:  # the box keeps what was typed, to mend, and the message says what the model keeps
            self._refused.add((i, j))
            marked(self.boxes[i][j], self.box_name(i, j), problem)
            return self.show(problem)
        self._refused.discard((i, j))
        marked(self.boxes[i][j], self.box_name(i, j), "")
        back = self._put_back()  # said, or a screen reader would not know the text it left there is gone
        self.show(_("back to the numbers the model uses: {boxes}").format(boxes=few(back)) if back else "", ok=True)

    def _refusal(self, i, j, text):
        """Take ``text`` typed at (i, j) into the model, or say why not (the model keeps its value): ""."""
        where, keeps = self._where(i, j), exact(self.values[i, j])
        if not text.strip():  # emptied by hand
            return _("{where}: type a number to use it; the model keeps {keeps}").format(where=where, keeps=keeps)
        try:
            value = typed_number(text)
        except Unusable as problem:
            return _("{where}: {problem}; the model keeps {keeps}").format(where=where, problem=problem, keeps=keeps)
        new = self.values.copy()
        new[i, j] = value
        problem = self.on_edit(self.name, new)
        if problem:
            return _("{where} = {text}: {problem}; the model keeps {keeps}").format(
                where=where, text=typed_shown(text), problem=problem, keeps=keeps
            )
        self.values = new
        return ""

    def _where(self, i, j):  # the weight at (i, j), as a message names it: c_proj.w[V, Tb]
        return f"{self.name}[{self.matrix.rows[i]}, {self.matrix.cols[j]}]"

    def _put_back(self):
        """Show the model's own value again in every box whose refused text the message no longer speaks
        of (a later edit took its place there): no box shows a number the model does not use. Returns
        them, "c_proj.w[V, Tb] = 1024", in the grid's order."""
        back = sorted(self._refused)
        self._quiet = True
        try:
            for i, j in back:
                self._show_in(i, j, self.values[i, j])
        finally:
            self._quiet = False
        self._refused.clear()
        return [f"{self._where(i, j)} = {exact(self.values[i, j])}" for i, j in back]

    def _show_in(self, i, j, value):  # every digit of the number the model runs, in a box wide enough to show them
        box = self._boxes[i][j]
        box.value, box.layout.width = exact(value), self._box_width(j, exact(value))
        marked(box, self.box_name(i, j), "")

    def show(self, text, ok=False):
        """Say ``text`` beside the grid ("" says nothing), a refusal or (``ok``) news; ``said`` keeps it."""
        _say_beside(self, text, ok)

    def set_values(self, values):
        """Show new values (reset, load, Lg) without treating them as typed edits."""
        values = real_array(values, "values", 2, MAX_BOXES)
        if values.shape != self.values.shape:
            raise ValueError(
                _("values must have the grid's shape {shape}; found {found}").format(
                    shape=self.values.shape, found=values.shape
                )
            )
        self.values = values
        self._refused.clear()  # every box is written again below
        if self._boxes is None:  # not shown yet: the boxes will start from these values
            return self.show("")
        self._quiet = True
        try:
            for (i, j), value in np.ndenumerate(self.values):
                self._show_in(i, j, value)
        finally:
            self._quiet = False
        self.show("")


# ---- one number, typed or slid -----------------------------------------------------------------


class NumberControl:
    """A box that takes any exact number, and a slider (on a log scale) that follows it.

    ``apply(value)`` uses a value and returns True, or False to keep the old one (it shows why).
    What is typed is what is used and shown, from any state and in any order (Enter or leaving the
    box sends it); text that is no number, or none this control can use, is refused beside it, and
    the value in use is kept. The slider only follows the box; dragging it uses its position,
    rounded to 4 digits, and shows it in the box. ``forget`` empties the box when the model no
    longer follows the rule at its value. ``name`` names the CSS classes (``hm-{name}-box``,
    ``hm-{name}``) for tests.
    """

    BASE, LOWEST, HIGHEST, STEP = 2.0, -4, 11, 0.05  # the slider: 2^-4 to 2^11 in steps of 2^0.05

    def __init__(self, name, label, value, apply, tooltip=""):
        name, label, tooltip = css_class(name, "name"), text_of(label, "label", 100), text_of(tooltip, "tooltip", 1000)
        self.apply = function(
            apply, _("apply must be a function of the value that returns True or False; found {value}")
        )
        self.value, self._quiet, self._forgotten = number(value, "value", -LARGEST, LARGEST), False, False
        self.label = label
        self.box = TextBox(
            value=exact(self.value), description=label, placeholder=_("a number"), description_width=NARROW,
            layout=W.Layout(width=self._box_width(exact(self.value))),
        )  # fmt: skip
        self.box.tooltip = tooltip
        self.slider = LogSlider(
            value=self._on_slider(self.value), base=self.BASE, min=self.LOWEST, max=self.HIGHEST,
            step=self.STEP, label=_("{name}, on a log scale").format(name=label),
        )  # fmt: skip
        self.message, self.said = W.HTML(layout=W.Layout(max_width=f"{MESSAGE_WIDTH}px")), ""  # below, wrapped
        for widget, css in (
            (self.box, f"hm-{name}-box"),
            (self.slider, f"hm-{name}"),
            (self.message, f"hm-{name}-message"),
        ):
            widget.add_class(css)
        self.box.observe(lambda change: self._typed(change["new"]), names="value")
        self.slider.observe(lambda change: self._slid(change["new"]), names="value")
        self._say_value()
        controls = W.HBox([self.box, self.slider], layout=W.Layout(flex_flow="row wrap", align_items="center"))
        self.widget = _ringed(W.VBox([controls, self.message]))  # a message under them: the views beside stay put

    def _typed(self, text):
        if self._quiet:
            return
        self.box.layout.width = self._box_width(text)  # what was typed stays, used or not: all of it shown
        kept = _("the box stays empty") if self._forgotten else _("keeping {kept}").format(kept=exact(self.value))
        if not text.strip():  # emptied by hand
            return self._refuse(_("type a number to use it; {kept}").format(kept=kept))
        try:
            value = typed_number(text)
        except Unusable as problem:
            return self._refuse(_("{problem}; {kept}").format(problem=problem, kept=kept))
        if not abs(value) <= LARGEST:
            return self._refuse(
                _("{text} is outside what this control can use, -{limit} to {limit}; {kept}").format(
                    text=typed_shown(text), limit=f"{LARGEST:.0e}", kept=kept
                )
            )
        self._use(value)

    def _box_width(self, text):
        """The width of the box, its label and the gap after it included, that shows ``text`` whole: at least
        NUMBER_BOX px, as the layout beside it expects."""
        label = _fitting(self.label, least=0, padding=LABEL_ROOM, most=None)
        return f"{max(NUMBER_BOX, label + _fitting(text))}px"

    def _refuse(self, said):
        """Say why the text in the box is not used, and mark the box so (``marked``) until a value is shown there."""
        marked(self.box, self.label, said)
        self.show(said)

    def _slid(self, value):
        if self._quiet or self._slider_rests_on(value):  # the slider settling where the box put it
            if not self._quiet:  # it says the value in use, not the step it rests on
                self._say_value()
            return
        self._use(float(f"{value:.4g}"))  # a slider position is not an exact value: round it for the box

    def _use(self, value):
        if self.apply(value):
            self.value = value
            self.show("")
        elif self._forgotten:  # the model still follows the rule at no value: the box stays empty
            return self.forget(keep_message=True)
        self.set(self.value)  # the box shows what is used: the new value, or the one kept

    def _slider_rests_on(self, value):
        """Whether the slider's ``value`` is where the current value puts it, to within a step."""
        here, there = (math.log(self._on_slider(v), self.BASE) for v in (self.value, value))
        return abs(here - there) <= self.STEP / 2 + 1e-9

    def _on_slider(self, value):
        return min(max(value, self.BASE**self.LOWEST), self.BASE**self.HIGHEST)

    def _say_value(self):
        """What a screen reader hears the slider's value is: the value in use (beyond its ends too), every digit
        of it as the box shows it (1.0001, not 1), or none."""
        if self._forgotten:
            said = _("none: the weights no longer follow this rule")
        elif self._on_slider(self.value) != self.value:
            said = _("{value}, beyond this slider's range").format(value=exact(self.value))
        else:
            said = exact(self.value)
        self.slider.valuetext = said

    @property
    def forgotten(self):
        """Whether the box is empty because the weights no longer follow the rule (``forget``)."""
        return self._forgotten

    def forget(self, keep_message=False):
        """Empty the box, and say why (unless ``keep_message``: a refusal stays): the model no longer follows
        the rule at the value it showed, and any value typed there, that one too, is used. The slider
        says it has no value."""
        self._quiet, self._forgotten = True, True
        try:
            self.box.value = ""
        finally:
            self._quiet = False
        marked(self.box, self.label, "")  # empty, and whatever is typed next is used
        self._say_value()
        if not keep_message:  # said once, not again at each edit after it
            self.said = _("the weights no longer follow this rule; type a value to set it again")
            self.message.value = message_html(self.said, ok=True)  # not say_in: not read out again at each edit

    def set(self, value):
        """Show ``value`` in the box and move the slider to it (as near as it goes), without using it."""
        value = number(value, "value", -LARGEST, LARGEST)
        self._quiet, self._forgotten = True, False
        try:
            self.value = value
            self.box.value = exact(self.value)
            self.box.layout.width = self._box_width(self.box.value)
            marked(self.box, self.label, "")
            self.slider.value = self._on_slider(self.value)
            self._say_value()
        finally:
            self._quiet = False

    def show(self, text, ok=False):
        """Say ``text`` beside the box ("" says nothing); ``ok``: news, not a refusal. ``said`` keeps it."""
        _say_beside(self, text, ok)


def _say_beside(editor, text, ok):
    """``text`` in the message beside ``editor`` (a grid, or a number control), which keeps it as ``said``."""
    editor.said = text_of(text, "text", 1000)
    say_in(editor.message, message_html(editor.said, ok=yes_or_no(ok, "ok")))


def _fitting(text, least=CELL_WIDTHS[0], padding=CELL_WIDTHS[2], most=LONGEST_NUMBER):
    """The width in px of a box that shows ``text`` whole (a character of East Asian width as two): at least ``least``
    px, and at most as wide as for ``most`` characters, the longest number (None: no most); a longer text that
    is no number scrolls inside its box."""
    per_character = CELL_WIDTHS[1]
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    columns = columns if most is None else min(columns, most)
    return max(least, per_character * columns + padding)
