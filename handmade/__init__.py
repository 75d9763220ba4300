"""handmade: a GPT-style transformer whose every weight is set by hand.

``import handmade`` loads the core alone (the model, its structure, weights, tokens and inference),
which needs numpy only. The layers above it load when first used: ``handmade.task`` and
``handmade.grade`` (the course), ``handmade.display``, ``handmade.widgets`` and ``handmade.training``.
"""

import sys

if sys.argv[:1] == ["-m"] and sys.orig_argv[sys.orig_argv.index("-m") + 1 :][:1] == ["handmade"]:  # python -m handmade
    from ._quiet import quiet_interrupts

    quiet_interrupts()  # Ctrl-C from the very start: one line and status 130, never a traceback
else:
    from ._mistakes import show_mistakes_briefly

    show_mistakes_briefly()  # in a notebook, the package's errors from the learner's last line

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
from .names import TAPS
from .parts import with_part, with_parts, with_qkv
from .tokenizer import tokenize, untokenize
from .weights import NonFiniteError, Weights, WeightsError, check_weights, forward

__version__ = "0.1.0"

_LATER = {  # a name of a layer above the core -> the module that defines it, imported when first asked for
    "task": "handmade.course.tasks",
    "grade": "handmade.course.grader",
    "course": "handmade.course",
    "display": "handmade.display",
    "widgets": "handmade.widgets",
    "training": "handmade.training",
}


def __getattr__(name):
    """``handmade.task``, ``handmade.grade`` and the layers above the core, imported when first used."""
    if name not in _LATER:
        raise AttributeError(f"module 'handmade' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(_LATER[name])
    return module if module.__name__ == f"handmade.{name}" else getattr(module, name)


def __dir__():
    return sorted({*globals(), *_LATER})


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
    "grade",
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
