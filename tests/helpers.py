"""Shared test helpers: random weights of any shape the package supports; a mark for POSIX-only tests;
a teacher's task as source; a function's calls counted; the one-line check of a command's error; a bound
on a call's time."""

import contextlib
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

import handmade.training as training
from handmade import cli
from handmade.structure import BlockShape, Structure

posix_only = pytest.mark.skipif(
    os.name == "nt", reason="POSIX only: named pipes, /dev, resource limits and Unix file modes"
)


def random_params(
    rng, n_vocab=3, n_ctx=6, n_embd=8, n_layer=1, n_head=1, ln=False, mlp=False, ln_f=False, n_attn=None, n_hidden=None
):
    """A weights dict of that shape, every number (biases and layer norms too) drawn from normal(0, 1)."""
    n_hidden = (4 * n_embd if n_hidden is None else n_hidden) if mlp else 0
    block = BlockShape(n_embd if n_attn is None else n_attn, n_head, n_hidden, ln_1=ln, ln_2=ln and mlp)
    structure = Structure(n_vocab, n_ctx, n_embd, (block,) * n_layer, ln_f)

    def normal(*shape):
        return rng.normal(size=shape)

    return structure.weights(normal, vector=normal, gain=normal)


def random_weights(structure, seed):
    """Weights of ``structure``, every matrix and vector drawn from normal(0, 1) (layer norms' gains 1)."""
    normal = np.random.default_rng(seed).normal
    return structure.weights(lambda n_in, n_out: normal(size=(n_in, n_out)), vector=lambda n: normal(size=n))


def a_task(name="mine", body='return "a"', options='alphabet="ab", n_ctx=2, n_embd=2'):
    """The source of a teacher's tasks file with one task, ``name``, whose rule's body is ``body``."""
    return f'import handmade\n\n@handmade.task({options})\ndef {name}(context):\n    """Say a."""\n    {body}\n'


def counted(monkeypatch, module, name):
    """A list that ``module.name`` appends to at each call, the function working as before."""
    calls, real = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    return calls


def one_line(err, prog=cli.PROG):
    """Whether ``err`` is one line on stderr, as a command (``prog``) says bad input: its name, "error:" and
    the library's one line whole, no longer (``cli.MAX_LINE`` for the command line), then a newline."""
    return err.endswith("\n") and err.count("\n") == 1 and len(err) <= cli.MAX_LINE - len(cli.PROG) + len(prog) + 1


def as_lists(params):
    if isinstance(params, dict):
        return {key: as_lists(value) for key, value in params.items()}
    if isinstance(params, list):
        return [as_lists(value) for value in params]
    if isinstance(params, np.ndarray):
        return params.tolist()
    return params


def own_model(name):
    """A model of a learner's own that passes the built-in task ``name``: its reference solution with
    the output written twice as large (c_proj.w of each block, or wte where there is no block), which
    no notebook shows, so that its pass is recorded where a learner hands it in."""
    from handmade import parts
    from handmade.course.grader import grade
    from handmade.course.solutions import reference

    model = reference(name)
    names = [n for n in parts.parts(model) if n.endswith("c_proj.w") and "mlp" not in n] or ["wte"]
    mine = parts.with_parts(model, {n: 2 * parts.get(model, n) for n in names})
    assert grade(name, mine, diagnose=False).passed
    return mine


# a model at each of the package's limits (tests/test_hostile.py, benchmarks/bench_views.py)
CJK = "".join(chr(0x4E00 + i) for i in range(1024))  # an alphabet of 1,024 characters
AT_THE_LIMITS = {  # a model at each of the package's limits, and its alphabet
    "1,024 positions": lambda: training.init_params(2, 1024, 16, rng=0, alphabet="ab"),
    "1,024 tokens": lambda: training.init_params(1024, 16, 8, rng=0, alphabet=CJK),
    "1,024 directions": lambda: training.init_params(2, 16, 1024, rng=0, alphabet="ab"),
    "16 blocks": lambda: training.init_params(2, 64, 8, rng=0, n_layer=16, alphabet="ab"),
    "16 heads, an MLP, layer norms": lambda: training.init_params(
        3, 64, 64, rng=0, n_head=16, mlp=True, ln=True, ln_f=True, alphabet="abc"
    ),
}


def reads_as_chinese(sentence):
    """No run of English words outside what is quoted (what was typed) and what the system said
    (in full-width brackets, after its translation)."""
    own = re.sub(r"'[^']*'|\"[^\"]*\"|（[^（）]*）", "", sentence)
    return not re.search(r"[A-Za-z]{3,} [A-Za-z]{3,}", own) and re.search(r"[\u4e00-\u9fff]", own)


class Hang(BaseException):
    """A call that took longer than its bound (not an Exception: the code it stops cannot catch it as one)."""


@contextlib.contextmanager
def bounded(seconds, what="a call"):
    """Raise Hang, saying that ``what`` took more than ``seconds``, if the block runs longer: for the calls that
    take no timeout of their own. A timer signal, so only where there is one (not Windows) and in the main thread
    (where pytest and its xdist workers run the tests); elsewhere the block runs unbounded. Bounds nest: inside
    another, the outer one still holds (its Hang, with its words, when it comes first) and keeps its time after."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    started, outer_rang = time.monotonic(), []
    outer_left = signal.getitimer(signal.ITIMER_REAL)[0]  # 0: no bound around this one

    def stop(signum, frame):
        if outer_left and outer_left < seconds and callable(previous):  # the outer bound's time came first: its words
            outer_rang.append(True)
            previous(signum, frame)
        raise Hang(f"{what} took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer_left) if outer_left else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left and not outer_rang:  # the outer bound goes on with what it had left (at once, when nothing)
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - started), 1e-3))
