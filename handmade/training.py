"""Learning the weights instead of setting them: the gradients written out by hand, AdamW, a loop.

The forward pass is ``handmade.model``'s ``gpt()``, unchanged. ``loss_and_grads`` runs it once on
the whole batch while recording every intermediate it taps (``with recording(...)``), so the backward
pass works from the very numbers the forward pass made. The backward pass then walks the forward
one in reverse, one function per forward function, each written beside the idea it undoes::

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

Each backward function undoes the lines of its forward twin from the last to the first, one local
derivative per line. They work on a whole batch at once: where the forward pass has one
sequence, ``[n_seq, n_embd]``, the backward pass has ``[B, n_seq, n_embd]``, B sequences.

The gradients have the nesting and keys of the weights (``grads["blocks"][0]["attn"]["c_attn"]["w"]``);
``n_head`` is a count, not a weight, so it has no gradient and is left out. The tests check every
gradient against finite differences.
"""

import inspect
import math
import sys
from dataclasses import dataclass

import numpy as np

from .basis import Basis, Labels, brief, default_alphabet
from .i18n import _
from .model import gpt, layer_norm, linear, recording, softmax
from .tokenizer import check_alphabet, tokenize
from .weights import (
    MAX_BLOCKS,
    MAX_N_CTX,
    MAX_N_VOCAB,
    MAX_WIDTH,
    NonFiniteError,
    Weights,
    check_weights,
    iter_matrices,
)

IGNORE = -1  # a target that does not count: the position has nothing to predict (padding)

MAX_STEPS = 100_000  # steps one call to train() may take
MAX_SEED = 2**32 - 1  # the largest seed a random start takes
MAX_BATCH = 1024  # sequences in one batch
MAX_BATCH_TOKENS = 32_768  # positions in one batch (sequences x their length)
MAX_LR = 1.0  # Adam moves each weight by about lr a step: beyond 1 nothing learns, it only diverges

LAYER_NORM_EPS = inspect.signature(layer_norm).parameters["eps"].default  # the forward's own eps
GELU_SCALE = math.sqrt(2 / math.pi)  # gelu(x) = 0.5 x (1 + tanh(GELU_SCALE (x + GELU_CUBIC x^3)))
GELU_CUBIC = 0.044715


# ---- the loss --------------------------------------------------------------------------------


def log_softmax(x):  # [..., n] -> [..., n]: log(softmax(x)), finite even where softmax rounds to 0
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def cross_entropy(logits, targets):  # [B, n_seq, n_vocab], [B, n_seq] -> a number
    """The mean of -log(probability of the target) over every position that has a target."""
    counted = targets != IGNORE  # [B, n_seq]
    picked = np.take_along_axis(log_softmax(logits), np.where(counted, targets, 0)[..., None], axis=-1)[..., 0]
    return float(-np.sum(picked, where=counted) / np.count_nonzero(counted))


def cross_entropy_backward(logits, targets):  # [B, n_seq, n_vocab], [B, n_seq] -> [B, n_seq, n_vocab]
    """Undoes ``cross_entropy(logits, targets)``: softmax and -log together give probs - one_hot(target)."""
    counted = targets != IGNORE
    d_logits = softmax(logits)  # the probabilities ...
    rows, cols = np.nonzero(counted)
    d_logits[rows, cols, targets[rows, cols]] -= 1  # ... minus 1 at the target
    return d_logits * counted[..., None] / np.count_nonzero(counted)  # only counted positions, averaged


# ---- the backward pass, one function per forward function -----------------------------------


def flat(x):  # [..., m, n] -> [everything else, n]: every row of every sequence, one under the other
    return x.reshape(-1, x.shape[-1])


def transposed(x):  # [..., m, n] -> [..., n, m]: each sequence's matrix transposed
    return np.swapaxes(x, -1, -2)


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
    d_a, d_c_proj = linear_backward(d_y, seen["mlp_hidden"], c_proj["w"])  # [B, n_seq, n_hidden]
    u = linear(x, **c_fc)  # [B, n_seq, n_hidden]: the hidden layer before gelu (not tapped, so made again)
    d_u = gelu_backward(d_a, u)
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
    d_out, d_c_proj = linear_backward(d_y, seen["attention_output"], c_proj["w"])  # [B, n_seq, n_attn]
    q, k, v = np.split(seen["qkv"], 3, axis=-1)  # 3 of [B, n_seq, n_attn]
    d_heads = []  # per head, d_q, d_k, d_v of its slice
    for i, head in enumerate(zip(*(np.split(m, n_head, axis=-1) for m in (d_out, q, k, v)))):
        weights = seen["attention_weights" if n_head == 1 else f"head{i}.attention_weights"]
        d_heads.append(attention_backward(*head, weights))
    d_q, d_k, d_v = (np.concatenate(parts, axis=-1) for parts in zip(*d_heads))  # the heads side by side again
    d_qkv = np.concatenate([d_q, d_k, d_v], axis=-1)  # [B, n_seq, 3*n_attn]: q | k | v, as split
    d_x, d_c_attn = linear_backward(d_qkv, x, c_attn["w"])  # [B, n_seq, n_embd]
    return d_x, {"c_attn": d_c_attn, "c_proj": d_c_proj}


def transformer_block_backward(d_y, x, seen, attn, ln_1=None, ln_2=None, mlp=None, n_head=1):  # -> d_x, grads
    """Undoes ``transformer_block``: x + attention(ln_1(x)), then that + ffn(ln_2(that)) with an mlp."""
    grads = {}
    if mlp is not None:  # y = mid + ffn(h), h = ln_2(mid) or mid
        mid = seen["residual"]  # [B, n_seq, n_embd]: the stream between attention and mlp
        h = mid if ln_2 is None else seen["ln_2"]
        d_h, grads["mlp"] = ffn_backward(d_y, h, **mlp, seen=seen)
        if ln_2 is not None:
            d_h, grads["ln_2"] = layer_norm_backward(d_h, mid, ln_2["g"])
        d_y = d_y + d_h  # the residual passes d_y straight through; the mlp's path adds its share
    # y = x + causal_self_attention(h), h = ln_1(x) or x
    h = x if ln_1 is None else seen["ln_1"]
    d_h, grads["attn"] = causal_self_attention_backward(d_y, h, **attn, n_head=n_head, seen=seen)
    if ln_1 is not None:
        d_h, grads["ln_1"] = layer_norm_backward(d_h, x, ln_1["g"])
    return d_y + d_h, grads


def gpt_backward(d_logits, inputs, seen, wte, wpe, blocks, ln_f=None):  # [B, n_seq, n_vocab], [B, n_seq] -> grads
    """Undoes ``gpt``: embeddings, the blocks, ln_f, then logits = x @ wte.T."""
    streams = [seen["embedding"]] + [seen[f"blocks[{i}].{block_output(b)}"] for i, b in enumerate(blocks)]
    x = streams[-1]  # [B, n_seq, n_embd]: what the last block wrote
    # logits = x_f @ wte.T, x_f = ln_f(x) or x
    x_f = x if ln_f is None else seen["ln_f"]
    d_x = d_logits @ wte  # [B, n_seq, n_embd]
    d_wte = flat(d_logits).T @ flat(x_f)  # [n_vocab, n_embd]: wte's first use, as the unembedding
    grads = {}
    if ln_f is not None:
        d_x, grads["ln_f"] = layer_norm_backward(d_x, x, ln_f["g"])
    d_blocks = [None] * len(blocks)
    for i in reversed(range(len(blocks))):  # x = transformer_block(x, **block), last block first
        d_x, d_blocks[i] = transformer_block_backward(d_x, streams[i], seen.inside(f"blocks[{i}]"), **blocks[i])
    # x = token_emb + pos_emb: both get d_x
    np.add.at(d_wte, inputs, d_x)  # token_emb = wte[inputs]: each row back to the token it came from (its second use)
    d_wpe = np.zeros_like(wpe)
    d_wpe[: inputs.shape[1]] = d_x.sum(axis=0)  # pos_emb = wpe[range(n_seq)]: summed over the sequences
    return {"wte": d_wte, "wpe": d_wpe, "blocks": d_blocks, **grads}


def block_output(block):
    """The tap that holds what a block writes to the stream: after its mlp if it has one."""
    return "mlp_residual" if block.get("mlp") is not None else "residual"


# ---- the forward pass, recorded --------------------------------------------------------------


class Recorded:
    """Every array gpt() tapped in one pass over a batch: ``seen["blocks[0].qkv"]`` is [B, n_seq, 3*n_attn].

    ``seen.inside("blocks[0]")`` reads the same arrays with ``blocks[0].`` in front of each name.
    """

    def __init__(self, tapped, prefix=""):
        self.tapped, self.prefix = tapped, prefix

    def __getitem__(self, name):
        return self.tapped[self.prefix + name]

    def inside(self, scope):
        return Recorded(self.tapped, f"{self.prefix}{scope}.")


def record(params, inputs):  # [B, n_seq] -> Recorded
    """Run ``gpt()`` once on the whole batch while recording every intermediate it taps."""
    tapped = {}
    with recording(tapped.__setitem__):
        gpt(inputs, **params)
    return Recorded(tapped)


def loss_and_grads(params, inputs, targets):
    """(loss, grads): the mean cross-entropy of gpt()'s predictions against ``targets``, and its gradient.

    ``inputs`` and ``targets`` are token ids, [B, n_seq] (one sequence may be given as [n_seq]);
    ``targets[i, j]`` is the token that should follow ``inputs[i, :j + 1]``, or IGNORE (-1) where
    nothing should. ``grads`` has the keys and nesting of ``params``, without ``n_head``.
    """
    params = _checked(params)
    inputs, targets = check_batch(inputs, targets, params)
    seen = record(params, inputs)
    logits = seen["logits"]  # [B, n_seq, n_vocab]
    d_logits = cross_entropy_backward(logits, targets)
    return cross_entropy(logits, targets), gpt_backward(d_logits, inputs, seen, **params)


def loss(params, inputs, targets):
    """The mean cross-entropy of gpt()'s predictions against ``targets`` (as in ``loss_and_grads``), alone."""
    params = _checked(params)
    inputs, targets = check_batch(inputs, targets, params)
    return cross_entropy(np.stack([gpt(sequence, **params) for sequence in inputs]), targets)


def _checked(params):
    """Weights are checked once (``check_weights`` or ``init_params`` made them); a plain dict here."""
    return params if isinstance(params, Weights) else check_weights(params)


def check_batch(inputs, targets, params):
    """``inputs`` and ``targets`` as [B, n_seq] int64 arrays that fit ``params``, or a one-line ValueError."""
    n_vocab, n_ctx = len(params["wte"]), len(params["wpe"])
    inputs = _token_array(inputs, _("inputs"))
    targets = _token_array(targets, _("targets"))
    if inputs.shape != targets.shape:
        raise ValueError(
            _("inputs have shape {inputs} but targets have shape {targets}; they must be the same").format(
                inputs=inputs.shape, targets=targets.shape
            )
        )
    batch, n_seq = inputs.shape
    if not 1 <= n_seq <= n_ctx:
        raise ValueError(
            _("the sequences have {n} tokens; this model takes 1 to {limit} (its n_ctx)").format(n=n_seq, limit=n_ctx)
        )
    if not 1 <= batch <= MAX_BATCH or batch * n_seq > MAX_BATCH_TOKENS:
        raise ValueError(
            _(
                "a batch of {batch} sequences of {n} tokens is too large: at most {limit} sequences and {tokens} tokens"
            ).format(batch=batch, n=n_seq, limit=MAX_BATCH, tokens=MAX_BATCH_TOKENS)
        )
    if inputs.min() < 0 or inputs.max() >= n_vocab:
        raise ValueError(
            _("inputs hold the token id {value}; ids go from 0 to {top} (n_vocab = {n})").format(
                value=inputs.min() if inputs.min() < 0 else inputs.max(), top=n_vocab - 1, n=n_vocab
            )
        )
    if targets.min() < IGNORE or targets.max() >= n_vocab:
        raise ValueError(
            _("targets hold the token id {value}; ids go from 0 to {top}, or {ignore} for no target").format(
                value=targets.min() if targets.min() < IGNORE else targets.max(), top=n_vocab - 1, ignore=IGNORE
            )
        )
    if np.all(targets == IGNORE):
        raise ValueError(
            _("every target is {ignore} (no target): give at least one to learn from").format(ignore=IGNORE)
        )
    return inputs, targets


def _token_array(ids, what):  # [n_seq] or [B, n_seq] -> [B, n_seq] int64
    try:
        array = np.asarray(ids)
    except ValueError:  # rows of different lengths
        array = None
    if array is None or array.dtype.kind not in "iu" or array.ndim not in (1, 2) or 0 in array.shape:
        raise ValueError(
            _("{what} must be token ids in a [batch, n_seq] array of whole numbers; found {value}").format(
                what=what, value=brief(ids)
            )
        )
    return np.atleast_2d(array).astype(np.int64)


# ---- the optimiser ---------------------------------------------------------------------------


def map_arrays(fn, params, *others):
    """``fn(array, *arrays at the same place in others)`` for every array of ``params``, in its nesting.

    ``n_head`` is a count, not a weight: it is kept as it is.
    """
    if isinstance(params, dict):
        return {
            key: value if key == "n_head" else map_arrays(fn, value, *(other[key] for other in others))
            for key, value in params.items()
        }
    if isinstance(params, list):
        return [map_arrays(fn, value, *(other[i] for other in others)) for i, value in enumerate(params)]
    return fn(params, *others)


@dataclass(frozen=True)
class AdamState:
    step: int  # updates made so far
    m: dict  # running mean of each weight's gradient, in the nesting of the weights
    v: dict  # running mean of each gradient's square


@dataclass(frozen=True)
class AdamW:
    """Adam with decoupled weight decay (Loshchilov and Hutter), as in PyTorch and optax.

    Each weight moves by lr * m / (sqrt(v) + eps), where m and v are running means of its gradient
    and of its square (corrected for starting at 0), and matrices shrink by lr * weight_decay of
    themselves. Following GPT-2 and nanoGPT, only matrices decay (wte, wpe, every w); biases and the
    layer norms' gains and shifts do not, since pulling a gain towards 0 would switch its layer off.
    (optax.adamw decays every array, with 1e-4 by default; PyTorch's default is 0.01.)
    """

    lr: float = 1e-3
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.01

    def __post_init__(self):
        _check_number(self.lr, "lr", 0, MAX_LR, low_allowed=False)
        pair = isinstance(self.betas, tuple) and len(self.betas) == 2
        for beta in self.betas if pair else (self.betas,):  # a bad one, to be reported by name
            _check_number(beta, "betas", 0, 1, high_allowed=False)
        _check_number(self.eps, "eps", 0, 1, low_allowed=False)
        _check_number(self.weight_decay, "weight_decay", 0, 1)

    def init(self, params):
        """The state before the first step: m and v are 0 for every weight."""
        return AdamState(0, map_arrays(np.zeros_like, params), map_arrays(np.zeros_like, params))

    def update(self, params, grads, state):
        """(params, state) after one step down ``grads``; new arrays, the old ones untouched."""
        (b1, b2), t = self.betas, state.step + 1
        m = map_arrays(lambda m, g: b1 * m + (1 - b1) * g, state.m, grads)
        v = map_arrays(lambda v, g: b2 * v + (1 - b2) * g**2, state.v, grads)

        def step(w, m, v):
            m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)  # the means, corrected for starting at 0
            decay = self.weight_decay if w.ndim == 2 else 0.0  # matrices only
            return w - self.lr * (m_hat / (np.sqrt(v_hat) + self.eps) + decay * w)

        new = map_arrays(step, params, m, v)
        if isinstance(params, Weights):  # the labels travel on
            new = Weights(new, params.labels)
        return new, AdamState(t, m, v)


# ---- batches ---------------------------------------------------------------------------------


def batches(tokens, batch_size, n_ctx, rng):
    """A function that returns a new batch at each call: (inputs, targets), both [batch_size, n_ctx].

    Each row of ``inputs`` is a window of ``n_ctx`` tokens starting at a random place in
    ``tokens`` (a 1-D sequence of ids); its row of ``targets`` is the same window one token later,
    so ``targets[i, j]`` is the token that follows ``inputs[i, :j + 1]``. ``rng`` is a seed or a
    ``np.random.Generator``: the same seed gives the same batches.
    """
    tokens = _token_array(tokens, _("tokens"))
    if tokens.shape[0] != 1:
        raise ValueError(
            _("tokens must be one sequence of ids (a 1-D array); found shape {shape}").format(shape=tokens.shape)
        )
    tokens = tokens[0]
    _check_whole(n_ctx, "n_ctx", 1, MAX_N_CTX)
    _check_batch_size(batch_size, n_ctx)
    if len(tokens) <= n_ctx:
        raise ValueError(
            _(
                "{n} tokens cannot make windows of n_ctx = {n_ctx} with a target after each: give at least {least}"
            ).format(n=len(tokens), n_ctx=n_ctx, least=n_ctx + 1)
        )
    rng = _generator(rng)
    offsets = np.arange(n_ctx)  # [n_ctx]

    def next_batch():  # -> [batch_size, n_ctx], [batch_size, n_ctx]
        starts = rng.integers(0, len(tokens) - n_ctx, size=batch_size)  # [batch_size]
        windows = starts[:, None] + offsets  # [batch_size, n_ctx]: the positions of each window
        return tokens[windows], tokens[windows + 1]

    return next_batch


def example_batches(examples, batch_size, n_ctx, rng, alphabet=None):
    """A function that returns a batch of (context, next token) examples at each call.

    ``examples`` are pairs ``(context, next)`` (or ``handmade.Example``s): strings when
    ``alphabet`` is given, else token ids. Each context is cut to its last ``n_ctx`` tokens, as
    ``predict`` does, and only its last position has a target; shorter contexts are padded after
    their end, where the causal mask keeps the padding from changing the counted position.
    ``batch_size=None`` gives every example at every call; else ``batch_size`` drawn at random.
    """
    _check_whole(n_ctx, "n_ctx", 1, MAX_N_CTX)
    pairs = [_example(example, alphabet, n_ctx) for example in _bounded(examples)]
    if not pairs:
        raise ValueError(_("there are no examples to learn from: give at least one (context, next token) pair"))
    n_seq = max(len(context) for context, _next in pairs)
    inputs = np.zeros((len(pairs), n_seq), dtype=np.int64)  # padding: token 0, never counted
    targets = np.full((len(pairs), n_seq), IGNORE, dtype=np.int64)
    for row, (context, following) in enumerate(pairs):
        inputs[row, : len(context)] = context
        targets[row, len(context) - 1] = following  # what should follow the whole context
    if batch_size is None:
        _check_batch_size(len(pairs), n_seq)
        return lambda: (inputs, targets)
    _check_batch_size(batch_size, n_seq)
    rng = _generator(rng)

    def next_batch():  # -> [batch_size, n_seq], [batch_size, n_seq]
        rows = rng.integers(0, len(pairs), size=batch_size)
        return inputs[rows], targets[rows]

    return next_batch


def _bounded(examples):
    try:
        examples = list(examples)
    except TypeError:
        raise ValueError(
            _("examples must be a list of (context, next token) pairs; found {value}").format(value=brief(examples))
        ) from None
    if len(examples) > MAX_BATCH_TOKENS:
        raise ValueError(
            _("there are {n} examples; at most {limit} can be learned from at once").format(
                n=len(examples), limit=MAX_BATCH_TOKENS
            )
        )
    return examples


def _example(example, alphabet, n_ctx):  # -> (context ids, next id), the context cut to its last n_ctx
    pair = (example.context, example.expected) if hasattr(example, "expected") else example
    if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not _sized(pair[0]) or not _sized(pair[1]):
        raise ValueError(
            _("an example is a pair (context, next token) of {kind}; found {value}").format(
                kind=_("characters") if alphabet is not None else _("token ids"), value=brief(example)
            )
        )
    context, following = pair
    if alphabet is not None:  # characters: ("aab", "a")
        context, following = tokenize(context, check_alphabet(alphabet)), tokenize(following, alphabet)
    context, following = _token_array(context, _("a context"))[0], np.ravel(following)
    if following.size != 1 or following.dtype.kind not in "iu" or following[0] < 0:
        raise ValueError(_("the next token of an example is one token; found {value}").format(value=brief(pair[1])))
    return context[-n_ctx:], int(following[0])


def _sized(part):  # a context or next token as given: text, a list or array of ids, or one id
    return isinstance(part, (str, list, tuple, np.ndarray, int, np.integer)) and not isinstance(part, bool)


# ---- a random start --------------------------------------------------------------------------


def init_params(
    n_vocab,
    n_ctx,
    n_embd,
    *,
    rng,
    n_layer=1,
    n_head=1,
    n_attn=None,
    mlp=False,
    n_hidden=None,
    ln=False,
    ln_f=False,
    alphabet=None,
    std=0.02,
):
    """Random weights in GPT-2's way: matrices normal(0, std), biases 0, layer norms' gains 1.

    ``n_attn`` (default ``n_embd``) is the width of q, k and v, split into ``n_head`` heads;
    ``mlp`` adds a feed-forward layer of ``n_hidden`` units (default 4 * n_embd) to each block;
    ``ln`` adds ``ln_1`` (and ``ln_2`` with an mlp) and ``ln_f`` the final layer norm. The weights
    are labelled: tokens are ``alphabet`` (default a, b, c, ...), directions e0, e1, ...
    """
    n_attn = n_embd if n_attn is None else n_attn
    n_hidden = 4 * n_embd if n_hidden is None else n_hidden
    for value, name, limit in (
        (n_vocab, "n_vocab", MAX_N_VOCAB),
        (n_ctx, "n_ctx", MAX_N_CTX),
        (n_embd, "n_embd", MAX_WIDTH),
        (n_attn, "n_attn", MAX_WIDTH),
        (n_hidden, "n_hidden", MAX_WIDTH),
    ):
        _check_whole(value, name, 1, limit)
    _check_whole(n_layer, "n_layer", 0, MAX_BLOCKS)
    _check_number(std, "std", 0, 10)
    alphabet = default_alphabet(n_vocab) if alphabet is None else check_alphabet(alphabet)
    if len(alphabet) != n_vocab:
        raise ValueError(
            _("the alphabet {alphabet} has {chars} characters but n_vocab is {n}; they must match").format(
                alphabet=brief(alphabet), chars=len(alphabet), n=n_vocab
            )
        )
    rng = _generator(rng)

    def matrix(n_in, n_out):  # [n_in, n_out] of normal(0, std)
        return rng.normal(0.0, std, size=(n_in, n_out))

    def layer(n_in, n_out):  # a linear layer: random w, zero b
        return {"w": matrix(n_in, n_out), "b": np.zeros(n_out)}

    def norm():  # a layer norm that starts as plain normalisation
        return {"g": np.ones(n_embd), "b": np.zeros(n_embd)}

    params = {"wte": matrix(n_vocab, n_embd), "wpe": matrix(n_ctx, n_embd), "blocks": []}
    for _layer in range(n_layer):
        block = {"attn": {"c_attn": layer(n_embd, 3 * n_attn), "c_proj": layer(n_attn, n_embd)}}
        if n_head != 1:
            block["n_head"] = n_head
        if ln:
            block["ln_1"] = norm()
        if mlp:
            block["mlp"] = {"c_fc": layer(n_embd, n_hidden), "c_proj": layer(n_hidden, n_embd)}
            if ln:
                block["ln_2"] = norm()
        params["blocks"].append(block)
    if ln_f:
        params["ln_f"] = norm()
    return check_weights(params, Labels(alphabet, Basis.numbered(n_embd)))


# ---- the training loop -----------------------------------------------------------------------


@dataclass(frozen=True)
class History:
    """What happened during training."""

    losses: np.ndarray  # [steps]: the loss on each step's batch, before that step's update
    evaluated: tuple = ()  # (steps done, evaluate(params)) pairs, from step 0 on

    def __str__(self):
        if not len(self.losses):
            return _("no steps taken")
        return _("{steps} steps: loss {first:.4f} at the first step, {last:.4f} at the last").format(
            steps=len(self.losses), first=self.losses[0], last=self.losses[-1]
        )


def train(
    params,
    batch_fn,
    steps,
    lr=1e-2,
    *,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0.01,
    evaluate=None,
    eval_every=100,
    progress=True,
):
    """(params, history): ``params`` after ``steps`` steps of AdamW, and the loss at every step.

    ``batch_fn()`` returns the (inputs, targets) of one step, such as ``batches(...)`` or
    ``example_batches(...)`` make. ``evaluate(params)``, if given, returns a number (a held-out
    loss, an accuracy) recorded before the first step, every ``eval_every`` steps and after the
    last. ``progress`` shows one line, updated in place, in a notebook or a terminal. The same
    weights, batches and settings give the same result, bit for bit.
    """
    params = check_weights(params)  # our own float64 copy, labelled
    if not callable(batch_fn):
        raise ValueError(
            _("batch_fn must be a function that returns (inputs, targets); found {value}").format(value=brief(batch_fn))
        )
    if evaluate is not None and not callable(evaluate):
        raise ValueError(
            _("evaluate must be a function of the weights that returns a number; found {value}").format(
                value=brief(evaluate)
            )
        )
    _check_whole(steps, "steps", 0, MAX_STEPS)
    _check_whole(eval_every, "eval_every", 1, MAX_STEPS)
    optimizer = AdamW(lr, tuple(betas) if isinstance(betas, (list, tuple)) else betas, eps, weight_decay)
    state = optimizer.init(params)
    losses, evaluated = np.zeros(steps), []
    bar = Progress(steps) if progress else None
    if evaluate is not None:
        evaluated.append((0, _evaluated(evaluate, params)))
    for step in range(steps):
        with np.errstate(all="ignore"):  # a loss or gradient that overflows is reported below, in words
            value, grads = loss_and_grads(params, *_batch(batch_fn))
        if not (np.isfinite(value) and all(np.isfinite(g).all() for _path, g in iter_matrices(grads))):
            raise NonFiniteError(
                _(
                    "training diverged at step {step}: the loss or a gradient is not finite; try a learning rate below {lr}"
                ).format(step=step, lr=lr)
            )
        params, state = optimizer.update(params, grads, state)
        losses[step] = value
        done = step + 1
        if evaluate is not None and (done % eval_every == 0 or done == steps):
            evaluated.append((done, _evaluated(evaluate, params)))
        if bar is not None:
            bar.show(done, value, evaluated[-1][1] if evaluated else None)
    if bar is not None:
        bar.close()
    return params, History(losses, tuple(evaluated))


def _evaluated(evaluate, params):
    value = evaluate(params)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(_("evaluate(params) must return a number; it returned {value}").format(value=brief(value)))
    return float(value)


def _batch(batch_fn):
    batch = batch_fn()
    if not isinstance(batch, tuple) or len(batch) != 2:
        raise ValueError(
            _("batch_fn must return a pair (inputs, targets); it returned {value}").format(value=brief(batch))
        )
    return batch


# ---- the progress line -----------------------------------------------------------------------


class Progress:
    """One line that says how far training has got: ``step 300/1000 [######..............] loss 2.4512``.

    In a terminal, or in a notebook (where it writes to the cell's output), the line is rewritten in
    place with a carriage return, a limited number of times; elsewhere (a log, a test) only the
    last line is written. It shows steps and losses, never times, so a notebook's stored output is
    the same on every run (and nbval compares only the line's last state: tests/sanitize.cfg).
    """

    WIDTH = 20  # characters of the bar
    UPDATES = 20  # times the line is redrawn during a run, at most

    def __init__(self, steps, stream=None):
        self.steps = steps
        self.every = max(1, steps // self.UPDATES)
        notebook = _in_notebook()
        self.stream = stream if stream is not None else (sys.stdout if notebook else sys.stderr)
        self.live = notebook or _is_terminal(self.stream)
        self.last = self.line(0, None, None)
        self.longest = 0  # characters of the longest line written, to blank out in a shorter one
        if self.live:
            self.rewrite()

    def line(self, step, value, held_out):
        filled = self.WIDTH * step // max(self.steps, 1)
        bar = "[" + "#" * filled + "." * (self.WIDTH - filled) + "]"
        if value is None:
            return _("step {step}/{steps} {bar}").format(step=step, steps=self.steps, bar=bar)
        if held_out is None:
            return _("step {step}/{steps} {bar} loss {loss:.4f}").format(
                step=step, steps=self.steps, bar=bar, loss=value
            )
        return _("step {step}/{steps} {bar} loss {loss:.4f}, evaluated {held_out:.4f}").format(
            step=step, steps=self.steps, bar=bar, loss=value, held_out=held_out
        )

    def show(self, step, value, held_out=None):
        self.last = self.line(step, value, held_out)
        if self.live and (step % self.every == 0 or step == self.steps):
            self.rewrite()

    def close(self):
        if not self.live:
            self.stream.write(self.last)
        self.stream.write("\n")
        self.stream.flush()

    def rewrite(self):  # back to the start of the line, over the longest line so far
        self.longest = max(self.longest, len(self.last))
        self.stream.write("\r" + self.last.ljust(self.longest))
        self.stream.flush()


def _in_notebook():
    """True when a Jupyter kernel runs this (IPython is only looked at if something imported it)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ---- bounds on what may be asked ---------------------------------------------------------------


def _generator(rng):
    """A ``np.random.Generator`` from a seed or a generator; never an unseeded one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and 0 <= rng < 2**63:
        return np.random.default_rng(int(rng))
    raise ValueError(
        _("rng must be a seed (a whole number from 0) or a np.random.Generator; found {value}").format(value=brief(rng))
    )


def _check_whole(value, name, low, high):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(
            _("{name} must be a whole number from {low} to {high}; found {value}").format(
                name=name, low=low, high=high, value=brief(value)
            )
        )


def _check_batch_size(batch_size, n_seq):
    _check_whole(batch_size, "batch_size", 1, MAX_BATCH)
    if batch_size * n_seq > MAX_BATCH_TOKENS:
        raise ValueError(
            _("batch_size {batch} of {n} tokens each is {total} tokens; at most {limit} fit in one batch").format(
                batch=batch_size, n=n_seq, total=batch_size * n_seq, limit=MAX_BATCH_TOKENS
            )
        )


def _check_number(value, name, low, high, low_allowed=True, high_allowed=True):
    real = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    fits = real and (low <= value if low_allowed else low < value) and (value <= high if high_allowed else value < high)
    if not fits:
        interval = ("[" if low_allowed else "(") + f"{low}, {high}" + ("]" if high_allowed else ")")
        raise ValueError(
            _("{name} must be a number in {interval}; found {value}").format(
                name=name, interval=interval, value=brief(value)
            )
        )


# ---- a task's model, learned ----------------------------------------------------------------


def train_task(task, steps=300, *, seed=0, lr=3e-2, progress=True):
    """(params, history): a model of the task's shape, trained from a seeded random start on every
    context the task grades (all of them at each step), with AdamW and cross-entropy.

    The shape is the one the task is designed for (its width, blocks, heads and MLP), so what
    training finds can be put beside the reference solution. Training does not know about the
    margin a pass needs; ``handmade.grader.grade(task, params)`` says whether it got there.
    """
    from .course.tasks import blank, examples, get_task

    task = get_task(task)
    _check_whole(seed, "seed", 0, MAX_SEED)
    rng = _generator(seed)  # the shape is blank(task)'s; its matrices drawn as init_params draws them
    start = map_arrays(lambda w: rng.normal(0.0, 0.02, size=w.shape) if w.ndim == 2 else w, blank(task))
    params = check_weights(start, Labels(task.alphabet, Basis.numbered(task.n_embd)))  # directions e0, e1, ...
    windows = {(e.context[-task.n_ctx :], e.expected): e for e in examples(task)}  # what the model can see, once each
    batch_fn = example_batches(list(windows.values()), None, task.n_ctx, seed, alphabet=task.alphabet)
    return train(params, batch_fn, steps, lr, progress=progress)
