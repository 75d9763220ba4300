"""The first notebooks' small explorers: which row and column make a cell of a product, and how
softmax turns into argmax as its input is scaled up."""

import re

import ipywidgets as W
import numpy as np

from ..arguments import brief, exact, number, real_array, whole
from ..display.labelled import fmt
from ..display.outputs import product_pair, scaled, softmax_story
from ..display.views import scrolling
from ..i18n import _
from .choice import Choice
from .editors import Quiet, marked, message_html, say_in
from .slider import LogSlider
from .textbox import TextBox
from .typed import NotANumber, Unusable, typed_number


class ProductExplorer:
    """Pick an output cell of A @ B and see which row and column make it (A and B at most
    ``MAX_SIDE`` a side: a row of that many buttons fits a screen, and so do the three tables)."""

    MAX_SIDE = 12

    def __init__(self, a, b, i=0, j=0):
        from ..display.outputs import dot_product_story

        self.a, self.b = product_pair(a, b, self.MAX_SIDE)
        i, j = whole(i, "i", 0, len(self.a) - 1), whole(j, "j", 0, self.b.shape[1] - 1)
        self._story = dot_product_story
        self.row = Choice(self.a.shape[0], i, _("row"))  # radio buttons a screen reader names
        self.col = Choice(self.b.shape[1], j, _("column"))
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
    LOWEST, HIGHEST = 0.01, 1000.0  # the scale slider's ends

    def __init__(self, row=(1.0, 0.0, 0.0), scale=1.0):
        self.row = real_array(row, "row", 1, self.MAX_NUMBERS)
        self._scale = number(scale, "scale", self.LOWEST, self.HIGHEST)
        scaled(self.row, self._scale, _("row"))  # the box's name, in the learner's language
        self.text = TextBox(value=_as_typed(self.row), description=_("row"))
        self.scale = LogSlider(value=self._scale, base=10, min=-2, max=3, step=0.05, label=_("scale"), readout=True)
        self.message, self.view = W.HTML(), W.HTML(layout=W.Layout(max_width="100%"))  # never wider than the page
        self._quiet, self._in_use = False, True  # whether the box's text is the row in use
        for widget, name in ((self.text, "row"), (self.scale, "scale"), (self.message, "message"), (self.view, "view")):
            widget.add_class(f"hm-softmax-{name}")
        self.text.observe(lambda change: self._typed(change["new"]), names="value")
        self.scale.observe(lambda change: self._scaled(change["new"]), names="value")
        scale = W.HBox([W.HTML(_("scale")), self.scale], layout=W.Layout(align_items="center"))
        self.widget = Quiet([W.HBox([self.text, self.message]), scale, self.view], "SoftmaxExplorer")
        self.refresh()

    def _typed(self, text):
        if self._quiet:  # the row in use, put back in the box (_show_row)
            return
        self._in_use = False  # until the row is taken
        parts = re.split("[,，、﹐]", text)  # １，０、０ as 1, 0, 0 (each part read as the grids read a number)
        try:
            row = np.array([typed_number(part) for part in parts[: self.MAX_NUMBERS + 1]])
            if not 1 <= len(row) <= self.MAX_NUMBERS:
                raise NotANumber(text)
        except NotANumber:
            said = _("{text} is not a list of 1 to {n} numbers like 1, 0, 0; keeping the last row")
            return self._refuse(said.format(text=brief(text, 40), n=self.MAX_NUMBERS))
        except Unusable as problem:  # a number, but one no row can hold: said as the grids say it
            return self._refuse(_("{problem}; keeping the last row").format(problem=problem))
        self._try(row, self._scale)

    def _refuse(self, said):
        say_in(self.message, message_html(said))
        marked(self.text, _("row"), said)

    def _scaled(self, scale):
        if scale != self._scale:  # not the slider put back where the last scale was (below)
            self._try(self.row, scale)

    def _try(self, row, scale):
        try:
            scale = number(scale, "scale", self.LOWEST, self.HIGHEST)
            scaled(row, scale, _("row"))
        except ValueError as error:
            if row is self.row:  # the scale was refused: the slider goes back to the scale, the box to the row, in use
                said = _("{error}; keeping the scale at {scale}").format(error=error, scale=fmt(self._scale, 3))
                self.scale.value = self._scale
                self._show_row()
            else:
                said = _("{error}; showing the last row that fits").format(error=error)
            say_in(self.message, message_html(said))
            return marked(self.text, _("row"), "" if self._in_use else said)
        self._in_use = self._in_use or row is not self.row  # a row typed and taken is the box's text, as typed
        self.row, self._scale = row, scale
        self._show_row()  # a new scale: the box shows the row in use again, not a text refused before
        self.message.value = ""
        self.refresh()

    def _show_row(self):
        """Put the row in use in the box (every digit) when the box holds a text that was refused."""
        marked(self.text, _("row"), "")
        if not self._in_use:
            self._quiet = True
            try:
                self.text.value = _as_typed(self.row)
            finally:
                self._quiet, self._in_use = False, True

    def refresh(self):
        story = softmax_story(self.row, self._scale)
        self.view.value = scrolling(story.html(), story.title)  # 12 columns may be wider than the page: they scroll

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def _as_typed(row):  # [n] -> the text of a box that holds it: code, the same in every language, every digit kept
    return ", ".join(map(exact, row))
