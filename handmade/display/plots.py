"""Heatmaps of labelled matrices, and figures shown with their text alternative (``show_figure``). This
module imports matplotlib; nothing imports it eagerly."""

import functools
import io
import weakref
from pathlib import Path

import numpy as np
from matplotlib import font_manager
from matplotlib import pyplot as plt
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, LinearSegmentedColormap
from matplotlib.figure import Figure as PlotFigure

from ..arguments import brief, chosen, number, text_of, writable
from ..i18n import N_, _, listed, ngettext, then, translated
from .colours import ink, shade
from .figure import Figure, checked_alt
from .window import HEATMAP_SIDE, kept, left_out

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
    is drawn in the learner's language; any other is drawn as given. A matrix of more than ``HEATMAP_SIDE``
    rows or columns is drawn by its first and last ones, a dashed line where the others are left
    out, and the title says so.
    """
    matrix, rows, cols = _drawn(matrix)
    ax, cmap, vmin, vmax, xlabel, ylabel = _options(ax, cmap, vmin, vmax, xlabel, ylabel)
    values = np.clip(matrix.values[np.ix_(rows, cols)], -1e6, 1e6)  # a huge or infinite entry would wash out the rest
    if ax is None:
        _, ax = plt.subplots(figsize=(0.55 * values.shape[1] + 1.6, 0.45 * values.shape[0] + 1.0))
    low = values.min() if vmin is None else vmin
    high = values.max() if vmax is None else vmax
    bound = max(-low, high, 1e-12)  # symmetric, so that a colour means the same size on both sides
    image = ax.imshow(values, cmap=cmap or SIGNED, norm=plt.Normalize(-bound, bound), aspect="auto")
    col_names = [matrix.cols[j] for j in cols]
    vertical = max(map(len, col_names)) > 3
    ax.set_xticks(range(values.shape[1]), col_names, rotation=90 if vertical else 0, fontfamily=FONTS)
    ax.set_yticks(range(values.shape[0]), [matrix.rows[i] for i in rows], fontfamily=FONTS)
    ax.tick_params(length=0)
    for j in matrix.col_splits:
        if j in cols:
            ax.axvline(cols.index(j) - 0.5, color="black", linewidth=2)
    _gaps(ax, matrix.shape, values.shape)
    if annotate:
        for (i, j), value in np.ndenumerate(values):
            background = tuple(round(255 * c) for c in image.cmap(image.norm(value))[:3])
            colour = [c / 255 for c in ink(background)]  # black or white, whichever stands out more
            text = matrix.number_text(matrix.values[rows[i], cols[j]])
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
    ax.set_xlabel(translated(xlabel) if xlabel else "", fontfamily=FONTS)  # gettext("") is the header
    ax.set_ylabel(translated(ylabel) if ylabel else "", fontfamily=FONTS)
    title = " ".join(filter(None, [translated(matrix.title) if matrix.title else "", _left_out(matrix, HEATMAP_SIDE)]))
    if title:
        ax.set_title(title, loc="left", fontsize=10, fontfamily=FONTS, wrap=True)
    _HEATMAPS[ax] = (matrix.shape, _largest_in_rows(matrix))
    return ax


# ---- a figure's text alternative ---------------------------------------------------------------

_HEATMAPS = weakref.WeakKeyDictionary()  # axes -> (the matrix's shape, the largest in each row): what it shows
DESCRIBED_ROWS = 12  # rows a heatmap's words say the largest number of; they count the others
NAMED_COLUMNS = 6  # columns of a row a heatmap's words name, where its largest number is; they count the others


def _largest_in_rows(matrix):
    """["0 · a: 0·a (1)", ...]: where the largest number of each of the first DESCRIBED_ROWS rows is (in a column
    drawn or not: the words are true of the row), as the cells write it; then how many rows are not said."""
    said = [_largest_in_row(matrix, i) for i in range(min(matrix.shape[0], DESCRIBED_ROWS))]
    if matrix.shape[0] > DESCRIBED_ROWS:
        more = matrix.shape[0] - DESCRIBED_ROWS
        said.append(ngettext("and {n} more row, not listed", "and {n} more rows, not listed", more).format(n=more))
    return said


def _largest_in_row(matrix, i):
    """The columns of row ``i`` whose number, as the cells write it, is the row's largest (at most NAMED_COLUMNS
    named, the others counted), and that number: "0 · a: 0·a, 1·a (0.5 each)"."""
    values, row = matrix.values[i], matrix.rows[i]  # [n_cols]
    if np.isnan(values).all():
        return _("{row}: no number, only nan").format(row=row)
    top = matrix.number_text(np.nanmax(values))
    at = [matrix.cols[j] for j, value in enumerate(values) if matrix.number_text(value) == top]
    if len(at) == len(values) > 1:
        return _("{row}: every column is {value}").format(row=row, value=top)
    where, more = listed(at[:NAMED_COLUMNS]), len(at) - NAMED_COLUMNS
    if more > 0:
        where = ngettext("{columns} and {n} more column", "{columns} and {n} more columns", more).format(
            columns=where, n=more
        )
    clause = _("{row}: {where} ({value} each)") if len(at) > 1 else _("{row}: {where} ({value})")
    return clause.format(row=row, where=where, value=top)


def _described(ax):
    """What the heatmap on ``ax`` shows, in a sentence or two read from its numbers: its title and labels as the
    axes show them now, its size, and where the largest number of each row is."""
    (n, m), largest = _HEATMAPS[ax]
    row_label, col_label = ax.get_ylabel(), ax.get_xlabel()
    rows = (
        ngettext("{n} row, {label}", "{n} rows, {label}", n) if row_label else ngettext("{n} row", "{n} rows", n)
    ).format(n=n, label=row_label)
    cols = (
        ngettext("{n} column, {label}", "{n} columns, {label}", m)
        if col_label
        else ngettext("{n} column", "{n} columns", m)
    ).format(n=m, label=col_label)
    title = ax.get_title(loc="left") or ax.get_title()
    sentence = _("A heatmap titled “{title}”: {rows}; {cols}.") if title else _("A heatmap: {rows}; {cols}.")
    found = _("The largest number in each row: {largest}.").format(largest=listed(largest, clauses=True))
    return then(sentence.format(title=title, rows=rows, cols=cols), found)


def show_figure(alt=None, fig=None):
    """``plt.show()``, with each figure's text alternative: ``fig`` (default: every figure open, as ``plt.show()``
    shows them) shown as a ``Figure``, an image with ``alt``, else with what each heatmap on it shows, read from its
    numbers; then closed. ValueError, before any is shown, when a figure would have no words, or words of another."""
    shown = []
    for figure, words in _with_words(alt, fig):
        image = io.BytesIO()
        figure.savefig(image, format="png", dpi=figure.dpi, bbox_inches="tight")
        shown.append((figure, Figure(image.getvalue(), words)))  # the words checked before any figure is closed
    for figure, _picture in shown:
        plt.close(figure)
    try:
        from IPython.display import display
    except ImportError:  # outside Jupyter: the words alone
        display = print
    for _figure, picture in shown:
        display(picture)


def _with_words(alt, fig):
    """[(figure, its words)]: ``fig`` or every figure open, with ``alt`` or the words of its heatmaps."""
    if fig is not None and not isinstance(fig, PlotFigure):
        raise TypeError(_("fig must be a matplotlib figure, or None; found {value}").format(value=brief(fig)))
    alt = None if alt is None else checked_alt(alt)  # its own fault said first, whatever the figures
    figures = [fig] if fig is not None else [plt.figure(number) for number in plt.get_fignums()]
    if not figures:
        raise ValueError(_("fig is None and no figure is open: draw one in this cell, then show it with show_figure()"))
    if alt is not None and len(figures) > 1:
        raise ValueError(
            _("{n} figures are open, and alt says what one shows: show each with show_figure(alt, fig=...)").format(
                n=len(figures)
            )
        )
    return [(figure, _heatmaps_said(figure) if alt is None else alt) for figure in figures]


def _heatmaps_said(figure):
    """The words of every heatmap on ``figure``, in order; ValueError when it holds anything else, or nothing."""
    axes = [ax for ax in figure.axes if ax.get_visible()]
    described = [ax for ax in axes if ax in _HEATMAPS]
    if not described:
        raise ValueError(_('this figure holds no heatmap to describe: say what it shows, show_figure(alt="...")'))
    if len(described) < len(axes):
        raise ValueError(
            _(
                'this figure holds more than heatmaps, and only a heatmap is described from its numbers: say what it shows, show_figure(alt="...")'
            )
        )
    return functools.reduce(then, map(_described, described))


def _drawn(matrix):
    """(matrix, the rows drawn, the columns drawn): at most HEATMAP_SIDE of each, the first and the last."""
    if not all(hasattr(matrix, a) for a in ("values", "rows", "cols", "col_splits", "title", "number_text")):
        raise TypeError(
            _("matrix must be a LabelledMatrix (handmade.display.labelled); found {value}").format(value=brief(matrix))
        )
    rows, cols = ([k for k in kept(n, HEATMAP_SIDE) if k is not None] for n in matrix.shape)
    return matrix, rows, cols


def _options(ax, cmap, vmin, vmax, xlabel, ylabel):
    """heatmap's options, checked: axes or None, a colour map (or its name) or None, numbers or None, texts or None."""
    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(_("ax must be matplotlib axes, or None; found {value}").format(value=brief(ax)))
    if cmap is not None and not isinstance(cmap, Colormap):
        cmap = chosen(
            [cmap], "cmap", list(plt.colormaps()), _("cmap: no colour map called {name}; choose from {allowed}")
        )[0]
    vmin, vmax = (None if v is None else number(v, name, -1e6, 1e6) for v, name in ((vmin, "vmin"), (vmax, "vmax")))
    xlabel, ylabel = (
        None if t is None else writable(text_of(t, name, 200), name)
        for t, name in ((xlabel, "xlabel"), (ylabel, "ylabel"))
    )
    return ax, cmap, vmin, vmax, xlabel, ylabel


def _gaps(ax, shape, drawn):
    """A dashed line where rows or columns are left out (the middle of a dimension larger than HEATMAP_SIDE)."""
    if shape[0] > drawn[0]:
        ax.axhline(drawn[0] / 2 - 0.5, color="0.35", linestyle="--", linewidth=1.5)
    if shape[1] > drawn[1]:
        ax.axvline(drawn[1] / 2 - 0.5, color="0.35", linestyle="--", linewidth=1.5)


def _left_out(matrix, limit):
    sentence = _(
        "({rows} of {n} rows and {cols} of {m} columns drawn, the first and the last: the dashed lines mark the gaps)"
    )
    return left_out(matrix.shape, limit, sentence)


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
    its label written just right of its end, outside the plot (where no data point, no other text and
    no legend can cover it; the legend leaves them out): yardsticks a plot is read against."""
    if not isinstance(ax, Axes):
        raise TypeError(_("ax must be matplotlib axes; found {value}").format(value=brief(ax)))
    pairs = isinstance(lines, (list, tuple)) and all(
        isinstance(line, (list, tuple)) and len(line) == 2 and isinstance(line[0], str) for line in lines
    )
    if not pairs:
        raise TypeError(_("lines must be a list of (label, y) pairs; found {value}").format(value=brief(lines)))
    for _label, y in lines:
        number(y, "lines", -1e300, 1e300)
    if len(lines) > len(REFERENCE_STYLES):
        raise ValueError(
            _("at most {n} reference lines, one dash pattern each; got {count}").format(
                n=len(REFERENCE_STYLES), count=len(lines)
            )
        )
    right = ax.get_yaxis_transform()  # x in axes (0 to 1), y in data
    for (label, y), style in zip(lines, REFERENCE_STYLES):
        ax.axhline(y, label="_" + label, **style)  # "_": not in the legend, labelled at its end instead
        ax.text(
            1.01, y, label, transform=right, ha="left", va="center", fontsize=8, color=style["color"], clip_on=False
        )
    return ax
