"""A text box whose text reaches the kernel in its place among the buttons' clicks: the browser's own
``<input>``, named by its ``<label>`` (a grid's box, whose name is for a screen reader alone, by ``aria-label``:
named once), drawn as ipywidgets' ``Text`` is (its classes, its look).

ipywidgets holds a model's later changes back while one is on its way to the kernel, but not a
button's click: a grid's box typed in twice while the kernel was busy with the first, and "save
weights" clicked, saved the first. Here the text goes, when the box is left or Enter is pressed, as
a message of its own (``choice.Chosen``), which keeps its place; the box shows the kernel's value
again once the kernel has answered its last, and text typed and not yet sent stays, whatever the
kernel sets meanwhile (a reset waiting behind a cell). Any text is a value: what the model makes of
it is said by whoever observes ``value`` (the box keeps what was typed, to mend, with ``why`` it was
refused, which a screen reader hears with the box as invalid, and why). Its keys are its own, as in
ipywidgets' box: Shift+Enter sends, Ctrl+Z undoes the typing, neither reaches the notebook; in a grid
the up and down arrows move to the box above or below, as Tab moves along the row, and Escape takes back
what was typed and not yet sent (as in a spreadsheet); everywhere, Escape leaves the box for the notebook's
cells (outside a grid sending what was typed, as leaving a box does: a context typed at length is kept).
"""

import json

import traitlets

from ..arguments import text_of
from .choice import SENDER_JS, Chosen
from .marks import QUIET_LABEL

TEXT_BOX_ESM = (
    SENDER_JS
    + f"const QUIET = {json.dumps(QUIET_LABEL)};"
    + """
function render({ model, el }) {
  el.classList.add("jupyter-widgets", "widget-inline-hbox", "widget-text");  // ipywidgets' Text's look (its CSS)
  const label = document.createElement("label");
  const input = document.createElement("input");
  label.className = "widget-label";
  input.type = "text";
  input.setAttribute("data-lm-suppress-shortcuts", "");  // Shift+Enter: the box's, not JupyterLab's
  input.id = "hm-text-" + Math.random().toString(36).slice(2);
  label.htmlFor = input.id;  // the label names the box, and a click on it focuses it
  let sent = null;  // the text sent last, until the kernel has answered
  let shown;  // (put) the kernel's value the box showed last: other text in it is typed, not sent
  const put = () => { input.value = shown = model.get("value"); };
  const show = () => {  // the kernel's value, unless the person typed on since the last text sent
    if (sent === null || input.value === sent) put();
    sent = null;
  };
  const typed = sender(model, show);  // choice.SENDER_JS
  const commit = () => {
    if (input.value !== (sent === null ? model.get("value") : sent)) {
      sent = input.value;
      typed.send(input.value);
    }
  };
  input.addEventListener("change", commit);  // the box left
  input.addEventListener("keydown", (event) => {
    event.stopPropagation();  // as ipywidgets' box: the notebook would take Ctrl+Z from it
    if (event.isComposing) return;  // an input method's keys
    if (event.key === "Enter") commit();
    const plain = !(event.shiftKey || event.ctrlKey || event.altKey || event.metaKey);  // Shift+Up selects, as ever
    const arrow = plain && (event.key === "ArrowUp" || event.key === "ArrowDown");
    const next = arrow ? beside(input, event.key === "ArrowDown") : null;
    if (next) {  // the box above or below in its grid; the box left sends its text (change)
      event.preventDefault();
      next.focus();
      next.select();
    }
    if (event.key === "Escape") {  // out to the cells (command mode); in a grid, what was typed and not sent is taken back
      if (input.closest(".hm-grid")) {  // as in a spreadsheet (before the blur, so that no change is sent)
        if (sent === null) put();
        else input.value = sent;  // on its way: shown as the kernel answers it
      }
      input.blur();
      const notebook = input.closest(".jp-Notebook");
      if (notebook) notebook.focus();
    }
  });
  const draw = () => {
    const name = model.get("description");
    const quiet = model.get("_dom_classes").includes(QUIET);  // a grid's box: its name is for a screen reader alone
    label.textContent = label.title = name;
    label.style.display = name && !quiet ? "" : "none";
    if (quiet) input.setAttribute("aria-label", name);  // named once (a hidden label is read again beside the box)
    else input.removeAttribute("aria-label");
    label.style.width = model.get("description_width");
    input.placeholder = model.get("placeholder");
    input.title = model.get("tooltip") || "";
  };
  keepClasses(model, el);  // a refusal's red edge comes later (add_class)
  const why = document.createElement("span");  // hidden, and still the box's description (aria-describedby)
  why.id = input.id + "-why";
  why.hidden = true;
  const refused = () => {
    why.textContent = model.get("why");
    input.setAttribute("aria-invalid", String(Boolean(model.get("why"))));
    if (model.get("why")) input.setAttribute("aria-describedby", why.id);
    else input.removeAttribute("aria-describedby");
  };
  model.on("change:why", refused);
  refused();
  model.on("change:value", () => { if (typed.idle() && input.value === shown) put(); });  // typing is kept
  for (const name of ["description", "description_width", "placeholder", "tooltip", "_dom_classes"]) {
    model.on("change:" + name, draw);
  }
  draw();
  put();
  el.append(label, input, why);
}

// The box above (or below) ``input`` in its grid: in the nearest row that way, the nearest column; null outside a
// grid or past its edge. The up and down arrows move through a grid's column as Tab moves through its row.
function beside(input, down) {
  const grid = input.closest(".hm-grid");
  if (!grid) return null;
  const here = input.getBoundingClientRect();
  const away = (r) => Math.abs(r.top - here.top) * 1e4 + Math.abs(r.left - here.left);
  const ahead = [...grid.querySelectorAll("input")]
    .map((other) => [other, other.getBoundingClientRect()])
    .filter(([, r]) => (down ? r.top >= here.bottom - 1 : r.bottom <= here.top + 1));
  ahead.sort(([, a], [, b]) => away(a) - away(b));
  return ahead.length ? ahead[0][0] : null;
}
export default { render };
"""
)


LONGEST = 100_000  # characters of a value given here (the context box takes at most 10,000)


class TextBox(Chosen):
    """A box of text named ``description`` (shown in ``description_width``, "initial" for the room the
    name needs, "" for ipywidgets' usual; a screen reader alone reads it in a box marked QUIET_LABEL),
    ``placeholder`` shown while it is empty; ``value`` is the text sent last, or set here; ``why`` the sentence
    that says why the model did not take it ("": it did), the box's description (``editors.marked`` sets it)."""

    _esm = TEXT_BOX_ESM
    value = traitlets.Unicode("").tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    description_width = traitlets.Unicode("").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    why = traitlets.Unicode("").tag(sync=True)

    def __init__(self, value="", description="", placeholder="", description_width="", **kwargs):  # kwargs: layout
        super().__init__(
            value=text_of(value, "value", LONGEST),
            description=text_of(description, "description", 200),
            placeholder=text_of(placeholder, "placeholder", 200),
            description_width=text_of(description_width, "description_width", 20),
            **kwargs,
        )
