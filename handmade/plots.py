"""Heatmaps of labelled matrices. This module imports matplotlib; nothing imports it eagerly."""

import numpy as np
from matplotlib import pyplot as plt
from matplotlib.colors import TwoSlopeNorm


def heatmap(matrix, ax=None, annotate=True, cmap=None, vmin=None, vmax=None, xlabel=None, ylabel=None):
    """Draw a LabelledMatrix on ``ax`` (a new figure if None); return the axes.

    Values are coloured around zero (blue below, red above) unless they are all zero or more,
    like attention weights, which run from white to blue. Cells carry their numbers.
    """
    values = np.clip(matrix.values, -1e6, 1e6)  # the mask's -1e10 would wash out everything else
    if ax is None:
        _, ax = plt.subplots(figsize=(0.55 * values.shape[1] + 1.6, 0.45 * values.shape[0] + 1.0))
    low = values.min() if vmin is None else vmin
    high = values.max() if vmax is None else vmax
    if low < 0 < high:
        norm, cmap = TwoSlopeNorm(0, low, high), cmap or "RdBu_r"
    else:
        norm, cmap = plt.Normalize(min(low, 0), max(high, 1e-12)), cmap or "Blues"
    image = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
    ax.set_xticks(range(values.shape[1]), matrix.cols, rotation=90 if max(map(len, matrix.cols)) > 3 else 0)
    ax.set_yticks(range(values.shape[0]), matrix.rows)
    ax.tick_params(length=0)
    for j in matrix.col_splits:
        ax.axvline(j - 0.5, color="black", linewidth=2)
    if annotate:
        texts = matrix.texts()
        for (i, j), value in np.ndenumerate(values):
            dark = abs(image.norm(value) - 0.5) > 0.3 if low < 0 < high else image.norm(value) > 0.6
            ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xlabel(xlabel or "")
    ax.set_ylabel(ylabel or "")
    if matrix.title:
        ax.set_title(matrix.title, loc="left", fontsize=10)
    return ax
