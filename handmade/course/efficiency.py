"""What a forward pass costs: a FLOP counter, and generation with a key/value cache.

The counter is a listener of ``gpt()``'s recording: every line of the forward pass reports the
array it made, and the counter works out the operations behind it, so counting needs no second
copy of the maths and costs nothing when nobody is counting. The same counts in closed form, from
a model's structure alone, are ``handmade.cost``'s (the model's own request limits use them).
The cache lets a new token attend to the keys and values of earlier ones instead of recomputing
them; it is the same ``gpt()`` with ``cache=`` passed.
"""

from dataclasses import dataclass

import numpy as np

from ..cost import GELU_FLOPS, layer_norm_flops, linear_flops, matmul_flops, softmax_flops
from ..i18n import _
from ..inference import check_request, context_tokens, next_logits, prepare
from ..model import recording, softmax
from ..names import T
from ..tokenizer import untokenize
from ..weights import check_weights, forward


class FlopCounter:
    """A listener for ``gpt()`` that adds up the operations behind each tapped array, in order.

    The forward pass only says what it made (``tap("scores", q @ k.T)``); the formulas live here.
    They need the model's widths, which the counter reads from its ``Structure``, and the shapes of
    the arrays it hears. Use it as ``with recording(FlopCounter(params)) as counter: gpt(...)``.
    """

    def __init__(self, params):
        self.by_name = {}
        self.structure = check_weights(params).structure
        self.tapped = {name: name for name in self.structure.taps(derived=False)}  # each with its kind, block, head
        self._n_k = 0  # keys the current head attended over

    def __call__(self, name, array):
        self.by_name[name] = self.by_name.get(name, 0) + self.operations(name, array)

    def operations(self, name, array):
        tapped, (m, n) = self.tapped[name], (array.shape[0], array.shape[-1])
        kind, n_embd = tapped.kind, self.structure.n_embd
        block = self.structure.blocks[tapped.block] if tapped.block is not None else None
        if kind in (T.embedding, T.residual, T.mlp_residual, T.scaled_scores, T.masked_scores):
            return array.size  # one addition (or division) per entry
        if kind in (T.ln_1, T.ln_2, T.ln_f):
            return layer_norm_flops(m, n)
        if kind == T.qkv:
            return linear_flops(m, n_embd, n)
        if kind == T.scores:
            return matmul_flops(m, block.d_head, n)
        if kind == T.attention_weights:
            self._n_k = n
            return softmax_flops(m, n)
        if kind == T.attention_output:  # weights @ v in a head; several heads side by side cost nothing
            return matmul_flops(m, self._n_k, n) if tapped.head is not None or block.n_head == 1 else 0
        if kind == T.c_proj_output:
            return linear_flops(m, block.n_attn, n)
        if kind == T.mlp_hidden:
            return linear_flops(m, n_embd, n) + GELU_FLOPS * array.size
        if kind == T.mlp_output:
            return linear_flops(m, block.n_hidden, n)
        if kind == T.logits:
            return matmul_flops(m, n_embd, n)
        return 0  # lookups (the embeddings) and the mask, a constant

    @property
    def total(self):
        return sum(self.by_name.values())


def count_flops(text, params=None, *, alphabet=None):
    """The FlopCounter of one forward pass over ``text`` (its last n_ctx tokens)."""
    params = prepare(params, alphabet)
    with recording(FlopCounter(params)) as counter:
        forward(context_tokens(text, params), params)
    return counter


def blog_flops(n_seq, n_embd, n_vocab):
    """Operations of one pass of a blog-shaped model (one block, one head, no norms, no MLP),
    term by term, in the order the pass does them."""
    n, d, v = n_seq, n_embd, n_vocab
    return {
        _("embedding: wte + wpe"): n * d,
        "qkv = x @ c_attn.w + b": n * 3 * d * 2 * d,
        "scores = q @ k.T": n * n * (2 * d - 1),
        _("divide by sqrt(d)"): n * n,
        _("add the mask"): n * n,
        "softmax": n * (5 * n - 2),
        "weights @ v": n * d * (2 * n - 1),
        "c_proj": n * d * 2 * d,
        _("residual: x + ..."): n * d,
        "logits = x @ wte.T": n * v * (2 * d - 1),
    }


def aab_rule(context):
    """The whole model in three lines (the blog's eight assembly instructions, in Python)."""
    if context[-1:] == "a" and context[-2:-1] != "b":  # the last token is a, and before it a (or nothing)
        return "b"
    return "a"


@dataclass(frozen=True)
class Step:
    token: str  # the token generated at this step
    logits: np.ndarray  # [n_vocab]: the logits it was chosen from
    flops: int  # the operations this step cost
    full_pass_flops: int  # what recomputing the whole window would have cost


def generate_with_cache(text, max_new_tokens=10, params=None, *, alphabet=None):
    """Greedy generation like ``complete``, with its key/value cache; returns one Step per token.

    It is ``continuation``'s own loop (``handmade.inference.next_logits``), with each pass counted:
    the model's positions are absolute (``wpe``), so once the window of n_ctx tokens is full and
    slides on, every cached key is at the wrong position: the cache is then rebuilt from the
    window, and that step costs as much as a full pass.
    """
    params = prepare(params, alphabet)
    n_ctx = len(params["wpe"])
    tokens = context_tokens(text, params)  # refuses an empty context
    check_request(max_new_tokens, len(tokens), params)
    passes, steps = next_logits(tokens, params, max_new_tokens), []
    for _step in range(max_new_tokens):
        with recording(FlopCounter(params)) as counter:
            logits = next(passes)  # the cached pass runs here, heard by the counter
        token = int(np.argmax(softmax(logits)))
        with recording(FlopCounter(params)) as full:
            forward(tokens[-n_ctx:], params)
        steps.append(Step(untokenize([token], params.labels.alphabet), logits, counter.total, full.total))
        tokens.append(token)
    return steps
