"""The training loop: steps of AdamW on the hand-written gradients, a line that shows how far it got,
and a task's model trained from a seeded random start.
"""

import sys
from dataclasses import dataclass

import numpy as np

from ..arguments import function, is_real, yes_or_no
from ..basis import Basis, Labels, brief
from ..cost import pass_flops
from ..i18n import _, ngettext
from ..weights import NonFiniteError, check_weights, copied, map_arrays
from .backward import loss_and_grads
from .batching import example_batches
from .limits import MAX_BATCH, MAX_BATCH_TOKENS, MAX_SEED, MAX_STEPS, MAX_TRAINING, check_whole, generator
from .optimizer import AdamW, leaves


@dataclass(frozen=True)
class History:
    """What happened during training."""

    losses: np.ndarray  # [steps]: the loss on each step's batch, before that step's update
    evaluated: tuple = ()  # (steps done, evaluate(params)) pairs, from step 0 on

    def __str__(self):
        if not len(self.losses):
            return _("no steps taken")
        said = ngettext(
            "{steps} step: loss {first:.4f} at the first step, {last:.4f} at the last",
            "{steps} steps: loss {first:.4f} at the first step, {last:.4f} at the last",
            len(self.losses),
        )
        return said.format(steps=len(self.losses), first=self.losses[0], last=self.losses[-1])


def train(
    params,
    batch_fn,
    steps,
    lr=1e-2,
    *,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0.01,
    evaluate=None,
    eval_every=100,
    progress=True,
):
    """(params, history): ``params`` after ``steps`` steps of AdamW, and the loss at every step.

    ``batch_fn()`` returns the (inputs, targets) of one step, such as ``batches(...)`` or
    ``example_batches(...)`` make. ``evaluate(params)``, if given, returns a number (a held-out
    loss, an accuracy) recorded before the first step, every ``eval_every`` steps and after the
    last; it gets a copy of the weights of that moment, which it may keep. ``progress`` shows one
    line, updated in place, in a notebook or a terminal. The same weights, batches and settings
    give the same result, bit for bit. ``params`` itself is left as it is.
    """
    params = copied(params)  # checked, with float64 arrays of our own, which the steps change in place
    _check_functions(batch_fn, evaluate)
    check_whole(steps, "steps", 0, MAX_STEPS)
    check_whole(eval_every, "eval_every", 1, MAX_STEPS)
    optimizer = AdamW(lr, betas, eps, weight_decay)
    weights = leaves(params)  # the arrays of params, which AdamW moves
    state = optimizer.init(weights)
    losses, evaluated = np.zeros(steps), []
    bar = ProgressLine(steps) if yes_or_no(progress, "progress") else None
    if evaluate is not None:
        evaluated.append((0, _evaluated(evaluate, params)))
    for step in range(steps):
        value, grads = _loss_and_grads(params, batch_fn, step, lr)
        if not optimizer.step(weights, leaves(grads), state):  # leaves: as weights
            raise NonFiniteError(
                _("training diverged at step {step}: AdamW's move is not finite; try a larger eps").format(step=step)
            )
        losses[step] = value + 0.0  # a loss of exactly 0 is kept as 0.0, never shown as -0.0000
        done = step + 1
        if evaluate is not None and (done % eval_every == 0 or done == steps):
            evaluated.append((done, _evaluated(evaluate, params)))
        if bar is not None:
            bar.show(done, losses[step], evaluated[-1][1] if evaluated else None)
    if bar is not None:
        bar.close()
    return params, History(losses, tuple(evaluated))


def _loss_and_grads(params, batch_fn, step, lr):
    """loss_and_grads on the next batch; an overflow at the first step is the start's fault, not the
    learning rate's (no step has moved a weight yet)."""
    try:
        with np.errstate(all="ignore"):  # an overflow is reported below, in words
            return loss_and_grads(params, *_batch(batch_fn))
    except NonFiniteError as error:
        if step == 0:
            raise NonFiniteError(_("training cannot start: {reason}").format(reason=error)) from None
        raise NonFiniteError(
            _(
                "training diverged at step {step}: the loss or a gradient is not finite; try a learning rate below {lr}"
            ).format(step=step, lr=lr)
        ) from None


def _check_functions(batch_fn, evaluate):
    function(batch_fn, _("batch_fn must be a function that returns (inputs, targets); found {value}"))
    if evaluate is not None:
        function(evaluate, _("evaluate must be a function of the weights that returns a number; found {value}"))


def _evaluated(evaluate, params):
    value = evaluate(copied(params))  # a copy: the steps go on in place
    if not is_real(value):
        raise ValueError(_("evaluate(params) must return a number; it returned {value}").format(value=brief(value)))
    return float(value)


def _batch(batch_fn):
    batch = batch_fn()
    if not isinstance(batch, tuple) or len(batch) != 2:
        raise ValueError(
            _("batch_fn must return a pair (inputs, targets); it returned {value}").format(value=brief(batch))
        )
    return batch


# ---- the progress line -----------------------------------------------------------------------


class ProgressLine:
    """One line that says how far training has got: ``step 300/1000 [######..............] loss 2.4512``.

    In a terminal, or in a notebook (where it writes to the cell's output), the line is rewritten in
    place with a carriage return, a limited number of times; elsewhere (a log, a test) only the
    last line is written. It shows steps and losses, never times, so a notebook's stored output is
    the same on every run (and nbval compares only the line's last state: tests/sanitize.cfg).
    """

    WIDTH = 20  # characters of the bar
    UPDATES = 20  # times the line is redrawn during a run, at most

    def __init__(self, steps, stream=None):
        self.steps = check_whole(steps, "steps", 0, MAX_STEPS)
        self.every = max(1, steps // self.UPDATES)
        notebook = _in_notebook()
        self.stream = stream if stream is not None else (sys.stdout if notebook else sys.stderr)
        self.live = notebook or _is_terminal(self.stream)
        self.last = self.line(0, None, None)
        self.longest = 0  # characters of the longest line written, to blank out in a shorter one
        if self.live:
            self.rewrite()

    def line(self, step, value, held_out):
        filled = self.WIDTH * step // max(self.steps, 1)
        bar = "[" + "#" * filled + "." * (self.WIDTH - filled) + "]"
        if value is None:
            return _("step {step}/{steps} {bar}").format(step=step, steps=self.steps, bar=bar)
        if held_out is None:
            return _("step {step}/{steps} {bar} loss {loss:.4f}").format(
                step=step, steps=self.steps, bar=bar, loss=value
            )
        shown = f"{held_out:.0f}" if float(held_out).is_integer() else f"{held_out:.4f}"  # a count as a whole number
        return _("step {step}/{steps} {bar} loss {loss:.4f}, evaluation {held_out}").format(
            step=step, steps=self.steps, bar=bar, loss=value, held_out=shown
        )

    def show(self, step, value, held_out=None):
        self.last = self.line(step, value, held_out)
        if self.live and (step % self.every == 0 or step == self.steps):
            self.rewrite()

    def close(self):
        if not self.live:
            self.stream.write(self.last)
        self.stream.write("\n")
        self.stream.flush()

    def rewrite(self):  # back to the start of the line, over the longest line so far
        self.longest = max(self.longest, len(self.last))
        self.stream.write("\r" + self.last.ljust(self.longest))
        self.stream.flush()


def _in_notebook():
    """True when a Jupyter kernel runs this (IPython is only looked at if something imported it)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ---- a task's model, learned ----------------------------------------------------------------

TASK_STD = 0.02  # GPT-2's start, which the tasks keep: the command line and notebook 20 were measured from it


def _check_training_cost(task, steps, batch, n_seq):
    """ValueError with the estimate, and the most steps allowed, before a task's model is trained for ``steps`` when
    that would cost over MAX_TRAINING: ``batch`` contexts a step, padded to ``n_seq`` positions, forward and back."""
    check_whole(steps, "steps", 0, MAX_STEPS)
    per_step = 3 * batch * pass_flops(task.structure, n_seq)  # the pass back: about two passes more
    if steps * per_step <= MAX_TRAINING:
        return
    sentence = _(
        "training {task} for {steps} steps would take about {cost:.1e} operations ({batch} contexts a step, forward and back); at most {limit:.0e} are allowed: {most} steps at most"
    )
    said = {"task": task.called(), "steps": steps, "cost": steps * per_step, "batch": batch}
    raise ValueError(sentence.format(**said, limit=MAX_TRAINING, most=int(MAX_TRAINING // per_step)))


def train_task(task, steps=300, *, seed=0, lr=3e-2, progress=True):
    """(params, history): a model of the task's shape, trained from a seeded random start on the
    contexts the task grades, with AdamW and cross-entropy: all of them at each step when they fit
    in one batch (``MAX_BATCH`` contexts, ``MAX_BATCH_TOKENS`` positions), else, at each step, as
    many as fit, drawn at random (seeded too) from all of them.

    The shape is the one the task is designed for (its width, blocks, heads and MLP), so what
    training finds can be put beside the reference solution. Training does not know about the
    margin a pass needs; ``handmade.grader.grade(task, params)`` says whether it got there.
    """
    from ..course.tasks import blank, examples, get_task

    task = get_task(task)
    check_whole(seed, "seed", 0, MAX_SEED)
    rng = generator(seed)  # the shape is blank(task)'s; its matrices drawn from normal(0, TASK_STD)
    start = map_arrays(lambda w: rng.normal(0.0, TASK_STD, size=w.shape) if w.ndim == 2 else w, blank(task))
    params = check_weights(start, Labels(task.alphabet, Basis.numbered(task.n_embd)))  # directions e0, e1, ...
    windows = {(e.context[-task.n_ctx :], e.expected): e for e in examples(task)}  # what the model can see, once each
    if len(windows) > MAX_BATCH_TOKENS:  # learned from, all of them: said before anything is drawn
        raise ValueError(
            _(
                "{task} grades {n} different contexts; training draws its batches from at most {limit}: design it by hand, or train on a task with fewer"
            ).format(task=task.called(), n=len(windows), limit=MAX_BATCH_TOKENS)
        )
    n_seq = max(len(context) for context, _expected in windows)
    fits = min(MAX_BATCH, MAX_BATCH_TOKENS // n_seq)  # contexts in one batch
    batch_size = None if len(windows) <= fits else fits  # None: all of them at each step
    _check_training_cost(task, steps, batch_size or len(windows), n_seq)
    batch_fn = example_batches(list(windows.values()), batch_size, task.n_ctx, seed, alphabet=task.alphabet)
    return train(params, batch_fn, steps, lr, progress=progress)
