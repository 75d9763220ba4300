"""The one colour scheme of tables and heatmaps: blue below zero, white at zero, red above, and the
text on it, black or white, whichever keeps WCAG AA's 4.5:1 on the cell's shade.

``labelled`` shades its HTML tables with it and ``plots`` makes its matplotlib colour map from it,
so a colour means the same number in both (plots needs nothing else of labelled, which draws its
heatmaps with plots).
"""

import functools

import numpy as np

POSITIVE = (200, 35, 35)  # the colour of the largest positive value, in tables and in heatmaps
NEGATIVE = (40, 60, 200)  # and of the most negative one; 0 is white
PALE = "#6b6b6b"  # a zero's grey: paler than the other numbers, 5.3:1 on white
HIGHLIGHT = "#ffd866"  # a cell the page points at (black on it: 15:1)
CHANGED = "outline:2px solid #000;box-shadow:inset 0 0 0 2px #fff;"  # a changed cell: black around, white inside


def shade(t):
    """The colour of a value scaled to -1..1: white at 0, POSITIVE at 1, NEGATIVE at -1."""
    end = POSITIVE if t > 0 else NEGATIVE
    return tuple(round(255 + (c - 255) * min(abs(t), 1.0)) for c in end)


def shades(t):
    """``shade`` of each value of the array ``t`` (scaled to -1..1), computed at once, in row order:
    the same colours, as the same arithmetic rounded the same way (half to even)."""
    t = np.asarray(t, dtype=float).reshape(-1, 1)
    end = np.where(t > 0, np.array(POSITIVE), np.array(NEGATIVE))
    channels = np.round(255 + (end - 255) * np.minimum(np.abs(t), 1.0)).astype(int)
    return [tuple(c) for c in channels.tolist()]


def luminance(rgb):
    """The relative luminance of an sRGB colour (0-255 each), as WCAG 2.1 defines it."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b):
    """WCAG 2.1's contrast ratio of two sRGB colours, 1 to 21."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def ink(background):
    """Black or white, whichever stands out more from ``background``: at least 4.58:1 on any colour."""
    return _ink(tuple(background))


@functools.lru_cache(maxsize=4096)  # a few hundred shades in all: a table asks about each again and again
def _ink(background):
    black, white = (0, 0, 0), (255, 255, 255)
    return black if contrast(black, background) >= contrast(white, background) else white


def hex_colour(rgb):
    """ "#rrggbb" of (r, g, b)."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)
