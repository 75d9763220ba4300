"""Which tasks this learner has passed: a small file, written when a model of the learner's own passes.

No account and no network: the file, ``progress.json``, is in the learner's own data folder, the
platform's usual place for an application's data (``%APPDATA%\\handmade`` on Windows,
``~/Library/Application Support/handmade`` on macOS, ``$XDG_DATA_HOME/handmade`` or
``~/.local/share/handmade`` elsewhere); the setting ``HANDMADE_DATA`` moves it. A teacher can ignore it.

Grading records nothing by itself: the places where a learner hands in a model ask for it (the
command line's ``grade``, a task's playground, a challenge's graded cell) through ``grader.handed_in``
and ``grader.graded``.
A pass is recorded only for a model of the learner's own: weights that are, number for number,
a model the course shows (a reference solution, the blog's model, a design a notebook built with the
learner: ``shown``) are graded as usual and not recorded, and the report says why.

A pass belongs to a task's identity, its name and a fingerprint of its shape and of what its rule
answers (``identity``), so a teacher's task called like another is another task. Passes are only
ever added: each write reads the file, adds the pass and renames a whole new file into place while
holding a lock (``.progress.lock`` beside it), so that several programs grading at once lose
nothing. Every limit (``MAX_TASKS`` passes, ``MAX_NAME`` characters of a name, ``MAX_BYTES``
bytes) is said when it is reached, and a file that cannot be read is reported, never replaced,
until the learner asks for a new one with ``reset()``.
"""

import contextlib
import hashlib
import html
import json
import os
import re
import secrets
import shlex
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..arguments import SURROGATE, brief
from ..i18n import _, ngettext
from ..reasons import not_text
from ..reasons import reason as said
from ..weights import walk

FILE = "progress.json"
LOCK = ".progress.lock"  # held while a pass is added: the file is read, extended and replaced under it
MAX_BYTES = 1_048_576  # the file is refused beyond this: room for every limit below (passes and trained models)
MAX_TASKS = 1000  # passes recorded at most
MAX_NAME = 64  # characters of a task's name
LOCK_WAIT = 10.0  # seconds a writer waits for another one to finish, at most
FINGERPRINT = 16  # hex digits of a fingerprint: 64 bits, enough to tell a class's tasks apart
HEX = re.compile(f"[0-9a-f]{{{FINGERPRINT}}}")  # a fingerprint as the file holds it, and nothing else


def folder():
    """The folder the progress file lives in: HANDMADE_DATA, else the platform's data folder."""
    if os.environ.get("HANDMADE_DATA"):
        return Path(os.environ["HANDMADE_DATA"])
    home = Path.home()
    if os.name == "nt":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "handmade"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "handmade"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "handmade"


def path():
    return folder() / FILE


# ---- what a pass is of -----------------------------------------------------------------------


def identity(task):
    """(name, fingerprint) of a Task (or a built-in task's name): the fingerprint of what defines the
    task, its alphabet, context length, the shape it is designed for (each number read by its name)
    and every graded context with its answer, so that two tasks of one name but another rule or shape
    are two tasks, and a task written again the same way is the same one. Nothing else enters it: a
    field added to Structure changes no fingerprint, and so resets no learner's passes
    (``tests/test_progress.py`` pins the built-in tasks')."""
    from .tasks import examples, get_task

    task = get_task(task)
    described = {
        "alphabet": task.alphabet,
        "n_ctx": task.n_ctx,
        "shape": _shape(task.structure),
        "answers": [[e.context, e.expected] for e in examples(task)],
    }
    text = json.dumps(described, ensure_ascii=False, separators=(",", ":"))
    return task.name, hashlib.sha256(text.encode("utf-8")).hexdigest()[:FINGERPRINT]


def _shape(structure):
    """The numbers of a task's shape, each by its name, in the order fingerprints have always listed them."""
    blocks = [[b.n_attn, b.n_head, b.n_hidden, b.ln_1, b.ln_2] for b in structure.blocks]
    return [structure.n_vocab, structure.n_ctx, structure.n_embd, blocks, structure.ln_f]


def model_fingerprint(params):
    """A fingerprint of a model's numbers (a checked weights dict, in its task's token order): equal
    for weights equal number for number (0 and -0 alike), whatever built them."""
    digest, found = hashlib.sha256(), {}
    walk(found.__setitem__, params)  # every array and n_head, by its path
    for path in sorted(found):  # /blocks/0/attn/c_attn/b, ...: keys sorted at every level
        name, values = "".join(f"/{key}" for key in path), np.asarray(found[path], dtype="<f8") + 0.0  # -0.0 is 0.0
        digest.update(f"{name}{values.shape}".encode())
        digest.update(np.ascontiguousarray(values).tobytes())
    return digest.hexdigest()[:FINGERPRINT]


# ---- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passes:
    """The passes recorded so far, as (name, fingerprint) pairs, or why the file could not be read
    (then ``passed`` is empty). A file written before passes had fingerprints lists names alone
    (fingerprint None): such a name stands for the built-in task of that name only."""

    passed: tuple  # (name, fingerprint or None), in the order they were first recorded
    problem: str | None = None  # a sentence when the file exists and cannot be read
    trained: tuple = ()  # (name, model_fingerprint) of the models the command line's train made: not designs

    def has(self, task):
        """Whether ``task`` (a Task) has been passed."""
        from .tasks import TASKS

        name, fingerprint = identity(task)
        return (name, fingerprint) in self.passed or ((name, None) in self.passed and TASKS.get(name) is task)


def read():
    """The Passes in the file (nothing passed yet when there is no file). Only a regular file is
    read, and at most MAX_BYTES of it: a pipe, a device or a link to one is refused unopened."""
    where = path()
    try:
        info = where.stat()
        if not stat.S_ISREG(info.st_mode):
            return Passes((), _problem(where, _("it is not a regular file")))
        if info.st_size > MAX_BYTES:
            return Passes((), _problem(where, _("it has more than {limit} bytes").format(limit=MAX_BYTES)))
        with open(where, "rb") as file:
            text = file.read(MAX_BYTES + 1).decode("utf-8")
        data = json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_number)  # none is wanted
    except FileNotFoundError:
        return Passes(())
    except UnicodeDecodeError as error:
        return Passes((), _problem(where, not_text(error)))
    except (OSError, ValueError, RecursionError) as error:
        reason = _("it is nested too deeply") if isinstance(error, RecursionError) else said(error)[:160]
        return Passes((), _problem(where, reason))
    entries = data.get("passed") if isinstance(data, dict) else None
    found = [_entry(item) for item in entries] if isinstance(entries, list) else [None]
    trained = data.get("trained", []) if isinstance(data, dict) else None
    models = [_entry(item, "model") for item in trained] if isinstance(trained, list) else [None]
    if None in found or len(found) > MAX_TASKS or None in models or len(models) > MAX_TASKS:
        return Passes((), _problem(where, _("it is not a list of passed tasks")))
    return Passes(tuple(dict.fromkeys(found)), trained=tuple(dict.fromkeys(models)))


def _number(text):  # a number in the file: kept as neither a name nor a fingerprint, and never converted
    return _NUMBER


_NUMBER = object()


def _entry(item, key="fingerprint"):
    """(name, fingerprint) from an entry of the file: {"task": ..., "fingerprint": ...}, or a
    name alone as files before fingerprints wrote it; None when it is neither. A trained model's
    entry, {"task": ..., "model": ...} (``key``), always has its fingerprint."""
    if isinstance(item, str) and key == "fingerprint":
        item = {"task": item, "fingerprint": None}
    if not isinstance(item, dict):
        return None
    name, fingerprint = item.get("task"), item.get(key)
    named = isinstance(name, str) and 0 < len(name) <= MAX_NAME and not SURROGATE.search(name)
    fingerprinted = (fingerprint is None and key == "fingerprint") or (
        isinstance(fingerprint, str) and HEX.fullmatch(fingerprint) is not None
    )
    return (name, fingerprint) if named and fingerprinted else None


def _problem(where, reason):
    return _(
        "your progress file {path} cannot be read ({reason}); it is left as it is: handmade.course.progress.reset() starts a new one"
    ).format(path=where, reason=reason)


# ---- recording -------------------------------------------------------------------------------


def add(task):
    """Add the pass of ``task`` (a Task, or a built-in task's name) to the file; None, or a sentence
    saying why it could not. The grader calls it for a pass of the learner's own (``grader.handed_in``)."""
    name, fingerprint = identity(task)
    if len(name) > MAX_NAME:
        return _(
            "this pass is not recorded in your progress: the file keeps names of at most {limit} characters, and this task's has {n}"
        ).format(limit=MAX_NAME, n=len(name))
    try:
        with _locked():
            current = read()
            if current.problem:
                return current.problem
            if (name, fingerprint) in current.passed:
                return None
            if len(current.passed) >= MAX_TASKS:
                return _(
                    "this pass is not recorded in your progress: the file holds {limit} passes, as many as it keeps"
                ).format(limit=MAX_TASKS)
            full = _("this pass is not recorded in your progress: the file would have more than {limit} bytes")
            return _save(current, full, passed=(*current.passed, (name, fingerprint)))
    except _Busy:
        return _("could not record the pass in {path}: another program kept it busy for {seconds} s").format(
            path=path(), seconds=f"{LOCK_WAIT:g}"
        )
    except OSError as error:
        return _("could not record the pass in {path} ({reason})").format(path=path(), reason=_os_reason(error))


def reset():
    """Start a new, empty progress file (the old one, readable or not, is replaced; the models ``train`` made, if it
    could be read, stay noted): the learner's consent. None, or a sentence saying why it could not."""
    try:
        with _locked():  # the models train made stay noted: a new start makes none of them the learner's
            current = read()
            return _save(Passes((), trained=() if current.problem else current.trained), "")
    except _Busy:
        return _("could not start a new progress file in {path}: another program kept it busy for {seconds} s").format(
            path=path(), seconds=f"{LOCK_WAIT:g}"
        )
    except OSError as error:
        return _("could not start a new progress file in {path} ({reason})").format(
            path=path(), reason=_os_reason(error)
        )


def _os_reason(error):
    """Why the folder or the file could not be written: a folder that is a file said so, else the system's words."""
    if isinstance(error, (FileExistsError, NotADirectoryError)) and not folder().is_dir():
        return _("{folder} is not a folder").format(folder=folder())
    return said(error)


class _Busy(Exception):
    """Another program held the lock for LOCK_WAIT seconds."""


@contextlib.contextmanager
def _locked():
    """Hold the progress folder's lock (an OS lock on ``LOCK``, let go when the process ends, even
    killed): one writer at a time, each waiting LOCK_WAIT seconds at most."""
    folder().mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)  # a pipe put there cannot make it wait
    descriptor = os.open(folder() / LOCK, flags, 0o644)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(None, _("{lock} is not a regular file").format(lock=folder() / LOCK))
    with open(descriptor, "r+b") as handle:
        deadline = time.monotonic() + LOCK_WAIT
        while not _try_lock(handle):
            if time.monotonic() > deadline:
                raise _Busy
            time.sleep(0.01)
        try:
            yield
        finally:
            _unlock(handle)


if os.name == "nt":  # pragma: no cover (Windows)
    import msvcrt

    def _try_lock(handle):
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(handle):
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle):
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(handle):
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def note_trained(task, params):
    """Note in the file that training made ``params`` for ``task`` (the command line's ``train``): a pass by
    them, number for number, is then not recorded as the learner's (``shown_models``). None, or why not."""
    name, model = task.name, model_fingerprint(params)
    if len(name) > MAX_NAME:
        return None  # a pass of it could not be recorded either
    try:
        with _locked():
            current = read()
            if current.problem or (name, model) in current.trained:
                return current.problem
            full = _("could not note the trained model in {path}: the file would have more than {limit} bytes")
            return _save(current, full, trained=(*current.trained, (name, model))[-MAX_TASKS:])  # the latest ones
    except _Busy:
        return _("could not note the trained model in {path}: another program kept it busy for {seconds} s").format(
            path=path(), seconds=f"{LOCK_WAIT:g}"
        )
    except OSError as error:
        return _("could not note the trained model in {path} ({reason})").format(path=path(), reason=_os_reason(error))


def _save(current, full, passed=None, trained=None):
    """Write the file atomically (the lock held): ``current``'s passes and trained models, or those given;
    None, or a sentence saying why it could not (``full``, with {limit} and {path}, when it would be too large)."""
    where = path()
    passed, trained = (current.passed if passed is None else passed), (current.trained if trained is None else trained)
    entries = [{"task": name, "fingerprint": fingerprint} for name, fingerprint in passed]
    models = [{"task": name, "model": model} for name, model in trained]
    text = json.dumps({"passed": entries, **({"trained": models} if models else {})}, ensure_ascii=False)
    if len(text.encode("utf-8")) > MAX_BYTES:
        return full.format(limit=MAX_BYTES, path=where)
    temporary = where.parent / f".{FILE}.{secrets.token_hex(6)}.tmp"  # named first: whatever stops the rest removes it
    try:
        with open(temporary, "x", encoding="utf-8") as file:  # "x": made here, never another's file
            file.write(text)
        os.replace(temporary, where)
    except BaseException as error:
        if not isinstance(error, FileExistsError):
            temporary.unlink(missing_ok=True)
        raise
    return None


# ---- showing ---------------------------------------------------------------------------------


MAX_COMMAND_PATH = 100  # characters of a file's name, quoted, in a command the progress note gives


def recorded_where(task):
    """The sentence on a pass of ``task`` recorded: where the learner finds it listed (a teacher's task is not
    among the built-in ones that notebook 00 and ``tasks`` list)."""
    from .tasks import TASKS

    if TASKS.get(task.name) is task:
        return _("This pass is recorded in your progress (notebook 00 and python -m handmade tasks show it).")
    quoted = shlex.quote(task.source or "")  # the file's name as it was given, to be run as it is
    if task.source is not None and quoted.isprintable() and len(quoted) <= MAX_COMMAND_PATH:
        return _("This pass is recorded in your progress (python -m handmade tasks --tasks {path} shows it).").format(
            path=quoted
        )
    if task.source is not None:  # a name too long for a line, or one that cannot be shown as it is
        return _("This pass is recorded in your progress (python -m handmade tasks --tasks with its file shows it).")
    return _(
        "This pass is recorded in your progress (progress.shown([{name}]) shows it, {name} being the task you made)."
    ).format(name=task.name)


def shown(tasks=None):
    """The tasks, each marked passed or not yet, as a table for a notebook: the built-in ones by
    default, or a dict of tasks by name (a teacher's, from ``load_tasks``), or a list of them."""
    from ..display.outputs import Html, text_table
    from .tasks import TASKS, Task, get_task

    listed = TASKS if tasks is None else tasks
    if isinstance(listed, (list, tuple)) and all(isinstance(t, (Task, str)) for t in listed):
        listed = {t.name: t for t in map(get_task, listed)}  # a name: the built-in task of that name
    if not (isinstance(listed, dict) and all(isinstance(t, Task) for t in listed.values())):
        raise TypeError(
            _("tasks must be a list of tasks or of their names, or a dict of tasks by name; found {value}").format(
                value=brief(tasks)
            )
        )
    current = read()
    rows = [(name, _("passed") if current.has(task) else _("not yet")) for name, task in listed.items()]
    done = sum(current.has(task) for task in listed.values())
    title = ngettext("{done} of {total} task passed", "{done} of {total} tasks passed", len(listed))
    title = title.format(done=done, total=len(listed))
    table = text_table([_("task"), _("your progress")], rows, title)
    if current.problem:
        return Html(f"<p style='color:#b3261e'>{html.escape(current.problem)}</p>{table.markup}", current.problem)
    return table
