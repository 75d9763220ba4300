"""Tasks to design a transformer for: an alphabet, a context length, a rule, and nothing else.

The series teaches a learner to read the blog's model; a task asks them to make one. A task is a
rule function, ``context -> the character that must follow`` (or None: the context is not graded,
being ambiguous like the blog's first position, or outside the task's domain), whose docstring is
the task's statement, decorated with ``@task`` (also ``handmade.task``) to give its alphabet, the
longest context it grades and the shape it is designed for::

    @task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=1)
    def shift(context):
        '''Say the letter after the last one: a to b, b to c, c to a.'''
        return {"a": "b", "b": "c", "c": "a"}[context[-1]]

The decorator returns the ``Task`` (``shift("ab") == "c"`` still asks the rule). ``labels`` name
the directions a solution can be built from, so the blank model is readable from the start; a
reference solution, built from rules over those names as ``blog_model()`` is, is written below
the rule with ``@shift.reference``. The grader grades what a model says, not its shape: a cleverer
design of another shape passes too. The reference is there to be compared with, in the grader's
diagnosis, and is never printed unasked.

The built-in tasks are written the same way, in ``builtin_tasks``; ``TASKS`` holds them by name
(``handmade.course`` puts them there as it is imported, before this module can be used). Their references are apart, in ``references``, so that learners can have the package without the
answers (``HANDMADE_NO_REFERENCES``; ``withheld`` says whether this install has them).
A teacher's own tasks live in the teacher's own Python file: ``load_tasks(path)`` runs it and
gathers what it defines (``python -m handmade tasks --tasks FILE.py``).

Every task is small enough to grade exhaustively: all strings over its alphabet of 1 to
``n_ctx`` characters whose rule gives an answer (``examples(task)``), so no sampling and no seed.

    task = TASKS["abc"]          # or get_task("abc")
    params = blank(task)         # all-zero weights of the task's shape, with its labels
    grader.grade(task, params)   # fails, and says where
"""

import contextlib
import functools
import inspect
import itertools
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from ..arguments import UnknownName, brief, few, file_name, shown_path, text_of
from ..basis import Labels
from ..i18n import _, ngettext
from ..inference import Example
from ..reasons import reason as said
from ..structure import Structure
from ..tokenizer import tokenize
from ..weights import Weights, labels_of
from .task_options import OptionError, options

MAX_GRADED = 2000  # contexts one task may grade: enough to enumerate them all, few enough to grade fast
MAX_TASKS_FILE = 1_000_000  # bytes of a teacher's tasks file: Python to read, not data
MAX_SHOWN = 120  # characters of an exception's message quoted in a one-line error
NO_REFERENCES = "HANDMADE_NO_REFERENCES"  # set to 1: an install for learners, without the answers

TASKS = {}
"""Every built-in task by name, easiest first (``builtin_tasks`` fills it; imported at the end)."""


class TaskError(ValueError):
    """A task written wrongly: one line naming the task, the argument and what is allowed."""


class NoReferences(ValueError):
    """The reference solutions are not installed here: an install for learners, without the answers."""


@dataclass(frozen=True, eq=False)
class Task:
    """One task: what must follow each context, and the model shape it is designed for.

    Made by ``@task``. Calling it on a context gives the rule's answer. Two tasks are equal only
    when they are the same task (a rule redefined in a notebook makes a new one).
    """

    name: str  # what the command line, the notebooks and the grader call it: the rule's name
    alphabet: str  # token i is alphabet[i]; a solution has exactly len(alphabet) rows in wte
    n_ctx: int  # the longest context graded; a solution needs at least this many rows in wpe
    next_token: Callable  # the rule: context -> the character that must follow, or None (not graded)
    statement: str  # the rule's docstring on one line, for the learner (``describe()`` translates it)
    labels: Labels  # the named directions of the blank model and of the reference solution
    structure: Structure  # the shape the task is designed for: ``blank()`` is all-zero weights of it
    extra_examples: tuple = ()  # graded too, before the enumerated contexts (aab: the blog's 27)
    build: Callable | None = field(default=None, repr=False)  # () -> the reference solution's weights

    def __call__(self, context):
        return self.next_token(context)

    def reference(self, build):
        """Decorate the function that builds the task's reference solution (weights, best with
        the task's labels): ``@shift.reference`` below the rule. Returns the function unchanged."""
        if not callable(build):
            raise TaskError(
                _("task {name}: {problem}").format(
                    name=self.name,
                    problem=_("its reference is a function that returns the weights; found {kind}").format(
                        kind=type(build).__name__
                    ),
                )
            )
        object.__setattr__(self, "build", build)  # the one field set later: the reference comes after the rule
        return build

    @property
    def has_reference(self):  # False in an install without the answers
        return self.build is not None and not withheld(self)

    @property
    def n_vocab(self):
        return len(self.alphabet)

    @property
    def n_embd(self):  # the width of the residual stream: one direction per label
        return self.structure.n_embd

    @property
    def n_layer(self):  # blocks the design needs (0: the embedding alone reaches the logits)
        return self.structure.n_layer

    @property
    def n_head(self):  # heads in each block
        return self.structure.blocks[0].n_head if self.structure.blocks else 1

    @property
    def mlp(self):  # whether the design has an MLP (its hidden units may be named in labels.hidden)
        return any(block.mlp for block in self.structure.blocks)

    def shape(self):
        """The shape the task is designed for, as a sentence: width, blocks, heads, MLP."""
        blocks = ngettext("{n} block", "{n} blocks", self.n_layer).format(n=self.n_layer)
        heads = ngettext("{n} head", "{n} heads", self.n_head).format(n=self.n_head)
        mlp = _("an MLP") if self.mlp else _("no MLP")
        if self.n_layer == 0:
            return _("n_embd = {width}, no blocks: the embedding goes straight to the logits").format(width=self.n_embd)
        return _("n_embd = {width}, {blocks}, {heads} each, {mlp}").format(
            width=self.n_embd, blocks=blocks, heads=heads, mlp=mlp
        )

    def describe(self, passed=False):
        """A few lines for a list of tasks: the statement, the alphabet, what is graded, the shape,
        and whether this learner has passed it. A built-in statement shows in the learner's
        language; a teacher's shows as written."""
        graded = len(examples(self))
        lines = [
            _("{name}: {statement}").format(name=self.name, statement=_(self.statement)),
            _("  alphabet {alphabet}, contexts of 1 to {n_ctx} tokens, {graded} graded").format(
                alphabet=repr(self.alphabet), n_ctx=self.n_ctx, graded=graded
            ),
            _("  designed for: {shape}").format(shape=self.shape()),
        ]
        return "\n".join([*lines, _("  passed: you have designed a model that passes it")] if passed else lines)

    def __repr__(self):
        return f"Task({self.name!r}, alphabet={self.alphabet!r}, n_ctx={self.n_ctx})"


# ---- @task ----------------------------------------------------------------------------------


def task(
    rule=None,
    /,
    *,
    alphabet=None,
    n_ctx=None,
    n_embd=None,
    n_layer=1,
    n_head=1,
    mlp=False,
    labels=None,
    extra_examples=(),
):
    """Make the decorated rule function a Task; its docstring is the task's statement.

    ``alphabet``: 2 or more distinct characters, token i is ``alphabet[i]``. ``n_ctx``: the longest
    context graded (every string of 1 to n_ctx characters is asked). ``n_embd``: the width of the
    residual stream (required without ``labels``, which otherwise give it). ``n_layer``: blocks (0:
    the embedding goes straight to the logits). ``n_head``: heads in each block. ``mlp``: the
    hidden units of each block's MLP: False or 0 for none, a number, or True for as many as
    ``labels.hidden`` names (else 4 * n_embd). ``labels``: a ``handmade.Labels`` naming the
    directions of the blank model and the reference (default: e0, e1, ...). ``extra_examples``:
    (context, next character) pairs graded before the enumerated contexts. A mistake is a
    TaskError (a ValueError) of one line that names the task and the argument.
    """
    if rule is not None:  # @task without its options
        raise TaskError(
            _(
                "@task needs the task's alphabet and n_ctx: write @task(alphabet=..., n_ctx=...) above the rule {name}"
            ).format(name=brief(getattr(rule, "__name__", rule)))
        )
    shape = dict(alphabet=alphabet, n_ctx=n_ctx, n_embd=n_embd, n_layer=n_layer, n_head=n_head, mlp=mlp)

    def decorate(rule):
        made = _make(rule, labels=labels, extra_examples=extra_examples, **shape)
        for found in _COLLECTING:
            found.append(made)
        return made

    return decorate


def _make(rule, alphabet, n_ctx, labels, extra_examples, **shape):
    name = _name(rule)
    try:
        statement = _statement(rule)
        labels, structure, extra = options(alphabet, n_ctx, labels, extra_examples, **shape)
    except OptionError as problem:
        raise TaskError(_("task {name}: {problem}").format(name=name, problem=problem)) from None
    return Task(name, alphabet, n_ctx, rule, statement, labels, structure, extra)


def _name(rule):
    """The task's name, its rule's: a Python name that no built-in task has."""
    name = getattr(rule, "__name__", None)
    if not callable(rule) or not isinstance(name, str) or not name.isidentifier():
        raise TaskError(
            _("@task(...) decorates a rule function, def name(context): ...; found {value}").format(value=brief(rule))
        )
    if name in TASKS:
        raise TaskError(
            _("there is already a built-in task called {name}: give the rule function another name").format(name=name)
        )
    return name


def statement_of(docstring):
    """A docstring as one line: ``inspect.cleandoc``, then its lines joined with single spaces.
    tools/messages.py extracts the built-in tasks' statements the same way, for the catalogue."""
    docstring = text_of(docstring, "docstring", MAX_TASKS_FILE)
    return " ".join(line.strip() for line in inspect.cleandoc(docstring).splitlines() if line.strip())


def _statement(rule):
    if isinstance(rule.__doc__, str) and rule.__doc__.strip():
        return statement_of(rule.__doc__)
    if sys.flags.optimize >= 2:  # python -OO drops every docstring: the name has to do
        return rule.__name__
    raise OptionError(
        _("the rule's docstring is the task's statement, and it has none: write what to say after a context")
    )


# ---- the contexts a task grades -----------------------------------------------------------


def examples(task):
    """Every graded (context, next token) of ``task`` (a Task or a built-in task's name): the task's
    extra examples, then every string over its alphabet of 1 to n_ctx characters for which the rule
    gives an answer, shortest first."""
    return _examples(get_task(task))


@functools.cache
def _examples(task):
    enumerated = []
    for length in range(1, task.n_ctx + 1):
        for letters in itertools.product(task.alphabet, repeat=length):
            context = "".join(letters)
            expected = _answer(task, context)
            if expected is not None:
                enumerated.append(Example(context, expected))
    found = (*task.extra_examples, *enumerated)
    if not found:
        raise ValueError(
            _("task {name} grades no context: its rule returns None for every text of 1 to {n_ctx} letters").format(
                name=task.name, n_ctx=task.n_ctx
            )
        )
    if len(found) > MAX_GRADED:
        raise ValueError(
            _("task {name} grades {n} contexts; at most {limit} keep grading fast").format(
                name=task.name, n=len(found), limit=MAX_GRADED
            )
        )
    return found


def _answer(task, context):
    """The rule's answer after ``context``: a character of the alphabet, or None; ValueError otherwise."""
    try:
        answer = task.next_token(context)
    except Exception as error:  # a teacher's rule is the teacher's code: say where it failed, in one line
        problem = _("its rule raised {error} after {context}").format(error=_exception(error), context=repr(context))
        raise ValueError(_("task {name}: {problem}").format(name=task.name, problem=problem)) from error
    if answer is None or (isinstance(answer, str) and len(answer) == 1 and answer in task.alphabet):
        return answer
    problem = _("its rule answered {answer} after {context}; an answer is a character of {alphabet}, or None").format(
        answer=brief(answer), context=repr(context), alphabet=repr(task.alphabet)
    )
    raise ValueError(_("task {name}: {problem}").format(name=task.name, problem=problem))


def graded_tokens(task):
    """``examples(task)`` as (token ids of the context, id of the expected token), tokenized once."""
    return _graded_tokens(get_task(task))


@functools.cache
def _graded_tokens(task):
    return tuple((tuple(tokenize(e.context, task.alphabet)), task.alphabet.index(e.expected)) for e in examples(task))


def _exception(error):
    """``TypeError: message`` on one line, the message cut short: what a one-line error quotes."""
    message = " ".join(str(error).split())
    message = message if len(message) <= MAX_SHOWN else message[: MAX_SHOWN - 1] + "…"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


# ---- finding tasks ---------------------------------------------------------------------------


def get_task(task, tasks=None):
    """``task`` itself, or the task of that name among ``tasks`` (default: the built-in ones);
    ValueError naming the tasks there are."""
    if isinstance(task, Task):
        return task
    tasks = TASKS if tasks is None else tasks
    if not isinstance(tasks, dict) or not all(isinstance(t, Task) for t in tasks.values()):
        raise TypeError(_("tasks must be a dict of Tasks by name; found {value}").format(value=brief(tasks)))
    if isinstance(task, str) and task in tasks:
        return tasks[task]
    raise (UnknownName if isinstance(task, str) else TypeError)(
        _("there is no task {name}; the tasks are {names}").format(name=brief(task, 24), names=few(tasks, limit=115))
    )


_COLLECTING = []  # lists that each new task is added to, while load_tasks runs a file


@contextlib.contextmanager
def _collecting():
    found = []
    _COLLECTING.append(found)
    try:
        yield found
    finally:
        _COLLECTING.remove(found)


def load_tasks(path):
    """{name: Task} of every task that a teacher's Python file makes with ``@task``, in order.

    The file runs as Python, as the teacher's own code (its ``if __name__ == "__main__":`` part
    does not run). ValueError, in one line naming the file and the problem, when the file is
    missing or not a regular file, is not Python (or not named .py), raises while it runs (a task
    written wrongly, or named like a built-in task, included), defines no task, defines two of
    one name, or has a rule that fails on a context (every rule is asked about every context).
    """
    code = _compiled(path)
    with _collecting() as found:
        try:
            exec(code, {"__name__": "__handmade_tasks__", "__file__": str(path)})
        except TaskError as error:
            raise _file_error(path, error) from error
        except (Exception, SystemExit) as error:
            raise _file_error(path, _("it raised {error}").format(error=_exception(error))) from error
    if not found:
        raise _file_error(path, _("it defines no task: decorate a rule function with @handmade.task(...)"))
    names = [t.name for t in found]
    twice = [name for name in names if names.count(name) > 1]
    if twice:
        raise _file_error(path, _("it defines two tasks called {name}").format(name=twice[0]))
    for made in found:  # ask each rule about every context now, so that a failing rule names the file
        try:
            examples(made)
        except ValueError as error:
            raise _file_error(path, error) from error
    return {t.name: t for t in found}


def _compiled(path):
    """The code of the Python file at ``path``, compiled; ValueError when it cannot be."""
    path = file_name(path)
    if path.suffix != ".py":
        raise _file_error(path, _("it is not a Python file: its name does not end in .py"))
    source = _source(path)
    try:
        return compile(source, str(path), "exec")
    except (SyntaxError, ValueError) as error:  # ValueError: null bytes, before Python 3.12
        reason = said(error.msg if isinstance(error, SyntaxError) else error)
        if isinstance(error, SyntaxError) and error.lineno:
            reason = _("{reason} at line {line}").format(reason=reason, line=error.lineno)
        raise _file_error(path, _("it is not Python ({reason})").format(reason=reason)) from None


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
        raise _file_error(path, said(error) if error.strerror else _exception(error)) from None


def _file_error(path, problem):
    return ValueError(_("cannot load tasks from '{path}': {problem}").format(path=shown_path(path), problem=problem))


# ---- blank models and reference solutions ---------------------------------------------------


def blank(task):
    """All-zero weights of the shape the task is designed for, labelled with its named directions."""
    task = get_task(task)
    return Weights(task.structure.zeros(), task.labels)


def references_off():
    """Whether the setting ``HANDMADE_NO_REFERENCES`` (anything but empty or 0) switches every
    reference solution off: the built-in ones, and those of a teacher's tasks."""
    return os.environ.get(NO_REFERENCES, "").strip() not in ("", "0")


def withheld(task):
    """Whether ``task``'s reference solution is kept from this install: the setting is on, or the
    task is built in and the built-in references were left out of it (a wheel built without them)."""
    task = get_task(task)
    return references_off() or (task.build is None and TASKS.get(task.name) is task)


def reference(task):
    """The task's reference solution: the answer, never printed unasked. NoReferences (a
    ValueError) in an install without the answers; ValueError when the task has none, or its
    builder fails."""
    task = get_task(task)
    if withheld(task):
        raise NoReferences(
            _(
                "task {name}: the reference solutions are not installed here (an install for learners, without the answers); grading needs none"
            ).format(name=task.name)
        )
    if task.build is None:
        raise ValueError(
            _("task {name} has no reference solution: write one below its rule with @{name}.reference").format(
                name=task.name
            )
        )
    try:
        built = task.build()
    except Exception as error:
        problem = _("its reference solution raised {error}").format(error=_exception(error))
        raise ValueError(_("task {name}: {problem}").format(name=task.name, problem=problem)) from error
    if not isinstance(built, dict):
        problem = _("its reference solution returned {kind}, not weights").format(kind=type(built).__name__)
        raise ValueError(_("task {name}: {problem}").format(name=task.name, problem=problem))
    return built if labels_of(built) is not None else Weights(built, task.labels)
