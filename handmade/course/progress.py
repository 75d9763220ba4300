"""Which tasks this learner has passed: a small file the grader writes when a task passes.

No account and no network: the file, ``progress.json``, is in the learner's own data folder, the
platform's usual place for an application's data (``%APPDATA%\\handmade`` on Windows,
``~/Library/Application Support/handmade`` on macOS, ``$XDG_DATA_HOME/handmade`` or
``~/.local/share/handmade`` elsewhere); the setting ``HANDMADE_DATA`` moves it. A teacher can ignore it.

It is written atomically (a temporary file renamed over it), holds at most ``MAX_TASKS`` names and
``MAX_BYTES`` bytes, and a file that cannot be read is reported, never replaced, until the learner
asks for a new one with ``reset()``.
"""

import html
import json
import os
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

from ..arguments import brief, writable
from ..i18n import _
from ..reasons import reason as said

FILE = "progress.json"
MAX_BYTES = 65_536  # the file is refused beyond this: far more than every task's name
MAX_TASKS = 1000  # names recorded at most
MAX_NAME = 64  # characters of a task's name


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


@dataclass(frozen=True)
class Progress:
    """The tasks passed so far, or why the file could not be read (then ``passed`` is empty)."""

    passed: tuple  # task names, in the order they were first passed
    problem: str | None = None  # a sentence when the file exists and cannot be read


def read():
    """The Progress in the file (nothing passed yet when there is no file)."""
    where = path()
    try:
        if where.stat().st_size > MAX_BYTES:
            return Progress((), _problem(where, _("it has more than {limit} bytes").format(limit=MAX_BYTES)))
        data = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Progress(())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return Progress((), _problem(where, said(error)[:160]))
    names = data.get("passed") if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME for n in names):
        return Progress((), _problem(where, _("it is not a list of passed tasks")))
    return Progress(tuple(dict.fromkeys(names))[:MAX_TASKS])


def _problem(where, reason):
    return _(
        "your progress file {path} cannot be read ({reason}); it is left as it is: handmade.course.progress.reset() starts a new one"
    ).format(path=where, reason=reason)


def record(name):
    """Add the task ``name`` to the passed ones; None, or a sentence saying why it could not."""
    writable(name, "name")  # a task's name: text that the file can hold
    current = read()
    if current.problem:
        return current.problem
    if name in current.passed or len(current.passed) >= MAX_TASKS or not 0 < len(name) <= MAX_NAME:
        return None
    return _write([*current.passed, name])


def reset():
    """Start a new, empty progress file (the old one, readable or not, is replaced): the learner's consent."""
    return _write([])


def _write(names):
    """Write the names atomically; None, or a sentence saying why it could not."""
    where = path()
    temporary = where.parent / f".{FILE}.{secrets.token_hex(6)}.tmp"  # named first: whatever stops the rest removes it
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(temporary, "x", encoding="utf-8") as file:  # "x": made here, never another's file
                json.dump({"passed": names}, file, ensure_ascii=False)
            os.replace(temporary, where)
        except BaseException as error:
            if not isinstance(error, FileExistsError):
                temporary.unlink(missing_ok=True)
            raise
    except OSError as error:
        return _("could not record the pass in {path} ({reason})").format(path=where, reason=said(error))
    return None


def shown(tasks=None):
    """The tasks, each marked passed or not yet, as a table for a notebook (the built-in ones by default)."""
    from ..display.outputs import Html, text_table
    from .tasks import TASKS

    listed = isinstance(tasks, (list, tuple, dict)) and all(isinstance(name, str) for name in tasks)
    if tasks is not None and not listed:
        raise TypeError(
            _("tasks must be a list of task names, or a dict of tasks by name; found {value}").format(
                value=brief(tasks)
            )
        )
    current = read()
    names = list(TASKS if tasks is None else tasks)
    rows = [(name, _("passed") if name in current.passed else _("not yet")) for name in names]
    done = sum(name in current.passed for name in names)
    title = _("{done} of {total} tasks passed").format(done=done, total=len(names))
    table = text_table([_("task"), _("your progress")], rows, title)
    if current.problem:
        return Html(f"<p style='color:#b3261e'>{html.escape(current.problem)}</p>{table.markup}", current.problem)
    return table
