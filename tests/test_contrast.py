"""Every number the package's tables and heatmaps print stands out from its cell (WCAG 2.1 AA:
4.5:1), one-character cells included, for every colour the scale can produce; and the outline of a
changed cell stands out (3:1) from any cell. Read from the package's own HTML and figures."""

import re
from collections import namedtuple
from html.parser import HTMLParser

import numpy as np
import pytest

from handmade.display.colours import CHANGED, NEGATIVE, POSITIVE, contrast, shade
from handmade.display.labelled import LabelledMatrix
from handmade.display.trace import trace
from handmade.widgets import blog_playground

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
TEXT = 4.5  # WCAG 2.1 AA, 1.4.3: text of normal size
NON_TEXT = 3.0  # 1.4.11: a mark that carries meaning, against what is next to it


def colour(value):
    """(r, g, b) of a CSS colour as the package writes it: #rgb, #rrggbb or rgb(r,g,b)."""
    value = value.strip()
    if value.startswith("rgb("):
        return tuple(int(c) for c in value[4:-1].split(","))
    digits = value[1:]
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return tuple(int(digits[k : k + 2], 16) for k in (0, 2, 4))


Cell = namedtuple("Cell", "tag text ink background style")


class Cells(HTMLParser):
    """Every table cell's text with the colour it is written in and the colour behind it (a page is
    white with black text where the package sets neither)."""

    def __init__(self, markup):
        super().__init__()
        self.found, self._open = [], None
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th"):
            style = dict(attrs).get("style") or ""
            self._open = [tag, style, ""]

    def handle_data(self, data):
        if self._open is not None:
            self._open[2] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._open is not None:
            tag, style, text = self._open
            if text.strip():
                self.found.append(
                    Cell(tag, text, _style(style, "color", BLACK), _style(style, "background", WHITE), style)
                )
            self._open = None


def _style(style, name, default):
    match = re.search(rf"(?:^|;){name}:([^;]+)", style)
    return colour(match.group(1)) if match else default


def every_shade():
    """A value in -1..1 for each colour the scale can produce: shade(t) rounds each channel of a
    line from white to an end, so its colour changes only where a channel's rounding does."""
    found = [0.0]
    for sign, end in ((1, POSITIVE), (-1, NEGATIVE)):
        steps = {(k + 0.5 - 255) / (c - 255) for c in end if c != 255 for k in range(256)}
        edges = sorted(t for t in steps if 0 < t < 1) + [1.0]
        found += [sign * (a + b) / 2 for a, b in zip([0.0, *edges], edges)] + [sign * 1.0]
    return np.array(found)


def scale_values():
    """Every shade's value, then zeros and tiny numbers, 24 to a row: fewer rows than a heatmap draws
    (32), so that every one of them is drawn and printed."""
    values = np.concatenate([every_shade(), [0.0, -0.0, 1e-12, -1e-12, 1e-300, -1e-300]])
    values = np.concatenate([values, np.zeros(-len(values) % 24)]).reshape(-1, 24)
    assert len(values) <= 32
    return values


def labels(values):
    return [f"r{i}" for i in range(values.shape[0])], [f"c{j}" for j in range(values.shape[1])]


def tables():
    values = scale_values()
    rows, cols = labels(values)
    matrix = LabelledMatrix(values, rows, cols, title="every shade", col_splits=(3,), row_splits=(5,))
    small = LabelledMatrix([[0, 1, -2.5], [1e-12, 0, 7]], ["a", "b"], ["x", "y", "z"]).with_highlight({(0, 1)})
    odd = LabelledMatrix([[np.nan, np.inf, -np.inf, 1], [0, -1e300, 1e300, -2]], ["a", "b"], ["w", "x", "y", "z"])
    return {
        "heat": matrix.html(heat=True),
        "heat, huge values": LabelledMatrix(values * 1e9, rows, cols).html(heat=True),
        "heat, all below zero": LabelledMatrix(-np.abs(values), rows, cols).html(heat=True),
        "heat, nan and infinities": odd.html(heat=True),
        "heat, a highlight": small.html(heat=True),
        "plain": matrix.html(),
        "plain, zeros and a highlight": small.html(),
    }


@pytest.mark.parametrize("name", list(tables()))
def test_every_number_a_table_prints_stands_out_from_its_cell(name):
    cells = Cells(tables()[name]).found
    assert len(cells) > 10
    assert [c for c in cells if len(c.text.strip()) == 1], "one-character cells (0, 1) are checked too"
    worst = min(cells, key=lambda c: contrast(c.ink, c.background))
    assert contrast(worst.ink, worst.background) >= TEXT, worst


def test_the_heat_table_meets_every_shade_of_the_scale():
    """So that the test above reads the text on every colour the scale can produce."""
    backgrounds = {shade(t) for t in np.linspace(-1, 1, 200_001)}
    used = {c.background for c in Cells(tables()["heat"]).found if c.tag == "td"}
    assert used == backgrounds, len(backgrounds ^ used)


def test_the_outline_of_a_changed_cell_stands_out_from_any_cell():
    values = scale_values()
    everywhere = {(i, j) for i in range(values.shape[0]) for j in range(values.shape[1])}
    markup = LabelledMatrix(values, *labels(values)).html(heat=True, changed=everywhere)
    cells = [c for c in Cells(markup).found if c.tag == "td"]
    assert len(cells) == values.size and all(CHANGED in c.style for c in cells)
    rings = [colour(c) for c in re.findall(r"#[0-9a-f]{3,6}", CHANGED)]
    assert len(rings) == 2 and contrast(*rings) >= NON_TEXT  # the two lines stand out from each other
    for cell in cells:
        assert max(contrast(ring, cell.background) for ring in rings) >= NON_TEXT, cell


def test_every_view_of_the_playground_stands_out():
    """The playground's own views, after an edit (its changed cells outlined), as the learner sees them."""
    p = blog_playground()
    p.editors["q"].boxes[2][2].value = "0"
    markup = "".join(panel.value for panel in p.panels.values())
    cells = Cells(markup).found
    assert len(cells) > 300 and CHANGED in markup
    worst = min(cells, key=lambda c: contrast(c.ink, c.background))
    assert contrast(worst.ink, worst.background) >= TEXT, worst


def test_a_heatmaps_numbers_stand_out_from_their_cells():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    values = scale_values()
    for matrix in (LabelledMatrix(values, *labels(values)), trace("aabaa")["attention_weights"]):
        ax = matrix.heatmap()
        image = ax.images[0]
        assert len(ax.texts) == matrix.values.size
        for text in ax.texts:
            x, y = text.get_position()
            value = np.clip(matrix.values[round(y), round(x)], -1e6, 1e6)
            background = tuple(round(255 * c) for c in image.cmap(image.norm(value))[:3])
            written = tuple(round(255 * c) for c in matplotlib.colors.to_rgb(text.get_color()))
            assert contrast(written, background) >= TEXT, (text.get_text(), background, written)
        plt.close(ax.figure)
