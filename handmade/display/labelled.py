"""A matrix with names on its rows and columns, shown as a table, as LaTeX or as a heatmap.

In a notebook a ``LabelledMatrix`` displays itself as an HTML table (which GitHub and nbviewer
show too) with a plain-text twin; ``.latex()`` gives a bmatrix and ``.heatmap()`` a figure.
"""

import html
import unicodedata
from dataclasses import dataclass, field, replace

import numpy as np

from ..arguments import UnknownName, brief, few, fmt  # fmt: also imported from here
from ..i18n import _
from .colours import CHANGED, HIGHLIGHT, PALE, hex_colour, ink, shade


def width(text):
    """How many columns ``text`` takes in a terminal: Chinese characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in str(text))


def pad(text, columns, right=False):
    """``text`` padded with spaces to ``columns`` terminal columns (on the left when ``right``)."""
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
    digits: int = 4  # significant digits shown for numbers that are not whole
    decimals: int = None  # or, when set, this many digits after the point for every number

    def __post_init__(self):
        values = np.atleast_2d(np.asarray(self.values, dtype=float))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "rows", tuple(self.rows))
        object.__setattr__(self, "cols", tuple(self.cols))
        if values.shape != (len(self.rows), len(self.cols)):
            raise ValueError(
                _("a {n}x{m} matrix needs {n} row labels and {m} column labels; found {rows} and {cols}").format(
                    n=values.shape[0], m=values.shape[1], rows=len(self.rows), cols=len(self.cols)
                )
            )

    @property
    def shape(self):
        return self.values.shape

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def with_highlight(self, cells):
        return replace(self, highlight=frozenset(cells))

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

    def texts(self):  # [n_rows][n_cols] of formatted numbers
        if self.decimals is not None:
            return [[f"{x:.{self.decimals}f}" for x in row] for row in self.values]
        return [[fmt(x, self.digits) for x in row] for row in self.values]

    # ---- renderings ----------------------------------------------------------------------

    def __str__(self):
        body = self.texts()
        label_width = max([width(r) for r in self.rows] + [0])
        widths = [max(width(c), *(width(row[j]) for row in body)) for j, c in enumerate(self.cols)]

        def line(label, cells):
            parts = []
            for j, (cell, columns) in enumerate(zip(cells, widths)):
                parts.append(("| " if j in self.col_splits else "") + pad(cell, columns, right=True))
            return pad(label, label_width) + "  " + " ".join(parts)

        lines = [self.title] if self.title else []
        lines.append(line("", self.cols))
        for i, (label, cells) in enumerate(zip(self.rows, body)):
            if i in self.row_splits:
                lines.append("-" * len(lines[-1]))
            lines.append(line(label, cells))
        return "\n".join(lines)

    def __repr__(self):
        return str(self)

    def _repr_html_(self):  # a wide table scrolls inside its own box rather than being cut off
        return f'<div style="overflow-x:auto;max-width:100%">{self.html()}</div>'

    def html(self, heat=False, caption=True, changed=frozenset()):
        """An HTML table; zeros are pale so the numbers that matter stand out.

        With ``heat=True`` every cell is shaded by its value (a heatmap that is also a table):
        blue below zero, red above, white at zero, the colours the matplotlib heatmaps use too
        (values beyond ±1e6 are shaded as ±1e6, and -∞, the mask's, as the lowest), and its number
        is written in black or white, whichever stands out more from the shade (WCAG AA: at least
        4.5:1). ``caption=False`` leaves the title out, for a page that shows it as a heading.
        ``changed``: cells {(row, col), ...} to outline, such as those an edit just changed: a
        black line around the cell and a white one inside it (one of the two stands out from any shade).
        """
        esc = html.escape
        shades = _shades(self.values) if heat else None
        pad, edge = "padding:1px 6px;", "border-left:2px solid #555;"
        head = "".join(
            f'<th style="{pad}{edge if j in self.col_splits else ""}text-align:center">{esc(c)}</th>'
            for j, c in enumerate(self.cols)
        )
        rows = []
        for i, (label, cells) in enumerate(zip(self.rows, self.texts())):
            top = "border-top:2px solid #555;" if i in self.row_splits else ""
            tds = []
            for j, text in enumerate(cells):
                style = pad + top + (edge if j in self.col_splits else "")
                if (i, j) in changed:
                    style += CHANGED
                if (i, j) in self.highlight:
                    style += f"background:{HIGHLIGHT};color:#000;font-weight:bold;"
                elif shades is not None:
                    style += shades[i][j]
                elif text in ("0", "≈0"):
                    style += f"color:{PALE};"
                tds.append(f'<td style="{style}text-align:right">{esc(text)}</td>')
            rows.append(
                f'<tr><th style="{pad}{top}text-align:left;white-space:nowrap">{esc(label)}</th>{"".join(tds)}</tr>'
            )
        title = ""
        if self.title and caption:
            title = f'<caption style="caption-side:top;text-align:left;white-space:nowrap">{esc(self.title)}</caption>'
        return (
            '<table class="handmade-matrix" style="border-collapse:collapse;font-family:monospace">'
            f"{title}<thead><tr><td></td>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    def latex(self, name=None, labels=False):
        """LaTeX for the matrix: ``name = [...]`` with split lines as vertical rules.

        With ``labels=True`` the column labels sit above and the row labels to the left.
        """
        spec = "".join(("|" if j in self.col_splits else "") + "r" for j in range(self.shape[1]))
        body = [" & ".join(cells) for cells in self.texts()]
        header = ""
        if labels:
            spec = "l|" + spec
            header = " & ".join([""] + [_tex_text(c) for c in self.cols]) + " \\\\ \\hline\n"
            body = [f"{_tex_text(r)} & {b}" for r, b in zip(self.rows, body)]
        rows = (header + " \\\\\n".join(body)).replace("∞", r"\infty")
        matrix = f"\\left[\\begin{{array}}{{{spec}}}\n{rows}\n\\end{{array}}\\right]"
        return f"{name} = {matrix}" if name else matrix

    def heatmap(self, ax=None, **kwargs):
        """Draw the matrix as a heatmap with labelled axes (matplotlib loads here)."""
        from .plots import heatmap

        return heatmap(self, ax=ax, **kwargs)


def _shades(values):
    """A background and a text colour per cell: white at 0, deepening to red (max) or blue (min);
    the number in black or white by its shade, and a zero (on white) in grey."""
    with np.errstate(invalid="ignore"):
        clipped = np.nan_to_num(np.clip(values, -1e6, 1e6), nan=0.0)
    scale = np.abs(clipped).max() or 1.0
    out = []
    for row in clipped:
        cells = []
        for x in row:
            background = shade(x / scale)  # x / scale: -1 .. 1
            text = PALE if x == 0 else hex_colour(ink(background))
            cells.append(f"background:{hex_colour(background)};color:{text};")
        out.append(cells)
    return out


def _tex_text(label):
    return r"\text{" + label.replace("·", r"\cdot ").replace("_", r"\_") + "}"
