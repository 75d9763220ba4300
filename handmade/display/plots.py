"""Heatmaps of labelled matrices. This module imports matplotlib; nothing imports it eagerly."""

from pathlib import Path

import numpy as np
from matplotlib import font_manager
from matplotlib import pyplot as plt
from matplotlib.colors import LinearSegmentedColormap

from ..i18n import N_, _, translated
from .colours import ink, shade

# the HTML tables' colours: blue below zero, white at zero, red above
SIGNED = LinearSegmentedColormap.from_list("handmade", [[c / 255 for c in shade(t)] for t in np.linspace(-1, 1, 21)])

# The labels' fonts: matplotlib's own, then for what it lacks the Chinese characters of the message
# catalogue (tools/cjk_font.py), so that "位置 0 · a" is drawn on machines without a CJK font.
CJK_FONT = Path(__file__).resolve().parent.parent / "fonts" / "handmade-cjk.ttf"
font_manager.fontManager.addfont(CJK_FONT)
FONTS = ["sans-serif", font_manager.FontProperties(fname=CJK_FONT).get_name()]

# the axes of an attention pattern, as the notebooks label them: heatmap(xlabel=KEY, ylabel=QUERY)
KEY, QUERY = N_("key (looked at)"), N_("query (looking)")


def heatmap(matrix, ax=None, annotate=True, cmap=None, vmin=None, vmax=None, xlabel=None, ylabel=None):
    """Draw a LabelledMatrix on ``ax`` (a new figure if None); return the axes.

    Values are coloured as the HTML tables colour them: blue below zero, white at zero, red above,
    on a scale symmetric about zero (attention weights, all zero or more, run from white to red).
    Cells carry their numbers, in black or white by the cell's colour (at least 4.5:1). A label or title that is a message of the catalogue (``KEY``, ``QUERY``)
    is drawn in the learner's language; any other is drawn as given.
    """
    values = np.clip(matrix.values, -1e6, 1e6)  # a huge or infinite entry would wash out everything else
    if ax is None:
        _, ax = plt.subplots(figsize=(0.55 * values.shape[1] + 1.6, 0.45 * values.shape[0] + 1.0))
    low = values.min() if vmin is None else vmin
    high = values.max() if vmax is None else vmax
    bound = max(-low, high, 1e-12)  # symmetric, so that a colour means the same size on both sides
    image = ax.imshow(values, cmap=cmap or SIGNED, norm=plt.Normalize(-bound, bound), aspect="auto")
    vertical = max(map(len, matrix.cols)) > 3
    ax.set_xticks(range(values.shape[1]), matrix.cols, rotation=90 if vertical else 0, fontfamily=FONTS)
    ax.set_yticks(range(values.shape[0]), matrix.rows, fontfamily=FONTS)
    ax.tick_params(length=0)
    for j in matrix.col_splits:
        ax.axvline(j - 0.5, color="black", linewidth=2)
    if annotate:
        texts = matrix.texts()
        for (i, j), value in np.ndenumerate(values):
            background = [round(255 * c) for c in image.cmap(image.norm(value))[:3]]
            colour = [c / 255 for c in ink(background)]  # black or white, whichever stands out more
            ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=8, color=colour)
    ax.set_xlabel(translated(xlabel) if xlabel else "", fontfamily=FONTS)  # gettext("") is the header
    ax.set_ylabel(translated(ylabel) if ylabel else "", fontfamily=FONTS)
    if matrix.title:
        ax.set_title(translated(matrix.title), loc="left", fontsize=10, fontfamily=FONTS)
    return ax


# Reference lines tell apart by their dashes, their darkness and a label at their end, never by hue
# alone (red and green are one colour to a deuteranope).
REFERENCE_STYLES = (
    {"color": "0.35", "linestyle": ":", "linewidth": 1.2},
    {"color": "#1f5fbf", "linestyle": "--", "linewidth": 1.2},
    {"color": "0.1", "linestyle": "-.", "linewidth": 1.2},
    {"color": "#8a4b08", "linestyle": (0, (6, 2, 1, 2, 1, 2)), "linewidth": 1.2},
)


def reference_lines(ax, lines):
    """Draw each (label, y) of ``lines`` across ``ax`` as a horizontal line of its own dash pattern,
    its label written above its right end (and in the legend): yardsticks a plot is read against."""
    if len(lines) > len(REFERENCE_STYLES):
        raise ValueError(
            _("at most {n} reference lines, one dash pattern each; got {count}").format(
                n=len(REFERENCE_STYLES), count=len(lines)
            )
        )
    right = ax.get_yaxis_transform()  # x in axes (0 to 1), y in data
    for (label, y), style in zip(lines, REFERENCE_STYLES):
        ax.axhline(y, label=label, **style)
        ax.text(0.995, y, label, transform=right, ha="right", va="bottom", fontsize=8, color=style["color"])
    return ax
