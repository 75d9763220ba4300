"""One of a few numbers, or one of many names, as a screen reader and a keyboard expect it: the
browser's own radio buttons (``Choice``) and its own menu (``Menu``).

ipywidgets' ``ToggleButtons`` draw a row of plain buttons whose chosen one differs only by its
colour: a screen reader hears "0, button", "1, button", and neither which one is chosen nor what
they choose. This is a ``<fieldset>`` named by its ``<legend>`` (``label``), with a radio button
per number (anywidget runs the few lines of JavaScript below, shipped here, nothing fetched): it
says "row, group; 1, radio button, checked, 2 of 4", the arrow keys move the choice (JupyterLab's
own shortcuts are off inside it: its up and down arrows would move to another cell), Tab leaves the
group, and the chosen one is marked by its dot, not by a colour. ``value`` is the chosen number;
each setting is checked where it comes in.

ipywidgets' ``Dropdown`` is a ``<select>`` on which JupyterLab's shortcuts stay on: its down arrow
moves to the next cell instead of the next name. ``Menu`` is a ``<select>`` named by its ``<label>``
(shown, or, ``quiet``, read by a screen reader alone) with those shortcuts off: the arrow keys move
the choice, as in any page.
"""

import anywidget
import traitlets

from ..arguments import brief, few, strings, text_of, whole, yes_or_no
from ..basis import MAX_NAMES
from ..i18n import _
from .marks import READER_ONLY

# A person's choice goes to the kernel as a message of its own (Chosen), which keeps its place among the buttons'
# clicks, and the kernel answers each. Until it has answered the last, what it sends back of the earlier ones is not
# shown: the control keeps what the person chose, and an arrow key moves on from it. Then ``show`` shows the one in use.
# Each control keeps its classes too (keepClasses).
SENDER_JS = """
function sender(model, show) {
  let pending = 0;
  model.on("msg:custom", (msg) => {
    if (msg && msg.answered) {
      pending = Math.max(0, pending - 1);
      if (pending === 0) show();
    }
  });
  return { send: (value) => { pending += 1; model.send({ value }); }, idle: () => pending === 0 };
}
// anywidget puts a view's classes (add_class) on it once, when it is drawn: the ones set in the kernel later, a
// refusal's red edge among them, are put on here
function keepClasses(model, el) {
  let classes = model.get("_dom_classes");
  model.on("change:_dom_classes", () => {
    el.classList.remove(...classes);
    classes = model.get("_dom_classes");
    el.classList.add(...classes);
  });
}
"""
RADIOS_ESM = (
    SENDER_JS
    + """
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
        if (input.checked) chosen.send(k);
      });
      label.append(input, document.createTextNode(text));
      return label;
    }));
    check();
  };
  const chosen = sender(model, check);
  keepClasses(model, el);
  model.on("change:value", () => { if (chosen.idle()) check(); });  // the same radio buttons: focus stays
  model.on("change:options", draw);
  model.on("change:label", draw);
  draw();
  el.append(group);
}
export default { render };
"""
)
RADIOS_CSS = """
.hm-choice fieldset { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 12px; border: 0; margin: 0 0 4px 0; padding: 0; }
.hm-choice legend { float: left; min-width: 64px; padding: 0; }
.hm-choice label { display: inline-flex; align-items: center; gap: 3px; cursor: pointer; font-family: monospace; }
.hm-choice input[type="radio"] { margin: 0; accent-color: #1f5fbf; }
"""


def in_order(widget):
    """``widget``, each message of which the kernel now handles in its main thread, after those that came before it.

    ipykernel 7.4 sends a widget's message to the thread from which that widget last sent one (``_reply_subshell_for``),
    not to the one JupyterLab asked for: a box redrawn while the widgets' subshell handled a message went there, a
    button made by the notebook's cell to the main thread, and a click ran beside a box's slow edit, before the edit
    typed after it. Every control of the package is given here as it is made: all its messages go to the main thread,
    in the order sent, as in ipykernel 6; they wait, as there, while a cell runs. Other kernels are left as they are:
    ipykernel 7.0 to 7.3 follow JupyterLab, whose default sends every widget's messages to one subshell, in order.
    """
    if hasattr(widget.comm, "_reply_subshell_for"):
        widget.comm._reply_subshell_for = _main_thread
    return widget


def _main_thread(_data, _asked):
    return None  # the main thread's subshell id


class Chosen(anywidget.AnyWidget):
    """An anywidget whose ``value`` the browser sends as a message of its own (``model.send``, ``SENDER_JS``), not as a
    change of the model: ipywidgets holds a model's later changes back while one is on its way to the kernel, but no
    message and no button's click, so a choice changed twice while the kernel was busy reached it after a click made
    since, and the click used the first. A message keeps its place among them. Each is answered once the value is set
    (or kept: a name offered before the options changed is refused), and the browser then shows the value in use."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        in_order(self)
        self.on_msg(self._chosen)

    def _chosen(self, _widget, content, _buffers):
        if not (isinstance(content, dict) and "value" in content):
            return
        try:  # the value's own checks (its type, and the class's validator), before anything observes it
            value = self.traits()["value"]._validate(self, content["value"])
        except (traitlets.TraitError, TypeError, ValueError):
            value = self.value  # refused: the one in use stays
        try:
            self.value = value  # what an observer raises then is its own, not a refusal, and is not hidden
        finally:
            self.send({"answered": True})  # after the change it made, if any


class Choice(Chosen):
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


NAME = 200  # characters of one name in a menu
MENU_ESM = (
    SENDER_JS
    + """
function render({ model, el }) {
  const row = document.createElement("div");
  const label = document.createElement("label");
  const select = document.createElement("select");
  select.id = "hm-menu-" + Math.random().toString(36).slice(2);
  label.htmlFor = select.id;  // the label names the menu, and a click on it focuses it
  select.setAttribute("data-lm-suppress-shortcuts", "");  // the arrow keys move the choice, not JupyterLab's cells
  const draw = () => {
    label.textContent = model.get("label");
    label.className = model.get("quiet") ? "hm-menu-quiet" : "";
    select.replaceChildren(...model.get("options").map((text) => {
      const option = document.createElement("option");
      option.value = option.textContent = text;
      return option;
    }));
    select.value = model.get("value");
  };
  const chosen = sender(model, () => { select.value = model.get("value"); });
  keepClasses(model, el);
  select.addEventListener("change", () => chosen.send(select.value));
  model.on("change:value", () => { if (chosen.idle()) select.value = model.get("value"); });  // focus stays
  model.on("change:options", draw);
  model.on("change:label", draw);
  model.on("change:quiet", draw);
  draw();
  row.append(label, select);
  el.append(row);
}
export default { render };
"""
)
MENU_CSS = f"""
.hm-menu > div {{ display: flex; align-items: center; gap: 4px; margin: 2px 8px 2px 0; }}
.hm-menu select {{ flex: none; max-width: 36ch; font-family: monospace; }}
.hm-menu .hm-menu-quiet {{{READER_ONLY}}}
"""


class Menu(Chosen):
    """A menu of names (1 to ``MOST``, each once, in the order given) named ``label``; ``value`` is the
    chosen one, always one of ``options`` (the first when the options change without it). ``quiet``: the
    label is for a screen reader alone (the names say what it is). The browser sends only the name
    chosen: one it offered before the options changed keeps the current one, which it then shows."""

    MOST = MAX_NAMES
    _esm, _css = MENU_ESM, MENU_CSS
    options = traitlets.List(traitlets.Unicode()).tag(sync=True)
    value = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)
    quiet = traitlets.Bool(False).tag(sync=True)

    def __init__(self, options, value=None, label="", quiet=False, **kwargs):  # kwargs: a widget's (layout)
        options = _menu_names(options)
        chosen = options[0] if value is None else _menu_choice(value, options)
        label, quiet = text_of(label, "label", 200), yes_or_no(quiet, "quiet")
        super().__init__(options=options, value=chosen, label=label, quiet=quiet, **kwargs)
        self.add_class("hm-menu")

    def set_state(self, sync_data):  # a change of the model another front end sends (this one sends a message)
        offered = {key: value for key, value in sync_data.items() if key == "value"}
        if offered and offered["value"] not in self.options:
            offered["value"] = self.value  # chosen from the names before the last change: the echo shows the current
        super().set_state(offered)

    @traitlets.validate("options")
    def _names(self, proposal):
        return _menu_names(proposal["value"])

    @traitlets.observe("options")
    def _keep_a_choice(self, change):
        if self.value not in change["new"]:
            self.value = change["new"][0]

    @traitlets.validate("value")
    def _one_of_the_names(self, proposal):
        return _menu_choice(proposal["value"], self.options)


def _menu_names(options):
    """``options`` as a list of 1 to Menu.MOST names of at most NAME characters, each once, in order
    (a set has none), or TypeError or ValueError saying what they are."""
    names = strings(options, "options")
    if isinstance(options, (set, frozenset)):
        raise TypeError(
            _("{name} must be a list of strings; found {value}").format(name="options", value=brief(options))
        )
    if not 1 <= len(names) <= Menu.MOST:
        raise ValueError(_("options must hold 1 to {most} names; found {n}").format(most=Menu.MOST, n=len(names)))
    for name in names:
        text_of(name, "options", NAME)
    twice = next((name for k, name in enumerate(names) if name in names[:k]), None)
    if twice is not None:
        raise ValueError(_("options must name each choice once; {name} is there twice").format(name=brief(twice)))
    return names


def _menu_choice(value, options):
    """``value`` if it is one of ``options``, else TypeError or ValueError naming them."""
    if not isinstance(value, str) or value not in options:
        raise (ValueError if isinstance(value, str) else TypeError)(
            _("value must be one of the options ({allowed}); found {value}").format(
                allowed=few([brief(option, 20) for option in options]), value=brief(value)
            )
        )
    return value
