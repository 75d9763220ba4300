"""The one colour scheme of tables and heatmaps: blue below zero, white at zero, red above.

``labelled`` shades its HTML tables with it and ``plots`` makes its matplotlib colour map from it,
so a colour means the same number in both (plots needs nothing else of labelled, which draws its
heatmaps with plots).
"""

POSITIVE = (255, 55, 55)  # the colour of the largest positive value, in tables and in heatmaps
NEGATIVE = (55, 55, 255)  # and of the most negative one; 0 is white


def shade(t):
    """The colour of a value scaled to -1..1: white at 0, POSITIVE at 1, NEGATIVE at -1."""
    end = POSITIVE if t > 0 else NEGATIVE
    return tuple(round(255 + (c - 255) * min(abs(t), 1.0)) for c in end)
