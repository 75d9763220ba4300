"""What a forward pass costs, in closed form: operations counted from a model's ``Structure`` alone.

A product [m, k] @ [k, n] is m*n dot products of k terms: k multiplications and k - 1 additions
each; adding a bias, the residual or the mask is one addition per entry. ``pass_flops`` adds them
up for one pass; ``handmade.course.efficiency.FlopCounter`` hears the same operations from a pass
that runs (the tests check that the two agree). ``generation_flops`` is what writing some tokens
with the key/value cache costs, which ``handmade.inference`` reads to refuse a request too costly
before it runs a single pass.
"""


def matmul_flops(m, k, n):
    return m * n * (2 * k - 1)


def linear_flops(m, k, n):
    return matmul_flops(m, k, n) + m * n


def softmax_flops(m, n):  # per row: max (n - 1), subtract (n), exp (n), sum (n - 1), divide (n)
    return m * (5 * n - 2)


def layer_norm_flops(m, n):  # per row: mean (n), variance (3n), normalise (2n + 2), scale and shift (2n)
    return m * (8 * n + 2)


GELU_FLOPS = 8  # per entry: cube (2), four multiplications, an addition, tanh, counted as one each


def pass_flops(structure, n_seq, n_past=0):
    """The operations of one pass of ``n_seq`` new positions after ``n_past`` cached ones: what a
    FlopCounter hears, worked out from the structure alone (the tests check the two agree)."""
    m, n_k, d = n_seq, n_past + n_seq, structure.n_embd
    total = m * d  # the embedding: wte[tokens] + wpe[positions]
    for block in structure.blocks:
        total += layer_norm_flops(m, d) if block.ln_1 else 0
        total += linear_flops(m, d, 3 * block.n_attn)  # qkv
        per_head = matmul_flops(m, block.d_head, n_k) + 2 * m * n_k + softmax_flops(m, n_k)  # scores to weights
        total += block.n_head * (per_head + matmul_flops(m, n_k, block.d_head))  # and weights @ v
        total += linear_flops(m, block.n_attn, d) + m * d  # c_proj, then the residual
        if block.mlp:
            total += layer_norm_flops(m, d) if block.ln_2 else 0
            total += linear_flops(m, d, block.n_hidden) + GELU_FLOPS * m * block.n_hidden
            total += linear_flops(m, block.n_hidden, d) + m * d  # c_proj, then the residual
    total += layer_norm_flops(m, d) if structure.ln_f else 0
    return total + matmul_flops(m, d, structure.n_vocab)  # the logits


def generation_flops(structure, n_context, max_new_tokens):
    """The operations of writing ``max_new_tokens`` after ``n_context`` tokens with the cache, as
    ``next_logits`` runs them: the context first, then one position a step until the window is full;
    from then on every step rebuilds the cache from the whole window."""
    n_ctx = structure.n_ctx
    cached, new, total = 0, min(n_context, n_ctx), 0
    for step in range(max_new_tokens):
        if (cached, new) == (0, n_ctx) and step:  # full from here on: the same full pass every step
            return total + (max_new_tokens - step) * pass_flops(structure, n_ctx)
        total += pass_flops(structure, new, cached)
        cached, new = (0, n_ctx) if cached + new == n_ctx else (cached + new, 1)
    return total
