"""A teacher's code, run with bounds: a tasks file, a task's rule, its extra examples, its reference.

The course runs code that it did not write, and a teacher's mistake must not become the course's:

- **time**: each run (a file's top level, a rule asked about every text, a reference built, extra
  examples read) gets ``SECONDS``. Where there are POSIX signals, in the main thread, a timer
  (SIGALRM) raises ``Overtime`` into the code at the deadline, and again every ``REPEAT`` seconds
  for code that catches it; in another thread or on Windows, a watchdog thread raises it there
  (CPython's ``PyThreadState_SetAsyncExc``), which stops Python code but not a call blocked in C.
- **memory**: on Linux, the process's address space may grow by at most ``MEMORY`` bytes while the
  code runs (``RLIMIT_AS``, put back after): an allocation beyond it is a MemoryError there.
- **streams**: what it prints goes to stderr, so that ``grade --json`` stays one JSON object on
  stdout; ``input()`` reads an empty text.
- **exits**: ``os._exit()``, which would end the process there and then (with status 0, a pass to a
  script), raises instead, and is the code's failure ("called os._exit(0)").
- **language**: the learner's (``--lang``, or the notebook's): ``handmade.set_language`` raises in the
  code, which is its failure, named ("a tasks file cannot set the language …").
- **failures**: whatever it raises, BaseException subclasses included (SystemExit, GeneratorExit,
  a KeyboardInterrupt it raises itself), is its own failure: ``Failed``, whose ``clause`` says how
  ("raised KeyError: 'b'", "ran for more than 10 s"). A real Ctrl-C or SIGTERM that arrives while
  it runs is not its failure: it goes on as it would have, and stops everything.

A run inside a run (a file's ``@task`` reading its extra examples) is bounded by the outer one.
"""

import contextlib
import functools
import io
import itertools
import os
import signal
import site
import sys
import sysconfig
import threading
import time
import traceback
import types
from pathlib import Path

from .. import _quiet
from ..arguments import brief, shown_path
from ..basis import context_said
from ..i18n import _, held, language
from ..reasons import reason

SECONDS = 10  # one run of a teacher's code: far more than a rule asked about 20,000 texts needs
MEMORY = 2**30  # bytes of address space one run may add (on Linux): a gigabyte
REPEAT = 0.1  # seconds between reminders once the time is up, for code that catches the first
MAX_SHOWN = 100  # characters of an exception's message quoted in a one-line error, beside the task and context
ASKED_AGAIN = 64  # texts, spread over all, a rule is asked twice at most: the same answer each time (no chance)

_running = threading.local()  # .signals: those of the run under way in this thread, if any


class Overtime(BaseException):
    """Raised into a teacher's code when its time is up."""


class Failed(Exception):
    """A teacher's code did not finish: ``clause`` says how, after its subject ("its rule ...")."""

    def __init__(self, clause, error):
        super().__init__(clause)
        self.clause, self.error = clause, error


def failures_remembered(function):
    """``function(task)``, where a ValueError it raised once for a task is raised again at once: a
    teacher's code that failed (a hang costs SECONDS) is not run again for the same task in the same
    language (in another, the failure is said again, in its words)."""
    failed = {}

    @functools.wraps(function)
    def remembered(task):
        said_in = (task, language())
        if said_in in failed:
            raise failed[said_in].with_traceback(None)
        try:
            return function(task)
        except ValueError as error:
            failed[said_in] = error
            raise

    return remembered


def rule_answers(task):
    """[(text, its rule's answer)] for every text over ``task``'s alphabet of 1 to n_ctx characters, shortest first,
    the rule run bounded; ValueError naming the task when the rule fails, or answers a text asked again otherwise
    (answers of a kind a rule may give alone compared: ``tasks`` words the others)."""
    asked, changed, at = [], [], ["''"]  # at: the text being asked, for a failure there

    def ask():  # every text, then ASKED_AGAIN of them, spread over all, again
        texts = ("".join(t) for n in range(1, task.n_ctx + 1) for t in itertools.product(task.alphabet, repeat=n))
        for context in texts:
            at[0] = context_said(context)
            asked.append((context, _settled(task.next_token(context))))
        for context, answer in asked[:: -(-len(asked) // ASKED_AGAIN)]:
            at[0] = context_said(context)
            again = _settled(task.next_token(context))
            if _plain(answer) and _plain(again) and again != answer:
                return changed.append((context, answer, again))

    try:
        run_bounded(ask)
    except Failed as failed:
        if isinstance(failed.error, Overtime):
            problem = _("its rule took more than {seconds} s to answer every text (it was at {context})").format(
                seconds=SECONDS, context=at[0]
            )
        else:
            problem = _("its rule, asked what follows {context}, {failed}").format(failed=failed.clause, context=at[0])
        raise ValueError(task.saying(problem)) from failed.error
    if changed:
        context, first, then = changed[0]
        problem = _(
            "its rule answered {first} after {context}, then {then} when asked again: a rule must give the same answer every time (no random choice, nothing kept between calls)"
        )
        raise ValueError(
            task.saying(
                problem.format(first=answer_shown(first), context=context_said(context), then=answer_shown(then))
            )
        )
    return asked


def _settled(answer):
    """A rule's answer, an ``async def`` rule's coroutine closed unstarted: refused as an answer in one line, and
    never a warning that it was not awaited (no code of the teacher's runs: it never started)."""
    if type(answer) is types.CoroutineType:
        answer.close()
    return answer


def _plain(answer):
    """An answer of a kind a rule may give (None, or exactly a str), compared without a teacher's code."""
    return answer is None or type(answer) is str


def answer_shown(answer):
    """A rule's answer as a message quotes it: a value of a plain kind as written, else its kind (no teacher's code)."""
    return brief(answer) if type(answer) in (str, int, float, bool, type(None)) else type(answer).__name__


def run_bounded(function, *args, passing=()):
    """``function(*args)`` run as a teacher's code, bounded: what it returns, or ``Failed``.
    Exceptions of the kinds in ``passing`` (the course's own, raised by code it calls) go through."""
    outer = getattr(_running, "signals", None)
    if outer is not None:  # inside a run already: its bounds hold
        return _own(function, args, passing, outer)
    if _quiet.stops:  # a SIGTERM that came while a module compiled: ended before the teacher's code runs
        _quiet.again()
    signals = _running.signals = _Signals()
    try:
        with signals, _streams(), _memory_bound() as signals.memory, _deadline(SECONDS, signals):
            return _own(function, args, passing, signals)
    except Overtime as error:  # the time ran out just as the code ended, or as its failure was said
        raise _overtime(error) from None
    finally:
        _running.signals = None


def _own(function, args, passing, signals):
    """``function(*args)``; what it raises, as its own failure (``Failed``), unless it is a real signal."""
    try:
        return function(*args)
    except (Failed, *passing):
        raise
    except BaseException as error:
        if signals.came:  # a real Ctrl-C or SIGTERM (or an outer bound): not the teacher's code
            raise
        if isinstance(error, Overtime):
            raise _overtime(error) from None
        if isinstance(error, MemoryError) and signals.memory:
            clause = _("needed more than {mb} MB of memory").format(mb=MEMORY >> 20)
        elif isinstance(error, _Exited):
            clause = _("called os._exit({status})").format(status=brief(error.args[0], 20))
        else:
            clause = _raised(error)
        raise Failed(clause, error) from None


def _raised(error):
    """How the code failed: "raised KeyError: 'b'", and where, when it was in the teacher's code: "(shift.py, line 7)"."""
    place = _where_raised(error)
    if place is None:
        return _("raised {error}").format(error=described(error))
    file = shown_path(place[0])  # a long name by its start and end, a new line in it as its escape
    room = MAX_SHOWN - len(file) - 10  # the error's words are cut shorter: the sentence stays within its bound
    return _("raised {error} ({file}, line {line})").format(error=described(error, room), file=file, line=place[1])


def _where_raised(error):
    """(file name, line) of the innermost frame of ``error``'s traceback in a file of the teacher's: the line that
    raised it (or called what did), or None. Not the package's, Python's, an installed library's (site or user
    site-packages, dist-packages), nor a notebook cell's (a temporary file ipykernel names)."""
    others = {sysconfig.get_path(kind) for kind in ("stdlib", "platstdlib", "purelib", "platlib")}
    others |= {Path(__file__).parents[1], *site.getsitepackages(), site.getusersitepackages()}
    folders = [Path(os.path.realpath(folder)) for folder in others if folder]

    def theirs(file):
        path = Path(os.path.realpath(file))
        libraries = {"site-packages", "dist-packages"} & set(path.parts) or "ipykernel_" in path.parent.name
        return not file.startswith("<") and not libraries and not any(path.is_relative_to(f) for f in folders)

    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if theirs(frame.filename)]
    return (Path(frames[-1].filename).name, frames[-1].lineno) if frames else None


def _overtime(error):
    return Failed(_("ran for more than {seconds} s").format(seconds=SECONDS), error)


def described(error, limit=MAX_SHOWN):
    """``TypeError: message`` on one line, the message cut short: what a one-line error quotes (what Python itself
    says there in the reader's language, its words after it in brackets: ``reasons.reason``)."""
    try:
        message = " ".join(str(error).split())
    except Exception:  # noqa: BLE001  (a __str__ of the teacher's that fails: the kind says enough)
        message = ""
    limit = max(limit, 20)
    message = message if len(message) <= limit else message[: limit - 1] + "…"
    # Python's words said in the reader's language, kept besides; a teacher's own message that begins as one of
    # Python's does is glossed too, its words kept whole
    message = reason(message) if message else message
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


# ---- the bounds ----------------------------------------------------------------------------------


class _Signals:
    """While the code runs, notes a SIGINT or SIGTERM that really arrives (then lets the handler there
    was act), so that the KeyboardInterrupt it raises is not taken for the code's own."""

    def __init__(self):
        self.came, self.saved, self.memory = False, {}, False  # memory: whether the address space is bounded

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in (signal.SIGINT, signal.SIGTERM):
                previous = signal.getsignal(number)
                if callable(previous):
                    self.saved[number] = previous
                    signal.signal(number, self.heard(previous))
        return self

    def heard(self, previous):
        def handler(signum, frame):
            self.came = True
            previous(signum, frame)

        return handler

    def __exit__(self, *exc):
        for number, previous in self.saved.items():
            signal.signal(number, previous)


class _Exited(BaseException):
    """``os._exit(status)`` called by a teacher's code, raised where it was called: its failure (``_exits``)."""


_EXITS = {"runs": 0, "real": None, "lock": threading.Lock()}  # os._exit replaced while any run is under way


def _exit(status):
    """``os._exit`` while teacher's code runs: ``_Exited`` in a thread running it, in this process; any other exit (a
    kernel's own, its parent gone; a child process the code forked, ending) as it was."""
    if getattr(_running, "signals", None) is None or os.getpid() != _EXITS["pid"]:
        _EXITS["real"](status)
    raise _Exited(status)


@contextlib.contextmanager
def _exits():
    """``os._exit`` is ``_exit`` from the first run under way to the end of the last (runs in two threads overlap)."""
    with _EXITS["lock"]:
        if _EXITS["runs"] == 0:
            _EXITS.update(real=os._exit, pid=os.getpid())
            os._exit = _exit
        _EXITS["runs"] += 1
    try:
        yield
    finally:
        with _EXITS["lock"]:
            _EXITS["runs"] -= 1
            if _EXITS["runs"] == 0:
                os._exit = _EXITS["real"]


@contextlib.contextmanager
def _streams():
    """print to stderr, input() from an empty text, os._exit() raising ``_Exited``, the language held (``i18n.held``:
    the learner's, whatever the code asks)."""
    saved = sys.stdout, sys.stdin
    sys.stdout, sys.stdin = _ToStderr(), io.StringIO()
    try:
        with _exits(), held():
            yield
    finally:
        sys.stdout, sys.stdin = saved


class _ToStderr(io.TextIOBase):
    """A stdout whose text goes to stderr; a stderr that cannot take it drops it (there is nowhere to say so)."""

    def writable(self):
        return True

    def write(self, text):
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(text)
        return len(text)

    def flush(self):
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()


@contextlib.contextmanager
def _memory_bound():
    """Yields whether the address space is bounded (on Linux) to its size now plus MEMORY."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = min(x for x in (size + MEMORY, soft, hard) if x != resource.RLIM_INFINITY)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):  # not Linux: no bound
        yield False
        return
    try:
        yield True
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _deadline(seconds, signals):
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        return _alarm(seconds, signals)
    return _watchdog(seconds)


@contextlib.contextmanager
def _alarm(seconds, signals):
    """SIGALRM at the deadline raises Overtime; a timer set before (an outer bound) still rings in time."""
    start, on = time.monotonic(), [True]
    outer, every = signal.getitimer(signal.ITIMER_REAL)

    def ring(signum, frame):
        if outer and time.monotonic() - start >= outer and callable(previous):
            signals.came = True  # the outer bound's: not the code's failure
            previous(signum, frame)
        elif on[0]:
            raise Overtime

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer or seconds), REPEAT)
    try:
        yield
    finally:
        on[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # the outer timer, with the time it has left
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3), every)


@contextlib.contextmanager
def _watchdog(seconds):
    """A thread that raises Overtime in this one at the deadline (CPython; elsewhere no bound)."""
    try:
        import ctypes

        raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):
        yield
        return
    target, done = ctypes.c_ulong(threading.get_ident()), threading.Event()

    def watch():
        if not done.wait(seconds):
            while not done.is_set():
                raise_in(target, ctypes.py_object(Overtime))
                done.wait(REPEAT)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        raise_in(target, None)  # one raised as it stopped, not yet delivered: withdrawn
