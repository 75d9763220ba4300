"""Bounds on what may be asked of training, and the checks that keep to them.

Every check raises a one-line error that names the argument, what is allowed and what it found: a
TypeError for the wrong kind, a ValueError for a value out of bounds (``handmade.arguments``).
"""

import numpy as np

from ..arguments import brief, token_ids
from ..arguments import number as check_number  # noqa: F401  (the checks every argument of the package gets)
from ..arguments import seeded as generator  # noqa: F401
from ..arguments import whole as check_whole
from ..i18n import _
from ..weights import check_weights
from .losses import IGNORE

MAX_STEPS = 100_000  # steps one call to train() may take
MAX_SEED = 2**32 - 1  # the largest seed a random start takes
MAX_BATCH = 1024  # sequences in one batch
MAX_BATCH_TOKENS = 32_768  # positions in one batch (sequences x their length)
MAX_LR = 1.0  # Adam moves each weight by about lr a step: beyond 1 nothing learns, it only diverges
# what training a task may cost: its passes forward (cost.pass_flops) and back (counted as two passes more); at about
# 3e8 a second on the development machine (a 2-block task of 16 wide), some ten minutes
MAX_TRAINING = 2e11


def check_batch_size(batch_size, n_seq):
    check_whole(batch_size, "batch_size", 1, MAX_BATCH)
    if batch_size * n_seq > MAX_BATCH_TOKENS:
        raise ValueError(
            _("batch_size {batch} of {n} tokens each is {total} tokens; at most {limit} fit in one batch").format(
                batch=batch_size, n=n_seq, total=batch_size * n_seq, limit=MAX_BATCH_TOKENS
            )
        )


def token_array(ids, what):  # [n_seq] or [B, n_seq] -> [B, n_seq] int64
    """``ids`` as a batch of token ids (one sequence is a batch of one): ``handmade.arguments.token_ids``."""
    array = token_ids(ids, what)
    if array is None or array.ndim not in (1, 2) or 0 in array.shape:
        raise ValueError(
            _("{what} must be token ids in a [batch, n_seq] array of whole numbers; found {value}").format(
                what=what, value=brief(ids)
            )
        )
    return np.atleast_2d(array)


def check_inputs(inputs, params):
    """``inputs`` as a [B, n_seq] int64 array of ids that ``params`` (checked weights) can run, or a one-line ValueError."""
    n_vocab, n_ctx = len(params["wte"]), len(params["wpe"])
    inputs = token_array(inputs, _("inputs"))
    batch, n_seq = inputs.shape
    if not 1 <= n_seq <= n_ctx:
        raise ValueError(
            _("the sequences have {n} tokens; this model takes 1 to {limit} (its n_ctx)").format(n=n_seq, limit=n_ctx)
        )
    if not 1 <= batch <= MAX_BATCH or batch * n_seq > MAX_BATCH_TOKENS:
        raise ValueError(
            _(
                "a batch of {batch} sequences of {n} tokens is too large: at most {limit} sequences and {tokens} tokens"
            ).format(batch=batch, n=n_seq, limit=MAX_BATCH, tokens=MAX_BATCH_TOKENS)
        )
    low, high = inputs.min(), inputs.max()
    if low < 0 or high >= n_vocab:
        raise ValueError(
            _("inputs hold the token id {value}; ids go from 0 to {top} (n_vocab = {n})").format(
                value=low if low < 0 else high, top=n_vocab - 1, n=n_vocab
            )
        )
    return inputs


def check_batch(inputs, targets, params):
    """``inputs`` and ``targets`` as [B, n_seq] int64 arrays that fit ``params``, or a one-line ValueError."""
    params = check_weights(params)
    inputs = check_inputs(inputs, params)
    targets = token_array(targets, _("targets"))
    if inputs.shape != targets.shape:
        raise ValueError(
            _("inputs have shape {inputs} but targets have shape {targets}; they must be the same").format(
                inputs=inputs.shape, targets=targets.shape
            )
        )
    n_vocab = len(params["wte"])
    low, high = targets.min(), targets.max()
    if low < IGNORE or high >= n_vocab:
        raise ValueError(
            _("targets hold the token id {value}; ids go from 0 to {top}, or {ignore} for no target").format(
                value=low if low < IGNORE else high, top=n_vocab - 1, ignore=IGNORE
            )
        )
    if high == IGNORE:  # the largest is -1: every target is
        raise ValueError(
            _("every target is {ignore} (no target): give at least one to learn from").format(ignore=IGNORE)
        )
    return inputs, targets
