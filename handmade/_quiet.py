"""Ctrl-C while ``python -m handmade`` is still starting (importing numpy takes a tenth of a second):
one line and status 130, as later, instead of a traceback through the import machinery.

Python imports the package (``handmade/__init__``) before it runs ``handmade/__main__``, so this
is installed first thing there, before anything slow; ``handmade.cli.main`` replaces it with
Python's own KeyboardInterrupt as soon as it can catch one.
"""

import os
import signal
import sys

from . import i18n  # gettext alone: quick, and the line below can be in the learner's language


def quiet_interrupts():
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)


def _stop(signum, frame):
    """Nothing is written yet: say so in one line and leave at once (no exception to catch and print)."""
    sentence = "{prog}: interrupted" if signum == signal.SIGINT else "{prog}: terminated"
    if i18n.from_environment() == "zh":
        i18n.set_language("zh")
    line = i18n.translated(sentence).format(prog="python -m handmade")
    os.write(sys.stderr.fileno(), (line + "\n").encode("utf-8", "backslashreplace"))
    os._exit(128 + signum)
