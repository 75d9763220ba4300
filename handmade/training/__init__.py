"""Learning the weights instead of setting them: the gradients written out by hand, AdamW, a loop.

The forward pass is ``handmade.model``'s ``gpt()``, unchanged. ``loss_and_grads`` runs it once on
the whole batch while recording every intermediate it taps (``record``), so the backward pass
works from the very numbers the forward pass made. The backward pass then walks the forward one in
reverse, one function per forward function, each written beside the idea it undoes::

    forward                          backward (given d_y, how the loss changes with y)
    linear(x, w, b)                  linear_backward(d_y, x, w)         -> d_x, {"w", "b"}
    softmax(x)                       softmax_backward(d_y, y)           -> d_x
    layer_norm(x, g, b)              layer_norm_backward(d_y, x, g)     -> d_x, {"g", "b"}
    gelu(x)                          gelu_backward(d_y, x)              -> d_x
    ffn(x, c_fc, c_proj)             ffn_backward(...)                  -> d_x, {"c_fc", "c_proj"}
    attention(q, k, v, mask)         attention_backward(...)            -> d_q, d_k, d_v
    causal_self_attention(x, ...)    causal_self_attention_backward(...) -> d_x, {"c_attn", "c_proj"}
    transformer_block(x, ...)        transformer_block_backward(...)    -> d_x, grads of the block
    gpt(inputs, ...)                 gpt_backward(...)                  -> grads of every weight

The gradients have the nesting and keys of the weights (``grads["blocks"][0]["attn"]["c_attn"]["w"]``);
``n_head`` is a count, not a weight, so it has no gradient and is left out. The tests check every
gradient against finite differences.

The package, in the order a step uses it:

- ``losses``: the cross-entropy loss and its gradient, where the backward pass starts;
- ``recorded``: the forward pass over a batch, recorded once into a ``Recorded`` of what the
  backward pass reads (a ``RecordedBlock`` per block);
- ``backward``: the backward twins, ``gpt_backward`` and ``loss_and_grads``, which puts them together;
- ``optimizer``: AdamW, which moves a flat list of arrays (``leaves(params)``) in place;
- ``batching``: random batches of a text, or of (context, next token) examples;
- ``init``: ``init_params``, a random start of any shape;
- ``loop``: ``train``, its ``History`` and ``ProgressLine``, and ``train_task``;
- ``limits``: the bounds on what may be asked, and the checks that keep to them.
"""

from ..weights import map_arrays
from .backward import (
    GELU_CUBIC,
    GELU_SCALE,
    LAYER_NORM_EPS,
    attention_backward,
    causal_self_attention_backward,
    ffn_backward,
    flat,
    gelu_backward,
    gpt_backward,
    layer_norm_backward,
    linear_backward,
    loss,
    loss_and_grads,
    softmax_backward,
    thirds,
    transformer_block_backward,
    transposed,
)
from .batching import batches, example_batches
from .init import init_params
from .limits import MAX_BATCH, MAX_BATCH_TOKENS, MAX_LR, MAX_SEED, MAX_STEPS, check_batch
from .loop import TASK_STD, History, ProgressLine, train, train_task
from .losses import IGNORE, cross_entropy, cross_entropy_backward, log_softmax
from .optimizer import AdamState, AdamW, leaves
from .recorded import Recorded, RecordedBlock, record

__all__ = [
    "GELU_CUBIC",
    "GELU_SCALE",
    "IGNORE",
    "LAYER_NORM_EPS",
    "MAX_BATCH",
    "MAX_BATCH_TOKENS",
    "MAX_LR",
    "MAX_SEED",
    "MAX_STEPS",
    "TASK_STD",
    "AdamState",
    "AdamW",
    "History",
    "ProgressLine",
    "Recorded",
    "RecordedBlock",
    "attention_backward",
    "batches",
    "causal_self_attention_backward",
    "check_batch",
    "cross_entropy",
    "cross_entropy_backward",
    "example_batches",
    "ffn_backward",
    "flat",
    "gelu_backward",
    "gpt_backward",
    "init_params",
    "layer_norm_backward",
    "leaves",
    "linear_backward",
    "log_softmax",
    "loss",
    "loss_and_grads",
    "map_arrays",
    "record",
    "softmax_backward",
    "thirds",
    "train",
    "train_task",
    "transformer_block_backward",
    "transposed",
]
