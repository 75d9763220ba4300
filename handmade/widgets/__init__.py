"""Live editors for a notebook (ipywidgets loads here, not with ``import handmade``).

``playground``: ``Playground``, where every weight of any model can be edited and every view
follows, its options checked and what it draws bounded (``options``), its layout (``layout``) apart
from its editors (``editors``: a grid per matrix, a box and slider for one number) and its tools
(``tools``: break it, save, load). ``blog``: the blog's
model in it, with the blog's options. ``explorers``: the first notebooks' small explorers. ``slider``
and ``choice``: a slider and radio buttons a screen reader names, run by anywidget. Every widget
carries the same focus ring (``marks.MARKS_CSS``), alone or in a playground, and says what language its words are in
(``marks.Marks``). What the views show is
HTML from ``handmade.display.views``.
"""

from .blog import BlogScore, blog_playground
from .editors import MatrixEditor, NumberControl
from .explorers import ProductExplorer, SoftmaxExplorer
from .playground import Playground, Strength, TaskScore

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
