"""A second model, worked through number by number: one decoder step with small integer matrices.

The source writes it with column vectors: a weight matrix multiplies from the left, ``Q @ X.T``.
The package writes rows: ``x @ w``. ``column_convention()`` follows the source line by line;
``row_convention()`` runs the same model through the package's own functions. They agree.

The model: a vocabulary of 10 words, 3-number embeddings, one attention head (no bias, scaled
by sqrt(3), causal mask), a residual connection, layer norm *after* it (gamma 1, beta 0), a
linear feed-forward layer with no activation, and an output matrix onto the vocabulary.
"""

import numpy as np

from ..model import attention, layer_norm, linear, softmax

E = np.array(
    [[0, 1, 2], [6, 7, 1], [3, 4, 5], [0, 2, 1], [1, 3, 0], [3, 8, 6], [2, 7, 5], [6, 2, 1], [9, 1, 3], [0, 1, 1]]
)
Q = np.array([[1, 1, 7], [2, 5, 1], [2, 6, 9]])  # each row makes one number of a query
K = np.array([[0, 4, 8], [1, 6, 9], [4, 2, 2]])
V = np.array([[2, 1, 0], [4, 3, 1], [6, 5, 1]])
W_F = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]])  # the feed-forward layer
B_F = np.array([2, 1, 1])
M_OUT = np.array([[0, 2, 1, 1, 3, 1, 0, 0, 4, 1], [1, 1, 3, 1, 0, 0, 4, 1, 0, 2], [1, 4, 0, 0, 1, 3, 1, 1, 2, 0]])
SENTENCE = ["[BOS]", "the", "fox", "jumped", "[EOS]"]
TOKEN_IDS = [0, 3, 6, 7, 2]  # the word ids of the sentence
# The source names only the five words of its sentence; the other five ids stay "word 1", ...
VOCABULARY = [dict(zip(TOKEN_IDS, SENTENCE)).get(i, f"word {i}") for i in range(10)]
I = np.eye(10, dtype=int)[TOKEN_IDS]  # noqa: E741 (the source's name) one one-hot row per word: [5, 10]
EPSILON = 1e-5


def minus_inf_mask(n):  # the source's mask: 0 on and below the diagonal, -inf above
    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)


def column_convention():
    """Every matrix the source prints, computed the way it computes them (columns are tokens)."""
    steps = {}
    steps["X"] = X = I @ E  # [5, 3]: one embedding per row
    steps["Q_x"] = Q_x = Q @ X.T  # [3, 5]: one query per column
    steps["K_x"] = K_x = K @ X.T
    steps["V_x"] = V_x = V @ X.T
    steps["S"] = S = Q_x.T @ K_x  # [5, 5]: query i against key j
    steps["S_masked"] = S_masked = S + minus_inf_mask(5)
    steps["S_scaled"] = S_scaled = S_masked / np.sqrt(Q.shape[0])
    steps["A"] = A = softmax(S_scaled)  # the attention weights
    steps["R"] = R = A @ V_x.T  # [5, 3]: each row a weighted sum of values
    steps["R_residual"] = R_residual = R + X
    mean, variance = R_residual.mean(axis=1), R_residual.var(axis=1)
    steps["Y"] = Y = (R_residual.T - mean) / np.sqrt(variance + EPSILON)  # [3, 5], gamma 1, beta 0
    steps["O"] = O = (W_F @ Y).T + B_F  # noqa: E741 (the source's name) [5, 3]
    steps["L"] = L = M_OUT.T @ O.T  # [10, 5]: one column of logits per position
    steps["probs"] = softmax(L.T)  # [5, 10]: softmax over the vocabulary, position by position
    return steps


def row_convention():
    """The same model through the package's functions: rows are tokens, weights multiply on the right."""
    x = E[TOKEN_IDS].astype(float)  # the embedding lookup, as gpt() does it
    zero = np.zeros(3)
    q, k, v = (linear(x, w.T, zero) for w in (Q, K, V))  # x @ Q.T is (Q @ x.T).T
    r = attention(q, k, v, minus_inf_mask(5))  # scaled by sqrt(3) inside, like the source
    residual = x + r
    y = layer_norm(residual, g=np.ones(3), b=np.zeros(3))
    o = linear(y, W_F.T, B_F)
    logits = o @ M_OUT  # [5, 10]
    return {"X": x, "q": q, "k": k, "v": v, "R": r, "R_residual": residual, "Y": y, "O": o, "logits": logits,
            "probs": softmax(logits)}  # fmt: skip


def seed_check_value():
    """The single number the source prints while checking a softmax weight by hand.

    It evaluates e^(520/1.73) / (3 e^(-inf/1.73) + e^(570/1.73) + e^(520/1.73)), with 1.73 for
    sqrt(3) and 520 where the score matrix has 501, so it is not one of the model's weights.
    """
    return np.exp(520 / 1.73) / ((np.exp(-np.inf / 1.73) * 3) + np.exp(570 / 1.73) + np.exp(520 / 1.73))
