"""The forward pass: GPT-2 in the shape of picoGPT, one small numpy function per idea.

Parameter names equal the keys of the weights dict, so ``gpt(tokens, **weights)`` wires itself.
The parts of GPT-2 that the blog removed (``ln_1``, ``ln_2``, ``mlp``, ``ln_f`` and several
heads) are optional arguments: absent, the block is exactly the blog's.

Two optional arguments let the same maths serve the notebooks, at no cost when left out:

- ``record(name, array, flops)`` is called with each intermediate and the number of
  floating-point operations that made it. ``handmade.trace`` keeps the arrays to show them;
  ``handmade.efficiency.FlopCounter`` adds up the operations.
- ``cache`` (a ``handmade.efficiency.KVCache``) keeps the keys and values of positions already
  seen, so a new token attends to them without recomputing them.

``gpt()`` trusts its weights as picoGPT does; ``forward()`` adds the check for inf and nan.
"""

import numpy as np

from .weights import largest_weight

# A finite stand-in for minus infinity. exp(-1e10) is exactly 0.0, like exp(-inf), but
# 0 * -1e10 is 0 where 0 * -inf would be nan, so the mask can be built by multiplication.
MASK_VALUE = -1e10


def softmax(x):  # [..., n] -> [..., n], every row sums to 1
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def linear(x, w, b):  # [m, in], [in, out], [out] -> [m, out]
    return x @ w + b


def layer_norm(x, g, b, eps=1e-5):  # [m, n], [n], [n] -> [m, n]
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)  # each row now has mean 0 and variance 1
    return g * x + b  # then gamma scales and beta shifts every column


def gelu(x):  # [...] -> [...], GPT-2's smooth ReLU
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


# Operation counts, for the recorder. A product [m, k] @ [k, n] is m*n dot products of k terms:
# k multiplications and k - 1 additions each. Adding a bias is one more addition per entry.


def matmul_flops(m, k, n):
    return m * n * (2 * k - 1)


def linear_flops(m, k, n):
    return matmul_flops(m, k, n) + m * n


def softmax_flops(m, n):  # per row: max (n - 1), subtract (n), exp (n), sum (n - 1), divide (n)
    return m * (5 * n - 2)


def layer_norm_flops(m, n):  # per row: mean (n), variance (3n), normalise (2n + 2), scale and shift (2n)
    return m * (8 * n + 2)


GELU_FLOPS = 8  # per entry: cube (2), four multiplications, an addition, tanh, counted as one each


def ffn(x, c_fc, c_proj, record=None):  # [m, n_embd] -> [m, n_embd]
    hidden = gelu(linear(x, **c_fc))  # [m, n_embd] -> [m, n_hidden]
    out = linear(hidden, **c_proj)  # [m, n_hidden] -> [m, n_embd]
    if record:
        m, n_embd, n_hidden = x.shape[0], x.shape[1], hidden.shape[1]
        record("mlp_hidden", hidden, linear_flops(m, n_embd, n_hidden) + GELU_FLOPS * hidden.size)
        record("mlp_output", out, linear_flops(m, n_hidden, n_embd))
    return out


def causal_mask(n_q, n_k=None, dtype=float):  # -> [n_q, n_k]: 0 where a query may look, else -1e10
    """Query i is the last of the first ``n_k - n_q + i + 1`` tokens; it may see those and no later.

    Without a cache ``n_q == n_k`` and this is the familiar lower triangle.
    """
    n_k = n_q if n_k is None else n_k
    return (1 - np.tri(n_q, n_k, n_k - n_q, dtype=dtype)) * MASK_VALUE


def attention(q, k, v, mask, record=None):  # [n_q, d_k], [n_k, d_k], [n_k, d_v], [n_q, n_k] -> [n_q, d_v]
    scores = q @ k.T  # [n_q, n_k]: how well each query matches each key
    scaled = scores / np.sqrt(q.shape[-1])
    weights = softmax(scaled + mask)  # [n_q, n_k]: each row shares 1 among the visible keys
    out = weights @ v  # [n_q, d_v]: each row is a weighted average of value rows
    if record:
        (n_q, d_k), (n_k, d_v) = q.shape, v.shape
        record("scores", scores, matmul_flops(n_q, d_k, n_k))
        record("scaled_scores", scaled, scores.size)
        record("mask", mask, 0)  # a constant: it does not depend on the tokens
        record("masked_scores", scaled + mask, scores.size)
        record("attention_weights", weights, softmax_flops(n_q, n_k))
        record("attention_output", out, matmul_flops(n_q, n_k, d_v))
    return out


def causal_self_attention(x, c_attn, c_proj, n_head=1, cache=None, record=None):  # [n_seq, n_embd] -> same
    qkv = linear(x, **c_attn)  # [n_seq, n_embd] -> [n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # -> 3 of [n_seq, n_embd]
    if cache is not None:  # the keys and values of earlier positions come first
        k, v = cache.extend(k, v)  # -> 2 of [n_past + n_seq, n_embd]
    mask = causal_mask(q.shape[0], k.shape[0], x.dtype)  # [n_seq, n_past + n_seq]
    if record:
        record("qkv", qkv, linear_flops(x.shape[0], x.shape[1], qkv.shape[1]))
        for name, array in (("q", q), ("k", k), ("v", v)):
            record(name, array, 0)
    if n_head == 1:
        out = attention(q, k, v, mask, record=record)
    else:  # each head attends with its own slice of q, k and v; their outputs sit side by side
        heads = zip(*(np.split(m, n_head, axis=-1) for m in (q, k, v)))
        out = np.hstack([attention(*h, mask, record=within(record, f"head{i}")) for i, h in enumerate(heads)])
        if record:
            record("attention_output", out, 0)
    projected = linear(out, **c_proj)  # [n_seq, n_embd] -> [n_seq, n_embd]
    if record:
        record("c_proj_output", projected, linear_flops(*out.shape, projected.shape[1]))
    return projected


def transformer_block(
    x, attn, ln_1=None, ln_2=None, mlp=None, n_head=1, cache=None, record=None
):  # [n_seq, n_embd] -> same
    if ln_1 is None:
        h = x
    else:
        h = layer_norm(x, **ln_1)
        record and record("ln_1", h, layer_norm_flops(*x.shape))
    x = x + causal_self_attention(h, **attn, n_head=n_head, cache=cache, record=record)  # the residual connection
    if record:
        record("residual", x, x.size)
    if mlp is not None:
        h = x if ln_2 is None else layer_norm(x, **ln_2)
        if record and ln_2 is not None:
            record("ln_2", h, layer_norm_flops(*x.shape))
        x = x + ffn(h, **mlp, record=record)
        if record:
            record("mlp_residual", x, x.size)
    return x


def gpt(inputs, wte, wpe, blocks, ln_f=None, cache=None, record=None):  # [n_seq] -> [n_seq, n_vocab]
    start = 0 if cache is None else len(cache)  # positions already in the cache come first
    try:
        token_emb, pos_emb = wte[inputs], wpe[range(start, start + len(inputs))]  # -> 2 of [n_seq, n_embd]
    except IndexError:
        raise ValueError(_bad_inputs(inputs, wte, wpe, start)) from None
    x = token_emb + pos_emb
    if record:
        record("token_embedding", token_emb, 0)  # a lookup, not arithmetic
        record("position_embedding", pos_emb, 0)
        record("embedding", x, x.size)
    for i, block in enumerate(blocks):
        layer_cache = None if cache is None else cache.layer(i)
        x = transformer_block(x, **block, cache=layer_cache, record=record and within(record, f"blocks[{i}]"))
    if ln_f is not None:
        x = layer_norm(x, **ln_f)
        if record:
            record("ln_f", x, layer_norm_flops(*x.shape))
    logits = x @ wte.T  # [n_seq, n_embd] -> [n_seq, n_vocab]: project back onto the tokens
    if record:
        record("logits", logits, matmul_flops(x.shape[0], x.shape[1], wte.shape[0]))
    return logits


def forward(inputs, params, record=None, cache=None):  # [n_seq] -> [n_seq, n_vocab], never inf or nan
    """``gpt()`` plus a check: if the pass overflowed, NonFiniteError says where.

    ``gpt()`` trusts its weights, as picoGPT does; everything that takes weights from a person
    runs through here, so a weight of 1e308 is reported instead of becoming nan probabilities.
    """
    logits = gpt(inputs, **params, cache=cache, record=record)
    if not np.isfinite(logits).all():
        raise NonFiniteError(_where_non_finite(inputs, params))
    return logits


def _bad_inputs(inputs, wte, wpe, start=0):
    if start + len(inputs) > len(wpe):
        cached = f" after {start} cached" if start else ""
        return (
            f"cannot run a context of {len(inputs)} tokens{cached}: this model's n_ctx is {len(wpe)}; "
            f"pass at most its last {len(wpe) - start} tokens"
        )
    return f"token ids must run from 0 to {len(wte) - 1} (n_vocab = {len(wte)}); found {[int(t) for t in inputs]}"


class NonFiniteError(FloatingPointError):
    """The forward pass produced inf or nan: some weight is too large for float64."""


def within(record, scope):
    """The same recorder, with names prefixed by ``scope`` (None stays None)."""
    if not record:
        return None
    return lambda name, array, flops: record(f"{scope}.{name}", array, flops)


class _Found(Exception):
    pass


def _where_non_finite(inputs, params):
    """Run the same pass again, recording, and name the first intermediate that is not finite."""

    def watch(name, array, flops):
        if not np.isfinite(array).all():
            raise _Found(name)

    where = "logits"  # what the caller saw, if the re-run (without any cache) stays finite
    try:
        with np.errstate(all="ignore"):
            gpt(inputs, **params, record=watch)
    except _Found as found:
        where = str(found)
    largest = largest_weight(params)
    return (
        f"the forward pass produced inf or nan (first in {where}): a weight is too large for "
        f"float64; the largest magnitude is {largest[1]:.3g} at {largest[0]}"
    )
