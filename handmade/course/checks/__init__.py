"""Checkers for the notebooks' "Try it" exercises: ``check_values(1, -1)`` gives a ``Verdict``.

One module per checker, each beside what it checks and named after it (``check_window_q`` is in
``window_q``), its notebook in its docstring. Every checker is written in the same three steps (the
mechanism is in ``handmade.course.verdict``):

1. read the learner's answer with a reader (``one_number``, ``array``, ``named``, ``letters``,
   ``call``), so that whatever a learner types gets a verdict, never a traceback;
2. compute the right answer from the package itself (the model, the blog's builders, the worked
   example's matrices, the FLOP counter), never from a number typed into the checker;
3. if the answer is wrong, try the checker's list of known mistakes in order, each a test and a
   hint computed from the learner's own numbers (``Mistake``), and give the first that fits.

A verdict only says what the learner's numbers show: the numbers it quotes are theirs, computed,
and the contexts it names as failing fail.
"""

from ..verdict import Verdict, hint, ok
from .acb import check_acb
from .averaging_weights import check_averaging_weights
from .completion import check_completion
from .embedding import check_embedding
from .flop_count import check_flop_count
from .lg_threshold import check_lg_threshold
from .matmul import check_matmul
from .pattern_weights import check_pattern_weights
from .row_query import check_row_query
from .rule import check_rule
from .softmax import check_softmax
from .undo_layer_norm import check_undo_layer_norm
from .values import check_values
from .window_q import check_window_q

__all__ = [
    "Verdict",
    "ok",
    "hint",
    "check_matmul",
    "check_rule",
    "check_embedding",
    "check_window_q",
    "check_softmax",
    "check_values",
    "check_lg_threshold",
    "check_completion",
    "check_pattern_weights",
    "check_undo_layer_norm",
    "check_row_query",
    "check_averaging_weights",
    "check_flop_count",
    "check_acb",
]
