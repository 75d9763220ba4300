"""The forward pass: GPT-2 in the shape of picoGPT, one small numpy function per idea.

Parameter names equal the keys of the weights dict, so ``gpt(tokens, **weights)`` wires itself.
The parts of GPT-2 that the blog removed (``ln_1``, ``ln_2``, ``mlp``, ``ln_f`` and several
heads) are optional: absent, the block is exactly the blog's. ``cache`` (a ``KVCache``, below)
lets new tokens attend to the keys and values of earlier ones.

Every intermediate passes through ``tap(name, array)``, which returns its argument. Nobody
listens unless a caller asks, ``with recording(listener): gpt(...)``: the listener then hears each
array under its ``Name`` (below), which says its block and head too. That is how the trace,
the FLOP counter, the grader and training see the very arithmetic that ran. ``gpt()`` trusts its inputs and weights, as
picoGPT does: ``handmade.weights.forward`` checks them where they come from people. Every function
also takes a batch, [B, n_seq] tokens at once (each shape gains a leading B), which is how
``handmade.training`` runs a whole batch through the same pass.
"""

import contextlib

import numpy as np


def softmax(x):  # [..., n] -> [..., n]: each row becomes positive numbers that sum to 1
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def linear(x, w, b):  # [m, in], [in, out], [out] -> [m, out]
    return x @ w + b


def layer_norm(x, g, b, eps=1e-5):  # [m, n], [n], [n] -> [m, n]
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)  # each row now has mean 0 and variance 1
    return g * x + b  # then g scales and b shifts every column


def gelu(x):  # [...] -> [...]: GPT-2's smooth ReLU
    x = tap("mlp_pre", x)  # the MLP's pre-activation: gelu is the MLP's alone
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def ffn(x, c_fc, c_proj):  # [m, n_embd] -> [m, n_embd]
    a = tap("mlp_hidden", gelu(linear(x, **c_fc)))  # [m, n_embd] -> [m, n_hidden]
    return tap("mlp_output", linear(a, **c_proj))  # [m, n_hidden] -> [m, n_embd]


def causal_mask(n_q, n_k=None):  # -> [n_q, n_k]: 0 where a query may look, -inf where it may not
    n_k = n_q if n_k is None else n_k  # with a cache, the n_q queries are the last of n_k positions
    return np.where(np.tri(n_q, n_k, n_k - n_q, dtype=bool), 0.0, -np.inf)


def attention(q, k, v, mask):  # [n_q, d_k], [n_k, d_k], [n_k, d_v], [n_q, n_k] -> [n_q, d_v]
    scores = tap("scores", q @ k.mT)  # [n_q, n_k]: how well each query matches each key (k.mT: k transposed)
    scaled = tap("scaled_scores", scores / np.sqrt(q.shape[-1]))
    weights = tap("attention_weights", softmax(tap("masked_scores", scaled + mask)))  # rows sum to 1
    return tap("attention_output", weights @ v)  # [n_q, d_v]: each row a weighted average of v's rows


def causal_self_attention(x, c_attn, c_proj, n_head=1, cache=None):  # [n_seq, n_embd] -> [n_seq, n_embd]
    qkv = tap("qkv", linear(x, **c_attn))  # [n_seq, n_embd] -> [n_seq, 3*n_attn]
    q, k, v = np.split(qkv, 3, axis=-1)  # [n_seq, 3*n_attn] -> 3 of [n_seq, n_attn]
    if cache is not None:  # the keys and values of earlier positions come first
        k, v = cache.extend(k, v)  # -> 2 of [n_past + n_seq, n_attn]
    mask = causal_mask(q.shape[-2], k.shape[-2])  # [n_seq, n_past + n_seq]
    if n_head == 1:
        out = attention(q, k, v, mask)  # [n_seq, n_attn]
    else:  # each head attends with its own slice of q, k and v: n_head of [n_seq, n_attn / n_head]
        heads = []
        for i, head in enumerate(zip(*(np.split(m, n_head, axis=-1) for m in (q, k, v)))):
            with scope("head", i):
                heads.append(attention(*head, mask))
        out = tap("attention_output", np.concatenate(heads, axis=-1))  # [n_seq, n_attn]: the heads side by side
    return tap("c_proj_output", linear(out, **c_proj))  # [n_seq, n_attn] -> [n_seq, n_embd]


def transformer_block(x, attn, ln_1=None, ln_2=None, mlp=None, n_head=1, cache=None):  # [n_seq, n_embd] -> same
    h = x if ln_1 is None else tap("ln_1", layer_norm(x, **ln_1))
    x = tap("residual", x + causal_self_attention(h, **attn, n_head=n_head, cache=cache))  # the residual connection
    if mlp is not None:
        h = x if ln_2 is None else tap("ln_2", layer_norm(x, **ln_2))
        x = tap("mlp_residual", x + ffn(h, **mlp))
    return x


def gpt(inputs, wte, wpe, blocks, ln_f=None, cache=None):  # [n_seq] -> [n_seq, n_vocab]
    start = 0 if cache is None else cache.advance(np.shape(inputs)[-1])  # positions already in the cache come first
    token_emb = tap("token_embedding", wte[inputs])  # [n_seq] -> [n_seq, n_embd]
    pos_emb = tap("position_embedding", wpe[start : start + np.shape(inputs)[-1]])  # [n_seq, n_embd]
    x = tap("embedding", token_emb + pos_emb)
    for i, block in enumerate(blocks):
        with scope("blocks", i):
            x = transformer_block(x, **block, cache=None if cache is None else cache.layer(i))
    if ln_f is not None:
        x = tap("ln_f", layer_norm(x, **ln_f))
    return tap("logits", x @ wte.T)  # [n_seq, n_embd] -> [n_seq, n_vocab]: a score per token


# ---- the key/value cache ----------------------------------------------------------------------


class KVCache:
    """The keys and values of the positions processed so far, one pair of arrays per block.

    Pass it to ``gpt(..., cache=...)``: the new tokens get the next positions, attend to the
    cached keys and values and to each other, and their own keys and values are appended.
    """

    def __init__(self):
        self.layers = []
        self.length = 0  # positions run so far (a model with no blocks caches nothing, but positions count)
        self.model = None  # the weights that filled it, where ``handmade.weights.forward`` ran them: no others may

    def __len__(self):  # how many positions are cached
        return self.length

    def advance(self, n):
        """Count ``n`` new positions; returns how many came before them (where they start)."""
        start, self.length = self.length, self.length + n
        return start

    def layer(self, i):
        while len(self.layers) <= i:
            self.layers.append(_LayerCache())
        return self.layers[i]

    def state(self):
        """What it holds now, for ``restore``: a pass that fails is taken back, as if it never ran."""
        return self.length, [(layer.k, layer.v) for layer in self.layers]

    def restore(self, state):
        self.length, kept = state
        del self.layers[len(kept) :]
        for layer, (k, v) in zip(self.layers, kept):
            layer.k, layer.v = k, v


class _LayerCache:
    def __init__(self):
        self.k = self.v = None

    def extend(self, k, v):  # append this pass's keys and values (after the earlier positions); return all of them
        self.k = k if self.k is None else np.concatenate([self.k, k], axis=-2)  # [..., n_past + n_seq, n_attn]
        self.v = v if self.v is None else np.concatenate([self.v, v], axis=-2)
        return self.k, self.v


# ---- listening in ---------------------------------------------------------------------------
# Everything below serves the trace, the FLOP counter, the grader and training; the maths above
# does not depend on it.


class Name(str):
    """A full name, such as ``"blocks[1].head0.scores"``: the string, with its ``kind`` (``"scores"``;
    None for a head itself), ``block`` and ``head`` (None where there is none). Equal to, and hashed
    as, the string it spells. ``handmade.names`` has the naming rule and declares every tap."""

    def __new__(cls, kind, block=None, head=None):
        scopes = [f"blocks[{block}]"] * (block is not None) + [f"head{head}"] * (head is not None)
        name = super().__new__(cls, ".".join(scopes + [kind] * (kind is not None)))
        name.kind, name.block, name.head, name._scopes = kind, block, head, scopes
        return name

    def __getnewargs__(self):  # a copy or a pickle is made again from the parts, not from the string
        return self.kind, self.block, self.head

    @property
    def scope(self):
        """Where it is, ``"blocks[1].head0"`` (``""`` at the model's level): what a heading adds to a title."""
        return ".".join(self._scopes)

    def forms(self):
        """The ways to say it, longest first: in full, then with its leading scopes left out one by one."""
        kind = [self.kind] * (self.kind is not None)
        return [".".join(self._scopes[start:] + kind) for start in range(len(self._scopes) + len(kind))]


_listener = None  # called as _listener(name, array) at every tap, while someone is recording
_where = (None, None)  # the block and the head the pass is in: what a Name says


_names = {}  # (kind, block, head) -> its Name, made the first time a pass taps it


def _heard(kind, array):
    """``tap`` while someone is recording: hand ``array`` over under its Name, ``blocks[0].head1.scores``."""
    where = (kind, *_where)
    _listener(_names.get(where) or _names.setdefault(where, Name(*where)), array)
    return array


_unheard = {}.get  # ``tap`` while nobody listens: {}.get(name, array) is the array itself, a built-in call

tap = _unheard  # tap(name, array) returns array; `recording` makes it _heard, then puts it back


@contextlib.contextmanager
def scope(kind, i):
    """``with scope("blocks", 0):`` every array tapped inside is block 0's (``scope("head", 1)``: head 1's),
    and the Name it is heard under says so."""
    global _where
    outer = _where
    block, _head = outer
    _where = (i, None) if kind == "blocks" else (block, i)
    try:
        yield
    finally:
        _where = outer


@contextlib.contextmanager
def recording(listener):
    """``with recording(listener):`` every tap inside calls ``listener(name, array)``.

    Recordings nest: an inner one replaces the outer one until it ends.
    """
    global tap, _listener, _where
    outer = (tap, _listener, _where)
    tap, _listener, _where = _heard, listener, (None, None)
    try:
        yield listener
    finally:
        tap, _listener, _where = outer
