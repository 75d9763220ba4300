"""Hostile input and injected faults, class by class (issue 19): each test generates its cases.

The classes: output streams, files that look like weights, malformed labels, training that goes
non-finite, the library's exceptions (every public function's every argument), bounded reading,
time, signals, the Chinese command line, the playground's save, the progress file, the widgets' API
(every constructor, function, method and control of handmade.widgets and handmade.display; issue
31), the website's builder (tools/site.py: its repository, output folder, font and command line;
issue 31), and every view bounded (a model at each limit in a playground). A test per class builds its
cases from the package itself (the parser's subcommands, ``inspect.signature`` of every public
function, dtypes, locale forms) rather than listing a few. ``README.md`` ("Reliability") gives the
counts and names the test that holds each promise.
"""

import argparse
import builtins
import contextlib
import copy
import errno
import importlib.util
import inspect
import io
import itertools
import json
import math
import os
import re
import shutil
import signal
import string
import subprocess
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import AT_THE_LIMITS, Hang, a_task, bounded, one_line, posix_only, random_params, reads_as_chinese
from hypothesis import given, settings
from hypothesis import strategies as st

import handmade
import handmade.training as training
from handmade import basis, cli, files, inference, parts, tokenizer
from handmade.arguments import MAX_MESSAGE, check_alphabet
from handmade.basis import Basis, Labels, text_shown, token_shown
from handmade.course import (
    compared,
    explain,
    grader,
    listing,
    progress,
    solutions,
    task_files,
    task_options,
    tasks,
    user_code,
)
from handmade.display.trace import trace, weight_tables
from handmade.display.views import prediction_html
from handmade.display.window import TABLE_SIDE as SHOWN
from handmade.training import AdamW, leaves
from handmade.widgets.score import TaskScore

PACKAGE = Path(handmade.__file__).resolve().parent

# ---- 5. the library's exceptions: one rule for every public function --------------------------

HOSTILE = {  # what each argument of each public function is given in turn, the others valid
    "None": None,
    "100000 x's": "x" * 100_000,
    "object()": object(),
    "-1": -1,
    "2**70": 2**70,
    "nan": math.nan,
    "inf": math.inf,
    "np.float32(0.5)": np.float32(0.5),
    "True": True,
    "[]": [],
    "{}": {},
    "b'bytes'": b"bytes",
    "a lone surrogate": "\ud800",
}

MODULES = (
    handmade,
    inference,
    files,
    tokenizer,
    parts,
    training,
    tasks,
    task_files,
    task_options,
    grader,
    explain,
    compared,
    listing,
    progress,
    solutions,
)

MATHS = "the maths trusts its arrays, as picoGPT does (handmade/model.py): forward() and check_weights() check what people give"
RECORD = "a record the package fills in; what is in it is checked where it is used"
SKIPPED = {  # the public callables that are not called blindly, each with the reason
    **dict.fromkeys(
        [f"model.{n}" for n in ("softmax", "linear", "layer_norm", "gelu", "ffn", "causal_mask", "attention")]
        + [
            "model.causal_self_attention",
            "model.transformer_block",
            "model.gpt",
            "basis.qkv_weights",
            "basis.split_qkv",
        ],
        MATHS,
    ),
    **dict.fromkeys(
        [
            f"training.{m}.{n}"
            for m, names in {
                "backward": "flat transposed thirds linear_backward softmax_backward layer_norm_backward gelu_backward "
                "ffn_backward attention_backward causal_self_attention_backward transformer_block_backward gpt_backward",
                "losses": "log_softmax cross_entropy cross_entropy_backward",
            }.items()
            for n in names.split()
        ],
        "the backward twins of the maths, fed by loss_and_grads from a checked, recorded pass",
    ),
    **dict.fromkeys(
        [
            "inference.Example",
            "inference.Prediction",
            "inference.Score",
            "course.grader.Miss",
            "course.grader.Report",
            "course.explain.Reading",
            "course.explain.Explanation",
            "course.progress.Passes",
            "course.grader.Graded",
            "course.solutions.Solution",
            "course.tasks.Task",
            "training.optimizer.AdamState",
            "training.loop.History",
            "training.recorded.Recorded",
            "training.recorded.RecordedBlock",
        ],
        RECORD,
    ),
    "inference.next_logits": "continuation()'s loop, after continuation() has checked the tokens and the weights",
    "course.grader.logits_per_context": "the grader's arithmetic on weights submission() has checked",
    "course.explain.margins_of": "the grader's arithmetic on the logits it computed",
    "course.task_options.lengths_said": "a line of Task.describe, of a task @task has checked (tests/test_tasks.py)",
    "course.task_options.no_such_options": "the options @task was given that it does not have (tests/test_tasks.py)",
    "course.task_options.contradiction": "a sentence tasks.examples words from the examples it has checked (tests/test_tasks.py)",
    "course.tasks.passes": "the grouping of the windows the grader and grading_cost make from a task's own contexts",
    **dict.fromkeys(
        [
            f"course.explain.{n}"
            for n in [
                "read_window",
                "writers",
                "through_norm",
                "part_vectors",
                "back_through",
                "margin_direction",
                "shares",
                "explain",
            ]
        ]
        + ["course.compared.shares_in"],
        "the grader's explanation, of weights submission() has checked and of a pass it recorded (tests/test_grader.py)",
    ),
    **dict.fromkeys(
        ["course.explain.phrase", "course.explain.tolerance", "course.compared.missing", "course.compared.lagging"],
        "the explanation's words and comparisons, on the parts and shares it found itself (tests/test_grader.py)",
    ),
    **dict.fromkeys(
        [f"course.explain.{n}" for n in ("miss_said", "report_lines", "diagnosis_lines", "shares_listed")],
        "a report's text, made from the data Report.to_json made (tested in tests/test_path.py)",
    ),
    "course.progress.model_fingerprint": "the progress file's fingerprint of weights submission() has checked",
    "course.task_files.Tasks": "the dict load_tasks returns, made there from the tasks a file made (a missing name: tests/test_tasks.py)",
    "course.task_files.not_among": "the line get_task and Tasks say for a name, of tasks they hold (tests/test_tasks.py)",
    "course.progress.note_trained": "the command line's train: its task, and the weights it trained, checked",
    "course.progress.recorded_where": "the grader's sentence on a pass it recorded, of the Task it graded",
    "files.check_fits_a_file": "the command line's blank and train: a task's Structure, one of two constants, its name",
    "files.too_large_for_a_file": "the same test, for the tasks listing: a task's Structure and one of the two constants",
    "course.listing.entries": "the command line's tasks: the tasks load_tasks made (or the built-in ones) and progress.read().has",
    **dict.fromkeys(
        ["course.compared.revealed_line", "course.compared.not_compared"],
        "a report's line on the reference, of the shares and the problem the grader found itself (tested in this file)",
    ),
}


def _qualified(obj):
    return f"{obj.__module__.removeprefix('handmade.')}.{obj.__qualname__}"


def _public_callables():
    """{qualified name: callable} of every public function and class of MODULES, each once."""
    found = {}
    for module in MODULES:
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            home = getattr(obj, "__module__", None) or ""
            if (
                not callable(obj)
                or not home.startswith("handmade")
                or isinstance(obj, type)
                and issubclass(obj, BaseException)
            ):
                continue
            if getattr(module, "__all__", None) is None and home != module.__name__:
                continue  # imported there from elsewhere: counted at home
            found[_qualified(obj)] = obj
    return found


PUBLIC = _public_callables()


def say_a(context):
    """Say a."""
    return "a"


def _task(
    rule=say_a, *, alphabet="ab", n_ctx=2, n_embd=2, n_layer=1, n_head=1, mlp=False, labels=None, extra_examples=()
):
    """``@task(...)`` over a rule, in one call: the decorator's options and what it decorates."""
    options = dict(alphabet=alphabet, n_ctx=n_ctx, n_embd=n_embd, n_layer=n_layer, n_head=n_head, mlp=mlp)
    return tasks.task(labels=labels, extra_examples=extra_examples, **options)(rule)


METHODS = {  # methods that take arguments from people: the bound method, from a fresh object
    "training.optimizer.AdamW.init": lambda: AdamW().init,
    "training.optimizer.AdamW.step": lambda: AdamW().step,
    "basis.Basis.index": lambda: handmade.BASIS.index,
    "basis.Basis.vector": lambda: handmade.BASIS.vector,
    "basis.Basis.matrix": lambda: handmade.BASIS.matrix,
    "basis.Basis.one_hot_rows": lambda: handmade.BASIS.one_hot_rows,
    "basis.Labels.token_names": lambda: handmade.LABELS.token_names,
    "course.tasks.Task.describe": lambda: tasks.get_task("abc").describe,
    "course.tasks.Task.reference": lambda: _task().reference,
}

FUNCTIONS = {
    **{name: (lambda f=f: f) for name, f in PUBLIC.items() if name not in SKIPPED and name != "course.tasks.task"},
    "course.tasks.task": lambda: _task,
    "arguments.check_alphabet": lambda: check_alphabet,  # the tokenizer's, and every alphabet's
    **METHODS,
}


def _blog(tmp=None):
    return handmade.blog_model()


def _weights_file(tmp):
    path = tmp / "w.json"
    handmade.save_weights(_blog(), path, force=True)
    return path


def _adam_arguments(tmp):
    arrays = leaves(handmade.check_weights(_blog()))
    return {"arrays": arrays, "grads": [np.zeros_like(a) for a in arrays], "state": AdamW().init(arrays)}


def _tasks_file(tmp):
    path = tmp / "mine.py"
    path.write_text(
        'import handmade\n\n@handmade.task(alphabet="ab", n_ctx=2, n_embd=2)\ndef mine(context):\n    """Say a."""\n'
        '    return "a"\n',
        encoding="utf-8",
    )
    return path


VALID = {  # a valid value for each parameter name: what every other argument is given
    "params": _blog,
    "text": lambda tmp: "aab",
    "context": lambda tmp: "aab",
    "task": lambda tmp: "abc",
    "max_new_tokens": lambda tmp: 3,
    "path": _weights_file,
    "name": lambda tmp: "q",
    "values": lambda tmp: parts.get(_blog(), "q"),
    "changes": lambda tmp: {"q": parts.get(_blog(), "q")},
    "part": lambda tmp: parts.parts(_blog())["q"],
    "inputs": lambda tmp: [[0, 0, 1]],
    "targets": lambda tmp: [[0, 1, 0]],
    "tokens": lambda tmp: [0, 0, 1, 0, 0, 1, 0, 0, 1],
    "batch_fn": lambda tmp: lambda: ([[0, 0, 1]], [[0, 1, 0]]),
    "steps": lambda tmp: 2,
    "progress": lambda tmp: False,
    "batch_size": lambda tmp: 2,
    "n_ctx": lambda tmp: 3,
    "n_vocab": lambda tmp: 3,
    "n_embd": lambda tmp: 4,
    "rng": lambda tmp: 0,
    "examples": lambda tmp: [([0, 0], 1), ([0, 1], 0)],
    "fn": lambda tmp: np.copy,
    "language": lambda tmp: "en",
    "docstring": lambda tmp: "Say a.",
    "text_": lambda tmp: "{}",
    "what": lambda tmp: "the text",
    "labels_json": lambda tmp: handmade.LABELS.to_json(),
    "groups": lambda tmp: ["x", "y"],
    "residual": lambda tmp: Basis(["x", "y"]),
    "listener": lambda tmp: lambda name, array: None,
    "kind": lambda tmp: "blocks",
    "i": lambda tmp: 0,
    "entries": lambda tmp: {"Ta": 1.0},
    "stream": lambda tmp: io.StringIO(),
    "build": lambda tmp: _blog,
    "n_context": lambda tmp: 3,
    "alphabet": lambda tmp: "ab",
    "names": lambda tmp: ["Ta", "Tb"],
    "letter": lambda tmp: "a",
    "char": lambda tmp: "a",
    "n": lambda tmp: 3,
}

FRESH = itertools.count()  # numbers for file names not used before

VALID_FOR = {  # where a parameter's valid value depends on the function (or on its other arguments)
    "course.grader.grade": lambda tmp: {"params": solutions.reference("abc")},
    "course.grader.handed_in": lambda tmp: {"params": solutions.reference("abc")},
    "course.grader.graded": lambda tmp: {"params": solutions.reference("abc")},
    "course.grader.submission": lambda tmp: {"params": solutions.reference("abc")},
    "course.task_files.load_tasks": lambda tmp: {"path": _tasks_file(tmp)},
    "files.new_file": lambda tmp: {"path": str(tmp / "new.json"), "force": False, "tasks_file": _tasks_file(tmp)},
    "files.write_new_text": lambda tmp: {  # files of their own each time: nothing there to keep
        "path": str(tmp / f"homework_{next(FRESH)}.py"),
        "instead": str(tmp / f"other_{next(FRESH)}.py"),
    },
    "course.tasks.grading_cost": lambda tmp: {"structure": tasks.get_task("abc").structure},
    "course.tasks.check_grading": lambda tmp: {"structure": tasks.get_task("abc").structure},
    "course.task_options.options": lambda tmp: {
        **dict(alphabet="ab", n_ctx=2, labels=None, extra_examples=()),
        **dict(n_embd=2, n_layer=1, n_head=1, mlp=False),
    },
    "course.progress.add": lambda tmp: {"task": "abc"},
    "training.optimizer.AdamW.init": _adam_arguments,
    "training.optimizer.AdamW.step": _adam_arguments,
    "files.labels_from_json": lambda tmp: {"labels": handmade.LABELS.to_json()},
    "files.write_atomically": lambda tmp: {"text": "{}"},
    "files.weights_from_json": lambda tmp: {"text": handmade.weights_to_json(_blog())},
    "arguments.writable": lambda tmp: {"text": "abc"},
    "inference.check_request": lambda tmp: {"params": handmade.check_weights(_blog())},
    "basis.Basis.index": lambda tmp: {"name": "Ta"},
    "basis.Basis.matrix": lambda tmp: {"entries": {("Ta", "V"): 1.0}},
    "basis.Basis.one_hot_rows": lambda tmp: {"names": ["Ta", "Tb"]},
    "basis.Labels.token_names": lambda tmp: {"n_vocab": 2},
    "basis.Labels": lambda tmp: {"alphabet": "ab", "residual": Basis(["x", "y"])},
    "training.batching.example_batches": lambda tmp: {"batch_size": None},
    "training.init.init_params": lambda tmp: {"n_embd": 4},
    "training.limits.check_batch": lambda tmp: {},
    "parts.with_qkv": lambda tmp: {"q": parts.get(_blog(), "q")},
    "weights.forward": lambda tmp: {"inputs": [0, 0, 1]},
}


def _signature(name):
    return inspect.signature(FUNCTIONS[name]())


def substitutable(name):
    """The parameters of ``name`` that a caller can give (not *args nor **kwargs)."""
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in _signature(name).parameters.values() if p.kind not in kinds]


def valid_arguments(name, tmp):
    """{parameter: a valid value} for every parameter of ``name``: the function's own table, else
    the table by parameter name, else the parameter's default."""
    own = VALID_FOR.get(name, lambda tmp: {})(tmp)
    arguments = {}
    for param in _signature(name).parameters.values():
        if param.name in own:
            arguments[param.name] = own[param.name]
        elif (
            param.name in VALID
            and param.default is inspect.Parameter.empty
            or param.name
            in (
                "max_new_tokens",
                "steps",
                "progress",
            )
        ):
            arguments[param.name] = VALID[param.name](tmp)
        elif param.default is not inspect.Parameter.empty:
            arguments[param.name] = param.default
        elif param.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise AssertionError(f"no valid value for {name}({param.name}): add one to VALID or VALID_FOR")
    return arguments


def call(function, arguments):
    """Call with positional-only parameters given by position, the others by keyword."""
    sig = inspect.signature(function)
    positional = [arguments.pop(p.name) for p in sig.parameters.values() if p.kind == p.POSITIONAL_ONLY]
    result = function(*positional, **arguments)
    if inspect.isgenerator(result):
        result = list(result)
    return result


ALIASES = {  # the words a message may name an argument by, besides its own name
    "params": ("weights",),  # weights are "weights" wherever they come in
    "path": ("'",),  # a file is named by its name, quoted
    "text": ("cannot tokenize",),  # a character of the text, its place and the alphabet
    "name": ("part", "direction", "solution"),  # what the name names
    "names": ("direction",),
    "inputs": ("token",),
    "examples": ("example",),
    "build": ("reference",),  # @task.reference
    "tasks": ("task",),
}


def problem_with(name, param, value, tmp):
    """None if ``name`` with ``param=value`` (the other arguments valid) keeps the rule; else what it broke."""
    arguments = valid_arguments(name, tmp)
    arguments[param] = value
    function = FUNCTIONS[name]()
    return broken_rule(lambda: call(function, arguments), param)


def broken_rule(attempt, param, aliases=ALIASES, seconds=10):
    """None if ``attempt()`` succeeds or raises as the rule says, naming ``param``; else what it broke."""
    try:
        with bounded(seconds), warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy's RuntimeWarnings are numpy's words, not the package's
            attempt()
    except Hang:
        return f"no answer within {seconds} s"
    except (TypeError, ValueError) as error:
        return _unclear(error, param, aliases)
    except Exception as error:  # noqa: BLE001 (the kind is the finding)
        return f"{type(error).__name__}: {error}"[:300] + " at " + _origin(error)
    finally:
        handmade.set_language("en")
    return None


def _origin(error):
    frame = traceback.extract_tb(error.__traceback__)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno}"


def _unclear(error, param, aliases=ALIASES):
    """What is wrong with a TypeError or ValueError's message, if anything."""
    message, origin = str(error), traceback.extract_tb(error.__traceback__)[-1].filename
    if not Path(origin).resolve().is_relative_to(PACKAGE):
        return f"{type(error).__name__} raised by {_origin(error)}, not by the package: {message[:200]}"
    if "\n" in message or len(message) > MAX_MESSAGE or not message:
        return f"{type(error).__name__} of {len(message)} characters on {message.count(chr(10)) + 1} lines: {message[:100]}"
    names = (param, *aliases.get(param, ()))
    if not any(n in message for n in names):
        return f"{type(error).__name__} does not name {param}: {message}"
    return None


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


CASES = [(name, param) for name in FUNCTIONS for param in substitutable(name)]


def test_every_public_function_is_called_or_skipped_with_a_reason():
    assert len(FUNCTIONS) >= 80 and len(CASES) * len(HOSTILE) >= 2400
    assert set(SKIPPED) <= set(PUBLIC), set(SKIPPED) - set(PUBLIC)  # the skip-list names what is there
    assert {"inference.complete", "training.loop.train", "course.tasks.examples", "parts.get"} <= set(FUNCTIONS)


@pytest.mark.parametrize("name, param", CASES, ids=[f"{name}({param})" for name, param in CASES])
def test_each_argument_of_each_public_function_keeps_the_one_rule(tmp, name, param):
    """Succeed, or a TypeError or ValueError raised by the package: one line of at most 200
    characters naming the argument; never another kind, never numpy's or Python's words, never a hang."""
    problems = {label: problem_with(name, param, value, tmp) for label, value in HOSTILE.items()}
    assert {label: problem for label, problem in problems.items() if problem} == {}


def _adam():
    arrays = leaves(handmade.check_weights(handmade.blog_model()))
    return arrays, AdamW().init(arrays)


SWITCHES = [  # every parameter of a public function whose default is True or False: a switch
    (name, p.name)
    for name in FUNCTIONS
    for p in _signature(name).parameters.values()
    if isinstance(p.default, bool) and (name, p.name) != ("course.tasks.task", "mlp")  # True, False or a width
]
NOT_SWITCHES = ["no", "False", 1, 0, 0.0, None, []]


@pytest.mark.parametrize("name, param", SWITCHES, ids=[f"{name}({param})" for name, param in SWITCHES])
def test_a_switch_takes_true_or_false_and_refuses_what_only_looks_like_one(tmp, name, param):
    """A switch given "no", 1 or None is refused, naming it: never read as its truth (``save_weights(force="no")``
    replaced a file that was not weights)."""
    assert len(SWITCHES) >= 18
    for value in NOT_SWITCHES:
        arguments = valid_arguments(name, tmp)
        arguments[param] = value
        with pytest.raises(TypeError, match=f"{param} must be True or False"):
            call(FUNCTIONS[name](), arguments)


ISSUE_CASES = {  # issue 19's examples: each raises the kind promised, naming what it should
    "AdamW().step(p, {}, state)": (lambda: AdamW().step(_adam()[0], {}, _adam()[1]), ValueError, "grads must be"),
    "sample(..., rng='x')": (lambda: handmade.sample("aab", 3, rng="x"), TypeError, "rng must be a seed"),
    "parts.get(m, 'nosuch')": (
        lambda: parts.get(handmade.blog_model(), "nosuch"),
        ValueError,
        "no part called 'nosuch'",
    ),
    "complete(123)": (lambda: handmade.complete(123), TypeError, "text must be a string"),
    "blank('x' * 100000)": (lambda: tasks.blank("x" * 100_000), ValueError, "the tasks are alternate"),
    "set_language('x' * 100000)": (lambda: handmade.set_language("x" * 100_000), ValueError, "choose from en, zh"),
    "with_part(m, 'q', 'abc')": (lambda: handmade.with_part(handmade.blog_model(), "q", "abc"), ValueError, "for q"),
    "with_part(m, ['q'], ...)": (lambda: handmade.with_part(handmade.blog_model(), ["q"], 0), TypeError, "part's name"),
    "blog_model(lg=nan)": (lambda: handmade.blog_model(math.nan), ValueError, "lg must be a number"),
}


@pytest.mark.parametrize("case", list(ISSUE_CASES))
def test_the_issues_examples_raise_the_kind_promised(case):
    call, kind, phrase = ISSUE_CASES[case]
    with pytest.raises(kind, match=re.escape(phrase)) as raised:
        call()
    assert type(raised.value) is not KeyError and len(str(raised.value)) <= MAX_MESSAGE


def test_the_issues_examples_that_must_be_accepted_are():
    assert len(tasks.examples("abc")) == len(tasks.examples(tasks.get_task("abc")))  # a name, as the others take
    assert handmade.sample("aab", 5, temperature=np.float32(0.5)) == handmade.sample("aab", 5, temperature=0.5)


SAMPLE_SCALES = [1.0, 1e3, 1e50, 1e100, 1e150]
TEMPERATURES = [1e-3, np.float32(1e-3), 0.01, 1.0, 100, np.float16(100)]


@pytest.mark.parametrize("scale", SAMPLE_SCALES)
@pytest.mark.parametrize("temperature", TEMPERATURES)
def test_sampling_at_any_allowed_temperature_draws_from_finite_probabilities(scale, temperature):
    """numpy's "Probabilities contain NaN" never surfaces: logits far apart at 1e-3, or overflowing weights."""
    params = handmade.training.map_arrays(
        lambda w: w * scale, random_params(np.random.default_rng(7), ln=True, mlp=True)
    )
    try:
        text = handmade.sample("abc", 12, params, temperature=temperature, alphabet="abc")
    except handmade.NonFiniteError as error:  # the weights overflow: said as such, in one line
        assert "too large" in str(error) and "\n" not in str(error)
    else:
        assert len(text) == 12 and set(text) <= set("abc")


# ---- 1. output streams: a closed pipe is quiet (141), a write that fails is one line (3) ----------


def subcommands():
    """{name: parser} of every command of ``python -m handmade``, from the parser itself."""
    parser = cli.build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


COMMAND_VALUES = {  # a valid value for each required argument of a command, by its name in the parser
    "text": "aab",
    "task": "abc",
    "path": "{tmp}/{command}.json",  # a file of each command's own: blank and export never replace weights
    "weights": "{tmp}/abc.json",
    "out": "{tmp}/out.json",
}
COMMAND_OPTIONS = {"train": ["--steps", "2"]}  # quick
COMMAND_VALUES_FOR = {"solution": {"task": "repeat"}}  # a challenge: abc is notebook 14's, with no solution to ask for


def valid_argv(name, tmp):
    """Arguments that make the command ``name`` succeed, built from its required arguments."""
    argv = [name]
    for action in subcommands()[name]._actions:
        if action.required:
            value = {**COMMAND_VALUES, **COMMAND_VALUES_FOR.get(name, {})}[action.dest].format(tmp=tmp, command=name)
            argv += [action.option_strings[0], value] if action.option_strings else [value]
    return argv + COMMAND_OPTIONS.get(name, [])


def every_argv(tmp):
    """{label: argv}: every command run as it should, and every --help."""
    argvs = {name: valid_argv(name, tmp) for name in subcommands()}
    argvs |= {f"{name} --help": [name, "--help"] for name in subcommands()}
    return argvs | {"--help": ["--help"]}


@pytest.fixture
def workspace(tmp_path):
    handmade.save_weights(solutions.reference("abc"), tmp_path / "abc.json")
    return tmp_path


class FailingOutput(io.RawIOBase):
    """Standard output whose every write fails with ``error`` (a closed pipe, a full disk)."""

    def __init__(self, error):
        self.error = error

    def writable(self):
        return True

    def write(self, data):
        raise self.error


STREAM_FAULTS = {
    "a closed pipe": (BrokenPipeError(errno.EPIPE, "Broken pipe"), cli.PIPE_CLOSED),
    "a full disk": (OSError(errno.ENOSPC, "No space left on device"), cli.CANNOT_WRITE),
}


@pytest.mark.parametrize("fault", list(STREAM_FAULTS))
def test_every_command_meets_a_failing_output_with_its_own_status(workspace, capsys, monkeypatch, fault):
    """In-process, every command and every --help: a closed pipe ends quietly with 141, a write that
    fails with one line and 3 (never 1, which grade uses for a failed model)."""
    error, status = STREAM_FAULTS[fault]
    argvs = every_argv(workspace)
    assert len(argvs) == 2 * len(subcommands()) + 1 >= 17
    for label, argv in argvs.items():
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(FailingOutput(error), encoding="utf-8"))
        assert cli.main(argv) == status, label
        err = capsys.readouterr().err
        if status == cli.PIPE_CLOSED:
            assert err == "", label
        else:
            assert one_line(err) and "could not write the output" in err, (
                label,
                err,
            )


def run_into(stdout, *args, cwd=None):
    """``python -m handmade args`` with its standard output sent to ``stdout`` (a file descriptor or file)."""
    result = subprocess.run(
        [sys.executable, "-m", "handmade", *args], stdout=stdout, stderr=subprocess.PIPE, cwd=cwd, timeout=60
    )
    return result.returncode, result.stderr.decode("utf-8")


def closed_pipe():
    """The writing end of a pipe whose reader has gone, as in ``| head -1`` once head has its line."""
    read, write = os.pipe()
    os.close(read)
    return write


PIPED = [["tasks"], ["predict", "aabaabaab"], ["--help"], ["train", "--help"]]
FILLED = [["tasks"], ["complete", "aab"], ["--help"]]


def test_every_command_without_a_standard_output_says_so_in_one_line_with_3(workspace, capsys, monkeypatch):
    """Started with its standard output closed (``>&-``: Python's sys.stdout is None), every command
    and every --help ends with one line and 3, never a traceback."""
    for label, argv in every_argv(workspace).items():
        monkeypatch.setattr(sys, "stdout", None)
        assert cli.main(argv) == cli.CANNOT_WRITE, label
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "standard output is closed" in err and "Traceback" not in err, (label, err)


@posix_only
@pytest.mark.parametrize("args", FILLED)
def test_a_closed_standard_output_is_one_line_and_status_3_in_the_real_process(args):
    result = subprocess.run([sys.executable, "-m", "handmade", *args], stderr=subprocess.PIPE, timeout=60,
                            preexec_fn=lambda: os.close(1))  # fmt: skip
    err = result.stderr.decode("utf-8")
    assert result.returncode == cli.CANNOT_WRITE and err.count("\n") == 1 and "standard output is closed" in err, err


@posix_only
@pytest.mark.parametrize("args", PIPED)
def test_a_closed_pipe_ends_the_real_process_quietly_with_141(args):
    write = closed_pipe()
    try:
        assert run_into(write, *args) == (cli.PIPE_CLOSED, "")
    finally:
        os.close(write)


def test_bad_input_keeps_status_2_when_the_reader_of_the_pipe_has_gone(tmp_path):
    """A teacher's file with one task that cannot be used lists the others and says why on stderr with 2: a reader
    that went away (``| head -c0``) does not turn the bad input into the quiet 141 of a closed pipe."""
    source = "import handmade\n\n"
    for name, answer in (("good", "context[-1]"), ("bad", "5")):
        source += f'@handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=0)\ndef {name}(context):\n'
        source += f'    """Say {name}."""\n    return {answer}\n\n\n'
    (tmp_path / "mixed.py").write_text(source, encoding="utf-8")
    write = closed_pipe()
    try:
        status, err = run_into(write, "tasks", "--tasks", "mixed.py", cwd=tmp_path)
    finally:
        os.close(write)
    assert status == cli.BAD_INPUT and err.count("\n") == 1 and "bad" in err, err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", FILLED)
def test_a_full_device_is_one_line_and_status_3_in_the_real_process(args):
    with open("/dev/full", "wb") as full:
        status, err = run_into(full, *args)
    assert status == cli.CANNOT_WRITE and err.count("\n") == 1 and "could not write the output" in err


WHOLE_LINES = [1, 150, 172, 173, MAX_MESSAGE]  # lengths of a library's line, up to the most it may have


@pytest.mark.parametrize("length", WHOLE_LINES)
def test_the_command_line_shows_the_librarys_one_line_whole(capsys, length):
    """A line the library keeps within MAX_MESSAGE reaches the command line's stderr whole, after
    the program's name: nothing in its middle (an estimate, a limit) is cut to make room."""
    message = "".join(chr(ord("a") + i % 26) for i in range(length))
    assert cli._fail(handmade.i18n._("{prog}: error: {error}"), ValueError(message)) == cli.BAD_INPUT
    assert capsys.readouterr().err == f"{cli.PROG}: error: {message}\n"


# ---- 2. files that look like weights: a file is ours only if it is valid weights -----------------


def blog_json():
    return json.loads(handmade.weights_to_json(handmade.blog_model()))


def _paths(node, path=()):
    """Every place in a JSON tree (a dict's keys; a list's first item), deepest last."""
    items = node.items() if isinstance(node, dict) else enumerate(node[:1]) if isinstance(node, list) else ()
    for key, value in items:
        yield (*path, key)
        yield from _paths(value, (*path, key))


def _edited(path, edit):
    data = blog_json()
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    edit(holder, path[-1])
    return json.dumps(data)


def _set(value):
    def edit(holder, key):
        holder[key] = value

    return edit


def _removed(holder, key):
    del holder[key]


def look_alikes():
    """{label: JSON text}: the blog's weights file with each place removed, set to a note, to null,
    to an empty list; and whole files that only look like weights."""
    found = {
        '{"wte": "my notes"}': '{"wte": "my notes"}',
        '{"wte": [[1]]}': '{"wte": [[1]]}',
        "labels only": json.dumps({"labels": blog_json()["labels"]}),
        "an empty object": "{}",
        "a list": "[]",
        "notes": '"my notes"',
        "weights and notes": json.dumps({**blog_json(), "notes": "mine"}),
        "weights in a list": json.dumps([blog_json()]),
        "two JSON objects": handmade.weights_to_json(handmade.blog_model()) * 2,
    }
    for path in _paths(blog_json()):
        where = ".".join(map(str, path))
        for label, edit in (
            ("removed", _removed),
            ("a note", _set("my notes")),
            ("null", _set(None)),
            ("[]", _set([])),
        ):
            found[f"{where} {label}"] = _edited(path, edit)
    return found


LOOK_ALIKES = look_alikes()


def _is_weights(text, tmp):
    path = tmp / "probe.json"
    path.write_text(text, encoding="utf-8")
    try:
        handmade.load_weights(path)
    except handmade.WeightsError:
        return False
    return True


def _writers(path, capsys):
    """{writer: () -> (replaced, the sentence it said)} for everything that writes weights."""

    def command(*argv):
        def run():
            status = cli.main([*argv])
            out, err = capsys.readouterr()
            return status == 0, out + err

        return run

    def api():
        try:
            return True, handmade.save_weights(handmade.blog_model(), path)
        except files.NotWeightsFile as error:
            return False, str(error)

    return {
        "save_weights": api,
        "blank": command("blank", "abc", str(path)),
        "export": command("export", str(path)),
        "train --out": command("train", "abc", "--steps", "1", "--out", str(path)),
    }


def test_the_look_alikes_are_many_and_mostly_not_weights(tmp):
    valid = [label for label, text in LOOK_ALIKES.items() if _is_weights(text, tmp)]
    assert len(LOOK_ALIKES) >= 60 and 0 < len(valid) < len(LOOK_ALIKES) // 4
    assert "labels removed" in valid and '{"wte": "my notes"}' not in valid


@pytest.mark.parametrize("case", list(LOOK_ALIKES))
def test_a_file_that_is_not_valid_weights_is_kept_and_a_weights_file_replaced(tmp_path, capsys, case):
    """blank, export, train --out and save_weights: a file that does not load as weights is kept, and
    the message says how to replace it. A weights file, perhaps a learner's design, is kept by the
    commands, which make new weights, unless --force says to replace it; save_weights, which a
    learner calls to save their own model again, replaces it, and the message says so."""
    text, path = LOOK_ALIKES[case], tmp_path / "mine.json"
    valid = _is_weights(text, tmp_path)
    for writer, write in _writers(path, capsys).items():
        path.write_text(text, encoding="utf-8")
        replaced, said = write()
        assert replaced == (valid and writer == "save_weights"), (writer, said)
        if valid and writer == "save_weights":
            assert "replaced the weights in" in said and handmade.load_weights(path)
        elif valid:
            assert path.read_text(encoding="utf-8") == text, writer
            assert "already holds weights" in said and "--force" in said, (writer, said)
        else:
            assert path.read_text(encoding="utf-8") == text, writer
            assert "exists and is not a weights file" in said, (writer, said)
            assert ("--force" if writer != "save_weights" else "force=True") in said, (writer, said)


def test_force_replaces_a_look_alike_and_says_what_it_was(tmp_path, capsys):
    path = tmp_path / "notes.json"
    path.write_text('{"wte": "my notes"}', encoding="utf-8")
    said = handmade.save_weights(handmade.blog_model(), path, force=True)
    assert said == f"replaced '{path}', which was not a weights file, with the weights"
    path.write_text('{"wte": "my notes"}', encoding="utf-8")
    assert cli.main(["export", str(path), "--force"]) == 0 and handmade.load_weights(path)
    assert capsys.readouterr().out == f"{said}\n"
    assert handmade.save_weights(handmade.blog_model(), path, force=True) == f"replaced the weights in '{path}'"


# ---- 3. malformed labels: one line from the loader and from every command that reads weights -----

NOT_A_LIST = [None, 0, 1.5, True, "x", {}, {"a": 1}]
LABEL_FIELDS = {  # what each field of "labels" is given, besides its valid value
    "alphabet": [None, 0, 1.5, True, [], {}, "", "a", "abc", "aa", "\ud800b", "a\udc80", "\x00b"],
    "residual": [*NOT_A_LIST, [], ["e"] * 8, [str(i) for i in range(7)], [str(i) for i in range(9)], list(range(8)),
                 ["\ud800", *"1234567"], ["", *"1234567"], ["x" * 41, *"1234567"], {"g": "P0"}, {"g": [None] * 8}],
    "attention": [*NOT_A_LIST, [0], [["x"]], [None, None], [[str(i) for i in range(7)]], [{"g": ["\udfff"] * 8}]],
    "hidden": [*NOT_A_LIST, [0], [["h"]], [None, None]],
}  # fmt: skip


def malformed_labels():
    """{label: JSON text}: the blog's weights with one field of its labels malformed (or the labels
    themselves), and a key that labels do not have."""
    found = {f"labels = {v!r}": {"labels": v} for v in NOT_A_LIST + [[], "ab"]}
    for field, values in LABEL_FIELDS.items():
        for value in values:
            found[f"labels.{field} = {value!r}"] = {"labels": {**blog_json()["labels"], field: value}}
    found["labels.colour = 'red'"] = {"labels": {**blog_json()["labels"], "colour": "red"}}
    return {label: json.dumps({**blog_json(), **change}) for label, change in found.items()}


MALFORMED_LABELS = malformed_labels()
READERS = {  # every command that reads weights, with --weights FILE added
    "complete": ["complete", "aab"],
    "predict": ["predict", "aab"],
    "accuracy": ["accuracy"],
    "grade": ["grade", "aab"],
}


def test_the_malformed_labels_cover_every_field_and_most_are_refused(tmp):
    refused = [label for label, text in MALFORMED_LABELS.items() if not _is_weights(text, tmp)]
    assert len(MALFORMED_LABELS) >= 60 and len(refused) >= len(MALFORMED_LABELS) - 5
    assert set(READERS) | {"export", "tasks", "blank", "train", "solution"} == set(
        subcommands()
    )  # the others read none


@pytest.mark.parametrize("case", list(MALFORMED_LABELS))
def test_malformed_labels_are_one_line_from_the_loader_and_from_every_command(tmp_path, capsys, case):
    path = tmp_path / "w.json"
    path.write_text(MALFORMED_LABELS[case], encoding="utf-8")
    try:
        handmade.load_weights(path)
        loaded = True
    except handmade.WeightsError as error:
        loaded = False
        assert "\n" not in str(error) and len(str(error)) <= MAX_MESSAGE and "labels" in str(error), str(error)
    for command, argv in READERS.items():
        status = cli.main([*argv, "--weights", str(path)])
        out, err = capsys.readouterr()
        if not loaded:
            assert status == cli.BAD_INPUT and out == "" and one_line(err), (
                command,
                err,
            )
        else:  # labels that are allowed (null attention, no alphabet): the command runs or says why not
            assert status in (0, 1, cli.BAD_INPUT) and err.count("\n") <= 1, (command, err)


@posix_only
def test_a_lone_surrogate_in_the_labels_is_one_line_from_the_real_process(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(MALFORMED_LABELS["labels.alphabet = '\\ud800b'"], encoding="utf-8")
    for argv in (["complete", "aab"], ["grade", "aab"]):
        status, err = run_into(subprocess.DEVNULL, *argv, "--weights", str(path))
        assert status == cli.BAD_INPUT and err.count("\n") == 1 and "\\ud800" in err and "Traceback" not in err


def _relabelled(params, order, move_rows):
    """``params`` whose labels say its tokens are ``order``: its wte rows moved to match (the same
    model, renamed), or left where they are (labels that lie, but fit the shapes)."""
    alphabet = params.labels.alphabet
    moved = handmade.Weights(
        params, Labels(order, params.labels.residual, params.labels.attention, params.labels.hidden)
    )
    if move_rows:
        moved["wte"] = params["wte"][[alphabet.index(char) for char in order]]
    return moved


def _orders():
    for name in ("aab", "xor", "abc", "first"):
        alphabet = tasks.get_task(name).alphabet
        for order in sorted({"".join(p) for p in itertools.permutations(alphabet)}):
            for move_rows in (True, False):
                yield pytest.param(name, order, move_rows, id=f"{name}-{order}-{'renamed' if move_rows else 'lying'}")


@pytest.mark.parametrize("name, order, move_rows", list(_orders()))
def test_labels_say_what_token_ids_mean_to_grade_and_to_complete_alike(tmp_path, capsys, name, order, move_rows):
    """Whatever a file's alphabet says, grade and complete read its token ids the same way: the
    contexts grade fails are exactly those where complete writes another character than the task's."""
    task = tasks.get_task(name)
    params = _relabelled(solutions.reference(task), order, move_rows)
    path = tmp_path / "w.json"
    handmade.save_weights(params, path)
    failing = {case["context"] for case in tasks_failing(task, path, capsys)}
    wrong = {e.context for e in tasks.examples(task) if _completed(e.context, path, capsys) != e.expected}
    assert failing == wrong
    assert failing == set() or not move_rows  # renamed, it is the same model: it passes as the reference does


def tasks_failing(task, path, capsys):
    status = cli.main(["grade", task.name, "--weights", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == (0 if report["passed"] else 1)
    return report["failing"]


def _completed(context, path, capsys):
    assert cli.main(["complete", context, "-n", "1", "--weights", str(path)]) == 0
    return capsys.readouterr().out.rstrip("\n").rsplit(" :: ", 1)[1]


# ---- 4. training that goes non-finite: said, and said right, never silent ----------------------

TRAINING_SHAPES = {  # models to scale up: the blog's, and random ones with what the blog lacks
    "blog": lambda: handmade.check_weights(handmade.blog_model()),
    "ln, mlp, 2 heads": lambda: handmade.check_weights(
        random_params(np.random.default_rng(1), n_head=2, ln=True, mlp=True, ln_f=True)
    ),
    "2 blocks": lambda: handmade.check_weights(random_params(np.random.default_rng(2), n_layer=2)),
}
BATCH = ([[0, 0, 1], [1, 0, 0]], [[0, 1, 0], [0, 0, 1]])


def _scaled(shape, scale):
    params = TRAINING_SHAPES[shape]()
    return handmade.Weights(training.map_arrays(lambda w: w * scale, params), params.labels)


TOO_LARGE = [1e100, 1e120, 1e154, 1e200, 1e300]


@pytest.mark.parametrize("scale", TOO_LARGE)
@pytest.mark.parametrize("shape", list(TRAINING_SHAPES))
def test_weights_too_large_are_named_by_loss_and_grads_and_by_train_before_any_step(shape, scale):
    params = _scaled(shape, scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not numpy's warnings: one error, in words
        with pytest.raises(handmade.NonFiniteError, match="too large for float64") as raised:
            training.loss_and_grads(params, *BATCH)
        assert "\n" not in str(raised.value) and len(str(raised.value)) <= MAX_MESSAGE
        with pytest.raises(handmade.NonFiniteError) as raised:
            training.train(params, lambda: BATCH, 3, progress=False)
    said = str(raised.value)
    assert said.startswith("training cannot start:") and "too large" in said and "learning rate" not in said


BAD_SETTINGS = {  # AdamW's settings, each wrong, and the setting the message must name
    "lr=nan": (dict(lr=math.nan), "lr"),
    "lr=0": (dict(lr=0), "lr"),
    "lr=-1": (dict(lr=-1), "lr"),
    "lr=inf": (dict(lr=math.inf), "lr"),
    "lr=2": (dict(lr=2.0), "lr"),
    "lr='x'": (dict(lr="x"), "lr"),
    "eps=5e-324": (dict(eps=5e-324), "eps"),
    "eps=0": (dict(eps=0.0), "eps"),
    "eps=-1e-8": (dict(eps=-1e-8), "eps"),
    "eps=nan": (dict(eps=math.nan), "eps"),
    "eps=2": (dict(eps=2.0), "eps"),
    "betas=(1, 0.999)": (dict(betas=(1.0, 0.999)), "betas"),
    "betas=(0.9, 1)": (dict(betas=(0.9, 1.0)), "betas"),
    "betas=(-0.1, 0.9)": (dict(betas=(-0.1, 0.9)), "betas"),
    "betas=(0.9, nan)": (dict(betas=(0.9, math.nan)), "betas"),
    "betas=(0.9,)": (dict(betas=(0.9,)), "betas"),
    "betas=0.9": (dict(betas=0.9), "betas"),
    "betas='ab'": (dict(betas="ab"), "betas"),
    "weight_decay=-0.1": (dict(weight_decay=-0.1), "weight_decay"),
    "weight_decay=nan": (dict(weight_decay=math.nan), "weight_decay"),
    "weight_decay=True": (dict(weight_decay=True), "weight_decay"),
}


@pytest.mark.parametrize("case", list(BAD_SETTINGS))
def test_adamw_settings_are_checked_by_adamw_and_by_train(case):
    settings, name = BAD_SETTINGS[case]
    for make in (
        lambda: AdamW(**settings),
        lambda: training.train(_blog(), lambda: BATCH, 1, progress=False, **settings),
    ):
        with pytest.raises((TypeError, ValueError), match=rf"^{name} must be") as raised:
            make()
        assert len(str(raised.value)) <= MAX_MESSAGE


ALLOWED = {
    "lr": [1e-3, 0.1, 1.0],
    "betas": [(0.0, 0.0), (0.9, 0.0), (0.999999, 0.5), (0.9, 0.999)],
    "eps": [1e-30, 1e-8, 1.0],
}


@pytest.mark.parametrize("lr", ALLOWED["lr"])
@pytest.mark.parametrize("betas", ALLOWED["betas"])
@pytest.mark.parametrize("eps", ALLOWED["eps"])
def test_every_allowed_setting_ends_in_finite_weights_or_says_it_diverged(lr, betas, eps):
    """The issue's train(..., lr=1.0, betas=(0.9, 0.0), eps=5e-324) returned non-finite weights in silence."""
    params = TRAINING_SHAPES["ln, mlp, 2 heads"]()
    try:
        trained, history = training.train(params, lambda: BATCH, 20, lr, betas=betas, eps=eps, progress=False)
    except handmade.NonFiniteError as error:
        assert "diverged" in str(error) or "too large" in str(error)
    else:
        assert all(np.isfinite(w).all() for w in leaves(trained)) and np.isfinite(history.losses).all()


INTEGER_DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("where", ["inputs", "targets"])
def test_the_largest_id_of_every_integer_type_is_refused_never_wrapped_to_the_ignore_id(dtype, where):
    """A uint64 of 2**64 - 1 is -1 as an int64: the "no target" id. Every dtype's largest value is refused."""
    inputs, targets = (np.array(a, dtype=dtype) for a in BATCH)
    big = np.array([np.iinfo(dtype).max], dtype=dtype)
    (inputs if where == "inputs" else targets)[0, 0] = big[0]
    for check in (training.check_batch, training.loss_and_grads, training.loss):
        with pytest.raises(ValueError, match=rf"{where} hold the token id {np.iinfo(dtype).max}\b"):
            check(inputs, targets, _blog()) if check is training.check_batch else check(_blog(), inputs, targets)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=lambda d: d.__name__)
def test_batches_of_every_integer_type_refuse_ids_that_would_wrap(dtype):
    tokens = np.array([0, 1, 0, 1, np.iinfo(dtype).max, 0], dtype=dtype)
    with pytest.raises(ValueError, match=str(np.iinfo(dtype).max)):
        batch = training.batches(tokens, 2, 3, 0)()
        training.loss_and_grads(_blog(), *batch)  # batches() may keep them: the step must not
    with pytest.raises(ValueError, match=str(np.iinfo(dtype).max)):
        make = training.example_batches([(tokens[:3], tokens[4])], None, 3, 0)
        training.loss_and_grads(_blog(), *make())


# ---- 6. bounded reading: an endless input is refused after its limit, never read to its end -----


def counted(pairs):
    """An endless iterator of ``pairs`` over and over, which counts what was taken from it."""

    def endless():
        for i in itertools.count():
            taken[0] = i + 1
            yield pairs[i % len(pairs)]

    taken = [0]
    return endless(), taken


ENDLESS = {  # reader: (call on an endless iterator, its limit)
    "example_batches": (lambda it: training.example_batches(it, None, 3, 0), training.MAX_BATCH_TOKENS),
    "example_batches, characters": (
        lambda it: training.example_batches(it, None, 3, 0, alphabet="ab"),
        training.MAX_BATCH_TOKENS,
    ),
    "accuracy(examples=...)": (lambda it: handmade.accuracy(examples=it), inference.MAX_EXAMPLES),
    "@task(extra_examples=...)": (lambda it: tasks.examples(_task(extra_examples=it)), task_options.MAX_EXTRA),
}
ENDLESS_PAIRS = {
    "example_batches": [([0, 0], 1)],
    "example_batches, characters": [("aa", "b")],
    "accuracy(examples=...)": [("aa", "b")],
    "@task(extra_examples=...)": [("aa", "b")],
}


@pytest.mark.parametrize("reader", list(ENDLESS))
def test_an_endless_iterator_is_refused_after_its_limit_without_reading_on(reader):
    call, limit = ENDLESS[reader]
    iterator, taken = counted(ENDLESS_PAIRS[reader])
    start = time.perf_counter()
    with bounded(10), pytest.raises(ValueError, match=f"more than {limit}"):
        call(iterator)
    assert taken[0] <= limit + 1 and time.perf_counter() - start < 5


# ---- 7. time: generation with the cache, refused when too costly, and train's --out checked first --

models = st.fixed_dictionaries(
    {
        "n_vocab": st.integers(2, 5),
        "n_ctx": st.integers(1, 6),
        "n_embd": st.sampled_from([4, 8]),
        "n_layer": st.integers(0, 3),
        "n_head": st.sampled_from([1, 2, 4]),
        "ln": st.booleans(),
        "mlp": st.booleans(),
        "ln_f": st.booleans(),
    }
)


def naive_continuation(tokens, n, params):
    """What the issue asked the cache to equal: the whole window through gpt() for every new token."""
    tokens, n_ctx = list(tokens), len(params["wpe"])
    for _step in range(n):
        logits = handmade.gpt(np.array(tokens[-n_ctx:]), **params)[-1]
        tokens.append(int(np.argmax(handmade.softmax(logits))))
    return tokens[len(tokens) - n :]


GENERATIONS = 150  # random models and texts


@settings(max_examples=GENERATIONS, deadline=None, derandomize=True)
@given(shape=models, seed=st.integers(0, 2**32 - 1), length=st.integers(1, 9), n=st.integers(0, 14))
def test_generation_with_the_cache_writes_what_the_full_pass_writes(shape, seed, length, n):
    """Random models of every part (blocks, heads, layer norms, MLPs), texts shorter and longer than
    n_ctx, and more new tokens than the window holds, so that it slides and the cache is rebuilt."""
    params = random_params(np.random.default_rng(seed), **shape)
    alphabet = "abcde"[: shape["n_vocab"]]
    text = "".join(np.random.default_rng(seed + 1).choice(list(alphabet), size=length))
    written = handmade.continuation(text, n, params, alphabet=alphabet)
    tokens = handmade.tokenize(text, alphabet)[-shape["n_ctx"] :]
    assert written == handmade.untokenize(naive_continuation(tokens, n, params), alphabet)


def big_model():
    """Inside every limit: 1024 positions, 8 blocks of 64 directions with an MLP (a 7.5 MB file)."""
    return training.init_params(2, 1024, 64, rng=0, n_layer=8, mlp=True, alphabet="ab")


def largest_allowed(params, n_context):
    """The largest -n that check_request allows after ``n_context`` tokens (a binary search)."""
    low, high = 0, inference.MAX_NEW_TOKENS
    while low < high:
        middle = (low + high + 1) // 2
        try:
            inference.check_request(middle, n_context, params)
            low = middle
        except ValueError:
            high = middle - 1
    return low


def test_a_request_too_costly_is_refused_before_any_pass_with_its_estimate(monkeypatch, tmp_path, capsys):
    params = handmade.check_weights(big_model())
    n = largest_allowed(params, 1024)
    assert 0 < n < inference.MAX_NEW_TOKENS  # the limit that bites here is the cost, not the count
    monkeypatch.setattr(inference, "forward", lambda *a, **k: pytest.fail("a pass ran before the refusal"))
    with pytest.raises(ValueError, match=r"would take about \d\.\de\+\d+ operations .* more than the 1e\+11 allowed"):
        handmade.complete("a" * 1024, n + 1, params)
    handmade.save_weights(params, tmp_path / "big.json")
    assert cli.main(["complete", "a" * 1024, "-n", str(n + 1), "--weights", str(tmp_path / "big.json")]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "operations" in err and "ask for fewer" in err


UNWRITABLE_OUT = {  # --out: what is there, and a phrase of the one line
    "a file of notes": ("notes.json", "exists and is not a weights file"),
    "a missing folder": ("no/such/folder/out.json", "cannot write weights to"),
    "a folder": (".", "it is not a regular file"),
    "a name too long": ("x" * 300 + ".json", "cannot write weights to"),
    "a look-alike": ("alike.json", "exists and is not a weights file"),
}


@pytest.mark.parametrize("case", list(UNWRITABLE_OUT))
def test_train_refuses_an_out_it_cannot_write_before_a_single_step(tmp_path, monkeypatch, capsys, case):
    """The issue's 37 seconds of training before a refusal: now the refusal comes first (training
    is replaced here by a failure, and 100000 steps are asked for)."""
    name, phrase = UNWRITABLE_OUT[case]
    (tmp_path / "notes.json").write_text("my notes", encoding="utf-8")
    (tmp_path / "alike.json").write_text(LOOK_ALIKES["blocks.0.attn.c_attn.w a note"], encoding="utf-8")
    monkeypatch.setattr(cli, "train_task", lambda *a, **k: pytest.fail("training started"))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "abc", "--steps", "100000", "--out", name]) == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert phrase in err and one_line(err)
    assert not list(tmp_path.glob(".*.tmp"))


# ---- 8. signals: Ctrl-C at any moment of a command is one line and 130; no save leaves a .tmp ----

SITECUSTOMIZE = r'''
"""Loaded by Python's start-up (site) in the test's child process: an audit hook that tells the
test when the package has put its Ctrl-C handler in place, and can send a signal at an event."""
import _signal
import os
import sys

READY = int(os.environ.get("HOSTILE_READY_FD", "-1"))  # one byte here once the package handles Ctrl-C
AT = os.environ.get("HOSTILE_SIGNAL_AT", "")  # "EVENT:N:SIGNAL": send SIGNAL at the N-th such event after that
event_at, n_at, signal_at = (AT.split(":") + ["", "", ""])[:3] if AT else ("", "-1", "0")
state = {"ready": False, "seen": 0}


def hook(event, args):
    if not state["ready"]:
        if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
            return
        state["ready"] = True
        if READY >= 0:
            os.write(READY, b".")
            os.close(READY)
    if event == event_at and (event != "open" or str(args[0]).endswith(".tmp")):
        state["seen"] += 1
        if state["seen"] == int(n_at) + 1:  # once: the handler may run at once, inside this hook
            os.kill(os.getpid(), int(signal_at))


if os.environ.get("HOSTILE_COUNT"):  # say at the end how many such events came after "ready"
    import atexit

    atexit.register(lambda: os.write(2, b"%d\n" % state["seen"]))
sys.addaudithook(hook)
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder whose sitecustomize.py installs the hook above in a child ``python -m handmade``."""
    folder = tmp_path_factory.mktemp("site")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    return folder


def start(site, args, cwd, at="", data=None, count=False):
    """``python -m handmade args`` with the hook; returns (process, fd to wait on for "ready")."""
    read, write = os.pipe()
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "HOSTILE_READY_FD": str(write), "HOSTILE_SIGNAL_AT": at}
    env |= ({"HANDMADE_DATA": str(data)} if data is not None else {}) | ({"HOSTILE_COUNT": "1"} if count else {})
    process = subprocess.Popen(
        [sys.executable, "-m", "handmade", *args], cwd=cwd, env=env, pass_fds=[write],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    os.close(write)
    return process, read


def finish(process, read, timeout=60):
    out, err = process.communicate(timeout=timeout)
    os.close(read)
    return process.returncode, out.decode("utf-8"), err.decode("utf-8")


LONG_TRAIN = ["train", "abc", "--steps", "100000", "--out", "out.json"]


def handles_sigterm(pid):
    """Whether the process catches SIGTERM: the package's first lines set it, right after Ctrl-C's handler."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        caught = next(line for line in status if line.startswith("SigCgt:")).split()[1]
    return bool(int(caught, 16) >> (signal.SIGTERM - 1) & 1)


DELAYS = [0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3]  # seconds after the package's first lines


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_at_any_moment_after_the_package_starts_is_one_line_and_ends_by_sigint(tmp_path, delay):
    """Measured from the moment the package has its handlers in place (its first lines, before it
    imports numpy: /proc shows SIGTERM caught): the rest of the start-up, the parsing, the training.
    No audit hook here: a signal raised inside one can be lost in C code that ignores its errors."""
    process = subprocess.Popen([sys.executable, "-m", "handmade", *LONG_TRAIN], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 30
    while not handles_sigterm(process.pid) and time.monotonic() < deadline:
        time.sleep(0.0005)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (-signal.SIGINT, b"", b"python -m handmade: interrupted\n")


@pytest.fixture(scope="module")
def imports(site, tmp_path_factory):
    """How many modules ``train`` imports after the package's handler is in place (about 230)."""
    folder = tmp_path_factory.mktemp("count")
    process, read = start(
        site, ["train", "abc", "--steps", "1", "--out", "out.json"], folder, "import:-1:0", count=True
    )
    status, _out, err = finish(process, read)
    assert status == 0
    return int(err.splitlines()[-1])


IMPORT_POINTS = [0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99]  # how far through the imports


@posix_only
@pytest.mark.parametrize("where", IMPORT_POINTS)
def test_ctrl_c_at_any_import_of_the_start_up_is_one_line_and_ends_by_sigint(site, tmp_path, imports, where):
    """At an import that far through the imports of the command (numpy's, argparse's, the package's)."""
    process, read = start(site, LONG_TRAIN, tmp_path, f"import:{round(where * (imports - 1))}:{int(signal.SIGINT)}")
    assert finish(process, read) == (-signal.SIGINT, "", "python -m handmade: interrupted\n")


@pytest.mark.parametrize("after", range(4), ids=["SIGINT set", "SIGTERM set", "SIGINT put back", "SIGTERM put back"])
def test_ctrl_c_as_the_command_puts_its_handlers_in_place_or_back_is_the_same_line(capsys, monkeypatch, after):
    """In-process, deterministic: a real Ctrl-C (SIGINT sent to itself) just after each of the command's own
    signal.signal calls, where Python's handler would raise KeyboardInterrupt, outside the command's work; while the
    handlers go back it waits until they all are. Every handler there was is back after, SIGTERM's too."""
    from handmade.course import tasks

    for name in tasks.TASKS:  # their rules run already (as in a whole run): no handler of a rule's bounds below
        tasks.examples(name)
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    real, calls = signal.signal, []

    def installing(number, handler):
        previous = real(number, handler)
        calls.append(number)
        if len(calls) == after + 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.raise_signal(signal.SIGINT)
        return previous

    monkeypatch.setattr(signal, "signal", installing)
    status = cli.main(["tasks"])
    monkeypatch.undo()
    assert status == cli.INTERRUPTED and capsys.readouterr().err == "python -m handmade: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # pytest's, put back
    # and SIGTERM's: none left as the command's
    assert {number: signal.getsignal(number) for number in before} == before


SAVES = {  # a command that saves, and the events of its saves that a signal is sent at, in order
    "train --out": (["train", "abc", "--steps", "2", "--out", "out.json", "--force"], ["open:0", "os.remove:0", "open:1", "os.chmod:0", "os.rename:0"]),
    "blank": (["blank", "abc", "out.json", "--force"], ["open:0", "os.chmod:0", "os.rename:0"]),
    "export": (["export", "out.json", "--force"], ["open:0", "os.chmod:0", "os.rename:0"]),
    "grade (the progress file)": (["grade", "abc", "--weights", "abc.json"], ["open:0", "os.rename:0"]),
}  # fmt: skip
SAVE_CASES = [
    pytest.param(command, event, signum, id=f"{command}-{event}-{signum.name}")
    for command, (_args, events) in SAVES.items()
    for i, event in enumerate(events)
    for signum in (
        [signal.SIGINT, signal.SIGTERM] if command == "train --out" else [(signal.SIGINT, signal.SIGTERM)[i % 2]]
    )
]


@posix_only
@pytest.mark.parametrize("command, event, signum", SAVE_CASES)
def test_a_signal_during_a_save_leaves_no_temporary_file_and_a_whole_file(site, tmp_path, command, event, signum):
    """The signal comes as the temporary file is made, as it is given its mode, renamed, or removed
    (train makes one first to see that --out can be written): whichever, nothing is left behind,
    and the file there is whole weights, the old or the new. (abc.json is a learner's own model:
    the reference's pass would not be recorded, and the progress file not written.)"""
    own = parts.with_parts(
        solutions.reference("abc"), {"c_proj.w": 2 * parts.get(solutions.reference("abc"), "c_proj.w")}
    )
    handmade.save_weights(own, tmp_path / "abc.json")
    handmade.save_weights(handmade.blog_model(), tmp_path / "out.json")
    args = SAVES[command][0]
    process, read = start(site, args, tmp_path, f"{event}:{int(signum)}", data=tmp_path / "data")
    status, _out, err = finish(process, read)
    left = [p.name for p in (*tmp_path.glob(".*"), *(tmp_path / "data").glob(".*")) if p.name.endswith(".tmp")]
    assert left == [] and status == -signum, (status, err)  # ended by the signal: the shell shows 128 + signum
    assert err == f"python -m handmade: {'interrupted' if signum == signal.SIGINT else 'terminated'}\n"
    assert handmade.load_weights(tmp_path / "out.json")


class Stop(BaseException):
    """What a signal raises in the middle of a save (KeyboardInterrupt, or the command line's Terminated)."""


WRITE_STEPS = {  # the calls a save makes, each where a signal may land just after it ("open": the module's)
    "open": (None, "open", builtins.open),
    "os.open": (os, "open", os.open),  # what tempfile.mkstemp made files with: the file there, its name not yet
    "os.fsync": (os, "fsync", os.fsync),
    "os.chmod": (os, "chmod", os.chmod),
    "os.replace": (os, "replace", os.replace),
    "Path.unlink": (Path, "unlink", Path.unlink),
}
SAVERS = {  # what makes a temporary file: a save, train's check that --out can be written, a recorded pass
    "save_weights": (lambda path: handmade.save_weights(handmade.flip_model(), path), files),
    "check_can_save": (lambda path: files.check_can_save(path), files),
    "progress.add": (lambda path: progress.add("abc"), progress),
}


@pytest.mark.parametrize("signal_as", [KeyboardInterrupt, cli.Terminated, Stop], ids=lambda k: k.__name__)
@pytest.mark.parametrize("step", list(WRITE_STEPS))
@pytest.mark.parametrize("saver", list(SAVERS))
def test_a_save_stopped_just_after_any_step_cleans_up_after_itself(tmp_path, monkeypatch, saver, step, signal_as):
    """In-process: each call a save makes is done and then raises, as a signal handler would there."""
    path = tmp_path / "w.json"
    handmade.save_weights(handmade.blog_model(), path)
    before = path.read_bytes()
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path))  # the progress file beside it
    save, module = SAVERS[saver]
    owner, name, real = WRITE_STEPS[step]
    owner = module if owner is None else owner

    def stopped(*args, **kwargs):
        done = real(*args, **kwargs)
        if hasattr(done, "close"):
            done.close()
        raise signal_as()

    monkeypatch.setattr(owner, name, stopped, raising=False)
    with contextlib.suppress(signal_as):
        save(path)
    monkeypatch.undo()
    made = sorted(p.name for p in tmp_path.iterdir() if p.name != progress.LOCK)
    assert made in (["w.json"], ["progress.json", "w.json"])
    assert path.read_bytes() in (before, handmade.weights_to_json(handmade.flip_model()).encode())
    recorded = tmp_path / "progress.json"
    names = [e["task"] for e in json.loads(recorded.read_text(encoding="utf-8"))["passed"]] if recorded.exists() else []
    assert names in ([], ["abc"])


# ---- 9. the Chinese command line: argparse's own sentences too, from every usual locale form ------

ENGLISH_ARGPARSE = (
    "usage:",
    "the following arguments are required",
    "unrecognized arguments",
    "show this help message",
    "invalid choice",
    "positional arguments",
    "options:",
    "expected one argument",
)
LOCALE_VARIABLES = ("HANDMADE_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
CHINESE_FORMS = [
    f"{base}{suffix}"
    for base in ("zh", "zh_CN", "zh_TW", "zh_HK", "zh_SG", "zh-CN", "zh_Hans_CN")
    for suffix in ("", ".UTF-8", ".utf8", ".GB18030", ".gbk", "@pinyin")
]
ENGLISH_FORMS = ["en", "en_US.UTF-8", "en_GB", "C", "C.UTF-8", "POSIX"]


def language_settings():
    """{label: (environment, extra arguments)}: each variable with each locale form, and --lang."""
    found = {"--lang zh": ({}, ["--lang", "zh"], True), "--lang=zh": ({}, ["--lang=zh"], True)}
    for variable in LOCALE_VARIABLES:
        for form in CHINESE_FORMS + ENGLISH_FORMS:
            found[f"{variable}={form}"] = ({variable: form}, [], form in CHINESE_FORMS)
    found["LANGUAGE=zh_CN:en"] = ({"LANGUAGE": "zh_CN:en"}, [], True)
    found["LANG=zh_CN.UTF-8 --lang en"] = ({"LANG": "zh_CN.UTF-8"}, ["--lang", "en"], False)
    found["LC_ALL=C LANG=zh_CN.UTF-8"] = ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, [], False)  # LC_ALL first
    return found


LANGUAGE_SETTINGS = language_settings()


def usage_errors(name):
    """The argument errors argparse itself reports for the command ``name``, generated from its parser."""
    parser, tmp = subcommands()[name], "/nonexistent"
    errors = [[name, *valid_argv(name, tmp)[1:], "--bogus"]]  # unrecognized arguments
    if any(action.required for action in parser._actions):
        errors.append([name])  # the following arguments are required
    for action in parser._actions:
        if action.option_strings and action.nargs is None and not action.required and action.dest != "help":
            errors.append([*valid_argv(name, tmp), action.option_strings[0]])  # expected one argument
    return errors


def every_usage(tmp):
    """Every --help, and every argument error, of every command, and of the command line itself."""
    found = [["--help"], ["frobnicate"], [], ["--lang", "xx", "tasks"]]
    for name in subcommands():
        found += [[name, "--help"], *usage_errors(name)]
    return found


@pytest.fixture
def environment(monkeypatch):
    """No locale variable set (each case sets its own), and English again afterwards."""
    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    yield monkeypatch
    handmade.set_language("en")


def test_the_locale_forms_and_usages_are_generated(tmp):
    assert len(LANGUAGE_SETTINGS) >= 5 * (len(CHINESE_FORMS) + len(ENGLISH_FORMS)) >= 200
    assert len(every_usage(tmp)) >= 3 * len(subcommands())


SAMPLE_USAGES = (["--help"], ["grade", "abc"], ["tasks", "--bogus"])


@pytest.mark.parametrize("setting", list(LANGUAGE_SETTINGS))
def test_argparse_speaks_the_language_the_locale_asks_for(environment, capsys, setting):
    """One usage of each kind under every setting: Chinese for every Chinese form (no English of
    argparse left), English for English, C and POSIX."""
    variables, extra, chinese = LANGUAGE_SETTINGS[setting]
    for variable, value in variables.items():
        environment.setenv(variable, value)
    for argv in SAMPLE_USAGES:
        cli.main([*extra, *argv])
        said = "".join(capsys.readouterr())
        english = [phrase for phrase in ENGLISH_ARGPARSE if phrase in said]
        assert (english == [] and "python -m handmade" in said) if chinese else english != [], (argv, said)
    handmade.set_language("en")


EVERY_USAGE_SETTINGS = ["--lang zh", "HANDMADE_LANG=zh_CN.UTF-8", "LANG=zh_TW.UTF-8", "LC_ALL=zh_CN"]


@pytest.mark.parametrize("setting", EVERY_USAGE_SETTINGS)
def test_every_help_and_every_argument_error_of_every_command_is_chinese(environment, capsys, tmp, setting):
    variables, extra, chinese = LANGUAGE_SETTINGS[setting]
    for variable, value in variables.items():
        environment.setenv(variable, value)
    for argv in every_usage(tmp):
        status = cli.main([*extra, *argv])
        out, err = capsys.readouterr()
        assert [phrase for phrase in ENGLISH_ARGPARSE if phrase in out + err] == [], (argv, out + err)
        # a Chinese heading ends in a full-width colon, nothing follows one with a space, choices take 、
        assert not (chinese and re.search(r"[\u4e00-\u9fff]:$|： |'[^']*', '", out + err, re.M)), (argv, out + err)
        assert status == 0 if "--help" in argv else (status == cli.BAD_INPUT and err.count("\n") == 1), (argv, err)


# ---- 10. the playground's save over a file that is not weights: what the learner can do there ----


def playground_saving_to(path):
    from handmade.widgets import Playground

    playground = Playground(handmade.blog_model(), edit=[], views=[], controls=["save"], save_path=path)
    return playground, _find(playground.widget, "hm-file-save")


def _find(widget, css_class):
    if css_class in getattr(widget, "_dom_classes", ()):
        return widget
    return next(filter(None, (_find(child, css_class) for child in getattr(widget, "children", ()))), None)


KEPT_BY_THE_PLAYGROUND = ["notes", '{"wte": "my notes"}', "labels only", "blocks.0.attn.c_proj.w removed"]


@pytest.mark.parametrize("case", KEPT_BY_THE_PLAYGROUND)
def test_the_playground_keeps_a_file_that_is_not_weights_and_says_what_to_do_there(tmp_path, case):
    pytest.importorskip("ipywidgets")
    path = tmp_path / "mine.json"
    text = LOOK_ALIKES[case]
    path.write_text(text, encoding="utf-8")
    playground, save = playground_saving_to(path)
    save.click()
    said = playground.status.value
    assert path.read_text(encoding="utf-8") == text
    assert "is not a weights file" in said and "type another file name" in said
    assert "--force" not in said and "force=True" not in said


def test_the_playground_asks_before_it_replaces_another_model_and_says_what_it_did(tmp_path):
    """A file holding weights this playground did not save or load there: the save asks, "keep it"
    keeps it byte for byte, "replace it" replaces it and says so; a second save of its own asks no more."""
    pytest.importorskip("ipywidgets")
    path = tmp_path / "mine.json"
    handmade.save_weights(handmade.flip_model(), path)
    before = path.read_bytes()
    playground, save = playground_saving_to(path)
    replace, keep = _find(playground.widget, "hm-file-replace"), _find(playground.widget, "hm-file-keep")
    save.click()
    assert "holds another model" in playground.status.value and path.read_bytes() == before
    keep.click()
    assert "is kept as it was" in playground.status.value and path.read_bytes() == before
    save.click()
    replace.click()
    assert "replaced the weights in" in playground.status.value
    assert np.array_equal(handmade.load_weights(path)["wpe"], handmade.blog_model()["wpe"])
    playground.replace(handmade.with_part(playground.params, "c_proj.b", np.zeros(8)))
    save.click()  # its own file now: saved again without a question
    assert "replaced the weights in" in playground.status.value
    assert not handmade.load_weights(path)["blocks"][0]["attn"]["c_proj"]["b"].any()


def test_an_answer_to_the_question_is_about_the_file_asked_about_never_a_name_typed_since(tmp_path, monkeypatch):
    """Asked about a.json, the learner types b.json, another model of theirs, then answers: "replace it" asks about
    b.json in its turn and replaces neither; "keep it" names the file it keeps; only "replace it" asked about b.json
    replaces it, and a.json is kept byte for byte throughout."""
    pytest.importorskip("ipywidgets")
    monkeypatch.chdir(tmp_path)
    for name in ("a.json", "b.json"):
        handmade.save_weights(handmade.flip_model(), tmp_path / name)
    before = {name: (tmp_path / name).read_bytes() for name in ("a.json", "b.json")}
    playground, save = playground_saving_to("a.json")
    box, replace, keep = (_find(playground.widget, f"hm-file-{name}") for name in ("path", "replace", "keep"))
    save.click()
    assert "'a.json' holds another model" in playground.status.value
    box.value = "b.json"
    replace.click()
    assert "'b.json' holds another model" in playground.status.value
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    box.value = "a.json"
    keep.click()
    assert "nothing saved: 'b.json' is kept as it was" in playground.status.value
    box.value = "b.json"
    save.click()
    replace.click()
    assert "replaced the weights in" in playground.status.value and "b.json" in playground.status.value
    assert (tmp_path / "a.json").read_bytes() == before["a.json"] and (tmp_path / "b.json").read_bytes() != before[
        "b.json"
    ]


# ---- 11. the progress file: whatever is put there, read bounded and said, never a hang or a lost pass --


def _fifo(path):
    os.mkfifo(path)


PROGRESS_FILES = {  # what the progress file (or its folder, or its lock) is made into
    "a named pipe": lambda data: _fifo(data / progress.FILE),
    "a link to /dev/zero": lambda data: (data / progress.FILE).symlink_to("/dev/zero"),
    "a folder": lambda data: (data / progress.FILE).mkdir(),
    "a lone surrogate": lambda data: (data / progress.FILE).write_text('{"passed": ["\\udcff"]}', encoding="utf-8"),
    "a lone surrogate in a fingerprint": lambda data: (data / progress.FILE).write_text(
        '{"passed": [{"task": "xor", "fingerprint": "\\ud800abcdefghijklmno"}]}', encoding="utf-8"
    ),
    "a fingerprint that is not hex": lambda data: (data / progress.FILE).write_text(
        '{"passed": [{"task": "xor", "fingerprint": "0123456789abcdeX"}]}', encoding="utf-8"
    ),
    "a number of 5000 digits": lambda data: (data / progress.FILE).write_text(
        '{"passed": [' + "9" * 5000 + "]}", encoding="utf-8"
    ),
    "nested 100000 deep": lambda data: (data / progress.FILE).write_text(
        "[" * 100_000 + "]" * 100_000, encoding="utf-8"
    ),
    "not UTF-8": lambda data: (data / progress.FILE).write_bytes(b'{"passed": ["\xff"]}'),
    "too large": lambda data: (data / progress.FILE).write_text(" " * (progress.MAX_BYTES + 1), encoding="utf-8"),
    "the lock a named pipe": lambda data: _fifo(data / progress.LOCK),
    "the folder a file": lambda data: (data.rmdir(), data.write_text("x", encoding="utf-8")),
}


@posix_only
@pytest.mark.parametrize("case", list(PROGRESS_FILES))
def test_the_progress_file_is_read_bounded_and_any_problem_said_in_one_line(tmp_path, monkeypatch, case):
    """The library and the commands that read or write it: a sentence, at once, never a hang, a
    traceback or Python's words; the learner's pass is graded and reported all the same."""
    data = tmp_path / "data"
    data.mkdir()
    PROGRESS_FILES[case](data)
    monkeypatch.setenv("HANDMADE_DATA", str(data))
    read, note = progress.read(), progress.add("abc")
    stated = read.problem if case not in ("the lock a named pipe", "the folder a file") else note
    assert stated and "\n" not in stated and ("cannot" in stated or "could not" in stated), stated
    assert note and "Traceback" not in note and "Exceeds the limit" not in note
    own = parts.with_parts(
        solutions.reference("abc"), {"c_proj.w": 2 * parts.get(solutions.reference("abc"), "c_proj.w")}
    )
    handmade.save_weights(own, tmp_path / "abc.json")
    env = {**os.environ, "HANDMADE_DATA": str(data), "HANDMADE_LANG": "zh"}
    for args, status in ((["tasks"], 0), (["grade", "abc", "--weights", str(tmp_path / "abc.json")], 0)):
        done = subprocess.run([sys.executable, "-m", "handmade", *args], env=env, capture_output=True, timeout=60)
        out = done.stdout.decode("utf-8")
        assert done.returncode == status and done.stderr == b"", (args, done.stderr[-300:])
        last = out.splitlines()[-1]  # the summary, or the sentence on the file: in Chinese, naming it
        own_words = re.sub(r"（[^（）]*(（[^（）]*）[^（）]*)*）", "", last)  # what the system said stays, in brackets
        assert "Exceeds" not in out and progress.FILE in last and not re.search("[a-z]{3,} [a-z]{3,}", own_words), last
    started = progress.reset()  # the way the sentence offers: a new file, or one line saying why not
    assert (started is None and progress.read().passed == ()) or ("\n" not in started and "could not" in started)


# ---- 14. the widgets' API: every constructor, function, method and control of handmade.widgets and
# handmade.display keeps the one rule, and every view is bounded ---------------------------------------


def surface_modules():
    """handmade.widgets and handmade.display and every module in them."""
    import importlib
    import pkgutil

    import handmade.display
    import handmade.widgets

    found = []
    for package in (handmade.widgets, handmade.display):
        found.append(package)
        found += [
            importlib.import_module(f"{package.__name__}.{m.name}") for m in pkgutil.iter_modules(package.__path__)
        ]
    return found


def _public_of(module):
    """{qualified name: callable} of the public functions and classes ``module`` defines (or exports)."""
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    found = {}
    for name in names:
        obj = getattr(module, name)
        home = getattr(obj, "__module__", None) or ""
        exported = getattr(module, "__all__", None) is not None
        error = isinstance(obj, type) and issubclass(obj, BaseException)  # raised by the package, not called
        if callable(obj) and not error and home.startswith("handmade") and (exported or home == module.__name__):
            found[_qualified(obj)] = obj
    return found


def _methods_of(classes):
    """{qualified name: the method}: the public methods each class defines itself (not properties)."""
    return {
        f"{qualified}.{name}": member
        for qualified, cls in classes.items()
        for name, member in vars(cls).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }


SURFACE_PUBLIC = {name: obj for module in surface_modules() for name, obj in _public_of(module).items()}
SURFACE_CLASSES = {name: obj for name, obj in SURFACE_PUBLIC.items() if isinstance(obj, type)}
SURFACE_METHODS = _methods_of(SURFACE_CLASSES)

PLUMBING = "the playground's own plumbing, given only what the package made and checked"
VIEWS = "the playground's views: plain functions from a trace that trace() made (tried here) to HTML; bounded by the tables they draw"
SURFACE_SKIPPED = {  # the public callables of the two packages not called blindly, each with the reason
    "widgets.choice.Menu.set_state": "ipywidgets' hook for a change of the model a front end sends, never called by a "
    "person (tests/test_widgets.py sends it what a front end may)",
    "widgets.choice.Chosen": "the base of Menu, Choice and LogSlider (what the browser sends them), tried through them",
    "widgets.typed.typed_shown": "quotes a box's text (a str, typed_number's argument) in a control's message",
    "widgets.typed.typed_number": "reads what a box of the widgets holds, for the control to say in its own sentence "
    "(a clause that quotes the text, not the argument's name); tests/test_widgets.py types every kind of text into each",
    **{
        name: "the Playground's checks of its options, each tried through the Playground's own arguments"
        for name, obj in SURFACE_PUBLIC.items()
        if name.startswith("widgets.options.") and not isinstance(obj, type)
    },
    **dict.fromkeys(
        [
            f"display.views.{n}"
            for n in [
                "stages",
                "view_names",
                "changed_cells",
                "view_html",
                "panel_html",
                "prediction_html",
                "predictions_html",
                "completion_html",
                "score_html",
                "details_html",
                "snapshot_html",
                "scrolling",
                "Stage",
            ]
        ],
        VIEWS,
    ),
    **dict.fromkeys(
        [
            "widgets.layout.build",
            "widgets.layout.what_each_stage_shows",
            "widgets.layout.Screen",
            "widgets.layout.says_a_refusal_left",
            "widgets.layout.recheck_refusal_left",
            "widgets.layout.Unseen",
            "widgets.layout.Unseen.now",
            "widgets.undo.Undo",
            *[f"widgets.undo.Undo.{n}" for n in ("add", "offer", "said", "offers")],
            "widgets.editors.Quiet",
            "widgets.editors.refusing",
            "widgets.marks.Marks",
        ],
        PLUMBING,
    ),
    **dict.fromkeys(
        [f"widgets.editors.{n}" for n in ("message_html", "css", "say_in", "marked")] + ["widgets.marks.give_focus"],
        "the widgets' markup for the package's own sentences, where it is put, and where the keyboard goes next",
    ),
    "widgets.choice.in_order": "where the kernel handles a control's messages, given the package's own controls as they are made",
    "widgets.editors.css_class": "a check whose second argument is its caller's argument's name (a Grid's, an option's name: tried through them)",
    **dict.fromkeys(
        [f"widgets.tools.{n}" for n in ("break_control", "save_control", "reveal_control")],
        "reached through the Playground's methods of the same names, tried here",
    ),
    **dict.fromkeys(
        ["display.trace.Trace", "display.trace.title", "display.trace.position_labels"],
        "trace()'s labelling of what a pass it ran made; trace() checks its text and weights",
    ),
    **dict.fromkeys(
        [
            "display.labelled.real_numbers",
            "display.labelled.cells_of",
            "display.outputs.product_pair",
            "display.outputs.scaled",
        ],
        "a check of what a caller was given, (value, its name): the caller names it, and is tried here",
    ),
    "display.window.left_out": "the sentence a table or a heatmap ends with, from its own shape and a sentence of the package's",
    **dict.fromkeys(
        [f"display.colours.{n}" for n in ("shade", "shades", "luminance", "contrast", "ink", "hex_colour")],
        "the colour scheme's arithmetic on numbers a table computed",
    ),
}


def _axes():
    from matplotlib import pyplot as plt

    figure, ax = plt.subplots()
    plt.close(figure)
    return ax


def _heatmap_figure():
    """A figure holding a heatmap of the package's, which show_figure can show (and closes)."""
    from matplotlib import pyplot as plt

    figure, ax = plt.subplots()
    _labelled().heatmap(ax=ax)
    return figure


def _playground():
    from handmade.widgets import blog_playground

    return blog_playground()


def _labelled():
    from handmade.display.labelled import LabelledMatrix

    return LabelledMatrix([[1.0, 0.0], [0.5, -1.0]], ["r0", "r1"], ["c0", "c1"], title="m")


def _matrix_editor():
    from handmade.widgets import MatrixEditor

    return MatrixEditor("m", _labelled(), lambda name, values: "")


def _number_control():
    from handmade.widgets import NumberControl

    return NumberControl("lg", "Lg", 1024.0, lambda value: True)


SURFACE_INSTANCES = {  # a fresh object of each class with public methods
    "widgets.playground.Playground": _playground,
    "widgets.editors.MatrixEditor": _matrix_editor,
    "widgets.editors.NumberControl": _number_control,
    "widgets.explorers.ProductExplorer": lambda: __import__("handmade.widgets").widgets.ProductExplorer(
        [[1, 2]], [[3], [4]]
    ),
    "widgets.explorers.SoftmaxExplorer": lambda: __import__("handmade.widgets").widgets.SoftmaxExplorer(),
    "display.labelled.LabelledMatrix": _labelled,
    "display.trace.Trace": lambda: __import__("handmade.display.trace").display.trace.trace("aab"),
}

SURFACE = {
    **{name: (lambda f=f: f) for name, f in SURFACE_PUBLIC.items() if name not in SURFACE_SKIPPED},
    **{
        name: (lambda name=name: getattr(SURFACE_INSTANCES[name.rsplit(".", 1)[0]](), name.rsplit(".", 1)[1]))
        for name in SURFACE_METHODS
        if name not in SURFACE_SKIPPED
    },
}


def _product(tmp):
    return {"a": [[1, 2], [3, 4]], "b": [[5, 6], [7, 8]]}


SURFACE_VALID = {  # a valid value for each parameter without a default, by its name
    "markup": lambda tmp: "<b>x</b>",
    "text": lambda tmp: "aab",
    "name": lambda tmp: "lg",
    "label": lambda tmp: "Lg",
    "value": lambda tmp: 1024.0,
    "tooltip": lambda tmp: "",
    "stage": lambda tmp: "c_proj",
    "done": lambda tmp: "Lg = {value}",
    "matrix": lambda tmp: _labelled(),
    "on_edit": lambda tmp: lambda name, values: "",
    "a": lambda tmp: _product(tmp)["a"],
    "b": lambda tmp: _product(tmp)["b"],
    "i": lambda tmp: 0,
    "j": lambda tmp: 1,
    "header": lambda tmp: ["x", "y"],
    "rows": lambda tmp: [[1, 2], [3, 4]],
    "values": lambda tmp: [[1.0, 0.0], [0.0, 1.0]],
    "weights": lambda tmp: [[0.5, 0.5], [1.0, 0.0]],
    "part": lambda tmp: "<b>x</b>",
    "params": _blog,
    "fn": lambda tmp: handmade.softmax,
    "functions": lambda tmp: [handmade.softmax],
    "code": lambda tmp: "x = 1",
    "ax": lambda tmp: _axes(),
    "lines": lambda tmp: [("one", 1.0)],
    "cells": lambda tmp: {(0, 0)},
    "row": lambda tmp: "r0",
    "col": lambda tmp: "c0",
    "task": lambda tmp: "abc",
    "apply": lambda tmp: lambda params, value: params,
    "lg": lambda tmp: 1024.0,
    "n": lambda tmp: 100,
    "key": lambda tmp: "scores",
    "x": lambda tmp: 0.5,
    "columns": lambda tmp: 8,
    "picture": lambda tmp: '<svg xmlns="http://www.w3.org/2000/svg"/>',
    "alt": lambda tmp: "an empty picture",
}
SURFACE_VALID_FOR = {  # where a valid value depends on the callable
    "display.plots.show_figure": lambda tmp: {"fig": _heatmap_figure()},
    "widgets.playground.Playground": lambda tmp: {"params": _blog()},
    "display.outputs.weighted_sums": lambda tmp: {"values": [1.0, -1.0], "rows": ["P0", "P1"]},
    "display.outputs.softmax_story": lambda tmp: {"row": [1.0, 0.0, 0.0]},
    "display.labelled.LabelledMatrix": lambda tmp: {"values": [[1.0, 2.0]], "rows": ["r0"], "cols": ["c0", "c1"]},
    "display.trace.table": lambda tmp: {"name": "q"},
    "widgets.editors.NumberControl": lambda tmp: {"apply": lambda value: True},
    "widgets.editors.MatrixEditor.set_values": lambda tmp: {"values": [[1.0, 2.0], [3.0, 4.0]]},
    "widgets.editors.MatrixEditor": lambda tmp: {"name": "m"},
    "widgets.choice.Choice": lambda tmp: {"count": 2, "value": 1},
    "widgets.choice.Menu": lambda tmp: {"options": ["Ta", "Tb"], "value": "Tb"},
    "display.outputs.pipeline": lambda tmp: {"current": ("tokens",)},
    "display.outputs.side_by_side": lambda tmp: {"parts": ("<b>x</b>",)},
    "display.outputs.equations": lambda tmp: {"named": (("X", [[1.0]]),)},
}
SURFACE_ALIASES = {
    "params": ("weights",),
    "text": ("cannot tokenize", "context"),
    "name": ("part",),  # what the name names
    "key": ("intermediate",),
}


def surface_parameters(name):
    """The parameters of ``name`` a caller can give, *args included (given one value), not **kwargs."""
    parameters = inspect.signature(SURFACE[name]()).parameters.values()
    return [p.name for p in parameters if p.kind != inspect.Parameter.VAR_KEYWORD]


def surface_arguments(name, tmp):
    """{parameter: a valid value} for ``name``: its own table, else by parameter name, else the default."""
    own = SURFACE_VALID_FOR.get(name, lambda tmp: {})(tmp)
    arguments = {}
    for param in inspect.signature(SURFACE[name]()).parameters.values():
        if param.name in own:
            arguments[param.name] = own[param.name]
        elif param.kind == param.VAR_POSITIONAL:
            arguments[param.name] = ()
        elif param.default is not inspect.Parameter.empty:
            arguments[param.name] = param.default
        elif param.name in SURFACE_VALID:
            arguments[param.name] = SURFACE_VALID[param.name](tmp)
        elif param.kind != param.VAR_KEYWORD:
            raise AssertionError(f"no valid value for {name}({param.name}): add one to SURFACE_VALID")
    return arguments


def call_surface(function, arguments):
    """Call with positional-only parameters by position (and, before *args, every positional one, then
    the *args' values), the others by keyword."""
    parameters = inspect.signature(function).parameters.values()
    starred = any(p.kind == p.VAR_POSITIONAL for p in parameters)
    positional = []
    for p in parameters:
        if p.kind == p.VAR_POSITIONAL:
            positional += list(arguments.pop(p.name))
        elif p.kind == p.POSITIONAL_ONLY or (starred and p.kind == p.POSITIONAL_OR_KEYWORD):
            positional.append(arguments.pop(p.name))
    return function(*positional, **arguments)


def surface_problem(name, param, value, tmp, function=None):
    """None if ``name`` with ``param=value`` (the others valid) keeps the rule; else what it broke.
    ``function``: what ``name`` is (a method of an object made once for all the values), else made here."""
    arguments = surface_arguments(name, tmp)
    function = SURFACE[name]() if function is None else function
    star = inspect.signature(function).parameters[param].kind == inspect.Parameter.VAR_POSITIONAL
    arguments[param] = (value,) if star else value
    try:
        return broken_rule(lambda: call_surface(function, arguments), param, SURFACE_ALIASES)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")  # the figures heatmap() made


SURFACE_CASES = [(name, param) for name in SURFACE for param in surface_parameters(name)]


def test_every_widget_and_view_is_called_or_skipped_with_a_reason():
    skippable = {*SURFACE_PUBLIC, *SURFACE_METHODS}
    assert set(SURFACE_SKIPPED) <= skippable, set(SURFACE_SKIPPED) - skippable
    assert {"widgets.playground.Playground", "widgets.explorers.ProductExplorer", "display.trace.trace"} <= set(SURFACE)
    assert {"widgets.playground.Playground.reveal_control", "display.labelled.LabelledMatrix.html"} <= set(SURFACE)
    assert set(SURFACE_INSTANCES) >= {name.rsplit(".", 1)[0] for name in SURFACE_METHODS if name not in SURFACE_SKIPPED}
    assert len(SURFACE_CASES) >= 100


@pytest.mark.parametrize("name, param", SURFACE_CASES, ids=[f"{name}({param})" for name, param in SURFACE_CASES])
def test_each_argument_of_each_widget_and_view_keeps_the_one_rule(tmp, monkeypatch, name, param):
    """Succeed, or a TypeError or ValueError raised by the package: one line of at most 200
    characters naming the argument; never another kind, never traitlets', numpy's or Python's words."""
    monkeypatch.chdir(tmp)  # a file a call saves goes there
    function = SURFACE[name]()  # a method's object made once: a refused value leaves it as it was
    problems = {label: surface_problem(name, param, value, tmp, function) for label, value in HOSTILE.items()}
    assert {label: problem for label, problem in problems.items() if problem} == {}


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def _blog_playground():
    from handmade.widgets import blog_playground

    return blog_playground()


def _task_playground():
    from handmade.widgets import Playground

    return Playground(task="abc")


def _product_explorer():
    from handmade.widgets import ProductExplorer

    return ProductExplorer([[1, 2], [3, 4]], [[5, 6], [7, 8]])


def _softmax_explorer():
    from handmade.widgets import SoftmaxExplorer

    return SoftmaxExplorer()


WIDGETS = {  # the widgets a learner uses
    "the blog's playground": _blog_playground,
    "a task's playground": _task_playground,
    "ProductExplorer": _product_explorer,
    "SoftmaxExplorer": _softmax_explorer,
}
TYPED = [  # typed into a text box, in turn: no two in a row mean the same
    *["", " ", "x", "nan", "inf", "-inf", "1e400", "1e300", "-1e300", "1_000", "١٢", "１", " 2 ", "0x10", "1,5"],
    *["None", "x" * 100_000, "\ud800", "a\nb", "aab" * 4_000, "c", "ab", "abab"],
]
NUMBERS = [math.nan, math.inf, -math.inf, 1e308, -1e308, 1e300, 0.0, 5e-324, -1024.0, 3.0, 0.5]  # into a number box
SLID = [math.nan, math.inf, -math.inf, 1e308, 2.0, -1.0, 100.0, 0.0625, 2048.0]  # a slider, each at another place


def controls(widget):
    """{label: the control}: every box, slider and button of ``widget``, and the first box of each
    grid (built as its tab builds it). A menu or a row of toggle buttons offers only its own choices,
    and is left out (a menu's own test sends it names it no longer has)."""
    from ipywidgets import Button, FloatText, Text, ToggleButton

    from handmade.widgets.slider import LogSlider
    from handmade.widgets.textbox import TextBox

    found = {f"grid {name}": editor.boxes[0][0] for name, editor in getattr(widget, "editors", {}).items()}
    strength = getattr(widget, "strength", None)  # beside its stage's grids: built with them, like a grid
    for control in [*_walk(widget.widget), *([strength.box, strength.slider] if strength is not None else [])]:
        classes = getattr(control, "_dom_classes", ())
        named = [c for c in classes if c.startswith("hm-") and not c.startswith(("hm-cell", "hm-quiet-label"))]
        if isinstance(control, (Text, TextBox, FloatText, LogSlider, Button, ToggleButton)) and named:
            found[named[0]] = control
    return found


def _values(control):
    """What is typed or slid into ``control`` in turn; None for a button."""
    from ipywidgets import FloatText, Text

    from handmade.widgets.slider import LogSlider
    from handmade.widgets.textbox import TextBox

    return TYPED if isinstance(control, (Text, TextBox)) else NUMBERS if isinstance(control, FloatText) else (
        SLID if isinstance(control, LogSlider) else None)  # fmt: skip


EVERY_CONTROL = {(w, label): c for w in WIDGETS for label, c in controls(WIDGETS[w]()).items()}
TYPED_CASES = [key for key, control in EVERY_CONTROL.items() if _values(control) and key[1] != "hm-file-path"]
BUTTON_CASES = [key for key, control in EVERY_CONTROL.items() if _values(control) is None]


def _messages(widget):
    """Where ``widget`` says things: the status line and the message beside each control."""
    from ipywidgets import HTML

    beside_grids = [editor.message for editor in getattr(widget, "editors", {}).values()]  # in tabs not yet shown too
    if getattr(widget, "strength", None) is not None:
        beside_grids.append(widget.strength.message)
    return beside_grids + [
        w
        for w in _walk(widget.widget)
        if isinstance(w, HTML)
        and any(c in ("hm-status", "hm-text-message") or c.endswith("-message") or c.startswith("hm-message-")
                for c in w._dom_classes)
    ]  # fmt: skip


def _refusals(messages):
    return [re.sub(r"<[^>]+>", "", m.value) for m in messages if 'data-hm-says="alert"' in m.value]


def _state(widget):
    """What the widget holds: a playground's weights, context and Lg; an explorer's numbers."""
    from handmade.weights import iter_matrices

    if hasattr(widget, "params"):
        strength = widget.strength.value if widget.strength is not None else None
        return tuple(a.tobytes() for _path, a in iter_matrices(widget.params)), widget.text, strength
    if hasattr(widget, "a"):
        return widget.row.value, widget.col.value
    return widget.row.tobytes(), widget._scale


@pytest.fixture(params=["en", "zh"])
def language(request):
    handmade.set_language(request.param)
    yield request.param
    handmade.set_language("en")


def said_well(said, language):
    """One line each, at most MAX_MESSAGE characters, in the learner's language."""
    return all("\n" not in s and len(s) <= MAX_MESSAGE and (language == "en" or reads_as_chinese(s)) for s in said)


IN_CHINESE_TOO = [
    key for key in TYPED_CASES if not key[1].startswith("grid ") or key[1] == "grid q"
]  # a grid stands for all
TYPED_IN = [("en", *key) for key in TYPED_CASES] + [("zh", *key) for key in IN_CHINESE_TOO]


@pytest.mark.parametrize("language, widget, label", TYPED_IN, ids=[f"{lang}-{w}: {c}" for lang, w, c in TYPED_IN])
def test_every_box_and_slider_uses_what_it_is_given_or_says_why_not(tmp, monkeypatch, request, language, widget, label):
    """Each value in turn is used (the state changes, nothing refused) or refused (one line in the
    learner's language beside the control, the last good state kept); never an exception, which a
    browser would swallow, and never silence. In Chinese, every control but the grids, and one grid
    (they share their sentences)."""
    monkeypatch.chdir(tmp)
    request.addfinalizer(lambda: handmade.set_language("en"))
    handmade.set_language(language)
    shown = WIDGETS[widget]()
    control, messages = controls(shown)[label], _messages(shown)
    for value in _values(control):
        for message in messages:
            message.value = ""
        before = _state(shown)
        control.value = value
        said = _refusals(messages)
        assert said_well(said, language), said
        assert (_state(shown) == before) == bool(said), (ascii(value)[:40], said)


@pytest.mark.parametrize("widget, label", BUTTON_CASES, ids=[f"{w}: {c}" for w, c in BUTTON_CASES])
def test_every_button_says_what_it_did(tmp, monkeypatch, language, widget, label):
    """Pressed, a button puts its own sentence in the status line (never the one before), or, to show
    the answer's shares, changes the score's lines."""
    monkeypatch.chdir(tmp)
    shown = WIDGETS[widget]()
    control = controls(shown)[label]
    shown.status.value, details = "…", shown.summary["diagnosis"].value if "diagnosis" in shown.summary else None
    control.click() if hasattr(control, "click") else setattr(control, "value", not control.value)
    if label == "hm-reveal":  # the answer's shares in the score's lines, and the status says so
        assert shown.summary["diagnosis"].value != details
    assert shown.status.value not in ("…", "") and said_well(_refusals([shown.status]), language)


def _named_pipe_in(tmp):
    path = tmp / "a pipe"
    with contextlib.suppress(FileExistsError):
        os.mkfifo(path)
    return path


def _other_shape(tmp):
    path = tmp / "other.json"
    handmade.save_weights(solutions.reference("abc"), path, force=True)
    return path


def _notes(tmp):
    path = tmp / "notes.json"
    path.write_text('{"wte": "my notes"}', encoding="utf-8")
    return path


FILE_NAMES = {  # what is typed as the save row's file name
    "nothing": lambda tmp: "",
    "spaces": lambda tmp: "   ",
    "a null character": lambda tmp: "a\0b.json",
    "100000 characters": lambda tmp: "x" * 100_000,
    "a lone surrogate": lambda tmp: "\ud800.json",
    "a new line": lambda tmp: "a\nb.json",
    "a folder": lambda tmp: str(tmp),
    "in a missing folder": lambda tmp: str(tmp / "missing" / "x.json"),
    "notes": lambda tmp: str(_notes(tmp)),
    "another model's shape": lambda tmp: str(_other_shape(tmp)),
    "/dev/zero": lambda tmp: "/dev/zero" if os.name != "nt" else "NUL",
    "a named pipe": lambda tmp: str(_named_pipe_in(tmp)) if hasattr(os, "mkfifo") else "",
}


@pytest.mark.parametrize("case", list(FILE_NAMES))
def test_the_save_row_says_what_became_of_any_file_name(tmp, monkeypatch, language, case):
    """Save, then load, with the name typed: each press says what it did in one line (never the
    sentence before), and a load that fails keeps the model."""
    monkeypatch.chdir(tmp)
    shown = _blog_playground()
    row = controls(shown)
    row["hm-file-path"].value = FILE_NAMES[case](tmp)
    for button in ("hm-file-save", "hm-file-load"):
        shown.status.value, before = "…", _state(shown)
        with bounded(10):
            row[button].click()
        said = re.sub(r"<[^>]+>", "", shown.status.value)
        assert said not in ("…", "") and said_well([said], language), said
        assert 'data-hm-says="alert"' not in shown.status.value or _state(shown) == before


def _widgets():
    import handmade.widgets

    return handmade.widgets


ISSUE_31 = {  # issue 31's examples: each one line of the kind promised, naming what it should
    "Playground(model, strength=5)": (
        lambda: _widgets().Playground(_blog(), strength=5),
        TypeError,
        "strength must be a handmade.widgets.Strength",
    ),
    "Playground(model).reveal_control()": (
        lambda: _widgets().Playground(_blog()).reveal_control(),
        ValueError,
        "only a task's playground has one",
    ),
    'ProductExplorer("a", "b")': (lambda: _widgets().ProductExplorer("a", "b"), TypeError, "a must be a matrix"),
    'edit=["nope"] on a 16-block model': (
        lambda: _widgets().Playground(training.init_params(2, 4, 4, rng=0, n_layer=16, alphabet="ab"), edit=["nope"]),
        ValueError,
        "edit: no part called 'nope'; choose from wte, wpe, blocks[0].q",
    ),
    "Playground(model, text=5)": (lambda: _widgets().Playground(_blog(), text=5), TypeError, "text must be a string"),
    "Playground(model, score=5)": (lambda: _widgets().Playground(_blog(), score=5), TypeError, "score must be"),
    "SoftmaxExplorer('x')": (lambda: _widgets().SoftmaxExplorer("x"), TypeError, "row must be a list of 1 to 12"),
    "a 512-letter text on a 1,024-position model": (
        lambda: _widgets().Playground(training.init_params(2, 1024, 16, rng=0, alphabet="ab"), text="ab" * 256),
        ValueError,
        "the views would draw 20,736 numbers in 10 tables at each edit; at most 16,384",
    ),
}


@pytest.mark.parametrize("case", list(ISSUE_31))
def test_issue_31s_examples_are_one_line_of_the_kind_promised(case):
    call, kind, phrase = ISSUE_31[case]
    with pytest.raises(kind, match=re.escape(phrase)) as raised:
        call()
    assert type(raised.value) in (kind, handmade.arguments.UnknownName) and len(str(raised.value)) <= MAX_MESSAGE


def test_more_than_26_tokens_without_an_alphabet_are_t0_t1_and_so_on():
    params = training.init_params(27, 2, 2, rng=0)
    assert params.labels.alphabet is None and params.labels.token_names(27)[-1] == "t26"
    assert training.init_params(2, 2, 512, rng=0, mlp=True)["blocks"][0]["mlp"]["c_fc"]["w"].shape == (512, 1024)


def test_a_save_without_a_file_name_says_so_in_place_of_what_was_said_before(tmp, monkeypatch, language):
    monkeypatch.chdir(tmp)
    shown = _blog_playground()
    row = controls(shown)
    row["hm-file-path"].value = "   "
    shown.status.value = '<span data-hm-says="status">saved: an earlier sentence</span>'
    row["hm-file-save"].click()
    said = _refusals([shown.status])
    assert said and "earlier" not in shown.status.value and said_well(said, language)
    assert ("type a file name first" in said[0]) == (language == "en") and not list(tmp.glob("*   *"))


# ---- 16. every view bounded: a model at each limit, a context as long as it reads ---------------------

CONTEXTS = {"short": 2, "64 letters": 64, "as long as the model reads": None, "the context box's limit": 10_000}
MAX_VIEW_HTML = 2_500_000  # characters of HTML the views of one playground hold: MAX_CELLS numbers at most


def _context(model, length):
    alphabet = model.labels.alphabet
    length = model.structure.n_ctx if length is None else length
    return (alphabet * (length // len(alphabet) + 1))[:length]


@pytest.fixture(scope="module")
def limit_models():
    return {name: build() for name, build in AT_THE_LIMITS.items()}


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("model", list(AT_THE_LIMITS))
def test_every_playground_is_drawn_bounded_or_refused_with_its_estimate(limit_models, model, context):
    """Built within 10 s, its views at most MAX_VIEW_HTML characters, each table cut to what a screen
    can take with a line saying what was left out; or refused at once with what it would cost."""
    from handmade.widgets import Playground
    from handmade.widgets.editors import MAX_BOXES
    from handmade.widgets.options import MAX_CELLS, MAX_PASS_FLOPS

    params = limit_models[model]
    text = _context(params, CONTEXTS[context])
    try:
        with bounded(10):
            playground = Playground(params, text=text)
            snapshot = playground.snapshot().markup
    except ValueError as error:
        said = str(error)
        assert len(said) <= MAX_MESSAGE and "\n" not in said, said
        assert f"{MAX_CELLS:,}" in said or f"{MAX_PASS_FLOPS:.0g}" in said, said  # the limit, and the estimate
        return
    shown = [
        w.value for w in [*playground.panels.values(), *playground.summary.values(), *playground.outcomes.values()]
    ]
    assert sum(map(len, shown)) <= MAX_VIEW_HTML and len(snapshot) <= MAX_VIEW_HTML
    cut = [t for t in playground._tables(trace(playground.text, playground.params)) if max(t) > SHOWN]
    assert sum(v.count('class="hm-left-out"') for v in shown) == len(cut), "each table cut says so"
    assert all(editor.matrix.values.size <= MAX_BOXES for editor in playground.editors.values())


@pytest.mark.parametrize("model", list(AT_THE_LIMITS))
def test_every_table_of_a_trace_renders_bounded_and_says_what_it_left_out(limit_models, model):
    """Every intermediate of a pass over the longest context and every weight, a table of each shape,
    as HTML, text and LaTeX: at most SHOWN rows and columns, and a sentence saying what was left out;
    a heatmap at most DRAWN of each."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from handmade.display.window import HEATMAP_SIDE as DRAWN

    params = limit_models[model]
    shown = trace(_context(params, None), params)
    every = {**shown, **weight_tables(params)}
    one_of_each_shape = {matrix.shape: name for name, matrix in every.items()}  # a rendering depends on it alone
    for name, matrix in ((name, every[name]) for name in one_of_each_shape.values()):
        n, m = matrix.shape
        cut = n > SHOWN or m > SHOWN
        for rendering in (matrix.html(heat=True), str(matrix), matrix.latex()):
            assert len(rendering) <= 120 * (min(n, SHOWN) + 2) * (min(m, SHOWN) + 2), (name, len(rendering))
            assert not cut or "left out" in rendering or r"\cdots" in rendering or r"\vdots" in rendering, name
    biggest = max(shown.values(), key=lambda matrix: matrix.values.size)
    ax = biggest.heatmap()
    assert len(ax.texts) <= DRAWN * DRAWN and len(ax.images[0].get_array()) <= DRAWN
    plt.close("all")


# ==== 15. the website's builder (tools/site.py; issue 31) ==========================================
# Every argument of the site's builder, class by class: --repository (and HANDMADE_SITE_REPOSITORY),
# OUTDIR, --font, and the parser's own errors. A refused case is one line on stderr, status 2, no
# traceback, in the learner's language, found before any build (the build is a stand-in that fails
# the test if it is reached) and with nothing written; an accepted one reaches the build. Building
# into a folder keeps every file the builder did not make. (Kept apart: other classes go above.)

_spec = importlib.util.spec_from_file_location("handmade_site_tool", PACKAGE.parent / "tools" / "site.py")
site_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_tool)


class Built(Exception):  # noqa: N818  (not a failure: the stand-in build was reached)
    pass


def _build_reached(work, repository, fonts=True):
    raise Built(repository)


def _fake_site(work, repository, fonts=True):
    """A small built site, as render() leaves one: the English edition with the Chinese one in zh/."""
    out = work / "out" / "en"
    for name in ("index.html", "05_softmax_and_mask.html", "_static/site.css", "zh/index.html", "zh/_static/site.css"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(f"<p>{repository}</p>", encoding="utf-8")
    return out, []


def repository_cases():
    """{value: accepted} for --repository: GitHub's limits on each side, the issue's markup, and
    every punctuation, space and some other characters in the owner and in the name."""
    cases = {"a/b": True, "handmade-course/handmade": True, "A1-b2/x.y_z-1": True, "o" * 39 + "/n": True}
    cases |= {"o/" + "n" * 100: True, "o" * 40 + "/n": False, "o/" + "n" * 101: False, "": False, "owner": False}
    cases |= dict.fromkeys(
        ["owner/", "/name", "a/b/c", "-owner/x", "owner-/x", "ow--ner/x", "owner/.", "owner/.."], False
    )
    cases |= {'"><img src=x onerror=alert(1)>': False, "javascript:alert(1)/x": False, "owner/name?x=1": False}
    for c in string.punctuation + " \t\n\r\x0b\x0c\x00\u00e9\uff4f\u4e2d\u200b\ud800":
        cases[f"ow{c}ner/name"] = c == "-"
        cases[f"owner/na{c}me"] = c in "._-"
    return cases


REPOSITORIES = repository_cases()


def _tree(folder):
    """Every path under ``folder`` with what it is (a file's bytes, a link's target), to compare."""
    found = {}
    for path in sorted(Path(folder).rglob("*")):
        if path.is_symlink():
            found[str(path)] = ("link", os.readlink(path))
        elif path.is_file():
            found[str(path)] = ("file", path.read_bytes())
        else:
            found[str(path)] = ("folder" if path.is_dir() else "other", None)
    return found


def _refused(argv, capsys, named):
    """The builder refuses ``argv`` as bad input: one line on stderr naming ``named``, status 2."""
    status = site_tool.main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and one_line(err, site_tool.PROG), (argv, status, err)
    assert "Traceback" not in err and (named is None or named in err), (argv, err)
    return err


@pytest.fixture
def builder(environment, tmp_path, monkeypatch):
    """The site's builder in ``tmp_path`` with a stand-in build that fails if reached."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(site_tool, "render", _build_reached)
    return tmp_path


@pytest.mark.parametrize("value", list(REPOSITORIES), ids=[ascii(v)[:40] for v in REPOSITORIES])
@pytest.mark.parametrize("where", ["--repository", "HANDMADE_SITE_REPOSITORY"])
def test_a_repository_is_owner_slash_name_or_one_line_before_any_build(builder, capsys, value, where):
    if where != "--repository" and ("\x00" in value or "\ud800" in value):
        pytest.skip("an environment variable cannot hold a null character or a lone surrogate")
    argv = ["out", "--repository", value] if where == "--repository" else ["out"]
    if where != "--repository":
        os.environ["HANDMADE_SITE_REPOSITORY"] = value
    try:
        before = _tree(builder)
        if REPOSITORIES[value] or (value == "" and where != "--repository"):  # set but empty: not set
            with pytest.raises(Built):
                site_tool.main(argv)
        else:
            err = _refused(argv, capsys, where)
            allowed = "inner hyphens, at most 39" in err or "最多 39" in err  # what is allowed, never clipped out
            assert allowed or value.startswith("-"), err  # argparse takes '-owner/x' for an option
        assert _tree(builder) == before
    finally:
        os.environ.pop("HANDMADE_SITE_REPOSITORY", None)


def test_what_the_builder_writes_into_a_page_is_escaped_even_if_unchecked():
    """Defence in depth: a header made with the issue's markup as the repository holds it as text."""
    hostile = '"><img src=x onerror=alert(1)>'
    markup = site_tool.header("05_x.html", "en", hostile, site_tool.notebooks("en")[5])
    assert "<img" not in markup and "&lt;img" in markup and 'onerror=alert(1)">' not in markup


def _outdirs(tmp):
    """{case: (OUTDIR, the word its line names)} for OUTDIRs the builder must refuse, made in ``tmp``."""
    (tmp / "a file").write_text("mine", encoding="utf-8")
    (tmp / "link to a file").symlink_to(tmp / "a file")
    (tmp / "dangling").symlink_to(tmp / "nowhere")
    (tmp / "loop a").symlink_to(tmp / "loop b")
    (tmp / "loop b").symlink_to(tmp / "loop a")
    os.mkfifo(tmp / "a fifo")
    theirs = tmp / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine", encoding="utf-8")
    for name, head, entry in (("wrong head", "# mine", "x"), ("climbs out", site_tool.MANIFEST_HEAD, "../a file")):
        (tmp / name).mkdir()
        (tmp / name / site_tool.MANIFEST).write_text(f"{head}\n{entry}\n", encoding="utf-8")
    (tmp / "absolute").mkdir()
    (tmp / "absolute" / site_tool.MANIFEST).write_text(
        f"{site_tool.MANIFEST_HEAD}\n{tmp / 'a file'}\n", encoding="utf-8"
    )
    unwritable = Path("/sys/handmade-site") if os.geteuid() == 0 else tmp / "read-only" / "site"
    if os.geteuid() != 0:
        (tmp / "read-only").mkdir(mode=0o555)
    cases = {name: (tmp / name, "OUTDIR") for name in ("a file", "link to a file", "dangling", "loop a", "a fifo")}
    cases |= {"under a file": (tmp / "a file" / "site", "a file"), "under a link": (tmp / "dangling" / "x", "dangling")}
    cases |= {"a device": (Path("/dev/null"), "OUTDIR"), "cannot be written": (unwritable, "OUTDIR")}
    cases |= {"a name too long": (tmp / ("x" * 300), "OUTDIR"), "someone's files": (theirs, "notes.txt")}
    cases |= {name: (tmp / name, site_tool.MANIFEST) for name in ("wrong head", "climbs out", "absolute")}
    cases |= {
        "empty": ("", "OUTDIR"),
        "a null character": ("a\x00b", "OUTDIR"),
        "a lone surrogate": ("a\ud800", "OUTDIR"),
    }
    return cases


OUTDIR_CASES = [
    "a file", "link to a file", "dangling", "loop a", "a fifo", "under a file", "under a link", "a device",
    "cannot be written", "a name too long", "someone's files", "wrong head", "climbs out", "absolute", "empty",
    "a null character", "a lone surrogate",
]  # fmt: skip


@posix_only
@pytest.mark.parametrize("case", OUTDIR_CASES)
def test_an_outdir_that_cannot_hold_a_site_is_one_line_before_any_build_and_nothing_written(builder, capsys, case):
    outdir, named = _outdirs(builder)[case]
    before = _tree(builder)
    _refused([str(outdir)], capsys, named)
    assert _tree(builder) == before


FONT_CASES = {  # --font SOURCE, and what else is given
    "missing": (["--font", "nowhere.ttf"], "--font"),
    "a folder": (["--font", "."], "--font"),
    "empty": (["--font", "empty.ttf"], "--font"),
    "not a font": (["--font", "notes.ttf"], "--font"),
    "no Chinese": (["--font", "latin"], "--font"),
    "a device": (["--font", "/dev/null"], "--font"),
    "a fifo": (["--font", "fifo.ttf"], "--font"),
    "an empty name": (["--font", ""], "--font"),
    "a null character": (["--font", "a\x00b"], "--font"),
    "a lone surrogate": (["--font", "a\ud800"], "--font"),
    "with OUTDIR": (["out", "--font", "latin"], "--font"),
    "with --repository": (["--font", "latin", "--repository", "a/b"], "--font"),
    "with --force": (["--font", "latin", "--force"], "--font"),
}
PARSER_CASES = {
    "nothing": ([], None),
    "an unknown option": (["out", "--bogus"], "--bogus"),
    "two OUTDIRs": (["out", "other"], "other"),
    "--repository without a value": (["out", "--repository"], "--repository"),
    "--font without a value": (["--font"], "--font"),
}


@posix_only
@pytest.mark.parametrize("case", [*FONT_CASES, *PARSER_CASES])
def test_a_bad_font_or_a_bad_command_line_is_one_line_before_any_build(builder, capsys, case):
    import matplotlib

    (builder / "empty.ttf").write_bytes(b"")
    (builder / "notes.ttf").write_text("not a font", encoding="utf-8")
    (builder / "latin").symlink_to(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
    os.mkfifo(builder / "fifo.ttf")
    argv, named = {**FONT_CASES, **PARSER_CASES}[case]
    before = _tree(builder)
    _refused(argv, capsys, named)
    assert _tree(builder) == before


ENGLISH_SITE_WORDS = ("must", "cannot", "folder", "give", "error:", "does not", "holds", "expected", "required")


@posix_only
@pytest.mark.parametrize("case", [*OUTDIR_CASES[:12], *FONT_CASES, *PARSER_CASES, "--repository"])
def test_the_builders_one_line_is_in_the_learners_language(builder, capsys, case):
    """With a Chinese locale (and none of HANDMADE_LANG's), the same refusals in Chinese."""
    import matplotlib

    (builder / "notes.ttf").write_text("not a font", encoding="utf-8")
    (builder / "latin").symlink_to(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
    os.mkfifo(builder / "fifo.ttf")
    if case in OUTDIR_CASES:
        argv = [str(_outdirs(builder)[case][0])]
    else:
        argv = {**FONT_CASES, **PARSER_CASES}.get(case, (["out", "--repository", "a b/c"], None))[0]
    os.environ["LANG"] = "zh_CN.UTF-8"
    try:
        said = _refused(argv, capsys, None)
    finally:
        os.environ.pop("LANG")
    outside = re.sub(r"'[^']*'|\"[^\"]*\"|found .*$|--?[\w-]+|[\w./-]*/[\w./-]*", "", said)
    assert re.search(r"[\u4e00-\u9fff]", said) and not [w for w in ENGLISH_SITE_WORDS if w in outside], said


PLACEMENTS = ["a new folder", "an empty folder", "an earlier site and notes", "a link to an earlier site",
              "someone's files, --force", "a site whose zh/ became a link"]  # fmt: skip


@posix_only
@pytest.mark.parametrize("case", PLACEMENTS)
def test_building_again_replaces_only_what_the_builder_made(builder, capsys, monkeypatch, case):
    """The site lands in OUTDIR (through a link, in the folder it names); the files the builder did
    not make are kept; what the earlier site had and the new one has not is deleted; the manifest
    lists the new site; the line printed names OUTDIR."""
    monkeypatch.setattr(site_tool, "render", _fake_site)
    monkeypatch.setattr(site_tool, "font_gaps", lambda site: [])
    outdir, argv_extra, kept = builder / "site", [], {}
    if case == "a new folder":
        outdir = builder / "a" / "b" / "site"
    elif case == "an empty folder":
        outdir.mkdir()
    elif case != "someone's files, --force":
        earlier = builder / "earlier"
        earlier.mkdir()
        (earlier / "old.html").write_text("old", encoding="utf-8")
        (earlier / "zh").mkdir()
        (earlier / "zh" / "old.html").write_text("old", encoding="utf-8")
        (earlier / site_tool.MANIFEST).write_text(
            f"{site_tool.MANIFEST_HEAD}\nold.html\nzh/old.html\nzh/index.html\n", encoding="utf-8"
        )
        (earlier / "notes.txt").write_text("mine", encoding="utf-8")
        kept = {"notes.txt": "mine"}
        if case == "a site whose zh/ became a link":
            (builder / "elsewhere").mkdir()
            (builder / "elsewhere" / "old.html").write_text("someone's", encoding="utf-8")
            shutil.rmtree(earlier / "zh")
            (earlier / "zh").symlink_to(builder / "elsewhere")
        if case == "a link to an earlier site":
            outdir.symlink_to(earlier)
        else:
            outdir = earlier
    else:
        outdir.mkdir()
        (outdir / "notes.txt").write_text("mine", encoding="utf-8")
        kept, argv_extra = {"notes.txt": "mine"}, ["--force"]
    if case == "a site whose zh/ became a link":  # the link is theirs, in the new zh/'s way: refused, or
        _refused([str(outdir)], capsys, "zh")  # with --force replaced, never followed
        argv_extra = ["--force"]
    assert site_tool.main([str(outdir), *argv_extra]) == 0
    out, err = capsys.readouterr()
    assert out.strip().splitlines()[-1] == str(outdir) and err == ""
    real = outdir.resolve()
    assert (real / "index.html").is_file() and (real / "zh" / "index.html").is_file() and not (real / "en").exists()
    assert {name: (real / name).read_text(encoding="utf-8") for name in kept} == kept
    assert not (real / "old.html").exists() and not (real / "zh" / "old.html").exists()
    listed = (real / site_tool.MANIFEST).read_text(encoding="utf-8").splitlines()
    assert listed[0] == site_tool.MANIFEST_HEAD and set(listed[1:]) == site_tool.files_in(real) - set(kept)
    assert outdir.is_symlink() == (case == "a link to an earlier site")
    if case == "a site whose zh/ became a link":
        assert (builder / "elsewhere" / "old.html").read_text(
            encoding="utf-8"
        ) == "someone's" and "zh" in out.splitlines()[0]


@posix_only
def test_a_file_of_someones_where_the_site_writes_is_refused_or_with_force_replaced_and_named(
    builder, capsys, monkeypatch
):
    monkeypatch.setattr(site_tool, "render", _fake_site)
    monkeypatch.setattr(site_tool, "font_gaps", lambda site: [])
    outdir = builder / "site"
    outdir.mkdir()
    (outdir / site_tool.MANIFEST).write_text(f"{site_tool.MANIFEST_HEAD}\n", encoding="utf-8")
    (outdir / "index.html").write_text("my own index", encoding="utf-8")
    _refused([str(outdir)], capsys, "index.html")
    assert (outdir / "index.html").read_text(encoding="utf-8") == "my own index"
    assert site_tool.main([str(outdir), "--force"]) == 0
    out, _err = capsys.readouterr()
    assert "index.html" in out.splitlines()[0] and (outdir / "index.html").read_text(encoding="utf-8") != "my own index"


def test_the_issues_repository_in_the_real_process_is_one_line_and_no_page(tmp_path):
    hostile = '"><img src=x onerror=alert(1)>'
    command = [
        sys.executable,
        str(PACKAGE.parent / "tools" / "site.py"),
        str(tmp_path / "out"),
        "--repository",
        hostile,
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", timeout=120, env={**os.environ, "LANG": "C"}
    )
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "--repository" in done.stderr and "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def site_builder_cases():
    """How many cases the class above tries."""
    repositories = 2 * len(REPOSITORIES) - sum("\x00" in v or "\ud800" in v for v in REPOSITORIES) + 1
    outdirs = len(OUTDIR_CASES) + len(FONT_CASES) + len(PARSER_CASES)
    chinese = len(OUTDIR_CASES[:12]) + len(FONT_CASES) + len(PARSER_CASES) + 1
    in_the_way, real_process = 1, 1
    return repositories + outdirs + chinese + len(PLACEMENTS) + in_the_way + real_process


# ==== end of 15 ======================================================================================
# ---- 12. teachers' files: their code runs bounded, its failures are its own, in one line ---------------

SHORT = 0.5  # seconds a teacher's code may run here (user_code.SECONDS), so that a hang is found quickly
CALM = 5  # seconds for the file's other task, loaded with the hang again: room for a busy machine, not the usual 10

TEACHERS_FILE = """\
import sys, time
import handmade
from handmade.course.tasks import blank


class Stop(BaseException):
    pass


class Mute(Exception):
    def __str__(self):
        raise RuntimeError("no words")


def at_the_top():
    {top}


@handmade.task(alphabet="ab", n_ctx=2, n_embd=2)
def fine(context):
    \"\"\"Say a.\"\"\"
    return "a"


def its_examples():
    {extra}
    yield ("ab", "a")


@handmade.task(alphabet="ab", n_ctx=2, n_embd=2, extra_examples={extras})
def hostile(context):
    \"\"\"Say a.\"\"\"
    {rule}
    return "a"


@hostile.reference
def hostile_model():
    {reference}
    return blank(hostile)


at_the_top()
"""

TEACHERS_CODE = {  # what the teacher's code does: (a statement, a phrase of the one line that says so)
    "never returns": ("while True: pass", " more than 0.5 s"),
    "sleeps for ever": ("time.sleep(10**6)", " more than 0.5 s"),
    "raises its own BaseException": ("raise Stop('here')", "raised Stop: here"),
    "raises GeneratorExit": ("raise GeneratorExit", "raised GeneratorExit"),
    "calls sys.exit(0)": ("sys.exit(0)", "raised SystemExit: 0"),
    "calls os._exit(0)": ("import os; os._exit(0)", "called os._exit(0)"),  # which would end the command with 0
    "sets the language": ("handmade.set_language('zh')", "a tasks file cannot set the language"),  # the learner's
    "raises KeyboardInterrupt itself": ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
    "reads stdin": ("input()", "raised EOFError"),
    "recurses without end": ("(lambda f: f(f))(lambda f: f(f))", "raised RecursionError"),
    "allocates 4 GB": ("bytearray(4 * 2**30)", "needed more than 1024 MB of memory"),
    "raises a long message": ("raise ValueError('x' * 5000)", "raised ValueError: xxx"),
    "raises what cannot be said": ("raise Mute()", "raised Mute"),
    "prints": ("print('a word from the teacher')", None),  # not a failure: said on stderr, stdout kept clean
}
PLACES = ("top", "rule", "extra", "reference")  # where in the file the code runs
SURFACES = ("library", "tasks", "grade --json")


def teachers_file(folder, code, place):
    statement = TEACHERS_CODE[code][0]
    body = {where: statement if where == place else "pass" for where in PLACES}
    text = TEACHERS_FILE.format(extras="its_examples()" if place == "extra" else "()", **body)
    (folder / "teacher.py").write_text(text, encoding="utf-8")
    handmade.save_weights(tasks.blank(_task()), folder / "w.json")  # a learner's model of the tasks' shape
    return folder / "teacher.py"


def _on(surface, place, path, monkeypatch, capsys, lang=()):
    """(status or the library's message, stdout, stderr) of using the hostile task on ``surface``."""
    monkeypatch.chdir(path.parent)
    if surface == "library":
        try:
            found = tasks.load_tasks(path.name)
            solutions.reference(found["hostile"]) if place == "reference" else tasks.examples(found["hostile"])
            return None, "", capsys.readouterr().err
        except ValueError as error:
            return str(error), "", capsys.readouterr().err
    args = ["tasks"] if surface == "tasks" else ["grade", "hostile", "--weights", "w.json", "--json", "--reveal"]
    status = cli.main([*lang, *args, "--tasks", "teacher.py"])
    out, err = capsys.readouterr()
    return status, out, err


TEACHER_CASES = [(code, place, surface) for code in TEACHERS_CODE for place in PLACES for surface in SURFACES]


def _process_ended(status):
    raise AssertionError(f"os._exit({status}) reached the test's process")


@pytest.fixture
def short_bound(monkeypatch):
    monkeypatch.setattr(user_code, "SECONDS", SHORT)
    monkeypatch.setattr(os, "_exit", _process_ended)  # a teacher's os._exit that got through fails the test, not pytest
    yield
    handmade.set_language("en")


@pytest.mark.parametrize("code, place, surface", TEACHER_CASES)
def test_a_teachers_code_runs_bounded_and_its_failure_is_one_line_of_its_own(
    tmp_path, monkeypatch, capsys, short_bound, code, place, surface
):
    """Whatever the teacher's code does, where it runs: the one line that says so (naming the file,
    and the task), status 2, stdout clean (--json stays JSON); the file's other task still works; a
    reference that fails only keeps its shares from being shown."""
    if code == "allocates 4 GB" and not os.path.exists("/proc/self/statm"):
        pytest.skip("the memory bound is Linux's (RLIMIT_AS)")
    path, phrase = teachers_file(tmp_path, code, place), TEACHERS_CODE[code][1]
    if " more than 0.5 s" not in (phrase or ""):  # SHORT is for a hang: a recursion to its end took 0.5 s in CI
        monkeypatch.setattr(user_code, "SECONDS", CALM)
    with bounded(30):
        result, out, err = _on(surface, place, path, monkeypatch, capsys)
    where = "cannot load tasks from 'teacher.py': it " if place == "top" else "task hostile in 'teacher.py': its "
    if phrase is None:  # it prints, and is no failure: the words go to stderr
        ran = True  # a list of tasks builds the reference too, to tell its author when it is broken
        assert result in (None, 0, 1) and ("a word from the teacher" in err) == ran and "a word" not in out
        assert surface != "grade --json" or json.loads(out)["graded"] >= 6
    elif surface == "library":
        assert result.startswith(where) and phrase in result and len(result) <= MAX_MESSAGE and "\n" not in result
    elif place == "reference":  # the learner's model is graded all the same: only the reveal says it
        revealed = json.loads(out)["revealed"] if surface == "grade --json" else ""
        assert result == (1 if surface == "grade --json" else 0) and err == "", err
        assert surface == "tasks" or ("cannot be shown" in revealed and phrase in revealed), revealed
    else:
        assert result == 2 and one_line(err) and phrase in err, err
        assert where in err and "Traceback" not in err
        assert out == "" if place == "top" or surface != "tasks" else out.startswith("fine: Say a.")
    if place in ("rule", "extra", "reference") and phrase:  # the file's other task still works
        monkeypatch.setattr(user_code, "SECONDS", CALM)  # SHORT is for the hang above, not a busy machine's load
        fine = tasks.load_tasks(path)["fine"]
        assert grader.grade(fine, tasks.blank(fine)).total == 6


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("inside", ["its own line", "numpy"])
def test_what_a_teachers_code_raises_is_said_with_the_line_of_its_file_that_raised_it(
    tmp_path, monkeypatch, capsys, short_bound, place, inside
):
    """The teacher's line, "(teacher.py, line 12)": where the statement is, or where it called the library that
    raised (numpy's own lines are not the teacher's to mend); on the command line too, which shows no traceback."""
    statement = {"its own line": "raise KeyError('b')", "numpy": "numpy.linalg.inv(numpy.zeros((2, 2)))"}[inside]
    monkeypatch.setitem(TEACHERS_CODE, "raises", (f"import numpy; {statement}", "raised"))
    path = teachers_file(tmp_path, "raises", place)
    line = 1 + path.read_text(encoding="utf-8").splitlines().index(f"    import numpy; {statement}")
    for surface in ("library", "grade --json"):
        result, _out, err = _on(surface, place, path, monkeypatch, capsys)
        said = result if surface == "library" else err
        if place == "reference":  # said where the answer is asked for: the reveal
            said = json.loads(_out)["revealed"] if surface == "grade --json" else said
        assert f"(teacher.py, line {line})" in said, (surface, said)


def test_a_teachers_file_with_a_long_name_or_a_new_line_in_it_is_named_on_one_line_by_its_start_and_end(
    tmp_path, monkeypatch, capsys, short_bound
):
    """A file name is the teacher's to choose (code compiled under any name, a helper module's long one): the
    failure stays one line, the name quoted by its start and its end, a new line in it as its escape."""
    name = "lesson\n" + "x" * 60 + "_helpers.py"
    code = f"exec(compile('raise KeyError(1)', {name!r}, 'exec'))"
    monkeypatch.setitem(TEACHERS_CODE, "raises", (code, "raised"))
    path = teachers_file(tmp_path, "raises", "rule")
    for surface in ("library", "grade --json"):
        result, _out, err = _on(surface, "rule", path, monkeypatch, capsys)
        said = result if surface == "library" else err
        assert (one_line(err) if err else "\n" not in said) and re.search(
            r"\(lesson\\nx+…x+_helpers\.py, line 1\)", said
        ), (surface, said)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("surface", SURFACES)
def test_a_teachers_code_that_sets_the_language_changes_nothing_and_its_failure_is_said_in_the_learners(
    tmp_path, monkeypatch, capsys, short_bound, place, surface
):
    """A file that calls handmade.set_language("zh") (a notebook's cell copied into it), wherever the call runs:
    refused, in the language the command asked for, which stays (it turned "grade --lang en" Chinese)."""
    path = teachers_file(tmp_path, "sets the language", place)
    _result, out, err = _on(surface, place, path, monkeypatch, capsys, lang=["--lang", "en"])
    assert handmade.i18n.language() == "en" and not re.search("[\u4e00-\u9fff]", out + err), out + err


def test_a_child_process_a_teachers_rule_forks_ends_as_it_would(tmp_path):
    """os._exit raises in the teacher's code, not in a process it forked, which ends by it (multiprocessing's children
    do): each went on to say the command's failure, and the command exited 0."""
    rule = "pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n    return 'a'"
    text = f'import os\nimport handmade\n\n@handmade.task(alphabet=\'ab\', n_ctx=2, n_embd=2)\ndef forks(context):\n    """Say a."""\n    {rule}\n'
    (tmp_path / "forks.py").write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "handmade", "tasks", "--tasks", "forks.py"]
    env = {**os.environ, "HANDMADE_DATA": str(tmp_path)}
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", timeout=120, env=env)
    assert run.returncode == 0 and run.stderr == "" and run.stdout.count("forks") == 1, (run.stdout, run.stderr)


def test_runs_in_two_threads_that_overlap_leave_os_exit_and_the_language_as_they_were():
    before = os._exit

    def run(seconds):
        user_code.run_bounded(time.sleep, seconds)

    threads = [threading.Thread(target=run, args=(s,)) for s in (0.3, 0.1)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # the first starts, then the second, which ends first
    for thread in threads:
        thread.join()
    assert os._exit is before and handmade.i18n._current["held"] == set()


@pytest.mark.parametrize("code", [c for c, (_s, phrase) in TEACHERS_CODE.items() if phrase and "4 GB" not in c])
def test_a_teachers_code_that_fails_is_said_in_chinese(tmp_path, monkeypatch, capsys, short_bound, code):
    path = teachers_file(tmp_path, code, "rule")
    status, out, err = _on("grade --json", "rule", path, monkeypatch, capsys, lang=["--lang", "zh"])
    said = re.sub(r"抛出了 [A-Za-z_.]+(: [^，；。]*)?", "", err)  # what the code raised is quoted as it was
    assert status == 2 and out == "" and "hostile" in err and not re.search("[a-z]{3,} [a-z]{3,}", said), err


INTEGER_DTYPES_OF_TASKS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
WHOLE_OPTIONS = {"n_ctx": 3, "n_embd": 4, "n_layer": 2, "n_head": 2, "mlp": 8}


@pytest.mark.parametrize("dtype", INTEGER_DTYPES_OF_TASKS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("option", list(WHOLE_OPTIONS))
def test_numpy_integers_are_whole_numbers_for_every_option_of_a_task(dtype, option):
    plain = {**WHOLE_OPTIONS}
    made = _task(alphabet="ab", **{**plain, option: dtype(plain[option])})
    assert made.structure == _task(alphabet="ab", **plain).structure and len(tasks.examples(made)) == 14
    assert grader.grade(made, tasks.blank(made), diagnose=False).total == 14


BROKEN_REFERENCES = {  # a teacher's reference that cannot be used: a phrase of what --reveal says
    "raises": ("raise KeyError('wte')", "its reference solution raised KeyError: 'wte'"),
    "returns None": ("return None", "returned NoneType, not weights"),
    "returns a list": ("return [1, 2]", "returned list, not weights"),
    "another alphabet": (
        "return handmade.Weights(blank(hostile), handmade.Labels('xy', blank(hostile).labels.residual))",
        "tokens are 'xy'",
    ),
    "overflows": ("w = blank(hostile); w['wte'][:] = 1e200; return w", "fails on its task"),
    "loops": ("while True: pass", "its reference solution ran for more than 0.5 s"),  # under short_bound
    "another n_vocab": (
        "w = dict(blank(hostile)); w['wte'] = np.zeros((3, w['wte'].shape[1])); return w",
        "n_vocab, the token rows of wte, is 3",
    ),
}


def broken_reference_file(folder, case, weights):
    """teacher.py in ``folder``, whose task hostile (say a, over "ab") has the reference ``case`` of BROKEN_REFERENCES,
    and ``weights`` in w.json beside it: the phrase that says how the reference fails."""
    code, phrase = BROKEN_REFERENCES[case]
    body = "\n    ".join(code.split("; "))
    (folder / "teacher.py").write_text(TEACHERS_FILE.format(top="pass", extra="pass", extras="()", rule="pass", reference=body)
                    .replace("    return blank(hostile)\n\n\nat_the_top", "\n\nat_the_top").replace("import handmade\n", "import handmade\nimport numpy as np\n"),
                    encoding="utf-8")  # fmt: skip
    handmade.save_weights(weights, folder / "w.json")
    return phrase


@pytest.mark.parametrize("case", list(BROKEN_REFERENCES))
def test_a_broken_reference_is_said_and_never_blamed_on_the_learners_weights(
    tmp_path, monkeypatch, capsys, short_bound, case
):
    """The issue: 'no reference solution to show', or status 2 blaming weights the learner does not have."""
    phrase = broken_reference_file(tmp_path, case, parts.with_part(tasks.blank(_task()), "wte", np.eye(2)))
    monkeypatch.chdir(tmp_path)
    status = cli.main(["grade", "hostile", "--weights", "w.json", "--reveal", "--tasks", "teacher.py"])
    out, err = capsys.readouterr()
    assert status in (0, 1) and err == "" and "cannot be shown" in out and phrase in out, (status, out, err)
    assert "no reference solution to show" not in out
    said = next(line for line in out.splitlines() if "cannot be shown" in line)
    assert "task hostile in 'teacher.py': its reference solution" in said, said  # named as every other refusal
    assert "…" not in said, said  # whole, or said shorter: never cut through the middle of its reason


@pytest.mark.parametrize("case", list(BROKEN_REFERENCES))
def test_a_listing_tells_the_author_of_a_broken_reference_before_any_learner_grades(
    tmp_path, monkeypatch, capsys, short_bound, case
):
    """A teacher learned that a reference was broken only from a learner's report: tasks --tasks says it, under the
    task, for its author (the task itself is listed as usable: a learner's grade does not depend on it)."""
    phrase = broken_reference_file(tmp_path, case, tasks.blank(_task()))
    monkeypatch.chdir(tmp_path)
    status = cli.main(["tasks", "--tasks", "teacher.py"])
    out, err = capsys.readouterr()
    fine, hostile = out.split("\n\n")[:2]
    assert status == 0 and err == "" and fine.startswith("fine: ") and "author" not in fine, (status, err)
    assert hostile.startswith("hostile: Say a.") and phrase in hostile, hostile
    assert "\n  for the task's author: task hostile in 'teacher.py': its reference solution" in hostile, hostile
    assert cli.main(["tasks"]) == 0 and "author" not in capsys.readouterr().out  # the built-in ones: none to say


SAYS_A = {"wte": np.array([[1.0, 0], [0, 0]]), "wpe": np.array([[3.0, 0], [3, 0]])}  # hostile's "a", by 3 or more


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("passes", [False, True], ids=["fails", "passes"])
@pytest.mark.parametrize("case", list(BROKEN_REFERENCES))
def test_a_broken_reference_built_unasked_is_said_once_in_the_text_the_data_and_the_graded_cell(
    tmp_path, monkeypatch, capsys, short_bound, case, passes, language
):
    """The issue: a teacher's reference that loops cost 10 s on every grade of a model it was compared with, and the
    report said nothing of it (only --reveal did). Built unasked (to compare a failing model with, or to tell a pass
    from the reference itself), a broken one is said in one line, never as the answer, the verdict unchanged."""
    wiring = SAYS_A if passes else {"wte": np.eye(2)}
    phrase = broken_reference_file(tmp_path, case, parts.with_parts(tasks.blank(_task()), wiring))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path / "data"))
    args = ["--lang", language, "grade", "hostile", "--weights", "w.json", "--tasks", "teacher.py"]
    try:
        statuses = [cli.main(args), cli.main([*args, "--json"])]
        out, err = capsys.readouterr()
        hostile, weights = tasks.load_tasks("teacher.py")["hostile"], handmade.load_weights("w.json")
        graded, (_passed, _summary, details) = grader.graded(hostile, weights), TaskScore(hostile)(weights)
    finally:
        handmade.set_language("en")
    text, data = out.split("\n{", 1)
    data = json.loads("{" + data)
    marker = "参考解坏了" if language == "zh" else "reference solution is broken, and your grade does not depend on it"
    said = [line for line in text.splitlines() if marker in line]
    assert statuses == [1 - passes] * 2 and err == "" and data["revealed"] is None, (statuses, err)
    assert len(said) == 1 and data["reference_problem"] == said[0] and "teacher.py" in said[0], text
    assert phrase in said[0] if language == "en" else reads_as_chinese(said[0].strip().strip("（）")), said
    assert "cannot be shown" not in text and "无法显示" not in text and data["passed"] is passes
    assert graded.passed is passes and str(graded).count(marker) == passes, str(graded)  # a pass's cell says it
    assert [line for line in details if marker in line] == [said[0].strip()], details  # and a task's playground


@pytest.mark.parametrize(
    "alphabet", ["a\t\x00", "a \x1b", "a\u200bb", "a\n"], ids=["tab nul", "space esc", "zwsp", "newline"]
)
def test_a_letter_has_one_name_in_every_line_of_a_report_its_tables_and_its_data(alphabet):
    """The issue: with a control character in its alphabet, a task's letters were t0, t1, t2 in the tables and the
    diagnosis (every name falling back), while the report's lines showed the characters ('a', ⇥, '\\x00'). One rule
    (``basis.token_shown``) names a letter wherever it is said; the data keeps the characters where it holds them."""

    def second(context):
        """Say the second letter."""
        return alphabet[1]

    made = _task(second, alphabet=alphabet, n_embd=3)
    model = parts.with_part(tasks.blank(made), "wte", np.eye(len(alphabet), 3))  # says each letter again: wrong
    names, report = model.labels.token_names(len(alphabet)), grader.grade(made, model)
    assert names == [token_shown(c) for c in alphabet] and all(n.isprintable() for n in names), names
    text, data, wanted = str(report), report.to_json(), names[1]
    assert not report.passed and not any(c in text for c in alphabet if not c.isprintable() and c != "\n"), text
    assert {e["expected"] for e in data["failing"]} == {wanted} and f"→ {wanted}:" in text, text
    assert all(f"expected {wanted}, the model predicted " in explain.miss_said(m) for m in data["first_wrong"])
    assert all(m["expected"] == alphabet[1] for m in data["first_wrong"])  # the data: the character itself
    assert weight_tables(model)["wte"].rows == tuple(names)  # the tables name the rows as the report does
    line = prediction_html(trace(alphabet * 2, model))  # a playground's line: the context, and the letters read
    assert not any(c in line for c in alphabet if not c.isprintable()) and text_shown(alphabet) in line, line
    prediction = handmade.predict(alphabet * 2, model)  # the blog's lines, as the command line's predict prints them
    said = [(names[tok], names[int(np.argmax(p))]) for tok, p in zip(prediction.tokens, prediction.probs)]
    assert [(line.split(" (")[0], line.split("next=")[1].split(" (")[0]) for line in prediction.lines()] == said
    assert all(line.isprintable() for line in prediction.lines()), prediction.lines()
    completed = handmade.complete(alphabet, 2, model)  # one line, as the command line and notebook 08 show it
    assert completed == f"{text_shown(alphabet)} :: {text_shown(handmade.continuation(alphabet, 2, model))}"
    assert completed.isprintable(), completed


@pytest.mark.parametrize("alphabet", [" ␣a", "a⏎\n", "⇥\tb"])
def test_an_alphabet_of_two_letters_that_show_alike_is_refused_wherever_it_comes_in(alphabet, capsys):
    """The issue: with " ␣a", the report said "' ': expected ␣, the model predicted ␣" (the space, and ␣ itself), and
    the tables fell back to t0, t1. Two letters a learner could not tell apart are refused, as repeated ones are."""
    char = next(c for c in alphabet if c in " \n\t")
    said = f"has both {char!r} and {basis.TOKEN_SHOWN[char]}, which a table shows alike"
    with pytest.raises(ValueError, match=re.escape(said)):
        check_alphabet(alphabet)
    with pytest.raises(ValueError, match=re.escape(said)):
        _task(alphabet=alphabet)
    assert cli.main(["predict", "a", "--alphabet", alphabet]) == 2 and said in capsys.readouterr().err


SLOW_FILE = """\
import handmade


def make(name, slow):
    def rule(context):
        \"\"\"Say a.\"\"\"
        while slow:
            pass
        return "a"

    rule.__name__ = name
    handmade.task(alphabet="ab", n_ctx=2, n_embd=2)(rule)


make("opening", False)
for i in range(6):
    make(f"slow{i}", True)
make("last", False)
"""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_listing_a_file_of_slow_rules_ends_in_time_naming_the_tasks_it_did_not_check(
    tmp_path, monkeypatch, capsys, short_bound, language
):
    """The issue: each rule is bounded (user_code.SECONDS), but a listing asked every one in turn: six rules that never
    end took a minute, a hundred would take seventeen. It asks for LISTING_SECONDS in all, then names the others."""
    (tmp_path / "slow.py").write_text(SLOW_FILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(listing, "LISTING_SECONDS", 1)  # two or three rules' time: 0.5 s each
    start = time.monotonic()
    try:
        status = cli.main(["--lang", language, "tasks", "--tasks", "slow.py"])
    finally:
        handmade.set_language("en")
    took, (out, err) = time.monotonic() - start, capsys.readouterr()
    *refused, left = err.splitlines(keepends=True)
    names, n = [f"slow{i}" for i in range(6)] + ["last"], len(refused)  # each asked, the others named at once
    assert status == 2 and out.replace("：", ": ").startswith("opening: Say a.") and "last" not in out, out
    assert took < listing.LISTING_SECONDS + SHORT + 1.5 and 1 <= n <= 3, (took, err)  # not 6 x SHORT and more
    assert all(one_line(line) for line in [*refused, left]) and all(names[i] in refused[i] for i in range(n)), err
    places = [left.find(name) for name in names[n:]]
    assert -1 not in places and places == sorted(places) and "slow.py" in left, left  # the rest, in order
    if language == "en":
        assert f"{len(names) - n} tasks in 'slow.py' were not checked" in left and "more than 1 s" in left, left
    else:
        assert reads_as_chinese(left.partition("错误：")[2]), left


def test_a_file_that_is_not_utf8_is_said_in_the_learners_language(tmp_path, capsys, monkeypatch):
    (tmp_path / "latin.py").write_bytes(b"# caf\xe9\nimport handmade\n")
    monkeypatch.chdir(tmp_path)
    try:
        assert cli.main(["--lang", "zh", "tasks", "--tasks", "latin.py"]) == 2
    finally:
        handmade.set_language("en")
    err = capsys.readouterr().err
    assert "0xe9" in err and "utf-8" in err and "codec" not in err and not re.search("[a-z]{3,} [a-z]{3,}", err), err


@posix_only
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_a_real_signal_in_a_teachers_endless_rule_stops_everything_as_ever(tmp_path, signum):
    teachers_file(tmp_path, "never returns", "rule")
    process = subprocess.Popen([sys.executable, "-m", "handmade", "grade", "hostile", "--weights", "w.json",
                                "--tasks", "teacher.py"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    time.sleep(2)  # in the rule by now: the package starts in well under a second
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    said = {signal.SIGINT: b"interrupted", signal.SIGTERM: b"terminated"}[signum]
    assert (process.returncode, out, err) == (-signum, b"", b"python -m handmade: " + said + b"\n")


@posix_only
def test_a_sigterm_whose_exception_a_c_call_dropped_ends_the_command_before_a_teachers_code_runs(tmp_path):
    """compile() drops what a signal's handler raises while it parses a module (the first import of a lazily loaded
    one): the SIGTERM is noted, and raised again before a teacher's code runs and when the command ends, so that a
    rule that never returns does not run to its bound, and a command that ends by itself says it was terminated."""
    from handmade import _quiet

    previous = signal.signal(signal.SIGTERM, cli._terminated)
    try:
        with contextlib.suppress(cli.Terminated):  # raised, and dropped as compile() drops it
            cli._terminated(signal.SIGTERM, None)
        with pytest.raises(cli.Terminated):
            user_code.run_bounded(lambda: pytest.fail("the teacher's code ran"))
        assert _quiet.stops == [signal.SIGTERM]  # noted again as it is raised again, until the command handles it
        _quiet.stops.clear()
        with contextlib.suppress(cli.Terminated):
            cli._terminated(signal.SIGTERM, None)
        with pytest.raises(cli.Terminated):
            _quiet.again()
    finally:
        signal.signal(signal.SIGTERM, previous)
        _quiet.stops.clear()


def test_a_command_that_ends_after_a_dropped_sigterm_says_it_was_terminated(monkeypatch, capsys):
    """The command's end is the other place a dropped SIGTERM is raised again: predict runs no teacher's code."""
    real = cli._model_command

    def dropped(args):  # the handler ran while a module compiled, and compile() dropped its exception
        with contextlib.suppress(cli.Terminated):
            cli._terminated(signal.SIGTERM, None)
        return real(args)

    monkeypatch.setattr(cli, "_model_command", dropped)
    assert cli.main(["predict", "aab"]) == cli.TERMINATED
    assert capsys.readouterr() == ("", "python -m handmade: terminated\n")
    monkeypatch.undo()
    assert cli.main(["predict", "aab"]) == 0  # handled: nothing left to raise in the next command
    capsys.readouterr()

    def dropped_then_refused(args):  # the same, on a command that then ends with an error
        with contextlib.suppress(cli.Terminated):
            cli._terminated(signal.SIGTERM, None)
        raise ValueError("no such thing")

    monkeypatch.setattr(cli, "_model_command", dropped_then_refused)
    assert cli.main(["predict", "aab"]) == cli.TERMINATED and capsys.readouterr().err.endswith("terminated\n")
    from handmade import _quiet

    assert _quiet.stops == []  # nothing left for a teacher's code run later in this process


@posix_only
def test_the_real_bound_ends_a_rule_that_never_returns_in_one_line(tmp_path):
    """The bound as shipped (10 s), in a real process: one line and status 2, the rule named."""
    teachers_file(tmp_path, "never returns", "rule")
    done = subprocess.run([sys.executable, "-m", "handmade", "grade", "hostile", "--weights", "w.json", "--tasks",
                           "teacher.py"], cwd=tmp_path, capture_output=True, timeout=60)  # fmt: skip
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and done.stdout == b"" and err.count("\n") == 1
    assert f"its rule took more than {user_code.SECONDS} s to answer every text" in err, err


@posix_only
def test_a_rule_that_prints_into_a_closed_pipe_is_quiet_with_141(tmp_path):
    teachers_file(tmp_path, "prints", "rule")
    write = closed_pipe()
    try:
        status, err = run_into(write, "tasks", "--tasks", "teacher.py", cwd=tmp_path)
    finally:
        os.close(write)
    assert status == cli.PIPE_CLOSED and "BrokenPipeError" not in err and "a word from the teacher" in err


# ---- 13. grading time: every grade's cost estimated before any pass, and refused over the limit ------

GRADED_MODELS = [  # (n_embd, n_layer, mlp, positions): small to large
    (width, layers, mlp, positions)
    for width in (2, 16, 64)
    for layers in (0, 2, 8)
    for mlp in (False, True)
    for positions in ("the task's", 1024)
    if layers or not mlp
]


def _graded_tasks():
    rng = np.random.default_rng(0)
    long = [("".join(rng.choice(list("ab"), 1024)), "a") for _ in range(task_options.MAX_EXTRA)]
    return {
        "induction (507 contexts)": tasks.get_task("induction"),
        "after d (5460 contexts)": _task(say_a, alphabet="abcd", n_ctx=6, n_embd=16, n_layer=2),
        "more b (16382 contexts)": _task(say_a, alphabet="ab", n_ctx=13),
        "1000 extra examples of 1024 letters": _task(say_a, alphabet="ab", n_ctx=2, extra_examples=long),
    }


GRADED_TASKS = _graded_tasks()
GRADING_CASES = [(t, m, d) for t in GRADED_TASKS for m in range(len(GRADED_MODELS)) for d in (False, True)]


def _graded_model(task, index):
    width, layers, mlp, positions = GRADED_MODELS[index]
    n_ctx = task.n_ctx if positions == "the task's" else positions
    return handmade.check_weights(training.init_params(task.n_vocab, n_ctx, width, rng=0, n_layer=layers, mlp=mlp,
                                                       alphabet=task.alphabet))  # fmt: skip


@pytest.mark.parametrize("task, model, diagnose", GRADING_CASES)
def test_every_grade_is_estimated_before_any_pass_and_refused_over_the_limit(monkeypatch, task, model, diagnose):
    """Over the limit: refused before a single pass, in one line with the estimate. Under it: the
    passes grading runs are the passes the estimate counted (each pass is counted, not run, here)."""
    task, params = GRADED_TASKS[task], _graded_model(GRADED_TASKS[task], model)
    cost, passes, longest = tasks.grading_cost(task, params.structure, explained=diagnose)
    ran = []

    def counted(tokens, weights):
        ran.append(len(tokens))
        return np.zeros((len(tokens), task.n_vocab))

    monkeypatch.setattr(grader, "finite_pass", counted)
    if cost > tasks.MAX_GRADING:
        with pytest.raises(ValueError) as error:
            grader.grade(task, params, diagnose=diagnose)
        message = str(error.value)
        assert not ran and f"about {cost:.1e} operations ({passes} passes of up to {longest} positions" in message
        assert len(message) <= MAX_MESSAGE and "\n" not in message and "; at most 1e+11 are allowed" in message
    elif not diagnose:  # the explanations run passes of their own: the benchmark times them
        grader.grade(task, params, diagnose=False)
        assert (len(ran), max(ran)) == (passes, longest)


def test_every_path_back_is_counted_in_the_estimate_of_a_grade_that_follows_them(monkeypatch):
    """``grade --json`` follows every failing context's path back (``every_path``): once the grade knows which
    contexts fail, their paths are estimated, so a limit the text's grade is under and the paths would take it
    over refuses it after the grade's own passes and before any explaining; a model that passes, which has no
    path to follow, is graded under the same limit."""
    from handmade import weights

    task = tasks.get_task("induction")
    cost, passes, _longest = tasks.grading_cost(task, task.structure)
    with_paths, _passes, _longest = tasks.grading_cost(task, task.structure, every_path=True)
    assert with_paths > 2 * cost
    ran, real_gpt = [], weights.gpt
    monkeypatch.setattr(weights, "gpt", lambda tokens, **params: ran.append(len(tokens)) or real_gpt(tokens, **params))
    monkeypatch.setattr(tasks, "MAX_GRADING", (cost + with_paths) / 2)
    blank = tasks.blank(task)  # every context fails: every path would be followed
    with pytest.raises(ValueError, match=re.escape(f"about {with_paths:.1e} operations")):
        grader.grade(task, blank, every_path=True)
    assert len(ran) == passes  # the grade's own passes, none of an explanation
    assert grader.grade(task, solutions.reference(task), every_path=True).passed
    ran.clear()
    assert not grader.grade(task, blank).passed and len(ran) > passes  # the text's grade explains, within the limit


def test_a_grade_with_every_path_is_estimated_on_the_contexts_that_fail_alone(monkeypatch):
    """Under a limit that every context's path back would pass, a model that fails some contexts is graded with
    their paths followed when they are within it: the estimate counts the paths of the contexts that fail."""
    task = tasks.get_task("induction")
    model = copy.deepcopy(dict(solutions.reference(task)))
    model["wte"][2, 6] += 2000  # c writes Ta: a wins after every c, where another letter should
    failing = grader.grade(task, model, every_path=True).to_json()["failing"]
    followed = [len(case["context"][-task.n_ctx :]) for case in failing]
    theirs, _passes, _longest = tasks.grading_cost(task, task.structure, followed=followed)
    with_paths, _passes, _longest = tasks.grading_cost(task, task.structure, every_path=True)
    assert 0 < len(failing) < 507 and theirs < with_paths
    monkeypatch.setattr(tasks, "MAX_GRADING", (theirs + with_paths) / 2)
    report = grader.grade(task, model, every_path=True)
    assert [case["path"] for case in report.to_json()["failing"]] == [case["path"] for case in failing]
    monkeypatch.setattr(tasks, "MAX_GRADING", theirs * 0.99)
    with pytest.raises(ValueError, match=re.escape(f"about {theirs:.1e} operations")):
        grader.grade(task, model, every_path=True)


LONG_NAMES = {  # (folder of the teacher's file, the task's name): the estimate is said whole with either
    "short": ("", "long"),
    "long": (
        "week_three_assignments/long_context_tasks/",
        "say_the_letter_that_came_right_after_the_last_d_in_the_text_ab",
    ),
}


@pytest.mark.parametrize("names", list(LONG_NAMES))
def test_the_issues_grade_of_minutes_is_refused_at_once_by_the_command(tmp_path, names):
    """1,000 extra examples of 1,024 characters (the most allowed), a 185 KB model of 1,024
    positions: minutes of passes before; now one line with the estimate, before any pass, whole
    however long the file's and the task's names are (they are clipped, never the estimate)."""
    folder, name = LONG_NAMES[names]
    (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "long.py").write_text(
        "import random\n\nimport handmade\n\nrng = random.Random(1)\n"
        f"pairs = [(''.join(rng.choice('ab') for _ in range(1024)), 'a') for _ in range({task_options.MAX_EXTRA})]\n\n"
        + a_task(name, options='alphabet="ab", n_ctx=2, n_embd=8, extra_examples=pairs'),
        encoding="utf-8",
    )
    model = training.init_params(2, 1024, 8, rng=0, alphabet="ab")
    handmade.save_weights(model, tmp_path / "model.json")
    assert (tmp_path / "model.json").stat().st_size < 200_000
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "handmade", "grade", name, "--weights", "model.json", "--tasks",
                           folder + "long.py"], cwd=tmp_path, capture_output=True, timeout=60)  # fmt: skip
    err = done.stderr.decode("utf-8")
    estimate = re.search(r"would take about \d\.\de\+\d\d operations \(1000 passes of up to 1024 positions, "
                         r"explained\); at most 1e\+11 are allowed\n$", err)  # fmt: skip
    assert done.returncode == 2 and err.count("\n") == 1 and estimate, err
    assert one_line(err) and err.count("…") == (names == "long") * 2, err  # the name and the file
    assert time.perf_counter() - start < 30  # not a timing claim: a hang (minutes) would be far beyond


# ---- the figures in README.md ("Reliability"): python tests/test_hostile.py ------------------------


def counts(tmp):
    """{class: cases tried}, counted from the tables the tests above generate their cases from."""
    graded = sum(len(tasks.examples(p.values[0])) + 1 for p in _orders())  # a grade and a complete per context
    allowed = len(ALLOWED["lr"]) * len(ALLOWED["betas"]) * len(ALLOWED["eps"])
    dtypes = 2 * 3 * len(INTEGER_DTYPES) + 2 * len(INTEGER_DTYPES)  # inputs and targets by 3 checks; 2 batchers
    return {
        "1. output streams": (len(STREAM_FAULTS) + 1) * len(every_argv(tmp))  # and no standard output at all
        + len(PIPED)
        + 2 * len(FILLED)
        + len(WHOLE_LINES),
        "2. files that look like weights": len(LOOK_ALIKES) * len(_writers(tmp / "x", None)) + 3,
        "3. malformed labels": len(MALFORMED_LABELS) * (1 + len(READERS)) + 2 + graded,
        "4. non-finite training": 2 * len(TRAINING_SHAPES) * len(TOO_LARGE) + 2 * len(BAD_SETTINGS) + allowed + dtypes,
        "5. library exceptions": len(CASES) * len(HOSTILE)
        + len(SWITCHES) * len(NOT_SWITCHES)
        + len(ISSUE_CASES)
        + 2
        + len(SAMPLE_SCALES) * len(TEMPERATURES),
        "6. bounded reading": len(ENDLESS),
        "7. time": GENERATIONS + 2 + len(UNWRITABLE_OUT),
        "8. signals": len(DELAYS) + len(IMPORT_POINTS) + 4 + len(SAVE_CASES) + len(SAVERS) * len(WRITE_STEPS) * 3,
        "9. the Chinese command line": len(SAMPLE_USAGES) * len(LANGUAGE_SETTINGS)
        + len(EVERY_USAGE_SETTINGS) * len(every_usage(tmp)),
        "10. the playground's save": len(KEPT_BY_THE_PLAYGROUND) + 1,
        "11. the progress file": len(PROGRESS_FILES) * 4,  # the library, tasks, a passing grade and reset()
        "12. teachers' files": len(TEACHER_CASES)
        + sum(phrase is not None and "4 GB" not in c for c, (_s, phrase) in TEACHERS_CODE.items())
        + len(INTEGER_DTYPES_OF_TASKS) * len(WHOLE_OPTIONS)
        + len(BROKEN_REFERENCES)
        + len(PLACES) * 2  # the line that raised: its own, or where it called numpy
        + 5  # not UTF-8, Ctrl-C, SIGTERM, the real bound, a closed pipe
        + 3,  # a file name long or with a new line, a child process forked, two runs at once
        "13. grading time": len(GRADING_CASES) + len(LONG_NAMES) + 1,  # and every path counted in the estimate
        "14. the widgets' API": len(SURFACE_CASES) * len(HOSTILE)
        + sum(len(_values(EVERY_CONTROL[widget, label])) for _language, widget, label in TYPED_IN)
        + 2 * len(BUTTON_CASES)
        + 2 * 2 * len(FILE_NAMES)  # saved, then loaded
        + len(ISSUE_31)
        + 1
        + 2,
        "15. the website's builder": site_builder_cases(),
        "16. every view bounded": len(AT_THE_LIMITS) * len(CONTEXTS) + len(AT_THE_LIMITS),
    }


def test_the_readme_says_how_many_cases_each_class_tries(tmp_path):
    """README's Reliability table and its total are the counts of the cases this file tries, class by class."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    found = counts(tmp_path)
    for name, n in found.items():
        label = name.split(". ", 1)[1]
        assert re.search(rf"^\| {re.escape(label)} \| {n:,} \|", readme, re.MULTILINE), f"{label}: {n:,}"
    assert f"**{sum(found.values()):,} cases**" in readme, sum(found.values())
    surface = f"{len(SURFACE)} constructors, functions and methods of `handmade.widgets` and `handmade.display`"
    assert f"{surface} ({len(SURFACE_SKIPPED)} others, the views' plumbing" in readme, (
        len(SURFACE),
        len(SURFACE_SKIPPED),
    )


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        found = counts(Path(folder))
    for name, n in found.items():
        print(f"{name}: {n}")
    print(
        f"in all: {sum(found.values())} cases, in {len(FUNCTIONS)} public functions and {len(subcommands())} commands,"
        f" and {len(SURFACE)} functions, classes and methods of the widgets and views with {len(EVERY_CONTROL)} controls"
    )
