"""Small pieces of notebook display shared by every notebook and by the widgets.

Everything returns an ``Html`` object: rich HTML in Jupyter, GitHub and nbviewer, and a
readable plain-text twin elsewhere. Nothing here needs IPython.
"""

import html
import math
import re

import numpy as np

from ..arguments import brief, chosen, number, real_array, strings, text_of, whole
from ..i18n import N_, _, tag
from ..model import softmax
from .labelled import LabelledMatrix, fmt, pad, real_numbers, width
from .window import TABLE_SIDE

MAX_MARKUP = 10_000_000  # characters of HTML an output may hold: what a notebook can still open
MAX_TABLE_ROWS = 1_000  # rows of a table of words and numbers: a long page, not an endless one

STAGES = ("tokens", "embeddings", "q/k/v", "scores", "softmax", "values", "projection", "residual", "logits")
STAGE_NAMES = {  # what each stage is called on screen
    "tokens": N_("tokens"),
    "embeddings": N_("embeddings"),
    "q/k/v": "q/k/v",
    "scores": N_("scores"),
    "softmax": "softmax",
    "values": N_("values"),
    "projection": N_("projection"),
    "residual": N_("residual"),
    "logits": "logits",
}


class Html:
    """HTML with a plain-text twin, displayed by Jupyter through ``_repr_html_``."""

    def __init__(self, markup, text=""):
        self.markup, self.text = text_of(markup, "markup", MAX_MARKUP), text_of(text, "text", MAX_MARKUP) or "(HTML)"
        self.lang = tag()  # the language it was written in, which a page of another reads it in

    def _repr_html_(self):
        return f'<div lang="{self.lang}">{self.markup}</div>'

    def __repr__(self):
        return self.text

    def __str__(self):
        return self.markup


def pipeline(*current):
    """The path from tokens to logits, with the stages this notebook covers highlighted."""
    chosen(current, "current", STAGES, _("current: no stage called {name}; the stages are {allowed}"))
    boxes, plain = [], []
    for stage in STAGES:
        here, name = stage in current, _(STAGE_NAMES[stage])
        style = "background:#ffd866;font-weight:bold;" if here else "background:#eee;color:#666;"
        boxes.append(f'<span style="{style}padding:2px 8px;border-radius:4px">{html.escape(name)}</span>')
        plain.append(f"[{name}]" if here else name)
    arrow = ' <span style="color:#6b6b6b">→</span> '
    return Html(f'<div style="font-family:sans-serif;margin:4px 0">{arrow.join(boxes)}</div>', " → ".join(plain))


def side_by_side(*parts):
    """Tables (anything with ``.html()`` or ``_repr_html_``) or HTML strings, in one row."""
    for part in parts:
        _showable(part, "parts")
    cells = "".join(
        f'<div style="margin-right:24px;max-width:100%;overflow-x:auto">{_markup(part)}</div>' for part in parts
    )
    text = "\n\n".join(repr(part) for part in parts if not isinstance(part, str))
    return Html(f'<div style="display:flex;flex-wrap:wrap;align-items:flex-start">{cells}</div>', text)


def folded(part, summary=None):
    """``part`` (a table, or anything side_by_side takes) folded away under ``summary`` until the
    reader opens it: for an output that would give an exercise's answer away."""
    _showable(part, "part")
    summary = _("this holds the answer to the Try it below: open it after you have tried") if summary is None else (
        text_of(summary, "summary", 1000))  # fmt: skip
    markup = f"<details><summary>{html.escape(summary)}</summary>{_markup(part)}</details>"
    # TRANSLATORS: the plain-text stand-in for a folded output: its summary, a sentence, in brackets
    return Html(markup, _("({summary})").format(summary=summary))


def text_table(header, rows, title=""):
    """A table of words and numbers (not a matrix): a header row, then one row per item (at most
    MAX_TABLE_ROWS, each as long as the header). When the header's first cell is empty, each row's
    first cell names its row (a header, for a screen reader)."""
    header, rows, title = _table_parts(header, rows, title)
    esc = html.escape
    numeric = [all(map(_a_number, (r[i] for r in rows if r[i] != ""))) for i in range(len(header))]
    # numbers line up by their last digit, words by their first
    align = ["right" if number else "left" for number in numeric]
    head = "".join(
        f"<th scope='col' style='text-align:{a};padding:0 8px'>{esc(str(h))}</th>" for h, a in zip(header, align)
    )
    named = bool(header) and str(header[0]) == ""

    def cell(column, value):
        if named and column == 0:
            return f"<th scope='row' style='text-align:left;padding:0 8px;font-family:monospace'>{esc(str(value))}</th>"
        return f"<td style='text-align:{align[column]};padding:0 8px;font-family:monospace'>{esc(str(value))}</td>"

    body = "".join("<tr>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>" for row in rows)
    caption = f"<caption style='caption-side:top;text-align:left'>{esc(title)}</caption>" if title else ""
    widths = [max([width(str(h)), *(width(str(r[i])) for r in rows)]) for i, h in enumerate(header)]
    lines = [title] if title else []
    lines += ["  ".join(pad(str(c), w) for c, w in zip(row, widths)).rstrip() for row in [header, *rows]]
    return Html(f"<table style='border-collapse:collapse'>{caption}<tr>{head}</tr>{body}</table>", "\n".join(lines))


WRITTEN_NUMBER = re.compile(r"[-+−]?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")  # 4.1797, -1e+10; not 0011, a text of digits


def _a_number(value):  # a number, or one written out: a column of them is right-aligned
    return (
        isinstance(value, (int, float, np.number)) or isinstance(value, str) and bool(WRITTEN_NUMBER.fullmatch(value))
    )


def matrix(values, title="", rows=None, cols=None, digits=4, decimals=None):
    """A LabelledMatrix with plain labels (row 0, col 0, ...) for matrices that are not the model's.

    ``decimals`` writes every number with that many digits after the point (0.00005 rather than 5e-05).
    """
    values = np.atleast_2d(real_numbers(values, "values"))
    rows = rows or [_("row {i}").format(i=i) for i in range(values.shape[0])]
    cols = cols or [_("col {j}").format(j=j) for j in range(values.shape[1])]
    return LabelledMatrix(values, rows, cols, title=title, digits=digits, decimals=decimals)


def weighted_sums(weights, values, rows, title=""):
    """Each row of ``weights @ values`` written out as its sum: ``0.5*1 + 0.5*-1 = 0``.

    ``weights`` [n, m] and a column ``values`` [m], a label per row in ``rows``; terms with weight
    below 1e-9 are left out.
    """
    weights, values = real_array(weights, "weights", 2, MAX_TABLE_ROWS), real_array(values, "values", 1, MAX_TABLE_ROWS)
    rows = strings(rows, "rows")
    if weights.shape != (len(rows), len(values)):
        raise ValueError(
            _("weights is {n}x{m}: it needs {n} labels in rows and {m} numbers in values; found {rows} and {k}").format(
                n=weights.shape[0], m=weights.shape[1], rows=len(rows), k=len(values)
            )
        )
    lines = []
    for label, row in zip(rows, np.asarray(weights)):
        terms = [f"{fmt(w)}*{fmt(v)}" for w, v in zip(row, values) if abs(w) > 1e-9]
        lines.append((label, " + ".join(terms), fmt(row @ np.asarray(values))))
    return text_table([_("row"), _("weights × values"), _("sum")], lines, title)


def _showable(part, name):
    """``part`` if a page can show it: an HTML string, or something with ``.html()`` or ``_repr_html_``."""
    if not (isinstance(part, str) or callable(getattr(part, "html", None)) or hasattr(part, "_repr_html_")):
        raise TypeError(
            _("{name} must be HTML text or a table (anything with .html() or _repr_html_); found {value}").format(
                name=name, value=brief(part)
            )
        )
    return part


def _table_parts(header, rows, title):
    """(header, rows, title) checked: a list of headings, rows as long, at most MAX_TABLE_ROWS of them."""
    if not isinstance(header, (list, tuple)) or not header:
        raise TypeError(_("header must be a list of headings; found {value}").format(value=brief(header)))
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, (list, tuple)) for r in rows):
        raise TypeError(_("rows must be a list of rows, each a list; found {value}").format(value=brief(rows)))
    if len(rows) > MAX_TABLE_ROWS:
        raise ValueError(
            _("rows has {n} rows; a table shows at most {limit}").format(n=f"{len(rows):,}", limit=MAX_TABLE_ROWS)
        )
    uneven = next((i for i, row in enumerate(rows) if len(row) != len(header)), None)
    if uneven is not None:
        raise ValueError(
            _("rows[{i}] has {n} cells; the header has {m}").format(i=uneven, n=len(rows[uneven]), m=len(header))
        )
    return header, rows, text_of(title, "title", 1000)


def product_pair(a, b, limit):
    """(a, b) as float arrays: matrices of at most ``limit`` a side whose product can be taken and holds."""
    a, b = real_array(a, "a", 2, limit), real_array(b, "b", 2, limit)
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            _("a is {n}x{k} and b is {k2}x{m}: a needs as many columns as b has rows").format(
                n=a.shape[0], k=a.shape[1], k2=b.shape[0], m=b.shape[1]
            )
        )
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(a @ b).all()
    if not finite:
        raise ValueError(_("a @ b is larger than float64 can hold (about 1.8e308): smaller numbers in a or b, please"))
    return a, b


def scaled(row, scale, name):
    """``row * scale``, refused when it is larger than float64 holds."""
    with np.errstate(over="ignore"):  # an overflow is what this checks for, and says so
        x = row * scale
    if not np.isfinite(x).all():
        raise ValueError(
            _("{name}: {x} × {scale} is larger than float64 can hold (about 1.8e308)").format(
                name=name, x=fmt(np.abs(row).max()), scale=fmt(scale)
            )
        )
    return x


def _markup(part):
    if isinstance(part, str):
        return part
    if hasattr(part, "html"):
        return part.html()
    return part._repr_html_()


def dot_product_story(a, b, i, j):
    """A and B with row i and column j highlighted, the product, and the sum written out."""
    a, b = product_pair(a, b, TABLE_SIDE)
    i, j = whole(i, "i", 0, len(a) - 1), whole(j, "j", 0, b.shape[1] - 1)
    product = a @ b
    terms = " + ".join(f"{fmt(x)}*{fmt(y)}" for x, y in zip(a[i], b[:, j]))

    def lab(m, title, cells):
        rows = [_("row {i}").format(i=r) for r in range(m.shape[0])]
        cols = [_("col {j}").format(j=c) for c in range(m.shape[1])]
        return LabelledMatrix(m, rows, cols, title=title, highlight=frozenset(cells)).html()

    parts = [
        lab(a, "A", [(i, c) for c in range(a.shape[1])]),
        "<div style='font-size:24px;padding-top:30px'>@</div>",
        lab(b, "B", [(r, j) for r in range(b.shape[0])]),
        "<div style='font-size:24px;padding-top:30px'>=</div>",
        lab(product, "A @ B", [(i, j)]),
    ]
    words = _("row {i} of A · column {j} of B").format(i=i, j=j)
    sum_line = f"<p>(A @ B)[{i}, {j}] = {words} = {terms} = <b>{fmt(product[i, j])}</b></p>"
    return Html(side_by_side(*parts).markup + sum_line, f"(A @ B)[{i}, {j}] = {terms} = {fmt(product[i, j])}")


def softmax_story(row, scale=1.0):
    """A table: a row, scaled, its exponentials after subtracting the max, and the softmax."""
    row, scale = real_array(row, "row", 1, TABLE_SIDE), number(scale, "scale", -math.inf, math.inf, False, False)
    x = scaled(row, scale, "row")
    with np.errstate(over="ignore"):  # a gap wider than float64 holds is -inf after the shift: exp gives 0, rightly
        shifted = x - x.max()
        steps = np.vstack([x, shifted, np.exp(shifted), softmax(x)])
    labels = [f"x × {fmt(scale)}", _("minus the max"), "exp", _("softmax: divided by the sum")]
    cols = [f"x{i}" for i in range(len(x))]
    return LabelledMatrix(steps, labels, cols, title=_("softmax step by step"))


class Rich:
    """Something Jupyter shows in a rich form (``markup``: LaTeX, SVG) with a plain-text twin."""

    def __init__(self, markup, text):
        self.markup, self.text = text_of(markup, "markup", MAX_MARKUP), text_of(text, "text", MAX_MARKUP)

    def __repr__(self):
        return self.text


class Latex(Rich):
    """LaTeX for Jupyter (rendered by MathJax)."""

    def _repr_latex_(self):
        return self.markup


def equations(*named, digits=12):
    """``equations(("X", x), ("Q_x", q_x))``: each matrix as ``name = [...]``, side by side.

    Numbers are written with up to ``digits`` significant digits, so round them first to show
    them as a source prints them.
    """
    digits = whole(digits, "digits", 1, 17)
    tables = [
        (name, values if isinstance(values, LabelledMatrix) else matrix(values, digits=digits))
        for name, values in _named(named)
    ]
    tex = r" \qquad ".join(table.latex(_tex_name(name)) for name, table in tables)
    text = "\n\n".join(f"{name} =\n{table}" for name, table in tables)
    return Latex(f"$\\displaystyle {tex}$", text)


def _named(named):
    """``named`` as (name, matrix) pairs, each name a string."""
    for pair in named:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[0], str)):
            raise TypeError(
                _('named must be (name, matrix) pairs, like ("X", x); found {value}').format(value=brief(pair))
            )
    return named


def _tex_name(name):
    base, _, sub = name.partition("_")
    return f"{base}_{{{sub}}}" if sub else base
