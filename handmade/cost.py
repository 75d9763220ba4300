"""What a forward pass costs, in closed form: operations counted from a model's ``Structure`` alone.

A product [m, k] @ [k, n] is m*n dot products of k terms: k multiplications and k - 1 additions
each; adding a bias, the residual or the mask is one addition per entry. ``pass_flops`` adds them
up for one pass; ``handmade.course.efficiency.FlopCounter`` hears the same operations from a pass
that runs (the tests check that the two agree). ``generation_flops`` is what writing some tokens
with the key/value cache costs, which ``handmade.inference`` reads to refuse a request too costly
before it runs a single pass.

Grading runs many small passes, where numpy's fixed cost per call outweighs the arithmetic, and
long ones, where the attention scores (an entry per query and key) are elementwise work that costs
more than its count: ``grading_operations`` estimates it in one closed formula, over the passes
grading runs (``passes``: one per longest window), the explanations of the contexts that fail and,
when every one's path back is asked for (``grade --json``), those paths, for ``handmade.course.tasks``
to refuse a grade too costly before it starts.
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


# ---- grading: many small passes --------------------------------------------------------------

CALL_OPERATIONS = 100_000  # one numpy call on small arrays takes as long as this much arithmetic (~5 µs)
SCORE_OPERATIONS = 300  # one attention score: scaled, masked, exponentiated, normalised, applied
EXPLAINING = 3  # explaining a failing context: a recorded pass over its window, its shares and its words
# following a failing context's path back (``grade --json`` follows every one's): about 2 ms a context on
# the longest paths benchmarks/bench_explain.py finds (random weights), 6 to 17 passes' worth at the rates
# benchmarks/bench_grader.py measures
FOLLOWING = 16


def passes(windows):
    """[(window to run, [the windows its pass answers])]: the logits after every one of ``windows``
    (tuples of token ids) from the fewest passes. A causal pass over a window gives the logits after
    each of its prefixes too, so a window that is the prefix of another is not run: in descending
    order the windows that extend one come just before it, so the run before it covers it if any does."""
    runs = []
    for window in sorted(set(windows), reverse=True):
        if runs and runs[-1][0][: len(window)] == window:
            runs[-1][1].append(window)
        else:
            runs.append((window, [window]))
    return runs


def grading_operations(structure, runs, explained, followed=None):
    """What grading costs a model of ``structure``, in operations: ``runs``, ``explained`` and ``followed``
    count the passes, the explained contexts and those whose path back is followed by their positions
    ({n_seq: how many}, e.g. a Counter).

    A pass of n positions costs, in closed form, 2 n W for the W weights of its matrices that each
    position goes through (wte's too, for the logits), 4 n² for each direction of attention (q @ k.T
    and weights @ v), SCORE_OPERATIONS for each score of each head, and CALL_OPERATIONS for each
    array it taps (numpy's fixed cost per call, which outweighs small arithmetic; the constants are
    fitted on this machine's timings, and benchmarks/bench_grader.py measures them against time).
    Explaining a context costs EXPLAINING passes over its window, and following its path back FOLLOWING."""
    d, blocks = structure.n_embd, structure.blocks
    weights = structure.n_vocab * d + sum(4 * d * b.n_attn + 2 * d * b.n_hidden for b in blocks)
    per_score = sum(4 * b.n_attn + SCORE_OPERATIONS * b.n_head for b in blocks)
    calls = CALL_OPERATIONS * len(structure.taps(derived=False))
    followed = followed or {}
    counts = {
        n: runs.get(n, 0) + EXPLAINING * explained.get(n, 0) + FOLLOWING * followed.get(n, 0)
        for n in {*runs, *explained, *followed}
    }
    return sum(k * (2 * n * weights + n * n * per_score + calls) for n, k in counts.items())
