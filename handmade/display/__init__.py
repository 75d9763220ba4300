"""What shows a model: labelled tables of its weights and of every intermediate (``trace``), rich
outputs for the notebooks (``outputs``: pipelines, tables side by side, LaTeX, pictures with their text), heatmaps
(``plots``, which loads matplotlib), the package's own source, highlighted (``source``), and the
model drawn from its weights (``diagram``). Nothing here computes the model: it shows what
``gpt()`` computed.

The notebooks' small helpers are here directly: ``from handmade.display import matrix, pipeline``.
"""

from .figure import Figure
from .outputs import (
    STAGES,
    Html,
    Latex,
    Rich,
    dot_product_story,
    equations,
    folded,
    matrix,
    pipeline,
    side_by_side,
    softmax_story,
    text_table,
    weighted_sums,
)

__all__ = [
    "STAGES",
    "Figure",
    "Html",
    "Latex",
    "Rich",
    "dot_product_story",
    "equations",
    "folded",
    "matrix",
    "pipeline",
    "side_by_side",
    "softmax_story",
    "text_table",
    "weighted_sums",
]
