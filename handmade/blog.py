"""The blog's hand-made model for (aab)*: its literal matrices, and the rules that build them.

``BLOG_LITERALS`` holds the matrices exactly as the post prints them (the one place they are
typed out). ``blog_model()`` builds the same matrices from rules over the named basis
``P0..P4 | Ta Tb | V``; the tests check that the two agree element for element.
"""

import math

import numpy as np

from .arguments import number
from .basis import Basis, Labels, qkv_weights
from .weights import Weights

N_CTX = 5  # context length: the task needs the last 2 tokens; 5 makes the model ignore the rest
N_VOCAB = 2  # the tokens a (0) and b (1)
N_EMBD = 8  # 5 position directions + 2 token directions + 1 scratch direction
LG = 1024  # "large": big enough to drown out everything it competes with

ALPHABET = "ab"
TASK_TEXT = "aab" * 10  # the blog's accuracy test: predict every token of this from its prefix

BASIS = Basis(
    {
        "position": [f"P{i}" for i in range(N_CTX)],  # one-hot position of the token
        "token": ["Ta", "Tb"],  # one-hot identity of the token
        "scratch": ["V"],  # where attention writes its verdict
    }
)
LABELS = Labels(ALPHABET, BASIS)


def _strength(value, name):
    """An Lg: any finite number (what it does to the pass, forward() says when it overflows)."""
    return number(value, name, -math.inf, math.inf, low_allowed=False, high_allowed=False)


def blog_model(lg=LG, *, q_lg=None, proj_lg=None):
    """The blog's MODEL as a nested dict of float arrays, built from rules over ``BASIS``.

    ``lg`` is the blog's Lg; ``q_lg`` (the query strength) and ``proj_lg`` (the strength of
    ``c_proj``) default to it and can be set apart to see what each one does.
    """
    lg = _strength(lg, "lg")
    q_lg = lg if q_lg is None else _strength(q_lg, "q_lg")
    proj_lg = lg if proj_lg is None else _strength(proj_lg, "proj_lg")
    positions = [f"P{i}" for i in range(N_CTX)]
    # a query at position i looks for the keys of positions i-1 and i, with strength q_lg
    q = BASIS.matrix({(p, positions[j]): q_lg for i, p in enumerate(positions) for j in (i - 1, i) if j >= 0})
    # a key offers its own position and nothing else
    k = BASIS.matrix({(p, p): 1 for p in positions})
    # a value turns the token into a number in the scratch direction: a is +1, b is -1
    v = BASIS.matrix({("Ta", "V"): 1, ("Tb", "V"): -1})
    # c_proj turns the scratch number s into tokens: a gets proj_lg * (1 - s), b gets proj_lg * s
    c_proj = {
        "w": BASIS.matrix({("V", "Ta"): -proj_lg, ("V", "Tb"): proj_lg}),
        "b": BASIS.vector({"Ta": proj_lg}),
    }
    return Weights(
        {
            "wte": BASIS.one_hot_rows(["Ta", "Tb"]),  # [n_vocab, n_embd]: a -> Ta, b -> Tb
            "wpe": BASIS.one_hot_rows(positions),  # [n_ctx, n_embd]: position i -> Pi
            "blocks": [{"attn": {"c_attn": qkv_weights(q, k, v), "c_proj": c_proj}}],
        },
        LABELS,
    )


def flip_model(lg=LG):
    """A model that cannot see positions (wpe is all zeros): "if I am a, say b; if b, say a".

    Each token attends to the earlier tokens that are the same as itself, so attention returns
    its own value (+1 for a, -1 for b), and c_proj turns +1 into b and -1 into a. That is all
    (ab)* needs; (aab)* needs to know the token before, which this model cannot find.
    """
    lg = _strength(lg, "lg")
    q = BASIS.matrix({("Ta", "Ta"): lg, ("Tb", "Tb"): lg})  # a looks for a, b looks for b
    k = BASIS.matrix({("Ta", "Ta"): 1, ("Tb", "Tb"): 1})  # every token offers what it is
    v = BASIS.matrix({("Ta", "V"): 1, ("Tb", "V"): -1})
    c_proj = {"w": BASIS.matrix({("V", "Ta"): -lg, ("V", "Tb"): lg}), "b": np.zeros(len(BASIS))}
    return Weights(
        {
            "wte": BASIS.one_hot_rows(["Ta", "Tb"]),
            "wpe": np.zeros((N_CTX, len(BASIS))),  # no position information at all
            "blocks": [{"attn": {"c_attn": qkv_weights(q, k, v), "c_proj": c_proj}}],
        },
        LABELS,
    )


HEAD_BASIS = Basis(
    {
        "head 0": ["h0·x", "h0·y", "h0·-", "h0·V"],  # x, y: a position as a point on a circle
        "head 1": ["h1·x", "h1·y", "h1·-", "h1·V"],  # V: the token's value, as in the blog
    }
)


def two_head_model(lg=LG):
    """The blog's model with its single head split into two heads of 4 dimensions each.

    Head 0 looks at the token itself, head 1 at the token before; c_proj averages their two
    values, which is what the blog's one head did by attending to both. A head has too few
    dimensions for one-hot positions, so each position becomes a point on a circle (72 degrees
    apart): a query pointing at position j scores lg there and at most lg * cos(72°) elsewhere.
    """
    lg = _strength(lg, "lg")
    angle = [2 * np.pi * i / N_CTX for i in range(N_CTX)]
    positions = [f"P{i}" for i in range(N_CTX)]
    q, k, v = {}, {}, {}
    for i, p in enumerate(positions):
        for head in ("h0", "h1"):
            k[(p, f"{head}·x")], k[(p, f"{head}·y")] = np.cos(angle[i]), np.sin(angle[i])
        q[(p, "h0·x")], q[(p, "h0·y")] = lg * np.cos(angle[i]), lg * np.sin(angle[i])  # "find me"
        if i > 0:  # "find the position before me"
            q[(p, "h1·x")], q[(p, "h1·y")] = lg * np.cos(angle[i - 1]), lg * np.sin(angle[i - 1])
    for head in ("h0", "h1"):
        v[("Ta", f"{head}·V")], v[("Tb", f"{head}·V")] = 1, -1
    c_proj = {  # s = (h0·V + h1·V) / 2, then the blog's rule: a gets lg * (1 - s), b gets lg * s
        "w": HEAD_BASIS.matrix(
            {(f"{h}·V", t): sign * lg / 2 for h in ("h0", "h1") for t, sign in (("Ta", -1), ("Tb", 1))}, cols=BASIS
        ),
        "b": BASIS.vector({"Ta": lg}),
    }
    c_attn = qkv_weights(*(BASIS.matrix(rules, cols=HEAD_BASIS) for rules in (q, k, v)))
    params = blog_model(lg)
    params["blocks"] = [{"attn": {"c_attn": c_attn, "c_proj": c_proj}, "n_head": 2}]
    params.labels = Labels(ALPHABET, BASIS, attention=(HEAD_BASIS,))
    return params


def _literals():
    L = LG
    # fmt: off
    return {
        "wte": [
            [0, 0, 0, 0, 0, 1, 0, 0],
            [0, 0, 0, 0, 0, 0, 1, 0],
        ],
        "wpe": [
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 0, 0, 0],
            [0, 0, 1, 0, 0, 0, 0, 0],
            [0, 0, 0, 1, 0, 0, 0, 0],
            [0, 0, 0, 0, 1, 0, 0, 0],
        ],
        "blocks": [
            {
                "attn": {
                    "c_attn": {
                        "b": [0] * 24,
                        "w": [  # q block             | k block                | v block
                            [L, 0, 0, 0, 0, 0, 0, 0,  1, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0],
                            [L, L, 0, 0, 0, 0, 0, 0,  0, 1, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0],
                            [0, L, L, 0, 0, 0, 0, 0,  0, 0, 1, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0],
                            [0, 0, L, L, 0, 0, 0, 0,  0, 0, 0, 1, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0],
                            [0, 0, 0, L, L, 0, 0, 0,  0, 0, 0, 0, 1, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0],
                            [0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 1],
                            [0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, -1],
                            [0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0],
                        ],
                    },
                    "c_proj": {
                        "b": [0, 0, 0, 0, 0, L, 0, 0],
                        "w": [[0] * 8] * 7 + [[0, 0, 0, 0, 0, -L, L, 0]],
                    },
                }
            }
        ],
    }
    # fmt: on


BLOG_LITERALS = _literals()
"""The post's MODEL, typed out as nested lists (the post's own numbers, our layout)."""


def literal_model():
    """``BLOG_LITERALS`` as a weights dict of arrays (the post's dtypes: ints stay ints)."""

    def arrays(node):
        if isinstance(node, dict):
            return {key: arrays(value) for key, value in node.items()}
        if isinstance(node, list) and node and isinstance(node[0], dict):
            return [arrays(value) for value in node]
        return np.array(node)

    return arrays(BLOG_LITERALS)
