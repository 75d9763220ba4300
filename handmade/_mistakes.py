"""A learner's mistake in a notebook, shown as what the learner wrote and the one line that says what was wrong.

The package raises an exception whose message names what was wrong and what is allowed (a part that does not
exist, a shape that does not fit, a task's name misspelt). In a notebook, IPython would show it under every
line of the package it went through, source in English in the Chinese edition too. For those exceptions, raised
by the package's own code, the traceback shown stops at the learner's last line: the cell, and the learner's own
functions. Any other error (numpy's, Python's own, a teacher's code's the package ran) is shown whole,
and ``HANDMADE_FULL_TRACEBACKS=1`` shows every traceback whole. One of numpy's errors gets a line in the learner's
language after it: a write into a read-only array, which in the series is a playground's weights changed in place.
"""

import os
import sys
import types

from .i18n import N_, _

PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # .../handmade/, as its code objects name their files
SAID = (ValueError, TypeError, ArithmeticError, LookupError, OSError, AssertionError)  # the kinds the package raises
READ_ONLY = "read-only"  # in numpy's words for a write into an array that may not change ("output array is read-only")


def show_mistakes_briefly():
    """In IPython (a notebook's kernel), show the package's own errors from the learner's last line (see above).
    Elsewhere, or with ``HANDMADE_FULL_TRACEBACKS`` set, nothing changes; IPython is never imported here."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or os.environ.get("HANDMADE_FULL_TRACEBACKS") or shell.custom_exceptions:
        return  # not in IPython, asked for whole tracebacks, or another handler is there: left to it
    shell.set_custom_exc(SAID, _shown)


def _shown(shell, etype, value, tb, tb_offset=None):
    """IPython's handler (``set_custom_exc``): the traceback up to the package's first frame, when the package
    raised it; else the whole traceback, as IPython shows it."""
    learners = _before_the_package(tb) if _raised_by_the_package(tb) else None
    if learners is not None and value.__cause__ is None:
        value.__suppress_context__ = True  # what the package was handling when it raised is its own affair
    shell.showtraceback((etype, value, tb if learners is None else learners), running_compiled_code=True)
    sys.last_traceback = tb  # %tb and %debug still have every frame
    if etype is ValueError and str(value).endswith(READ_ONLY):  # in the series, a playground's weights changed in place
        print(_(READ_ONLY_SAID), file=sys.stderr)


READ_ONLY_SAID = N_(  # translated where it is said: the language may change after import
    "That array may not be changed in place. If it is one of a playground's weights: change it in the "
    "playground's grids, or put changed weights in with playground.replace(weights) "
    "(handmade.with_parts makes a copy with parts changed)."
)


def _raised_by_the_package(tb):
    """Whether a ``raise`` of the package's own code raised it (not Python's error in the package: a bug, said whole)."""
    while tb.tb_next is not None:
        tb = tb.tb_next
    import dis  # here, where an error is shown: not on every import of the package

    code = tb.tb_frame.f_code
    return code.co_filename.startswith(PACKAGE) and code.co_code[tb.tb_lasti] == dis.opmap["RAISE_VARARGS"]


def _before_the_package(tb):
    """A traceback of the frames of ``tb`` before the first of the package's (None when there are none)."""
    frames = []
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
        frames.append(tb)
        tb = tb.tb_next
    chain = None
    for frame in reversed(frames):
        chain = types.TracebackType(chain, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
    return chain
