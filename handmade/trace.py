"""Every intermediate matrix of one forward pass, with labels, for the notebooks to show.

``trace()`` runs the package's one ``gpt()`` with a recorder and names what it hears: rows are
positions (``pos 2 · b``), columns are basis directions, q | k | v parts, key positions or
tokens, depending on the matrix. Nothing here recomputes the maths.
"""

import re
from collections.abc import Mapping

import numpy as np

from .basis import Basis, split_qkv
from .blog import ALPHABET, BASIS
from .inference import context_tokens, prepare
from .labelled import LabelledMatrix
from .model import forward, softmax

TITLES = {
    "token_embedding": "token embeddings: wte[tokens]",
    "position_embedding": "position embeddings: wpe[positions]",
    "embedding": "embedding: x = wte[tokens] + wpe[positions]",
    "ln_1": "ln_1: layer norm of x, the input to attention",
    "qkv": "qkv = x @ c_attn.w + c_attn.b",
    "q": "q: what each position looks for",
    "k": "k: what each position offers",
    "v": "v: what each position passes on",
    "scores": "scores: q @ k.T",
    "scaled_scores": "scaled scores: q @ k.T / sqrt(d)",
    "mask": "causal mask",
    "masked_scores": "masked scores: scaled scores + mask",
    "attention_weights": "attention weights: softmax(scaled scores + mask)",
    "attention_output": "attention output: weights @ v",
    "c_proj_output": "c_proj output: attention output @ c_proj.w + c_proj.b",
    "residual": "residual stream: x + c_proj output",
    "ln_2": "ln_2: layer norm of the residual stream, the input to the MLP",
    "mlp_hidden": "MLP hidden layer: gelu(x @ c_fc.w + c_fc.b)",
    "mlp_output": "MLP output",
    "mlp_residual": "residual stream after the MLP",
    "ln_f": "ln_f: final layer norm",
    "logits": "logits: x @ wte.T",
    "probabilities": "probabilities: softmax(logits)",
}
KEY_AXIS = {"scores", "scaled_scores", "mask", "masked_scores", "attention_weights"}


class Trace(Mapping):
    """Named LabelledMatrix per intermediate, in the order the forward pass made them.

    Keys are full names such as ``blocks[0].attention_weights``; any unique ending works too,
    so ``trace["attention_weights"]`` finds it when there is one block and one head.
    """

    def __init__(self, matrices, text, tokens):
        self._matrices = dict(matrices)
        self.text = text  # the context as given
        self.tokens = tuple(tokens)  # the ids the model saw

    def __iter__(self):
        return iter(self._matrices)

    def __len__(self):
        return len(self._matrices)

    def __getitem__(self, key):
        if key in self._matrices:
            return self._matrices[key]
        matches = [name for name in self._matrices if name.endswith("." + key)]
        if len(matches) == 1:
            return self._matrices[matches[0]]
        if matches:
            raise KeyError(f"{key!r} is ambiguous here: say which of {', '.join(matches)}")
        raise KeyError(f"no intermediate called {key!r}; this trace has {', '.join(self._matrices)}")

    def __repr__(self):
        return f"Trace of {self.text!r}: " + ", ".join(self._matrices)


def position_labels(tokens, alphabet=ALPHABET):
    return [f"pos {i} · {alphabet[t]}" for i, t in enumerate(tokens)]


def trace(text, params=None, *, alphabet=ALPHABET, basis=None, head_basis=None):
    """Run ``text`` through the model and keep every intermediate, labelled.

    ``basis`` names the embedding directions; by default the blog's ``P0..P4 | Ta Tb | V``
    when the model is 8 wide, otherwise ``e0, e1, ...``. ``head_basis`` names the directions of
    q, k, v and the attention output when they are not the embedding's (several heads, say).
    """
    params = prepare(params, alphabet)
    tokens = context_tokens(text, params, alphabet)
    n_embd = params["wte"].shape[1]
    if basis is None:
        basis = BASIS if n_embd == len(BASIS) else Basis.numbered(n_embd)
    elif len(basis) != n_embd:
        raise ValueError(f"the basis names {len(basis)} directions but the model is {n_embd} wide (n_embd)")
    raw = {}
    logits = forward(np.array(tokens), params, record=lambda name, array, flops: raw.setdefault(name, array.copy()))
    raw["probabilities"] = softmax(logits)
    rows = position_labels(tokens, alphabet)
    scoped = len(params["blocks"]) > 1 or any(block.get("n_head", 1) > 1 for block in params["blocks"])
    heads = basis if head_basis is None else head_basis
    matrices = {name: _label(name, array, rows, basis, heads, alphabet, scoped) for name, array in raw.items()}
    return Trace(matrices, text, tokens)


HEAD_SPACE = {"q", "k", "v", "attention_output"}  # made by c_attn, read by c_proj


def _label(name, array, rows, basis, heads, alphabet, scoped):
    kind = name.rsplit(".", 1)[-1]
    if kind in HEAD_SPACE:
        basis = heads
    n_embd, width = len(basis), array.shape[1]
    splits = tuple(basis.group_starts())
    if kind in KEY_AXIS:
        cols, splits = rows, ()
    elif kind == "qkv":
        cols, splits = [f"{part}·{n}" for part in "qkv" for n in heads], (n_embd, 2 * n_embd)
    elif kind in ("logits", "probabilities"):
        cols, splits = list(alphabet), ()
    elif kind == "mlp_hidden":
        cols, splits = [f"h{i}" for i in range(width)], ()
    elif width == n_embd:
        cols = basis.names
    else:  # one head's slice of the embedding directions
        head = int(re.search(r"head(\d+)", name).group(1))
        cols = basis.names[head * width : (head + 1) * width]
        splits = ()
    title = TITLES.get(kind, kind)
    if scoped and "." in name:  # say which block (and head) when there is more than one
        title = f"{title} ({name[: -len(kind) - 1]})"
    return LabelledMatrix(array, rows, cols, title=title, col_splits=splits)


def weight_tables(params=None, alphabet=ALPHABET, basis=BASIS):
    """{name: LabelledMatrix} for the weights of the first block, labelled by the basis.

    The names are the ones the widgets edit (wte, wpe, q, k, v, c_proj.w, c_proj.b) plus the
    whole c_attn.w with its q | k | v split drawn.
    """
    params = prepare(params, alphabet)
    attn = params["blocks"][0]["attn"]
    q, k, v = split_qkv(attn["c_attn"]["w"])
    names = basis.names
    splits = tuple(basis.group_starts())

    def lab(values, rows, title):
        return LabelledMatrix(values, rows, names, title=title, col_splits=splits)

    return {
        "wte": lab(params["wte"], list(alphabet), "wte: one row per token"),
        "wpe": lab(params["wpe"], [f"pos {i}" for i in range(len(params["wpe"]))], "wpe: one row per position"),
        "c_attn.w": LabelledMatrix(
            attn["c_attn"]["w"],
            names,
            [f"{part}·{n}" for part in "qkv" for n in names],
            title="c_attn.w: makes q | k | v from each embedding row",
            col_splits=(len(names), 2 * len(names)),
        ),
        "q": lab(q, names, "q block of c_attn.w: input direction (row) to query direction (column)"),
        "k": lab(k, names, "k block of c_attn.w: input direction to key direction"),
        "v": lab(v, names, "v block of c_attn.w: input direction to value direction"),
        "c_proj.w": lab(attn["c_proj"]["w"], names, "c_proj.w: attention output direction to residual direction"),
        "c_proj.b": lab(attn["c_proj"]["b"][None, :], ["bias"], "c_proj.b: added to every position"),
    }
