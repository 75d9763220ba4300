"""A second GPT-2 forward pass, written independently and slowly: plain Python loops, no numpy
maths, and causality by never visiting future positions (no mask at all).

It shares nothing with handmade/model.py, so when the two agree on random weights the package's
vectorised maths is right.
"""

import math


def matmul(a, b):  # lists [m][n] @ [n][p] -> [m][p]
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def affine(rows, w, b):
    return [[value + b[j] for j, value in enumerate(row)] for row in matmul(rows, w)]


def norm(rows, g, b, eps=1e-5):
    out = []
    for row in rows:
        mean = sum(row) / len(row)
        var = sum((x - mean) ** 2 for x in row) / len(row)
        out.append([g[j] * (x - mean) / math.sqrt(var + eps) + b[j] for j, x in enumerate(row)])
    return out


def gelu(x):
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def softmax_row(row):
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    return [e / sum(exps) for e in exps]


def head(q, k, v):  # each position averages the values of itself and the positions before it
    out = []
    for i in range(len(q)):
        scores = [sum(a * b for a, b in zip(q[i], k[j])) / math.sqrt(len(q[i])) for j in range(i + 1)]
        weights = softmax_row(scores)
        out.append([sum(weights[j] * v[j][c] for j in range(i + 1)) for c in range(len(v[0]))])
    return out


def block(x, p):
    n_head = p.get("n_head", 1)
    h = norm(x, p["ln_1"]["g"], p["ln_1"]["b"]) if p.get("ln_1") else x
    qkv = affine(h, p["attn"]["c_attn"]["w"], p["attn"]["c_attn"]["b"])
    n_attn = len(qkv[0]) // 3  # q | k | v side by side
    size = n_attn // n_head
    heads = []
    for n in range(n_head):
        cols = range(n * size, (n + 1) * size)
        q, k, v = ([[row[offset + c] for c in cols] for row in qkv] for offset in (0, n_attn, 2 * n_attn))
        heads.append(head(q, k, v))
    merged = [[value for out in heads for value in out[i]] for i in range(len(x))]
    attn = affine(merged, p["attn"]["c_proj"]["w"], p["attn"]["c_proj"]["b"])
    x = [[a + b for a, b in zip(row, add)] for row, add in zip(x, attn)]
    if p.get("mlp"):
        h = norm(x, p["ln_2"]["g"], p["ln_2"]["b"]) if p.get("ln_2") else x
        hidden = [[gelu(v) for v in row] for row in affine(h, p["mlp"]["c_fc"]["w"], p["mlp"]["c_fc"]["b"])]
        out = affine(hidden, p["mlp"]["c_proj"]["w"], p["mlp"]["c_proj"]["b"])
        x = [[a + b for a, b in zip(row, add)] for row, add in zip(x, out)]
    return x


def naive_gpt(tokens, params):  # params as nested lists -> logits [n_seq][n_vocab]
    x = [[t + p for t, p in zip(params["wte"][tok], params["wpe"][i])] for i, tok in enumerate(tokens)]
    for p in params["blocks"]:
        x = block(x, p)
    if params.get("ln_f"):
        x = norm(x, params["ln_f"]["g"], params["ln_f"]["b"])
    return [[sum(a * b for a, b in zip(row, embedding)) for embedding in params["wte"]] for row in x]
