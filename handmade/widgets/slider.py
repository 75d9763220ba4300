"""A slider on a log scale that a screen reader can name: the browser's own range input.

ipywidgets' sliders draw a ``role="slider"`` handle that no trait can give a name (neither
``description`` nor ``tooltip`` reaches it), so a screen reader announces an unnamed slider. This
one is an ``<input type="range">`` (anywidget runs the few lines of JavaScript below, shipped
here, nothing fetched), named by ``label`` and read out by ``valuetext``; the keyboard moves it
as any range input (arrows, Page Up/Down, Home, End), JupyterLab's shortcuts off inside it (its up
and down arrows would move to another cell). Its ``value`` is a number on the scale
``base ** min`` to ``base ** max`` in steps of ``step`` in the exponent, like ``FloatLogSlider``;
each setting is checked where it comes in (``base`` above 1 and at most 10, the ends within ±300).
"""

import traitlets

from ..arguments import number, text_of
from ..display.labelled import fmt
from ..i18n import _
from .choice import SENDER_JS, Chosen

ESM = (
    SENDER_JS
    + """
function render({ model, el }) {
  const input = document.createElement("input");
  const readout = document.createElement("span");
  input.type = "range";
  const draw = () => {
    const base = model.get("base");
    input.min = model.get("min");
    input.max = model.get("max");
    input.step = model.get("step");
    input.value = Math.log(model.get("value")) / Math.log(base);
    input.setAttribute("aria-label", model.get("label"));
    input.setAttribute("aria-valuetext", model.get("valuetext"));
    input.title = model.get("label");
    readout.textContent = model.get("readout") ? model.get("valuetext") : "";
  };
  const chosen = sender(model, draw);  // choice.SENDER_JS
  keepClasses(model, el);
  input.addEventListener("change", () => chosen.send(model.get("base") ** Number(input.value)));
  model.on("change", () => { if (chosen.idle()) draw(); });
  draw();
  input.setAttribute("data-lm-suppress-shortcuts", "");  // on the input itself: all four arrows move it, no cell
  el.append(input, readout);
}
export default { render };
"""
)
CSS = """
.hm-log-slider { display: flex; align-items: center; }
.hm-log-slider input[type="range"] { width: 200px; margin: 0 8px; accent-color: #1f5fbf; }
"""


class LogSlider(Chosen):
    """A range input from ``base ** min`` to ``base ** max``; ``label`` names it, ``valuetext``
    is what a screen reader says its value is (the value, as the tables write numbers), and
    ``readout`` writes it beside the slider too."""

    _esm, _css = ESM, CSS
    value = traitlets.Float(1.0).tag(sync=True)
    base = traitlets.Float(10.0).tag(sync=True)
    min = traitlets.Float(0.0).tag(sync=True)
    max = traitlets.Float(4.0).tag(sync=True)
    step = traitlets.Float(0.1).tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)
    valuetext = traitlets.Unicode("").tag(sync=True)
    readout = traitlets.Bool(False).tag(sync=True)  # whether the value is also written beside it

    def __init__(self, *, value=1.0, base=10.0, min=0.0, max=4.0, step=0.1, label="", readout=False):  # noqa: A002
        base = number(base, "base", 1, 10, low_allowed=False)  # with ends within ±300: base ** end is a float
        low, high = (number(x, name, -300, 300) for x, name in ((min, "min"), (max, "max")))
        if low >= high:
            raise ValueError(_("min must be below max; found {low} and {high}").format(low=fmt(low), high=fmt(high)))
        step = number(step, "step", 0, high - low, low_allowed=False)
        value = number(value, _("value (from base ** min to base ** max)"), base**low, base**high)
        label = text_of(label, "label", 200)
        super().__init__(value=value, base=base, min=low, max=high, step=step, label=label, readout=bool(readout))
        self.add_class("hm-log-slider")
        self.observe(self._say_value, names="value")
        self._say_value()

    def _say_value(self, _change=None):
        self.valuetext = fmt(self.value, 3)
