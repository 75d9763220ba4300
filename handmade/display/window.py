"""How much of a large matrix a rendering shows: the first and the last of its rows and columns.

A screen of 1280 x 800 holds about 40 rows and 25 columns of numbers at once. A table scrolls inside
its own box, so it shows up to ``TABLE_SIDE`` rows and as many columns (4,096 numbers, some 0.3 MB
of HTML); a heatmap draws each cell with its number, up to ``HEATMAP_SIDE`` of each (a figure about
19 inches wide). Of a larger matrix a rendering shows the first and the last half of that many, and
says what it left out.
"""

from ..arguments import whole

TABLE_SIDE = 64
HEATMAP_SIDE = 32


def kept(n, limit=TABLE_SIDE):
    """The indices of ``n`` rows (or columns) a rendering shows: all of them, or the first and the last
    ``limit // 2`` with None between them, where the ones left out are."""
    n, limit = whole(n, "n", 0, 10**9), whole(limit, "limit", 2, 10**9)
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return [*range(half), None, *range(n - half, n)]


def left_out(shape, limit, sentence):
    """``sentence`` (with ``{rows}`` of ``{n}`` rows and ``{cols}`` of ``{m}`` columns) when a matrix of
    ``shape`` is more than ``limit`` a side, saying how much of it a rendering shows; else ""."""
    n, m = shape
    if n <= limit and m <= limit:
        return ""
    return sentence.format(rows=min(n, limit), n=n, cols=min(m, limit), m=m)
