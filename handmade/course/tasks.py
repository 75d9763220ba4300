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
(``handmade.course`` puts them there as it is imported, before this module can be used). Their
references are apart, in ``references``, so that learners can have the package without the answers
(``HANDMADE_NO_REFERENCES``; ``withheld`` says whether this install has them, ``solutions.reference``
builds one). A teacher's own tasks live in the teacher's own Python file: ``load_tasks(path)`` (in
``task_files``) runs it and gathers what it defines (``python -m handmade tasks --tasks FILE.py``).
A teacher's code (the file, a rule, its extra examples, a reference) runs within ``user_code``'s
bounds, and its failures are said as its own.

Every task is graded exhaustively: all strings over its alphabet of 1 to ``n_ctx`` characters
whose rule gives an answer (``examples(task)``), so no sampling and no seed. What bounds a task
is what grading it costs (``grading_cost``): estimated before any pass, from the contexts, their
lengths and the model's size, and refused over ``MAX_GRADING`` operations with its estimate. A task
over a limit is refused when it is used (described, blanked, graded), naming it and its file.

    task = TASKS["abc"]          # or get_task("abc")
    params = blank(task)         # all-zero weights of the task's shape, with its labels
    grader.grade(task, params)   # fails, and says where
"""

import functools
import inspect
import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..arguments import MAX_MESSAGE, UnknownName, brief, clip, is_whole, shown_path, text_of, yes_or_no
from ..basis import Labels
from ..i18n import _, ngettext
from ..inference import Example
from ..structure import Structure
from ..tokenizer import tokenize
from ..weights import Weights
from . import user_code
from .task_files import (
    MAX_TASKS_FILE,
    collected,
    load_tasks,  # noqa: F401  (where notebooks and teachers find it)
    not_among,
)
from .task_options import OptionError, TaskError, contradiction, lengths_said, no_such_options, options

MAX_GRADING = 10**11  # operations one grade may cost (grading_cost): seconds, not minutes
NO_REFERENCES = "HANDMADE_NO_REFERENCES"  # set to 1: an install for learners, without the answers
SHOWN_NAME = 32  # characters of a task's name, and of its file's, in a message naming it

TASKS = {}
"""Every built-in task by name, easiest first (``builtin_tasks`` fills it as ``handmade.course`` is imported)."""


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
    refused: str | None = None  # why the task cannot be used (a limit it is over), said when it is used
    source: str | None = None  # the file it came from (load_tasks), named when it is refused

    def __call__(self, context):
        return self.next_token(context)

    def reference(self, build):
        """Decorate the function that builds the task's reference solution (weights, best with
        the task's labels): ``@shift.reference`` below the rule. Returns the function unchanged."""
        if not callable(build):
            problem = _("its reference is a function that returns the weights; found {kind}")
            raise TaskError(self.saying(problem.format(kind=type(build).__name__)))
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
        language; a teacher's shows as written. ValueError when the task cannot be used."""
        passed = yes_or_no(passed, "passed")
        lines = [
            _("{name}: {statement}").format(name=self.name, statement=_(self.statement)),
            lengths_said(self, len(examples(usable(self)))),
            _("  designed for: {shape}").format(shape=self.shape()),
        ]
        return "\n".join([*lines, _("  passed: you have designed a model that passes it")] if passed else lines)

    def called(self, limit=SHOWN_NAME):
        """How a message names the task: "task shift", or "task shift in 'homework.py'" for a teacher's file's
        (each name at most ``limit`` characters)."""
        name = self.name if len(self.name) <= limit else self.name[: limit - 1] + "…"
        if self.source is None:
            return _("task {name}").format(name=name)
        return _("task {name} in '{path}'").format(name=name, path=shown_path(self.source, limit))

    def saying(self, *problems):
        """A problem after the task's name, "task shift in 'homework.py': its rule ...", in one line of at most
        MAX_MESSAGE characters: the first of ``problems`` (a sentence, or the same said shorter and shorter) that
        fits, with the names shortened if none does; else the last, cut in its middle (another error's, say)."""
        for limit in (SHOWN_NAME, SHOWN_NAME // 2, SHOWN_NAME // 4):
            for problem in problems:
                said = _("{task}: {problem}").format(task=self.called(limit), problem=problem)
                if len(said) <= MAX_MESSAGE:
                    return said
        return clip(said)

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
    **unknown,
):
    """Make the decorated rule function a Task; its docstring is the task's statement.

    ``alphabet``: 2 or more distinct characters, token i is ``alphabet[i]``. ``n_ctx``: the longest
    context graded (every string of 1 to n_ctx characters is asked). ``n_embd``: the width of the
    residual stream (required without ``labels``, which otherwise give it). ``n_layer``: blocks (0:
    the embedding goes straight to the logits). ``n_head``: heads in each block. ``mlp``: the
    hidden units of each block's MLP: False or 0 for none, a number, or True for as many as
    ``labels.hidden`` names (else 4 * n_embd). ``labels``: a ``handmade.Labels`` naming the
    directions of the blank model and the reference; without them the directions are named as the
    built-in tasks' are: positions P0, P1, ..., tokens Ta, Tb, ... (T0, T1, ... for characters that
    cannot show in a name), then spare directions V, V1, ...; when n_embd has no room for them all,
    the tokens come first, the positions only if they all fit beside them, and e0, e1, ... only
    when even the tokens do not fit. Each block's attention directions are then the residual's
    names, and its hidden units h0, h1, ... (``labels.attention[b]``, ``labels.hidden[b]``).
    ``extra_examples``: at most 1,000 (context, next character) pairs, each context at most 1,024
    characters, graded before the enumerated contexts. A mistake is a TaskError (a ValueError) of one
    line that names the task and the argument; a task over a limit (n_ctx too long for its alphabet,
    too many or too long extra examples) is made, and refused in one line when it is used.
    """
    no_such_options(unknown)  # a misspelt option: named, with those there are
    if rule is not None:  # @task without its options
        raise TaskError(
            _(
                "@task needs the task's alphabet and n_ctx: write @task(alphabet=..., n_ctx=...) above the rule {name}"
            ).format(name=brief(getattr(rule, "__name__", rule)))
        )
    shape = dict(alphabet=alphabet, n_ctx=n_ctx, n_embd=n_embd, n_layer=n_layer, n_head=n_head, mlp=mlp)

    def decorate(rule):
        made = _make(rule, labels=labels, extra_examples=extra_examples, **shape)
        collected(made)  # a file being loaded gathers it
        return made

    return decorate


def _make(rule, alphabet, n_ctx, labels, extra_examples, **shape):
    name = _name(rule)
    try:
        statement = _statement(rule)
        labels, structure, extra, refused = options(alphabet, n_ctx, labels, extra_examples, **shape)
    except OptionError as problem:
        raise TaskError(_("task {name}: {problem}").format(name=name, problem=problem)) from None
    return Task(name, alphabet, int(n_ctx), rule, statement, labels, structure, extra, refused=refused)


def _name(rule):
    """The task's name, its rule's: a Python name that no built-in task has."""
    name = getattr(rule, "__name__", None)
    if callable(rule) and isinstance(name, str) and not name.isidentifier():  # a lambda's, or one set by hand
        raise TaskError(
            _(
                "a task is named after its rule function, and {name} is not a Python name: write def name(context): ... (a lambda has no name)"
            ).format(name=brief(name, 40))
        )
    if not callable(rule) or not isinstance(name, str):
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
    gives an answer, shortest first. ValueError, naming the task (and its file), when the task is
    over a limit, or its rule fails (raises, answers outside the alphabet, runs past its bounds)."""
    return _examples(get_task(task))


@functools.cache
@user_code.failures_remembered
def _examples(task):
    if task.refused:
        raise ValueError(task.saying(task.refused))
    enumerated = [Example(context, _answer(task, context, answer)) for context, answer in user_code.rule_answers(task)]
    found = (*task.extra_examples, *(e for e in enumerated if e.expected is not None))
    answers = {}  # {the last n_ctx letters, all a model of the task's shape reads: (its place in found, example)}
    for i, e in enumerate(found):  # an extra example that contradicts the rule, or another one: no model could pass
        j, first = answers.setdefault(e.context[-task.n_ctx :], (i, e))
        if first.expected != e.expected:
            places = [k if k < len(task.extra_examples) else None for k in (j, i)]  # None: the rule's answer
            said = (contradiction(task.n_ctx, first.context, first.expected, e, places, w) for w in (24, 12, 6))
            raise ValueError(task.saying(*said))
    if not found:
        raise ValueError(
            _("{task} grades no context: its rule returns None for every text of 1 to {n_ctx} letters").format(
                task=task.called(), n_ctx=task.n_ctx
            )
        )
    return found


def _answer(task, context, answer):
    """The rule's answer after ``context``: a character of the alphabet, or None; ValueError otherwise.
    Only str's own methods look at it: a subclass of the teacher's runs none of its code here."""
    if answer is None:
        return None
    if isinstance(answer, str) and str.__len__(answer) == 1 and str.__contains__(task.alphabet, answer):
        return str.__add__("", answer)
    shown = user_code.answer_shown(answer)
    problem = _("its rule answered {answer} after {context}; an answer is a character of {alphabet}, or None").format(
        answer=shown, context=repr(context), alphabet=repr(task.alphabet)
    )
    raise ValueError(task.saying(problem))


def graded_tokens(task):
    """``examples(task)`` as (token ids of the context, id of the expected token), tokenized once."""
    return _graded_tokens(get_task(task))


@functools.cache
def _graded_tokens(task):
    return tuple((tuple(tokenize(e.context, task.alphabet)), task.alphabet.index(e.expected)) for e in examples(task))


# ---- what grading a task costs ----------------------------------------------------------------
# Grading runs many small passes, where numpy's fixed cost per call outweighs the arithmetic, and long
# ones, where the attention scores (an entry per query and key) are elementwise work that costs more
# than its count (``handmade.cost`` counts a pass's arithmetic alone): ``grading_cost`` estimates
# it in one closed formula, fitted on this machine's timings (benchmarks/bench_grader.py measures them).

CALL_OPERATIONS = 100_000  # one numpy call on small arrays takes as long as this much arithmetic (~5 µs)
SCORE_OPERATIONS = 300  # one attention score: scaled, masked, exponentiated, normalised, applied
EXPLAINING = 3  # explaining a failing context: a recorded pass over its window, its shares and its words
# following a failing context's path back (``grade --json`` follows every one's): about 2 ms a context on the longest
# paths benchmarks/bench_explain.py finds, 6 to 17 passes' worth at the rates benchmarks/bench_grader.py measures
FOLLOWING = 16


def passes(windows):
    """[(window to run, [the windows its pass answers])]: the logits after every one of ``windows`` (tuples of
    token ids) from the fewest passes. A causal pass gives the logits after each prefix of its window too, so a
    prefix of another is not run: in descending order, the run just before a window covers it if any does."""
    runs = []
    for window in sorted(set(windows), reverse=True):
        if runs and runs[-1][0][: len(window)] == window:
            runs[-1][1].append(window)
        else:
            runs.append((window, [window]))
    return runs


@functools.lru_cache(maxsize=64)
def _lengths(task, n_ctx):
    """(Counter of the passes' lengths, Counter of the windows' lengths) of grading a model of n_ctx positions."""
    windows = [tokens[-n_ctx:] for tokens, _right in graded_tokens(task)]
    return Counter(len(run) for run, _covered in passes(windows)), Counter(map(len, windows))


def grading_cost(task, structure, explained=True, every_path=False, followed=None):
    """(operations, passes, longest pass): what grading a model of ``structure`` (``weights.structure``) on ``task``
    costs, before any pass; with ``explained``, every context's explanation, were all to fail, and with ``every_path``
    every one's path back (``grade --json``), or, once it is known which fail, theirs: ``followed``, their windows' lengths.

    A pass of n positions costs 2 n W for the W weights of its matrices that each position goes
    through (wte's too, for the logits), 4 n² for each direction of attention (q @ k.T and weights @ v),
    SCORE_OPERATIONS for each score of each head, and CALL_OPERATIONS for each array it taps; explaining
    a context costs EXPLAINING passes over its window, and following its path back FOLLOWING."""
    if not isinstance(structure, Structure):
        raise TypeError(
            _("structure must be a model's Structure (weights.structure); found {value}").format(value=brief(structure))
        )
    explained, every_path = yes_or_no(explained, "explained"), yes_or_no(every_path, "every_path")
    runs, windows = _lengths(get_task(task), structure.n_ctx)  # {n_seq: how many passes, how many contexts}
    paths = windows if every_path else {} if followed is None else _window_lengths(followed, structure.n_ctx)
    passes_per_length = {
        n: runs.get(n, 0) + EXPLAINING * explained * windows.get(n, 0) + FOLLOWING * paths.get(n, 0)
        for n in {*runs, *windows, *paths}
    }
    d, blocks = structure.n_embd, structure.blocks
    weights = structure.n_vocab * d + sum(4 * d * b.n_attn + 2 * d * b.n_hidden for b in blocks)
    per_score = sum(4 * b.n_attn + SCORE_OPERATIONS * b.n_head for b in blocks)
    calls = CALL_OPERATIONS * len(structure.taps(derived=False))
    cost = sum(k * (2 * n * weights + n * n * per_score + calls) for n, k in passes_per_length.items())
    return cost, sum(runs.values()), max(runs)


def _window_lengths(followed, n_ctx):
    """{n_seq: how many} of ``followed``, a list of windows' lengths."""
    if not isinstance(followed, (list, tuple)) or not all(is_whole(n) and 1 <= n <= n_ctx for n in followed):
        sentence = _("followed must be a list of windows' lengths, whole numbers from 1 to {n_ctx}; found {value}")
        raise ValueError(sentence.format(n_ctx=n_ctx, value=brief(followed)))
    return Counter(int(n) for n in followed)


def check_grading(task, structure, explained=True, designed=False, followed=None):
    """ValueError with the estimate, when grading ``structure`` on ``task`` costs over MAX_GRADING (``designed``: its shape;
    ``followed``: the windows' lengths of the failing contexts whose paths back are to be followed, as ``grading_cost``
    counts them)."""
    yes_or_no(designed, "designed")
    cost, runs, longest = grading_cost(task, structure, explained, followed=followed)
    if cost <= MAX_GRADING:
        return
    if designed:
        sentence = _(
            "{task} cannot be graded: its shape would take about {cost:.1e} operations ({passes} passes of up to {longest} positions, explained); at most {limit:.0e} are allowed"
        )
    elif followed and grading_cost(task, structure, explained)[0] <= MAX_GRADING:  # the paths cost
        sentence = _(
            "{task}: following every failing context's path back (grade --json, every_path=True) would take about {cost:.1e} operations, over the {limit:.0e} allowed; without it, grading is within them"
        )
    elif explained:
        sentence = _(
            "grading {task} would take about {cost:.1e} operations ({passes} passes of up to {longest} positions, explained); at most {limit:.0e} are allowed"
        )
    else:
        sentence = _(
            "grading {task} would take about {cost:.1e} operations ({passes} passes of up to {longest} positions); at most {limit:.0e} are allowed"
        )
    raise ValueError(sentence.format(task=task.called(), cost=cost, passes=runs, longest=longest, limit=MAX_GRADING))


def usable(task):
    """``task`` (or the built-in task of that name) if it can be used: its rule answers every text
    within its bounds, and a model of its shape can be graded; else ValueError naming it."""
    task = get_task(task)
    examples(task)
    check_grading(task, task.structure, designed=True)
    return task


# ---- finding tasks ---------------------------------------------------------------------------


def get_task(task, tasks=None):
    """``task`` itself, or the task of that name among ``tasks`` (default: the built-in ones);
    ValueError naming the tasks there are (a teacher's first) and a close name, if there is one."""
    if isinstance(task, Task):
        return task
    tasks = TASKS if tasks is None else tasks
    if not isinstance(tasks, dict) or not all(isinstance(t, Task) for t in tasks.values()):
        raise TypeError(_("tasks must be a dict of Tasks by name; found {value}").format(value=brief(tasks)))
    if isinstance(task, str) and task in tasks:
        return tasks[task]
    if not isinstance(task, str):
        raise TypeError(_("a task is a Task or a task's name; found {value}").format(value=brief(task, 24)))
    raise UnknownName(not_among(task, tasks, TASKS))


# ---- blank models, and whether the references are installed ----------------------------------


def blank(task):
    """All-zero weights of the shape the task is designed for, labelled with its named directions;
    ValueError when the task cannot be used (``usable``)."""
    task = usable(task)
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
