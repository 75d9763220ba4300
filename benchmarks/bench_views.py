"""What a playground costs to show: the bounds of handmade.widgets.options, measured.

Prints, measured in this one run:
- the issue's case, a playground of a 1,024-position model on a 512-letter text, and the same
  model on the longest context its views can draw: refused or built, the seconds it took, the
  characters of HTML its views hold;
- a model at each of the package's limits, on a short context and on a 64-letter one;
- what one edit costs (a number typed into a grid, every view drawn again) on the blog's model and
  on the largest one drawn above, and the microseconds per number a table draws.

    python benchmarks/bench_views.py
"""

import sys
import time
from pathlib import Path

from handmade.display import views as V
from handmade.display.trace import trace
from handmade.widgets import Playground, blog_playground
from handmade.widgets.options import MAX_CELLS, MAX_PASS_FLOPS, shown_cells

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers import AT_THE_LIMITS  # noqa: E402  (tests/helpers.py: a model at each of the package's limits)


def html_of(playground):
    widgets = [*playground.panels.values(), *playground.summary.values(), *playground.outcomes.values()]
    return sum(len(w.value) for w in widgets)


def attempt(params, text):
    """(the playground or None, what happened, in a line)."""
    start = time.perf_counter()
    try:
        playground = Playground(params, text=text)
    except ValueError as error:
        return None, f"refused in {time.perf_counter() - start:.2f} s: {error}"
    took = time.perf_counter() - start
    return playground, f"built in {took:.2f} s, {html_of(playground):,} characters of HTML"


def edit_seconds(playground, repeats=5):
    """The best time of typing a number into the first grid's first box (all views drawn again)."""
    box, best = next(iter(playground.editors.values())).boxes[0][0], float("inf")
    for k in range(repeats):
        start = time.perf_counter()
        box.value = str(0.5 + k)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    print(f"bounds: {MAX_CELLS:,} numbers drawn at each edit, a pass of at most {MAX_PASS_FLOPS:.0e} operations")
    big = AT_THE_LIMITS["1,024 positions"]()
    for label, length in (("512 letters", 512), ("48 letters", 48)):
        _p, said = attempt(big, ("ab" * 512)[:length])
        print(f"the issue's model (1,024 positions, width 16), {label}: {said}")
    largest = None
    for name, build in AT_THE_LIMITS.items():
        params = build()
        for label, length in (("2 letters", 2), ("64 letters", 64)):
            text = (params.labels.alphabet * 64)[:length]
            playground, said = attempt(params, text)
            print(f"{name}, {label}: {said}")
            if playground is not None and (largest is None or html_of(playground) > html_of(largest[1])):
                largest = (f"{name}, {label}", playground)
    blog = blog_playground()
    print(f"one edit, the blog's model: {1000 * edit_seconds(blog):.1f} ms, {html_of(blog):,} characters of HTML")
    name, playground = largest
    seconds = edit_seconds(playground)
    cells = sum(shown_cells(shape) for shape in playground._tables(trace(playground.text, playground.params)))
    print(f"one edit, {name} (the largest drawn above): {1000 * seconds:.0f} ms, its pass and {cells:,} numbers")
    t = trace(playground.text, playground.params)
    start = time.perf_counter()
    for stage, _grids, views in playground.laid_out:
        for view in views:
            V.panel_html(t, V.view_names(t, view, stage.block))
    drawn = time.perf_counter() - start
    print(f"its tables alone: {1000 * drawn:.0f} ms, {1e6 * drawn / cells:.1f} µs a number")


if __name__ == "__main__":
    main()
