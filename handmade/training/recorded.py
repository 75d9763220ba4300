"""The forward pass, recorded: ``gpt()`` run once on a whole batch, keeping what the backward pass reads.

``gpt()`` hands every intermediate to ``tap(name, array)``; ``record`` listens (``with recording``)
and sorts what it hears, once, into a ``Recorded``: the stream's arrays, and a ``RecordedBlock`` of
each block's. The fields are named as ``names.T`` names the taps, and ``Structure.taps`` says
which full name each one was tapped under, so no backward function looks an array up by a string.
"""

from dataclasses import dataclass, fields
from functools import lru_cache

import numpy as np

from ..model import gpt, recording
from ..names import INTERMEDIATES, T
from ..weights import NonFiniteError, check_weights, where_non_finite
from .limits import check_inputs


@dataclass(frozen=True)
class RecordedBlock:
    """What one block made in the forward pass that its backward pass reads: [B, n_seq, ...] each."""

    qkv: np.ndarray  # [B, n_seq, 3*n_attn]: q | k | v side by side
    attention_weights: tuple  # one [B, n_seq, n_seq] per head: softmax(scaled scores + mask)
    attention_output: np.ndarray  # [B, n_seq, n_attn]: every head's weights @ v, side by side
    residual: np.ndarray  # [B, n_seq, n_embd]: x + attention, the stream after attention
    ln_1: np.ndarray | None = None  # [B, n_seq, n_embd]: ln_1(x), attention's input, if the block has ln_1
    ln_2: np.ndarray | None = None  # [B, n_seq, n_embd]: ln_2(residual), the mlp's input, if it has ln_2
    mlp_pre: np.ndarray | None = None  # [B, n_seq, n_hidden]: linear(x, **c_fc), gelu's input, if it has an mlp
    mlp_hidden: np.ndarray | None = None  # [B, n_seq, n_hidden]: gelu(linear(x, **c_fc)), if it has an mlp
    mlp_residual: np.ndarray | None = None  # [B, n_seq, n_embd]: residual + mlp, if it has an mlp

    @property
    def output(self):  # [B, n_seq, n_embd]: what the block wrote to the stream
        return self.residual if self.mlp_residual is None else self.mlp_residual


@dataclass(frozen=True)
class Recorded:
    """What one pass of ``gpt()`` over a batch made that its backward pass reads: [B, n_seq, ...] each."""

    embedding: np.ndarray  # [B, n_seq, n_embd]: wte[inputs] + wpe[positions]
    blocks: tuple  # a RecordedBlock per block, in order
    logits: np.ndarray  # [B, n_seq, n_vocab]
    ln_f: np.ndarray | None = None  # [B, n_seq, n_embd]: ln_f(x), if the model has ln_f


KEPT = {f.name for f in fields(Recorded)} | {f.name for f in fields(RecordedBlock)}
assert KEPT - {"blocks"} <= set(INTERMEDIATES), "each field is named as its tap"


def record(params, inputs):  # [B, n_seq] -> Recorded
    """Run ``gpt()`` once on the whole batch while recording every intermediate it taps.

    NonFiniteError, naming the first intermediate that overflowed, when the logits are not finite or
    lie further apart than float64 can subtract (the loss would be inf or nan)."""
    params = check_weights(params)
    inputs = check_inputs(inputs, params)
    tapped = {}  # {full name: array}, as gpt() tapped them
    with np.errstate(all="ignore"), recording(tapped.__setitem__):
        logits = gpt(inputs, **params)
        spread = logits - logits.max(axis=-1, keepdims=True)  # what log_softmax subtracts
    if not np.isfinite(spread).all():
        raise NonFiniteError(where_non_finite(inputs, params, tapped))
    return sorted_out(tapped, params.structure)


def sorted_out(tapped, structure):
    """A ``Recorded`` of the arrays the backward pass reads, by the full names ``structure`` taps them under."""
    stream, blocks = tapped_as(structure)
    return Recorded(
        blocks=tuple(
            RecordedBlock(attention_weights=tuple(tapped[name] for name in heads), **_picked(tapped, kept))
            for kept, heads in blocks
        ),
        **_picked(tapped, stream),
    )


def _picked(tapped, fields_tapped_as):  # {field: full name} -> {field: array}
    return {field: tapped[name] for field, name in fields_tapped_as.items()}


@lru_cache(maxsize=64)
def tapped_as(structure):
    """The full name each field of a ``Recorded`` of this structure was tapped under: ({field: full
    name} of the stream, and per block ({field: full name}, (each head's attention weights' name)))."""
    stream, blocks = {}, [({}, []) for _block in structure.blocks]
    for name in structure.taps(derived=False):  # in the order gpt() taps them
        kept, heads = (stream, None) if name.block is None else blocks[name.block]
        if name.kind == T.attention_weights:  # one per head, in order
            heads.append(name)
        elif name.head is None and name.kind in KEPT:  # a head's own output is in the block's, side by side
            kept[name.kind] = name
    return stream, tuple((kept, tuple(heads)) for kept, heads in blocks)
