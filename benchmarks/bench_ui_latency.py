"""Latency of the playground in a real browser: from a weight edit to the updated view.

Starts JupyterLab and headless Chromium (as the UI tests do), runs 09_playground, then makes 20
edits of q[P2, P2] (alternately 0 and 1024: position 2 stops and starts looking at itself, which
changes both the attention heatmap and the predictions). Each edit is timed inside the page, from
the Enter keypress to the moment both views have been redrawn. Prints the median and the maximum
(target: median at most 150 ms).

    python benchmarks/bench_ui_latency.py
"""

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "ui"))

from lab import Lab, NotebookPage, find_chromium, open_browser  # noqa: E402

VIEWS = ("hm-view-attention", "hm-view-predictions")
WATCH = """([input, views]) => {
  window.__latency = {start: null, done: {}};
  document.querySelector(input).addEventListener('keydown', event => {
    if (event.key === 'Enter') { window.__latency.start = performance.now(); window.__latency.done = {}; }
  }, true);
  for (const view of views) {
    new MutationObserver(() => {
      const l = window.__latency;
      if (l.start !== null && !(view in l.done)) l.done[view] = performance.now();
    }).observe(document.querySelector('.' + view), {childList: true, subtree: true, characterData: true});
  }
}"""
DONE = "views => views.every(v => v in window.__latency.done)"
ELAPSED = "views => Math.max(...views.map(v => window.__latency.done[v])) - window.__latency.start"


def measure(edits=20):
    chromium = find_chromium()
    if chromium is None:
        sys.exit("needs Chromium: apt-get install chromium, or set HANDMADE_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with Lab() as lab, sync_playwright() as playwright:
        browser = open_browser(playwright, chromium)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        notebook = NotebookPage(page, lab, "09_playground.ipynb").open().run_all()
        box = notebook.cell_box("q", 2, 2)
        box.scroll_into_view_if_needed()
        page.evaluate(WATCH, [".hm-cell-q-2-2 input", list(VIEWS)])
        times = []
        for i in range(edits):
            box.fill("0" if i % 2 == 0 else "1024")
            box.press("Enter")
            page.wait_for_function(DONE, arg=list(VIEWS), timeout=10_000)
            times.append(page.evaluate(ELAPSED, list(VIEWS)))
        browser.close()
    return times


if __name__ == "__main__":
    times = measure()
    print(f"edit -> heatmap and predictions redrawn, over {len(times)} edits in the playground:")
    print(f"median {statistics.median(times):.0f} ms, max {max(times):.0f} ms  (target: median <= 150 ms)")
