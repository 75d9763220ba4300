"""The backward pass: one function per function of the forward pass, each undoing its twin's lines.

Given ``d_y``, how the loss changes with a function's output, each returns how the loss changes
with the function's inputs and weights, working from the last line of its forward twin (in
``handmade.model``) to the first, one local derivative per line. They work on a whole batch:
where the forward pass has one sequence, ``[n_seq, n_embd]``, these have ``[B, n_seq, n_embd]``.

What the forward pass made (its q, k and v, its attention weights, ...) they read from ``seen``,
the ``Recorded`` pass (``seen.blocks[i]`` for block i), never by recomputing it, but for one
exception noted where it happens (layer norm's normalised rows, made by the forward's own function). ``loss_and_grads`` puts them together.
"""

import math

import numpy as np

from ..i18n import _
from ..model import gpt, layer_norm
from ..structure import LAYER_NORM_EPS, attention_width
from ..weights import NonFiniteError, iter_matrices, largest_weight, where_non_finite
from ..weights import check_weights as checked  # weights are checked once, where they come in
from .limits import check_batch
from .losses import cross_entropy, cross_entropy_backward
from .recorded import record

GELU_SCALE = math.sqrt(2 / math.pi)  # gelu(x) = 0.5 x (1 + tanh(GELU_SCALE (x + GELU_CUBIC x^3)))
GELU_CUBIC = 0.044715


def flat(x):  # [..., m, n] -> [everything else, n]: every row of every sequence, one under the other
    return x.reshape(-1, x.shape[-1])


def transposed(x):  # [..., m, n] -> [..., n, m]: each sequence's matrix transposed
    return np.swapaxes(x, -1, -2)


def thirds(x, n):  # [..., 3*n] -> 3 of [..., n]: q | k | v, as the forward pass split them (views, not copies)
    return x[..., :n], x[..., n : 2 * n], x[..., 2 * n :]


def linear_backward(d_y, x, w):  # [B, m, out], [B, m, in], [in, out] -> [B, m, in], {"w": [in, out], "b": [out]}
    """Undoes ``linear``: y = x @ w + b."""
    d_x = d_y @ w.T  # each input reached every output through its row of w
    d_w = flat(x).T @ flat(d_y)  # [in, out]: summed over every row of every sequence
    d_b = flat(d_y).sum(axis=0)  # [out]: b was added to every row
    return d_x, {"w": d_w, "b": d_b}


def softmax_backward(d_y, y):  # [..., n], [..., n] -> [..., n]
    """Undoes ``softmax``: y = exp(x) / sum(exp(x)), row by row, given its output y."""
    return y * (d_y - np.sum(d_y * y, axis=-1, keepdims=True))  # raising one input lowers every other output


def layer_norm_backward(d_y, x, g):  # [..., n], [..., n], [n] -> [..., n], {"g": [n], "b": [n]}
    """Undoes ``layer_norm``: x_hat = (x - mean) / sqrt(variance + eps), then y = g * x_hat + b."""
    n = x.shape[-1]
    x_hat = layer_norm(x, np.ones(n), np.zeros(n))  # [..., n]: the normalised rows, by the forward's own function
    inv_std = 1 / np.sqrt(np.var(x, axis=-1, keepdims=True) + LAYER_NORM_EPS)  # [..., 1]: what it divided by
    # y = g * x_hat + b
    d_g = flat(d_y * x_hat).sum(axis=0)
    d_b = flat(d_y).sum(axis=0)
    d_x_hat = d_y * g
    # x_hat = (x - mean) * inv_std: x reaches x_hat directly, through the mean and through the variance
    directly = d_x_hat
    through_mean = -np.mean(d_x_hat, axis=-1, keepdims=True)
    through_variance = -x_hat * np.mean(d_x_hat * x_hat, axis=-1, keepdims=True)
    d_x = inv_std * (directly + through_mean + through_variance)
    return d_x, {"g": d_g, "b": d_b}


def gelu_backward(d_y, x):  # [...], [...] -> [...]
    """Undoes ``gelu``: y = 0.5 * x * (1 + tanh(inner)), inner = sqrt(2/pi) * (x + 0.044715 * x**3)."""
    inner = GELU_SCALE * (x + GELU_CUBIC * x**3)
    t = np.tanh(inner)
    # y = 0.5 * x * (1 + t): x is there twice, in front and inside t
    d_x_in_front = 0.5 * (1 + t)
    d_t = 0.5 * x
    d_inner = d_t * (1 - t**2)  # t = tanh(inner), and tanh' = 1 - tanh^2
    d_x_inside = d_inner * GELU_SCALE * (1 + 3 * GELU_CUBIC * x**2)  # inner = GELU_SCALE * (x + GELU_CUBIC * x^3)
    return d_y * (d_x_in_front + d_x_inside)


def ffn_backward(d_y, x, c_fc, c_proj, seen):  # [B, n_seq, n_embd], [B, n_seq, n_embd] -> same, grads
    """Undoes ``ffn``: a = gelu(linear(x, **c_fc)), then y = linear(a, **c_proj)."""
    d_a, d_c_proj = linear_backward(d_y, seen.mlp_hidden, c_proj["w"])  # [B, n_seq, n_hidden]
    d_u = gelu_backward(d_a, seen.mlp_pre)  # seen.mlp_pre: [B, n_seq, n_hidden], linear(x, **c_fc), gelu's input
    d_x, d_c_fc = linear_backward(d_u, x, c_fc["w"])  # [B, n_seq, n_embd]
    return d_x, {"c_fc": d_c_fc, "c_proj": d_c_proj}


def attention_backward(d_out, q, k, v, weights):  # [B, n, d_v], [B, n, d_k] x2, [B, n, d_v], [B, n, n]
    """Undoes ``attention``: softmax(q @ k.T / sqrt(d_k) + mask) @ v, given the weights softmax made."""
    # out = weights @ v
    d_weights = d_out @ transposed(v)  # [B, n_q, n_k]
    d_v = transposed(weights) @ d_out  # [B, n_k, d_v]
    # weights = softmax(masked); masked = scaled + mask, and the mask is a constant
    d_scaled = softmax_backward(d_weights, weights)  # 0 wherever the mask hid a key
    # scaled = scores / sqrt(d_k)
    d_scores = d_scaled / np.sqrt(q.shape[-1])
    # scores = q @ k.T
    d_q = d_scores @ k  # [B, n_q, d_k]
    d_k = transposed(d_scores) @ q  # [B, n_k, d_k]
    return d_q, d_k, d_v


def causal_self_attention_backward(d_y, x, c_attn, c_proj, n_head, seen):  # [B, n_seq, n_embd] x2 -> same, grads
    """Undoes ``causal_self_attention``: qkv = linear(x), attention in each head, y = linear(out)."""
    d_out, d_c_proj = linear_backward(d_y, seen.attention_output, c_proj["w"])  # [B, n_seq, n_attn]
    n_attn = attention_width(c_attn["w"])
    q, k, v = thirds(seen.qkv, n_attn)  # 3 of [B, n_seq, n_attn]
    d_qkv = np.empty_like(seen.qkv)  # [B, n_seq, 3*n_attn]: d_q | d_k | d_v, as qkv was split
    d_q, d_k, d_v = thirds(d_qkv, n_attn)  # views of it: each head writes its own slice of each
    width = n_attn // n_head
    for i, weights in enumerate(seen.attention_weights):  # head i attended with columns i*width to (i+1)*width
        h = slice(i * width, (i + 1) * width)
        d_q[..., h], d_k[..., h], d_v[..., h] = attention_backward(*(m[..., h] for m in (d_out, q, k, v)), weights)
    d_x, d_c_attn = linear_backward(d_qkv, x, c_attn["w"])  # [B, n_seq, n_embd]
    return d_x, {"c_attn": d_c_attn, "c_proj": d_c_proj}


def transformer_block_backward(d_y, x, seen, attn, ln_1=None, ln_2=None, mlp=None, n_head=1):  # -> d_x, grads
    """Undoes ``transformer_block``: x + attention(ln_1(x)), then that + ffn(ln_2(that)) with an mlp."""
    grads = {}
    if mlp is not None:  # y = mid + ffn(h), h = ln_2(mid) or mid
        mid = seen.residual  # [B, n_seq, n_embd]: the stream between attention and mlp
        h = mid if ln_2 is None else seen.ln_2
        d_h, grads["mlp"] = ffn_backward(d_y, h, **mlp, seen=seen)
        if ln_2 is not None:
            d_h, grads["ln_2"] = layer_norm_backward(d_h, mid, ln_2["g"])
        d_y = d_y + d_h  # the residual passes d_y straight through; the mlp's path adds its share
    # y = x + causal_self_attention(h), h = ln_1(x) or x
    h = x if ln_1 is None else seen.ln_1
    d_h, grads["attn"] = causal_self_attention_backward(d_y, h, **attn, n_head=n_head, seen=seen)
    if ln_1 is not None:
        d_h, grads["ln_1"] = layer_norm_backward(d_h, x, ln_1["g"])
    return d_y + d_h, grads


def gpt_backward(d_logits, inputs, seen, wte, wpe, blocks, ln_f=None):  # [B, n_seq, n_vocab], [B, n_seq] -> grads
    """Undoes ``gpt``: embeddings, the blocks, ln_f, then logits = x @ wte.T."""
    streams = [seen.embedding] + [block.output for block in seen.blocks]  # into each block, and out of the last
    x = streams[-1]  # [B, n_seq, n_embd]: what the last block wrote
    # logits = x_f @ wte.T, x_f = ln_f(x) or x
    x_f = x if ln_f is None else seen.ln_f
    d_x = d_logits @ wte  # [B, n_seq, n_embd]
    d_wte = flat(d_logits).T @ flat(x_f)  # [n_vocab, n_embd]: wte's first use, as the unembedding
    grads = {}
    if ln_f is not None:
        d_x, grads["ln_f"] = layer_norm_backward(d_x, x, ln_f["g"])
    d_blocks = [None] * len(blocks)
    for i in reversed(range(len(blocks))):  # x = transformer_block(x, **block), last block first
        d_x, d_blocks[i] = transformer_block_backward(d_x, streams[i], seen.blocks[i], **blocks[i])
    # x = token_emb + pos_emb: both get d_x
    one_hot = np.eye(len(wte))[inputs]  # [B, n_seq, n_vocab]: token_emb = wte[inputs] = one_hot @ wte
    d_wte += flat(one_hot).T @ flat(d_x)  # each row back to the token it came from (wte's second use)
    d_wpe = np.zeros_like(wpe)
    d_wpe[: inputs.shape[1]] = d_x.sum(axis=0)  # pos_emb = wpe[range(n_seq)]: summed over the sequences
    grads = {"wte": d_wte, "wpe": d_wpe, "blocks": d_blocks, **grads}
    return finite(grads, {"wte": wte, "wpe": wpe, "blocks": blocks, "ln_f": ln_f})


def finite(grads, params):
    """``grads`` if every gradient is finite; else NonFiniteError naming the first that is not."""
    for path, array in iter_matrices(grads):
        if not np.isfinite(array).all():
            place, value = largest_weight(params)
            raise NonFiniteError(
                _(
                    "the gradient of {path} is inf or nan: a weight is too large for float64; "
                    "the largest magnitude is {value:.3g} at {place}"
                ).format(path=path, value=value, place=place)
            )
    return grads


def loss_and_grads(params, inputs, targets):
    """(loss, grads): the mean cross-entropy of gpt()'s predictions against ``targets``, and its gradient.

    ``inputs`` and ``targets`` are token ids, [B, n_seq] (one sequence may be given as [n_seq]);
    ``targets[i, j]`` is the token that should follow ``inputs[i, :j + 1]``, or IGNORE (-1) where
    nothing should. ``grads`` has the keys and nesting of ``params``, without ``n_head``.
    """
    params = checked(params)
    inputs, targets = check_batch(inputs, targets, params)
    seen = record(params, inputs)  # every array the forward pass made, for the backward pass
    value, d_logits = cross_entropy_backward(seen.logits, targets)  # the loss, and where its gradient starts
    return value, gpt_backward(d_logits, inputs, seen, **params)


def loss(params, inputs, targets):
    """The mean cross-entropy of gpt()'s predictions against ``targets`` (as in ``loss_and_grads``), alone."""
    params = checked(params)
    inputs, targets = check_batch(inputs, targets, params)
    with np.errstate(all="ignore"):  # an overflow is reported below, in words
        value = cross_entropy(np.stack([gpt(sequence, **params) for sequence in inputs]), targets)
    if not np.isfinite(value):
        raise NonFiniteError(where_non_finite(inputs, params))
    return value
