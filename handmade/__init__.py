"""handmade: a GPT-style transformer whose every weight is set by hand.

``import handmade`` needs numpy only; plotting and widgets load when first used.
"""

from .basis import Basis, qkv_weights, split_qkv
from .blog import (
    ALPHABET,
    BASIS,
    BLOG_LITERALS,
    LG,
    N_CTX,
    N_EMBD,
    N_VOCAB,
    TASK_TEXT,
    blog_model,
    flip_model,
    literal_model,
)
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
    unambiguous_examples,
)
from .model import (
    MASK_VALUE,
    NonFiniteError,
    attention,
    causal_mask,
    causal_self_attention,
    ffn,
    forward,
    gelu,
    gpt,
    layer_norm,
    linear,
    softmax,
    transformer_block,
)
from .tokenizer import tokenize, untokenize
from .weights import WeightsError, check_weights, load_weights, save_weights, weights_from_json, weights_to_json

__version__ = "0.1.0"

__all__ = [
    "ALPHABET",
    "BASIS",
    "BLOG_LITERALS",
    "Basis",
    "Example",
    "LG",
    "MASK_VALUE",
    "N_CTX",
    "N_EMBD",
    "N_VOCAB",
    "NonFiniteError",
    "Prediction",
    "Score",
    "TASK_TEXT",
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
    "save_weights",
    "softmax",
    "split_qkv",
    "tokenize",
    "transformer_block",
    "unambiguous_examples",
    "untokenize",
    "weights_from_json",
    "weights_to_json",
]
