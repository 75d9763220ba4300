"""A teacher's tasks file: a Python file that defines tasks with ``@task``, run as the teacher's code.

``load_tasks(path)`` (also ``handmade.course.tasks.load_tasks``, and ``--tasks FILE.py`` on the
command line) reads the file, bounded in size, decodes it (UTF-8, or the encoding its first lines
declare), compiles it and runs it as a teacher's code (``user_code``: bounded in time and memory,
what it prints on stderr), gathering each task that ``@task`` makes while it runs. Whatever keeps the
file from giving its tasks is one ValueError naming the file; a task of it that is over a limit, or
whose rule fails, is refused only when it is used, naming the task and the file, so that the file's
other tasks still work.
"""

import contextlib
import difflib
import hashlib
import io
import os
import stat
import sys
import tokenize
import types
from pathlib import Path

from ..arguments import UnknownName, brief, file_name, shown_path, with_names
from ..i18n import _
from ..reasons import not_text
from ..reasons import reason as said
from . import user_code
from .task_options import TaskError

MAX_TASKS_FILE = 1_000_000  # bytes of a teacher's tasks file: Python to read, not data
MAX_FILE_TASKS = 100  # tasks one file may define: a term's homework (the course has 12), not a generated set
SOURCE = "source"  # the Task field that names the file a task came from

_COLLECTING = []  # lists that each new task is added to, while load_tasks runs a file


def collected(task):
    """Called by ``@task`` with each task it makes: a file being loaded gathers it."""
    for found in _COLLECTING:
        found.append(task)


@contextlib.contextmanager
def _collecting():
    found = []
    _COLLECTING.append(found)
    try:
        yield found
    finally:
        _COLLECTING.remove(found)


class Tasks(dict):
    """{name: Task}, what ``load_tasks`` gives: a name it does not have is a KeyError (an UnknownName) naming the
    tasks it has, and a close name, if there is one."""

    def __missing__(self, name):
        if not isinstance(name, str):  # as get_task says it, as a KeyError too
            raise UnknownName(_("a task is a Task or a task's name; found {value}").format(value=brief(name, 24)))
        raise UnknownName(not_among(name, self, {}))


def not_among(name, tasks, builtin):
    """The line for a name that is none of ``tasks`` ({name: Task}; ``builtin``, the built-in ones): a close name,
    if there is one, that a teacher's task is read from its file, and the tasks there are, a teacher's first."""
    theirs = [n for n, t in tasks.items() if builtin.get(n) is not t]
    names = [*theirs, *(n for n in tasks if n not in theirs)]
    close = [n for n in names if n.casefold() == name.casefold()][:1] or difflib.get_close_matches(name, names, n=1)
    sentence = {  # (a close name, a file was read): a file that was read does not hold the name
        (True, True): _("there is no task {name}; did you mean {close}? The tasks are {names}"),
        (True, False): _(
            "there is no task {name}; did you mean {close}? The tasks are {names}; a teacher's task is read from its file (--tasks FILE.py; in Python, load_tasks(FILE.py))"
        ),
        (False, True): _("there is no task {name}; the tasks are {names}"),
        (False, False): _(
            "there is no task {name}; the tasks are {names}; a teacher's task is read from its file (--tasks FILE.py; in Python, load_tasks(FILE.py))"
        ),
    }[bool(close), bool(theirs)]
    return with_names(sentence, names, name=brief(name, 24), close=close[0] if close else "")


def load_tasks(path):
    """{name: Task} of every task that a teacher's Python file makes with ``@task``, in order.

    The file runs as Python, as the teacher's own code (its ``if __name__ == "__main__":`` part
    does not run; modules in its folder can be imported while it loads, as ``python FILE.py`` imports them), within
    ``user_code``'s bounds. ValueError, in one line naming the file and the
    problem, when the file is missing or not a regular file, is not Python (or not named .py, or
    not text in its encoding), fails while it runs (a task written wrongly, or named like a built-in
    task, included; a bound it runs past too), defines no task, or defines two of one name. Each
    task knows its file (``task.source``), which its refusals name.
    """
    code = _compiled(path)
    module = _module(path)
    with _collecting() as found, _beside(path):
        try:
            user_code.run_bounded(exec, code, module.__dict__, passing=(TaskError,))
        except (TaskError, user_code.Failed) as error:
            sys.modules.pop(module.__name__, None)  # a file that failed keeps nothing of its own
            said = error if isinstance(error, TaskError) else _("it {failed}").format(failed=error.clause)
            raise _file_error(path, said) from getattr(error, "error", error)
    if not found:
        raise _file_error(path, _("it defines no task: decorate a rule function with @handmade.task(...)"))
    if len(found) > MAX_FILE_TASKS:
        too_many = _("it defines {n} tasks; a file may define at most {limit}: put the others in another file")
        raise _file_error(path, too_many.format(n=len(found), limit=MAX_FILE_TASKS))
    names = [t.name for t in found]
    twice = [name for name in names if names.count(name) > 1]
    if twice:
        raise _file_error(path, _("it defines two tasks called {name}").format(name=twice[0]))
    for made in found:  # its refusals name the file
        object.__setattr__(
            made, SOURCE, str(file_name(path))
        )  # as given: a message shortens it, a command needs it whole
    return Tasks((t.name, t) for t in found)


def _module(path):
    """A module for the file to run in, known to ``sys.modules`` as Python knows an imported one (``@dataclass``
    and ``pickle`` look their module up there), named after the file: loading it again takes its place."""
    where = os.path.realpath(path).encode("utf-8", "surrogateescape")
    module = types.ModuleType(f"__handmade_tasks_{hashlib.sha256(where).hexdigest()[:16]}__")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    return module


@contextlib.contextmanager
def _beside(path):
    """While the file runs, modules beside it can be imported, as ``python FILE.py`` finds them; the
    ones it imported from there are let go after, so that the next file loaded (another folder's
    helper of the same name, or this one edited) imports its own."""
    folder = Path(os.path.abspath(path)).parent
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        if str(folder) in sys.path:
            sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            file = getattr(sys.modules[name], "__file__", None)
            if file and Path(file).resolve().parent == folder.resolve():
                del sys.modules[name]


def _compiled(path):
    """The code of the Python file at ``path``, compiled; ValueError when it cannot be."""
    path = file_name(path)
    if path.suffix != ".py":
        raise _file_error(path, _("it is not a Python file: its name does not end in .py"))
    source = _text(path, _source(path))
    try:
        return compile(source, str(path), "exec")
    except (SyntaxError, ValueError) as error:  # ValueError: null bytes, before Python 3.12
        reason = said(error.msg if isinstance(error, SyntaxError) else error)
        if isinstance(error, SyntaxError) and error.lineno:
            reason = _("{reason} at line {line}").format(reason=reason, line=error.lineno)
        raise _file_error(path, _("it is not Python ({reason})").format(reason=reason)) from None


def _text(path, data):
    """The file's bytes as text: UTF-8, or the encoding a comment in its first two lines declares."""
    try:
        encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # a first line that is not UTF-8, or an encoding Python does not know: UTF-8 says
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise _file_error(path, not_text(error)) from None


def _source(path):
    """The bytes of the regular file at ``path``, if it has at most MAX_TASKS_FILE of them; else ValueError."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise _file_error(path, _("it is not a regular file"))
        if info.st_size > MAX_TASKS_FILE:
            raise _file_error(path, _("it has more than {limit} bytes").format(limit=MAX_TASKS_FILE))
        return path.read_bytes()
    except FileNotFoundError:
        raise _file_error(path, _("no such file")) from None
    except OSError as error:
        raise _file_error(path, said(error) if error.strerror else user_code.described(error)) from None


def _file_error(path, problem):
    return ValueError(_("cannot load tasks from '{path}': {problem}").format(path=shown_path(path), problem=problem))
