"""Ctrl-C while ``python -m handmade`` is still starting (importing numpy takes a tenth of a second):
one line and status 130, as later, instead of a traceback through the import machinery.

Python imports the package (``handmade/__init__``) before it runs ``handmade/__main__``, so this
is installed first thing there, before anything slow; ``handmade.cli.main`` replaces it with
Python's own KeyboardInterrupt as soon as it can catch one. Installing it imports nothing: ``_signal``
is the built-in that Python loads at start-up (``signal`` would import enum first), and the
language of the line is looked up only when a signal comes.
"""

import _signal
import os
import sys

stops = []  # SIGTERMs whose exception the command line's handler raised: one that a C call dropped (compile) is ended
# by ``again`` where Python code runs next (a teacher's code about to run, the command's end); cleared once handled


def again():
    """Deliver once more the SIGTERM noted last in ``stops``, not yet handled: its handler raises it here.
    Called only where ``stops`` holds one (the caller looks first): a command with none makes no call."""
    _signal.raise_signal(stops.pop())


def quiet_interrupts():
    _signal.signal(_signal.SIGINT, _stop)
    _signal.signal(_signal.SIGTERM, _stop)


def _stop(signum, frame):
    """Nothing is written yet: say so in one line and leave at once (no exception to catch and print),
    by the signal itself where there are signals, as ``handmade.cli.leave`` does."""
    os.write(sys.stderr.fileno(), (_line(signum) + "\n").encode("utf-8", "backslashreplace"))
    if os.name == "posix":
        _signal.signal(signum, _signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(128 + signum)


def _line(signum):
    """The line to say, in the learner's language if the catalogue can be read now."""
    sentence = "{prog}: interrupted" if signum == _signal.SIGINT else "{prog}: terminated"
    try:
        from . import i18n  # the signal may come while i18n itself is half imported: then English

        if i18n.from_environment() == "zh":
            i18n.set_language("zh")
        return i18n.translated(sentence).format(prog="python -m handmade")
    except Exception:  # noqa: BLE001  (whatever stops the translation, the line is said)
        return sentence.format(prog="python -m handmade")
