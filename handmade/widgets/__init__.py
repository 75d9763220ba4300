"""Live editors for a notebook (ipywidgets loads here, not with ``import handmade``).

``playground``: ``Playground``, where every weight of any model can be edited and every view
follows, its options checked and what it draws bounded (``options``), its layout (``layout``) apart
from its editors (``editors``: a grid per matrix, a box and slider for one number) and its tools
(``tools``: break it, save, load), its ``undo`` of a reset or a load, and a task's ``score`` in it. ``blog``: the
blog's model in it, with the blog's options.
``explorers``: the first notebooks' small explorers. ``slider`` and ``choice``: a slider and radio
buttons a screen reader names, run by anywidget. ``marks``: what every widget's outermost box carries,
alone or in a playground, that ipywidgets cannot give it (the focus ring, the language its words are
in, status regions that stay on the page), run by anywidget too. What the views show is HTML from
``handmade.display.views``.
"""

from .blog import BlogScore, blog_playground
from .editors import MatrixEditor, NumberControl
from .explorers import ProductExplorer, SoftmaxExplorer
from .playground import Playground, Strength
from .score import TaskScore

__all__ = [
    "BlogScore",
    "MatrixEditor",
    "NumberControl",
    "Playground",
    "ProductExplorer",
    "SoftmaxExplorer",
    "Strength",
    "TaskScore",
    "blog_playground",
]
