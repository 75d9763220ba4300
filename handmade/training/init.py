"""A random start: weights of any shape ``gpt()`` runs, drawn from a seed, for training to begin from."""

import math

from ..arguments import check_alphabet, yes_or_no
from ..basis import Basis, Labels, default_alphabet
from ..structure import BlockShape, Structure
from ..weights import MAX_BLOCKS, MAX_N_CTX, MAX_N_VOCAB, MAX_WIDTH, check_weights, checked_n_head
from .limits import check_number, check_whole, generator


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
    std=None,
):
    """Random weights: matrices normal(0, std), biases 0, layer norms' gains 1.

    ``std`` is 1 / sqrt(n_embd) unless asked for: a start scaled to the model's width, so that a
    row of wte has a length of about 1 and each product keeps its input's size. GPT-2 starts from
    0.02, chosen for models 768 to 1600 wide and 12 to 48 blocks deep, where many small matrices
    add up along the residual stream and keep the first steps stable. At width 32 the same 0.02
    makes every signal a tenth of its input's size at each product, so the first steps go into
    growing the weights before they learn anything: on notebook 21's model, 100 steps end near a
    loss of 3.1 from 0.02 and 2.7 from 1 / sqrt(32) (``benchmarks/bench_training.py`` measures it).

    ``n_attn`` (default ``n_embd``) is the width of q, k and v, split into ``n_head`` heads;
    ``mlp`` adds a feed-forward layer of ``n_hidden`` units (default 4 * n_embd, at most 1,024) to each block;
    ``ln`` adds ``ln_1`` (and ``ln_2`` with an mlp) and ``ln_f`` the final layer norm. The weights
    are labelled: tokens are ``alphabet`` (default a, b, c, ...; beyond 26 tokens, t0, t1, ... without
    an alphabet), directions e0, e1, ...
    """
    check_whole(n_embd, "n_embd", 1, MAX_WIDTH)  # before the widths worked out of it
    n_attn = n_embd if n_attn is None else n_attn
    n_hidden = min(4 * n_embd, MAX_WIDTH) if n_hidden is None else n_hidden  # the limit, past a width of 256
    for value, name, limit in (
        (n_vocab, "n_vocab", MAX_N_VOCAB),
        (n_ctx, "n_ctx", MAX_N_CTX),
        (n_attn, "n_attn", MAX_WIDTH),
        (n_hidden, "n_hidden", MAX_WIDTH),
    ):
        check_whole(value, name, 1, limit)
    check_whole(n_layer, "n_layer", 0, MAX_BLOCKS)
    mlp, ln, ln_f = (yes_or_no(value, name) for value, name in ((mlp, "mlp"), (ln, "ln"), (ln_f, "ln_f")))
    n_head = checked_n_head(n_head, "n_head", n_attn)  # the argument named, not the block's key it becomes
    std = 1 / math.sqrt(n_embd) if std is None else std
    check_number(std, "std", 0, 10)
    labels = Labels(_alphabet(alphabet, n_vocab), Basis.numbered(n_embd))  # tokens, then directions e0, e1, ...
    rng = generator(rng)
    block = BlockShape(n_attn, n_head, n_hidden if mlp else 0, ln_1=ln, ln_2=ln and mlp)
    structure = Structure(n_vocab, n_ctx, n_embd, (block,) * n_layer, ln_f)
    params = structure.weights(lambda n_in, n_out: rng.normal(0.0, std, size=(n_in, n_out)))  # biases 0, gains 1
    return check_weights(params, labels)


def _alphabet(alphabet, n_vocab):  # -> the model's alphabet: the one given, or a, b, c, ... (None beyond 26)
    if alphabet is None:
        return default_alphabet(n_vocab)  # more than 26 tokens: no letters for them, they are t0, t1, ...
    return check_alphabet(alphabet)  # one that does not fit n_vocab: said by check_labels, as everywhere
