"""Live editors for a notebook (ipywidgets loads here, not with ``import handmade``): the
``Playground``, where every weight of a model can be edited and every view follows, and the small
explorers of the first notebooks.
"""

from .playground import LgControl, MatrixEditor, Playground, ProductExplorer, SoftmaxExplorer

__all__ = ["LgControl", "MatrixEditor", "Playground", "ProductExplorer", "SoftmaxExplorer"]
