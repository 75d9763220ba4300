"""One of a few numbers, as a screen reader and a keyboard expect it: the browser's own radio buttons.

ipywidgets' ``ToggleButtons`` draw a row of plain buttons whose chosen one differs only by its
colour: a screen reader hears "0, button", "1, button", and neither which one is chosen nor what
they choose. This is a ``<fieldset>`` named by its ``<legend>`` (``label``), with a radio button
per number (anywidget runs the few lines of JavaScript below, shipped here, nothing fetched): it
says "row, group; 1, radio button, checked, 2 of 4", the arrow keys move the choice (JupyterLab's
own shortcuts are off inside it: its up and down arrows would move to another cell), Tab leaves the
group, and the chosen one is marked by its dot, not by a colour. ``value`` is the chosen number;
each setting is checked where it comes in.
"""

import anywidget
import traitlets

from ..arguments import text_of, whole

RADIOS_ESM = """
function render({ model, el }) {
  const group = document.createElement("fieldset");
  const legend = document.createElement("legend");
  const name = "hm-choice-" + Math.random().toString(36).slice(2);
  const check = () => group.querySelectorAll("input").forEach((input, k) => { input.checked = k === model.get("value"); });
  const draw = () => {
    legend.textContent = model.get("label");
    group.replaceChildren(legend, ...model.get("options").map((text, k) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "radio";
      input.name = name;
      input.setAttribute("data-lm-suppress-shortcuts", "");  // the arrow keys move the choice, not JupyterLab's cells
      input.addEventListener("change", () => {
        if (input.checked) {
          model.set("value", k);
          model.save_changes();
        }
      });
      label.append(input, document.createTextNode(text));
      return label;
    }));
    check();
  };
  model.on("change:value", check);  // the same radio buttons: focus stays where it is
  model.on("change:options", draw);
  model.on("change:label", draw);
  draw();
  el.append(group);
}
export default { render };
"""
RADIOS_CSS = """
.hm-choice fieldset { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 12px; border: 0; margin: 0 0 4px 0; padding: 0; }
.hm-choice legend { float: left; min-width: 64px; padding: 0; }
.hm-choice label { display: inline-flex; align-items: center; gap: 3px; cursor: pointer; font-family: monospace; }
.hm-choice input[type="radio"] { margin: 0; accent-color: #1f5fbf; }
"""


class Choice(anywidget.AnyWidget):
    """Radio buttons numbered 0 to ``count`` - 1 (``count`` at most ``MOST``), in a group named
    ``label``; ``value`` is the chosen number."""

    MOST = 64
    _esm, _css = RADIOS_ESM, RADIOS_CSS
    options = traitlets.List(traitlets.Unicode()).tag(sync=True)
    value = traitlets.Int(0).tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)

    def __init__(self, count, value=0, label=""):
        count = whole(count, "count", 1, self.MOST)
        value = whole(value, "value", 0, count - 1)
        super().__init__(options=[str(k) for k in range(count)], value=value, label=text_of(label, "label", 200))
        self.add_class("hm-choice")

    @traitlets.validate("value")
    def _one_of_the_options(self, proposal):
        return whole(proposal["value"], "value", 0, len(self.options) - 1)
