"""What a forward pass costs: a FLOP counter, its closed form, and a key/value cache.

The counter is a recorder for ``gpt()``: every line of the forward pass reports the operations it
did, so counting needs no second copy of the maths and costs nothing when nobody is counting.
The cache lets a new token attend to the keys and values of earlier ones instead of recomputing
them; it is the same ``gpt()`` with ``cache=`` passed.
"""

from dataclasses import dataclass

import numpy as np

from .inference import context_tokens, prepare
from .model import forward, softmax
from .tokenizer import tokenize, untokenize


class FlopCounter:
    """A recorder that adds up floating-point operations, per intermediate, in order."""

    def __init__(self):
        self.by_name = {}

    def __call__(self, name, array, flops):
        self.by_name[name] = self.by_name.get(name, 0) + flops

    @property
    def total(self):
        return sum(self.by_name.values())


def count_flops(text, params=None, *, alphabet="ab"):
    """The FlopCounter of one forward pass over ``text`` (its last n_ctx tokens)."""
    params = prepare(params, alphabet)
    counter = FlopCounter()
    forward(np.array(context_tokens(text, params, alphabet)), params, record=counter)
    return counter


def blog_flops(n_seq, n_embd, n_vocab):
    """Operations of one pass of a blog-shaped model (one block, one head, no norms, no MLP),
    term by term, in the order the pass does them."""
    n, d, v = n_seq, n_embd, n_vocab
    return {
        "embedding: wte + wpe": n * d,
        "qkv = x @ c_attn.w + b": n * 3 * d * 2 * d,
        "scores = q @ k.T": n * n * (2 * d - 1),
        "divide by sqrt(d)": n * n,
        "add the mask": n * n,
        "softmax": n * (5 * n - 2),
        "weights @ v": n * d * (2 * n - 1),
        "c_proj": n * d * 2 * d,
        "residual: x + ...": n * d,
        "logits = x @ wte.T": n * v * (2 * d - 1),
    }


def aab_rule(context):
    """The whole model in three lines (the blog's eight assembly instructions, in Python)."""
    if context[-1:] == "a" and context[-2:-1] != "b":  # the last token is a, and before it a (or nothing)
        return "b"
    return "a"


# ---- the key/value cache ------------------------------------------------------------------


class KVCache:
    """The keys and values of the positions processed so far, one pair of arrays per block.

    Pass it to ``gpt(..., cache=...)``: the new tokens get the next positions, attend to the
    cached keys and values and to each other, and their own keys and values are appended.
    """

    def __init__(self):
        self.layers = []

    def __len__(self):  # how many positions are cached
        return len(self.layers[0].k) if self.layers else 0

    def layer(self, i):
        while len(self.layers) <= i:
            self.layers.append(_LayerCache())
        return self.layers[i]


class _LayerCache:
    def __init__(self):
        self.k = self.v = None

    def extend(self, k, v):  # append this pass's keys and values; return all of them
        self.k = k if self.k is None else np.vstack([self.k, k])
        self.v = v if self.v is None else np.vstack([self.v, v])
        return self.k, self.v


@dataclass(frozen=True)
class Step:
    token: str  # the token generated at this step
    logits: np.ndarray  # [n_vocab]: the logits it was chosen from
    flops: int  # the operations this step cost
    full_pass_flops: int  # what recomputing the whole window would have cost


def generate_with_cache(text, max_new_tokens=10, params=None, *, alphabet="ab"):
    """Greedy generation like ``complete``, with a key/value cache; returns one Step per token.

    The model's positions are absolute (``wpe``), so once the window of n_ctx tokens is full and
    slides on, every cached key is at the wrong position: the cache is then rebuilt from the
    window, and that step costs as much as a full pass.
    """
    params = prepare(params, alphabet)
    n_ctx = len(params["wpe"])
    tokens = tokenize(text, alphabet)
    context_tokens(text, params, alphabet)  # refuse an empty context
    cache, steps = None, []
    new = tokens[-n_ctx:]  # what the next pass must process
    for _ in range(max_new_tokens):
        if cache is None:
            cache = KVCache()
        counter = FlopCounter()
        logits = forward(np.array(new), params, record=counter, cache=cache)[-1]
        token = int(np.argmax(softmax(logits)))
        full = FlopCounter()
        forward(np.array(tokens[-n_ctx:]), params, record=full)
        steps.append(Step(untokenize([token], alphabet), logits, counter.total, full.total))
        tokens.append(token)
        if len(cache) == n_ctx:  # the window slides: positions change, so start a new cache
            cache, new = None, tokens[-n_ctx:]
        else:
            new = [token]
    return steps
