"""Latency of the playground in a real browser, against the floor of a bare widget round trip.

Starts JupyterLab and headless Chromium (as the UI tests do) on a notebook with two cells: a bare
widget (a text box whose change redraws a constant, alternating "A" and "B") and the playground of
09. Each change is timed inside the page, from the Enter key to the moment its views have been
redrawn: 20 changes of the bare box (the floor: a round trip through the kernel and back, no work),
then the playground's first edit of the session, then 20 edits of q[P2, P2] (alternately 0 and 1024:
position 2 stops and starts looking at itself, which changes the attention and the accuracy).
Prints the medians, the maxima and the ratio of the edit's median to the floor's (target: at most 2).

Then the drawing of boxes, from running a cell to every box on the page: 512 of the package's text
boxes (``TextBox``, the most a grid holds, each an anywidget whose module the browser imports once per
box) against 512 of ipywidgets' ``Text`` (the floor), each cell run three times; prints the medians, per
box, and their ratio.

    python benchmarks/bench_ui_latency.py
"""

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "ui"))

from lab import Lab, NotebookPage, find_chromium, open_browser  # noqa: E402

CELLS = [
    """import ipywidgets as W

floor_box, floor_view = W.Text(continuous_update=False), W.HTML("A")
floor_box.add_class("floor-box")
floor_view.add_class("floor-view")
floor_box.observe(lambda change: setattr(floor_view, "value", "B" if floor_view.value == "A" else "A"), "value")
W.VBox([floor_box, floor_view])""",
    """from handmade.widgets import blog_playground

playground = blog_playground()
playground""",
]
BOXES = 512  # editors.MAX_BOXES: the most one grid holds
DRAWN = {  # a cell that draws BOXES boxes, by the class of the box that holds them
    "floor-boxes": "W.VBox([W.Text(value=str(k), description='x') for k in range(BOXES)])",
    "hm-boxes": "W.VBox([TextBox(value=str(k), description='x') for k in range(BOXES)])",
}
JS_RUN_CELL = """(index) => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = index;
  window.__drawStart = performance.now();
  window.jupyterapp.commands.execute('notebook:run-cell');
}"""
JS_ALL_DRAWN = """([css, count]) => {
  const holder = document.querySelector('.' + css);
  if (!holder || holder.querySelectorAll('input').length < count) return false;
  window.__drawn = performance.now() - window.__drawStart;
  return true;
}"""
WATCH = """([input, views]) => {
  window.__latency = {start: null, done: {}};
  document.querySelector(input).addEventListener('keydown', event => {
    if (event.key === 'Enter') { window.__latency.start = performance.now(); window.__latency.done = {}; }
  }, true);
  for (const view of views) {
    new MutationObserver(() => {
      const l = window.__latency;
      if (l.start !== null && !(view in l.done)) l.done[view] = performance.now();
    }).observe(document.querySelector(view), {childList: true, subtree: true, characterData: true});
  }
}"""
DONE = "views => views.every(v => v in window.__latency.done)"
ELAPSED = "views => Math.max(...views.map(v => window.__latency.done[v])) - window.__latency.start"


def notebook(sources=CELLS):
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
        for source in sources
    ]
    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return {"cells": cells, "metadata": kernel, "nbformat": 4, "nbformat_minor": 4}


def timed_edits(page, box, views, values, edits):
    """Milliseconds from Enter in ``box`` to every view in ``views`` redrawn, once per value typed."""
    page.evaluate(WATCH, [box, views])
    times = []
    for i in range(edits):
        page.fill(box, values[i % len(values)])
        page.press(box, "Enter")
        page.wait_for_function(DONE, arg=views, timeout=10_000)
        times.append(page.evaluate(ELAPSED, views))
    return times


def drawing_cells():
    """The cells that time the drawing: imports, then one cell per kind of box, each holder with its class."""
    first = f"import ipywidgets as W\nfrom handmade.widgets.textbox import TextBox\nBOXES = {BOXES}"
    return [first] + [f"holder = {code}\nholder.add_class({css!r})\nholder" for css, code in DRAWN.items()]


def timed_drawing(page, runs=3):
    """{class of the holder: [milliseconds from running its cell to every box of it on the page]}."""
    times = {css: [] for css in DRAWN}
    for _ in range(runs):
        for index, css in enumerate(DRAWN, start=1):
            page.evaluate(JS_RUN_CELL, index)
            page.wait_for_function(JS_ALL_DRAWN, arg=[css, BOXES], timeout=120_000)
            times[css].append(page.evaluate("window.__drawn"))
    return times


def measure(edits=20):
    chromium = find_chromium()
    if chromium is None:
        sys.exit("needs Chromium: apt-get install chromium, or set HANDMADE_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with Lab() as lab, sync_playwright() as playwright:
        (lab.root / "latency.ipynb").write_text(json.dumps(notebook()), encoding="utf-8")
        browser = open_browser(playwright, chromium)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        NotebookPage(page, lab, "latency.ipynb").open().run_all()
        page.locator(".hm-stages .lm-TabBar-tab", has_text="q").first.click()
        q_box, views = ".hm-cell-q-2-2 input", [".hm-view-q-attention", ".hm-view-accuracy"]
        page.wait_for_selector(q_box)  # a tab's grids are built when it is first opened
        first = timed_edits(page, q_box, views, ["0"], 1)  # the first edit of the session
        floor = timed_edits(page, ".floor-box input", [".floor-view"], ["x", "y"], edits)
        edit = timed_edits(page, q_box, views, ["1024", "0"], edits)
        (lab.root / "drawing.ipynb").write_text(json.dumps(notebook(drawing_cells())), encoding="utf-8")
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        drawing = NotebookPage(page, lab, "drawing.ipynb").open()
        page.evaluate(JS_RUN_CELL, 0)
        drawing.page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.content.model.cells.get(0).executionCount"
        )
        drawn = timed_drawing(page)
        browser.close()
    return first[0], floor, edit, drawn


if __name__ == "__main__":
    first, floor, edit, drawn = measure()
    print(
        f"bare widget round trip (the floor), {len(floor)} changes: median {statistics.median(floor):.0f} ms, max {max(floor):.0f} ms"
    )
    print(
        f"playground edit -> attention and accuracy redrawn, {len(edit)} edits: median {statistics.median(edit):.0f} ms, max {max(edit):.0f} ms"
    )
    print(f"the first edit of the session: {first:.0f} ms")
    print(f"edit median / floor median: {statistics.median(edit) / statistics.median(floor):.2f}  (target <= 2)")
    ours, stock = (statistics.median(drawn[css]) for css in ("hm-boxes", "floor-boxes"))
    print(
        f"{BOXES} boxes drawn, run to every box on the page, median of {len(drawn['hm-boxes'])}: "
        f"TextBox {ours:.0f} ms ({ours / BOXES:.1f} ms a box), ipywidgets' Text {stock:.0f} ms ({stock / BOXES:.1f} ms a box); "
        f"ratio {ours / stock:.2f}"
    )
