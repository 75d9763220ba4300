"""handmade: a GPT-style transformer whose every weight is set by hand.

``import handmade`` needs numpy only; plotting and widgets load when first used.
"""

import sys

if sys.argv[:1] == ["-m"] and sys.orig_argv[sys.orig_argv.index("-m") + 1 :][:1] == ["handmade"]:  # python -m handmade
    from ._quiet import quiet_interrupts

    quiet_interrupts()  # Ctrl-C from the very start: one line and status 130, never a traceback

from .basis import Basis, Labels, qkv_weights, split_qkv
from .blog import (
    ALPHABET,
    BASIS,
    BLOG_LITERALS,
    LABELS,
    LG,
    N_CTX,
    N_EMBD,
    N_VOCAB,
    TASK_TEXT,
    blog_model,
    flip_model,
    literal_model,
    two_head_model,
)
from .course.tasks import task
from .files import load_weights, save_weights, weights_from_json, weights_to_json
from .i18n import set_language
from .inference import (
    Example,
    Prediction,
    Score,
    accuracy,
    complete,
    continuation,
    next_in_pattern,
    predict,
    prefix_examples,
    sample,
    unambiguous_examples,
)
from .model import (
    TAPS,
    attention,
    causal_mask,
    causal_self_attention,
    ffn,
    gelu,
    gpt,
    layer_norm,
    linear,
    recording,
    scope,
    softmax,
    transformer_block,
)
from .parts import with_part, with_parts, with_qkv
from .tokenizer import tokenize, untokenize
from .weights import NonFiniteError, Weights, WeightsError, check_weights, forward

__version__ = "0.1.0"

__all__ = [
    "ALPHABET",
    "BASIS",
    "BLOG_LITERALS",
    "Basis",
    "Example",
    "LABELS",
    "LG",
    "Labels",
    "N_CTX",
    "N_EMBD",
    "N_VOCAB",
    "NonFiniteError",
    "Prediction",
    "Score",
    "TAPS",
    "TASK_TEXT",
    "Weights",
    "WeightsError",
    "accuracy",
    "attention",
    "blog_model",
    "causal_mask",
    "causal_self_attention",
    "check_weights",
    "complete",
    "continuation",
    "ffn",
    "flip_model",
    "forward",
    "gelu",
    "gpt",
    "layer_norm",
    "linear",
    "literal_model",
    "load_weights",
    "next_in_pattern",
    "predict",
    "prefix_examples",
    "qkv_weights",
    "recording",
    "sample",
    "save_weights",
    "scope",
    "set_language",
    "softmax",
    "split_qkv",
    "task",
    "tokenize",
    "transformer_block",
    "two_head_model",
    "unambiguous_examples",
    "untokenize",
    "weights_from_json",
    "weights_to_json",
    "with_part",
    "with_parts",
    "with_qkv",
]
