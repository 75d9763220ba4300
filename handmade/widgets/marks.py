"""What the outermost box of each of the package's widgets carries that ipywidgets cannot give it: the
package's style, the language its words are in, and the status regions a screen reader listens to.

A notebook's page is in JupyterLab's language (``lang="en"`` unless its language is set otherwise), and a
screen reader reads every word in that page's language: Chinese read by an English voice is noise. ipywidgets
gives a box no attribute, so ``Marks``, a hidden widget inside the box (anywidget runs its few lines of
JavaScript, shipped here, nothing fetched), sets the box's ``lang`` to the language it was made in, once the box
is on the page; its ``_css`` is the style (quiet labels, the focus ring, a refused box's edge). It also makes
the element each HTML widget of class ``LIVE`` writes its value into a status region, kept from one value to the
next, so that a screen reader reads out what an edit changed there; two live regions of the box's own that read
out what its controls say (``SAYS``: a message, put on the page anew with each value); a tab list, named after
the box's heading (a playground's, "playground: abc"), each of its tabs tied to the panel it shows (a tabpanel,
named by its tab); the chosen tab the tab bar's stop of the Tab key (chosen with the mouse, or passed by the
arrows); and a view's table wider than its room a named region the Tab key reaches, to scroll it from the
keyboard (and no stop while it fits). ``give_focus`` gives the keyboard to a control when the one that had it goes.
"""

import anywidget
import traitlets

from ..display.views import SCROLLS

QUIET_LABEL = "hm-quiet-label"  # a widget whose label a screen reader reads but the page does not show
RINGED = "hm-ringed"  # a box of the package's widgets: each control in it shows the focus ring when focused
REFUSED = "hm-refused"  # a box that holds text the model did not take: a red edge, and its name says so
LIVE = "hm-live"  # an HTML widget whose words a screen reader reads out when they change (the prediction, the score)
SAYS = "data-hm-says"  # a message's attribute, "alert" or "status": how the box's speakers read it out
SPEAKER = "hm-speaker"  # a box's live region that reads out what its controls say (hidden)
# What a screen reader reads and the page does not show (quiet labels, the speakers, hidden headings, a menu's quiet
# label): one pixel, clipped to nothing, out of the flow; not display:none, which a screen reader skips too.
READER_ONLY = (
    "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);"
    "white-space:nowrap;margin:0;padding:0"
)
MARKS_CSS = f"""
.{QUIET_LABEL}.jupyter-widgets > .widget-label, .{SPEAKER} {{{READER_ONLY}}}
.{RINGED} :is(input, select, button, textarea, .lm-TabBar-tab, .{SCROLLS}):focus-visible {{
  outline: 2px solid #1f5fbf !important; outline-offset: 1px; box-shadow: 0 0 0 1px #fff; position: relative; z-index: 1}}
.{RINGED} .{SCROLLS}:focus-visible {{outline-offset: -2px}}
.{REFUSED} input {{border: 2px solid #b3261e !important}}
.{RINGED} .widget-html > .widget-html-content:has(> .{SCROLLS}) {{min-width: 0}}
"""
# Quiet labels; and a focus ring that stands out from anything around it, on every control of every
# widget the package makes (a blue line at 6:1 on white, a white line inside it; important, as
# ipywidgets sets its inputs' outline to none with !important and gives its buttons a 1 px light blue),
# and on a table's region that scrolls (inside its edge, which the box around it may cut). An HTML widget that is
# such a region (the softmax explorer's table) is no wider than its room, so that its table scrolls and nothing else.

MARKS_ESM = (
    """
function render({ model, el }) {
  let tries = 0;
  const mark = () => {  // the box is put on the page just after this view is made: look for it until it is
    const box = el.closest("." + model.get("box"));
    if (box) {
      box.setAttribute("lang", model.get("lang"));
      watch(box);
    } else if (tries++ < 100) setTimeout(mark, 20);
  };
  mark();
}

// What the box's parts need, now and as its views are drawn (a tab's grids are made when first shown): once a box,
// however often its views are drawn.
function watch(box) {
  named(box);
  if (box.hmWatched) return;
  box.hmWatched = true;
  speaker(box, "status");  // on the page before the first words they are given
  speaker(box, "alert");
  new MutationObserver((records) => {
    named(box);
    records.forEach((record) => record.addedNodes.forEach((node) => heard(box, node)));
  }).observe(box, { childList: true, subtree: true });
  new MutationObserver(chosen).observe(box, { attributeFilter: ["aria-selected"], subtree: true });
}

// A table's region (display.views) is a stop of the Tab key, named by its table, while the table is wider than its
// room and scrolls (the arrow keys scroll it, not JupyterLab's cells); while it fits, it is no stop and no region,
// one stop less per table. Looked at again whenever its size changes: a tab shown, the file browser closed.
const sized = new ResizeObserver((entries) => entries.forEach((entry) => scrolls(entry.target)));

function scrolls(region) {
  if (!region.isConnected) return sized.unobserve(region);  // a view drawn again: its old table is gone
  if (region.scrollWidth > region.clientWidth + 1) {
    region.setAttribute("tabindex", "0");
    region.setAttribute("role", "region");
    region.setAttribute("aria-label", region.dataset.label || "");
    region.setAttribute("data-lm-suppress-shortcuts", "");
  } else {
    for (const name of ["tabindex", "role", "aria-label"]) region.removeAttribute(name);
  }
}

// An HTML widget of class LIVE writes each new value into the same element: that element is made the status
// region, before any change, so that what changes in it is read out (a region put on the page together with its
// words, as a new value's own markup would be, is not read by every screen reader). A tab list is named after the
// box's heading (a playground's, "playground: abc"), and each tab tied to the panel it shows, which is named by it.
function named(box) {
  box.querySelectorAll(".LIVE > .widget-html-content:not([role])").forEach((region) => {
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
  });
  box.querySelectorAll(".widget-tab").forEach(tied);
  box.querySelectorAll(".SCROLLS").forEach((region) => {
    if (region.hmSized) return;
    region.hmSized = true;
    scrolls(region);
    sized.observe(region);
  });
  const heading = box.querySelector("h1, h2, h3, h4, h5, h6");
  if (!heading) return;
  box.querySelectorAll("[role=tablist]:not([aria-label])").forEach((tabs) => {
    tabs.setAttribute("aria-label", heading.textContent);
  });
}

const HEARD_FOR = 5000;  // ms a speaker holds what it said: the screen reader has taken it by then

// What a control of the box says (a message, SAYS, put on the page as an HTML widget's new value) is read out by the
// box's own two live regions, polite and assertive, made once and kept: a region put on the page together with its
// words is not read by every screen reader. The same words again are read again (cleared, then written); the words
// are taken out once read.
function heard(box, node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return;
  const messages = node.matches("[SAYS]") ? [node] : node.querySelectorAll("[SAYS]");
  for (const message of messages) {
    if (message.closest(".RINGED") !== box || !message.textContent) continue;  // an inner box's: it says it
    const region = speaker(box, message.getAttribute("SAYS"));
    region.textContent = "";
    clearTimeout(region.hmLater);
    region.hmLater = setTimeout(() => {
      region.textContent = message.textContent;
      // emptied once read out: browse mode would read it again beside the message, and after it no longer holds
      region.hmLater = setTimeout(() => { region.textContent = ""; }, HEARD_FOR);
    }, 50);
  }
}

function speaker(box, kind) {
  box.hmSpeakers = box.hmSpeakers || {};
  if (!box.hmSpeakers[kind]) {
    const region = document.createElement("div");
    region.className = "SPEAKER";
    region.setAttribute("role", kind === "alert" ? "alert" : "status");
    region.setAttribute("aria-live", kind === "alert" ? "assertive" : "polite");
    box.append(region);
    box.hmSpeakers[kind] = region;
  }
  return box.hmSpeakers[kind];
}

// The k-th tab of a tab widget shows its k-th panel: the tab says which (aria-controls), and the panel is a tabpanel
// named by its tab (lumino gives a tab an id and the tab role, and the panel neither).
function tied(widget) {
  const tabs = widget.querySelector(":scope > .widget-tab-bar [role=tablist]");
  if (tabs && !tabs.hmLeft) {  // the arrows moved the stop without choosing: the keyboard comes back to the chosen tab
    tabs.hmLeft = true;
    tabs.addEventListener("focusout", (event) => {
      if (!tabs.contains(event.relatedTarget)) stopOnChosen(tabs);
    });
  }
  const panels = widget.querySelectorAll(":scope > .widget-tab-contents > *");
  widget.querySelectorAll(":scope > .widget-tab-bar [role=tab]").forEach((tab, k) => {
    const panel = panels[k];
    if (!panel || !tab.id) return;
    panel.id = panel.id || "hm-panel-" + tab.id;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", tab.id);
    tab.setAttribute("aria-controls", panel.id);
  });
}

// A tab chosen with the mouse becomes the tab bar's one stop of the Tab key (lumino leaves it on the tab that had
// it, which a screen reader then names "not selected" while the chosen tab's panel shows). The arrow keys still
// move the stop among the tabs; when the keyboard leaves the tab bar, the stop goes back to the chosen tab.
function chosen(changes) {
  for (const change of changes) {
    const tab = change.target;
    if (tab.getAttribute("aria-selected") === "true" && tab.parentElement) stopOnChosen(tab.parentElement);
  }
}

function stopOnChosen(tabs) {
  for (const tab of tabs.children) tab.setAttribute("tabindex", tab.getAttribute("aria-selected") === "true" ? "0" : "-1");
}
export default { render };
""".replace("LIVE", LIVE)
    .replace("SCROLLS", SCROLLS)
    .replace("SAYS", SAYS)
    .replace("SPEAKER", SPEAKER)
)
MARKS_ESM = MARKS_ESM.replace("RINGED", RINGED)


class Marks(anywidget.AnyWidget):
    """Hidden, inside the box of class ``box``: gives it ``lang`` ("en", "zh-CN"), its LIVE widgets their
    status regions, and the style ``_css``."""

    _esm, _css = MARKS_ESM, MARKS_CSS
    box = traitlets.Unicode("").tag(sync=True)
    lang = traitlets.Unicode("en").tag(sync=True)


def give_focus(widget):
    """Give ``widget`` the keyboard's focus (ipywidgets 8.1 and later can; 8.0 leaves it where it was)."""
    if hasattr(widget, "focus"):
        widget.focus()
