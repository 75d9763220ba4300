"""A matrix with names on its rows and columns, shown as a table, as LaTeX or as a heatmap.

In a notebook a ``LabelledMatrix`` displays itself as an HTML table (which GitHub and nbviewer
show too) with a plain-text twin; ``.latex()`` gives a bmatrix and ``.heatmap()`` a figure.
"""

import html
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..arguments import (
    NUMBER_KINDS,
    UnknownName,
    brief,
    digits_apart,
    few,
    fmt,  # also imported from here
    fmt_short,
    is_real,
    is_whole,
    strings,
    text_of,
    whole,
)
from ..i18n import _, tag
from . import window
from .colours import CHANGED, HIGHLIGHT, PALE, hex_colour, ink, shades
from .window import TABLE_SIDE, kept

PAD, EDGE = "padding:1px 6px;", "border-left:2px solid #555;"
APART = 1e-10  # two numbers of a table further apart than this share of its largest are written apart


def real_numbers(value, name):
    """``value`` as a float64 array of real numbers (inf and nan allowed: a trace's masked scores are
    -inf), of at most two dimensions, not empty: TypeError unless numbers, ValueError for the shape."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(_("{name} must be a matrix: its rows have different lengths").format(name=name)) from None
    if array.dtype.kind not in NUMBER_KINDS:
        raise TypeError(
            _("{name} must be a matrix (rows of real numbers); found {value}").format(name=name, value=brief(value))
        )
    if array.ndim > 2 or array.size == 0:
        raise ValueError(
            _("{name} must be a matrix (rows of real numbers), not empty; found one of shape {shape}").format(
                name=name, shape=array.shape
            )
        )
    return array.astype(np.float64)


def _indices(value, name, n):
    """``value`` as a tuple of indices from 0 to ``n``."""
    if not isinstance(value, (tuple, list, set, frozenset)) or not all(is_whole(i) and 0 <= i <= n for i in value):
        raise TypeError(
            _("{name} must be a list of indices from 0 to {n}; found {value}").format(
                name=name, n=n, value=brief(value)
            )
        )
    return tuple(int(i) for i in value)


def cells_of(value, name, shape):
    """``value`` as a frozenset of (row, col) indices inside ``shape``."""
    pairs = isinstance(value, (set, frozenset, list, tuple)) and all(
        isinstance(c, tuple) and len(c) == 2 and all(is_whole(i) for i in c) for c in value
    )
    if not pairs or not all(0 <= i < shape[0] and 0 <= j < shape[1] for i, j in value):
        raise (ValueError if pairs else TypeError)(
            _("{name} must be a set of (row, column) indices inside {rows} x {cols}; found {value}").format(
                name=name, rows=shape[0], cols=shape[1], value=brief(value)
            )
        )
    return frozenset((int(i), int(j)) for i, j in value)


def width(text):
    """How many columns ``text`` takes in a terminal: Chinese characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in str(text))


def pad(text, columns, right=False):
    """``text`` padded with spaces to ``columns`` terminal columns (on the left when ``right``)."""
    text, columns = text_of(text, "text", 1_000_000), whole(columns, "columns", 0, 10_000)
    space = " " * max(0, columns - width(text))
    return space + text if right else text + space


@dataclass(frozen=True)
class LabelledMatrix:
    values: np.ndarray  # [n_rows, n_cols]
    rows: tuple  # a label per row
    cols: tuple  # a label per column
    title: str = ""
    col_splits: tuple = ()  # column indices before which a split line is drawn
    row_splits: tuple = ()
    highlight: frozenset = field(default_factory=frozenset)  # {(row, col), ...} cells to colour
    digits: int = 4  # significant digits shown for numbers that are neither whole nor short decimals (as typed)
    decimals: int = None  # or, when set, this many digits after the point for every number

    def __post_init__(self):
        values = np.atleast_2d(real_numbers(self.values, "values"))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "rows", tuple(strings(self.rows, "rows")))
        object.__setattr__(self, "cols", tuple(strings(self.cols, "cols")))
        text_of(self.title, "title", 1000)
        object.__setattr__(self, "col_splits", _indices(self.col_splits, "col_splits", values.shape[1]))
        object.__setattr__(self, "row_splits", _indices(self.row_splits, "row_splits", values.shape[0]))
        object.__setattr__(self, "highlight", cells_of(self.highlight, "highlight", values.shape))
        whole(self.digits, "digits", 1, 17)
        if self.decimals is not None:
            whole(self.decimals, "decimals", 0, 17)
        if values.shape != (len(self.rows), len(self.cols)):
            raise ValueError(
                _(
                    "values is a {n}x{m} matrix: it needs {n} labels in rows and {m} in cols; found {rows} and {cols}"
                ).format(n=values.shape[0], m=values.shape[1], rows=len(self.rows), cols=len(self.cols))
            )

    @property
    def shape(self):
        return self.values.shape

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def with_highlight(self, cells):
        """The same matrix with the cells {(row, col), ...} highlighted (by their indices)."""
        return replace(self, highlight=cells_of(cells, "cells", self.shape))

    def cell(self, row, col):
        """The value at row label ``row`` and column label ``col``."""
        return self.values[self._where(self.rows, row), self._where(self.cols, col)]

    def __getitem__(self, col):
        """The column called ``col``, one number per row: ``t["v"]["V"]``."""
        return self.values[:, self._where(self.cols, col)].copy()

    def row(self, row):
        """The row called ``row``, one number per column."""
        return self.values[self._where(self.rows, row)].copy()

    @staticmethod
    def _where(labels, name):
        try:
            return labels.index(name)
        except ValueError:
            raise UnknownName(
                _("no row or column called {name}; this table has {labels}").format(
                    name=brief(name), labels=few(labels)
                )
            ) from None

    def number_text(self, x):
        """The number ``x`` as this table writes it (``decimals``: that many digits after the point, else as ``_written`` says)."""
        if not is_real(x):
            raise TypeError(_("x must be a number; found {value}").format(value=brief(x)))
        if self.decimals is not None:
            return f"{x:.{self.decimals}f}"
        return self._written.get(float(x)) or fmt_short(x) or fmt(x, self.digits)

    @cached_property
    def _written(self):
        """{value: its text} for the finite numbers a rendering shows, so that what its cells show never misleads.

        A number that is a short decimal (``fmt_short``: at most SHORT_DIGITS significant digits, to within
        SAME of itself, as a typed number is) is written with every digit: 1.0001 beside 1, 1024.001; the
        rounding of arithmetic is not a digit (1 + 1.0001 is 2.0001, 0.1 + 0.2 is 0.3). Any other number (1/3,
        a softmax) gets ``digits`` significant digits, and more where the table holds another number that
        would read the same while further from it than APART of the table's largest (``digits_apart``):
        0.49998 beside 0.50002, not 0.5 and 0.5. So two cells that read the same stand for the same number,
        to within that, and one number reads the same in every cell; what is closer than that is float64's
        rounding, which differs from one machine to another and is never written. "≈0" stays what is too
        small to matter."""
        shown = self.values[np.ix_(*([i for i in kept(n) if i is not None] for n in self.shape))]
        finite = np.unique(shown[np.isfinite(shown)])
        short = {x: fmt_short(x) for x in finite.tolist()}
        within = APART * float(np.abs(finite).max(initial=0.0))
        given = digits_apart(finite, self.digits, within, lambda x, n: short[x] or fmt(x, n))
        return {x: short[x] or fmt(x, n) for x, n in given.items()}

    def left_out(self):
        """The sentence a rendering ends with when the table is larger than it shows, or ""."""
        sentence = _(
            "{rows} of {n} rows and {cols} of {m} columns shown, the first and the last; the rest are left out (.values holds them all)"
        )
        return window.left_out(self.shape, TABLE_SIDE, sentence)

    # ---- renderings: at most TABLE_SIDE rows and columns, whatever the size ------------------------------

    def __str__(self):
        rows, cols = kept(self.shape[0]), kept(self.shape[1])
        shown = {(i, j): self.number_text(self.values[i, j]) for i in rows for j in cols if None not in (i, j)}
        label_width = max([width(self.rows[i]) for i in rows if i is not None] + [0])
        widths = {
            j: max([width(self.cols[j])] + [width(shown[i, j]) for i in rows if i is not None])
            for j in cols
            if j is not None
        }

        def line(label, texts):  # texts: {column index: text}
            parts = [
                "…" if j is None else ("| " if j in self.col_splits else "") + pad(texts[j], widths[j], right=True)
                for j in cols
            ]
            return pad(label, label_width) + "  " + " ".join(parts)

        lines = [self.title] if self.title else []
        lines.append(line("", {j: self.cols[j] for j in cols if j is not None}))
        for i in rows:
            if i is not None and i in self.row_splits:
                lines.append("-" * len(lines[-1]))
            texts = {j: "⋮" if i is None else shown[i, j] for j in cols if j is not None}
            lines.append(line("⋮" if i is None else self.rows[i], texts))
        return "\n".join(lines + [self.left_out()] if self.left_out() else lines)

    def __repr__(self):
        return str(self)

    def _repr_html_(self):  # a wide table scrolls inside its own box rather than being cut off
        return f'<div lang="{tag()}" style="overflow-x:auto;max-width:100%">{self.html()}</div>'

    def html(self, heat=False, caption=True, changed=frozenset()):
        """An HTML table; zeros are pale so the numbers that matter stand out.

        With ``heat=True`` every cell is shaded by its value (a heatmap that is also a table):
        blue below zero, red above, white at zero, the colours the matplotlib heatmaps use too
        (values beyond ±1e6 are shaded as ±1e6, and -∞, the mask's, as the lowest), and its number
        is written in black or white, whichever stands out more from the shade (WCAG AA: at least
        4.5:1). ``caption=False`` leaves the title out, for a page that shows it as a heading.
        ``changed``: cells {(row, col), ...} to outline, such as those an edit just changed: a
        black line around the cell and a white one inside it (one of the two stands out from any shade).
        A table of more than TABLE_SIDE rows or columns shows the first and the last, and says so below.
        """
        esc = html.escape
        rows, cols = kept(self.shape[0]), kept(self.shape[1])
        changed = cells_of(changed, "changed", self.shape)
        shades = _shades(self.values, rows, cols) if heat else None
        head = "".join(
            f'<th style="{PAD}">…</th>' if j is None else
            f'<th style="{PAD}{EDGE if j in self.col_splits else ""}text-align:center">{esc(self.cols[j])}</th>'
            for j in cols
        )  # fmt: skip
        body = "".join(self._html_row(i, cols, shades, changed) for i in rows)
        title = ""
        if self.title and caption:
            title = f'<caption style="caption-side:top;text-align:left;white-space:nowrap">{esc(self.title)}</caption>'
        note = self.left_out()
        return (
            '<table class="handmade-matrix" style="border-collapse:collapse;font-family:monospace;white-space:nowrap">'
            f"{title}<thead><tr><td></td>{head}</tr></thead><tbody>{body}</tbody></table>"
        ) + (f'<p class="hm-left-out" style="margin:2px 0;font-size:12px">{esc(note)}</p>' if note else "")

    def _html_row(self, i, cols, shades, changed):
        """Row ``i`` of the HTML table (None: the gap where rows are left out), its columns ``cols``."""
        if i is None:
            return f'<tr><th style="{PAD}">⋮</th>' + f'<td style="{PAD}text-align:center">⋮</td>' * len(cols) + "</tr>"
        top = "border-top:2px solid #555;" if i in self.row_splits else ""
        tds = []
        for j in cols:
            if j is None:
                tds.append(f'<td style="{PAD}">…</td>')
                continue
            text = self.number_text(self.values[i, j])
            style = PAD + top + (EDGE if j in self.col_splits else "")
            if (i, j) in changed:
                style += CHANGED
            if (i, j) in self.highlight:
                style += f"background:{HIGHLIGHT};color:#000;font-weight:bold;"
            elif shades is not None:
                style += shades[i, j]
            elif text in ("0", "≈0"):
                style += f"color:{PALE};"
            tds.append(f'<td style="{style}text-align:right">{html.escape(text)}</td>')
        label = html.escape(self.rows[i])
        return f'<tr><th style="{PAD}{top}text-align:left;white-space:nowrap">{label}</th>{"".join(tds)}</tr>'

    def latex(self, name=None, labels=False):
        """LaTeX for the matrix: ``name = [...]`` with split lines as vertical rules.

        With ``labels=True`` the column labels sit above and the row labels to the left. A matrix of
        more than TABLE_SIDE rows or columns shows the first and the last around dots.
        """
        rows, cols = kept(self.shape[0]), kept(self.shape[1])
        name = None if name is None else text_of(name, "name", 1000)
        spec = "".join("c" if j is None else ("|" if j in self.col_splits else "") + "r" for j in cols)
        body = [
            " & ".join(
                (r"\ddots" if j is None else r"\vdots") if i is None else
                (r"\cdots" if j is None else self.number_text(self.values[i, j]))
                for j in cols
            )
            for i in rows
        ]  # fmt: skip
        header = ""
        if labels:
            spec = "l|" + spec
            header = " & ".join([""] + ["" if j is None else _tex_text(self.cols[j]) for j in cols]) + " \\\\ \\hline\n"
            body = [f"{'' if i is None else _tex_text(self.rows[i])} & {b}" for i, b in zip(rows, body)]
        lines = (header + " \\\\\n".join(body)).replace("∞", r"\infty")
        matrix = f"\\left[\\begin{{array}}{{{spec}}}\n{lines}\n\\end{{array}}\\right]"
        return f"{name} = {matrix}" if name else matrix

    def heatmap(self, ax=None, **kwargs):
        """Draw the matrix as a heatmap with labelled axes (matplotlib loads here)."""
        from .plots import heatmap

        return heatmap(self, ax=ax, **kwargs)


def _shades(values, rows, cols):
    """{(i, j): a background and a text colour} for the cells shown (rows x cols, None a gap): white
    at 0, deepening to red (max) or blue (min), on the scale of the whole matrix; the number in
    black or white by its shade, and a zero (on white) in grey."""
    rows, cols = [i for i in rows if i is not None], [j for j in cols if j is not None]
    with np.errstate(invalid="ignore"):
        clipped = np.nan_to_num(np.clip(values, -1e6, 1e6), nan=0.0)
    scale = np.abs(clipped).max() or 1.0
    shown = clipped[np.ix_(rows, cols)]
    backgrounds = shades(shown / scale)  # x / scale: -1 .. 1
    zero = (shown == 0).ravel().tolist()
    out, styles = {}, {}  # styles: (background, whether zero) -> the cell's style, each made once
    for k, (a, b) in enumerate(np.ndindex(shown.shape)):
        key = (backgrounds[k], zero[k])
        if key not in styles:
            text = PALE if zero[k] else hex_colour(ink(backgrounds[k]))
            styles[key] = f"background:{hex_colour(backgrounds[k])};color:{text};"
        out[rows[a], cols[b]] = styles[key]
    return out


def _tex_text(label):
    return r"\text{" + label.replace("·", r"\cdot ").replace("_", r"\_") + "}"
