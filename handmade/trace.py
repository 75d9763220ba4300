"""Every intermediate matrix of one forward pass, with labels, for the notebooks to show.

``trace()`` runs the package's one ``gpt()`` while recording its taps, and labels what it hears
with the names the model carries: rows are positions (``pos 2 · b``), columns are the model's
directions, q | k | v parts, key positions or tokens, depending on the matrix. Nothing here
recomputes the maths.
"""

import re
from collections.abc import Mapping

import numpy as np

from .i18n import N_, _
from .inference import context_tokens, prepare
from .labelled import LabelledMatrix
from .model import TAPS, recording, softmax
from .parts import weight_tables  # noqa: F401 (kept here too: the notebooks import it from the trace)
from .weights import forward

TITLES = {  # one per name in model.TAPS, and the probabilities the trace adds
    "token_embedding": N_("token embeddings: wte[tokens]"),
    "position_embedding": N_("position embeddings: wpe[positions]"),
    "embedding": N_("embedding: x = wte[tokens] + wpe[positions]"),
    "ln_1": N_("ln_1: layer norm of x, the input to attention"),
    "qkv": N_("qkv = x @ c_attn.w + c_attn.b"),
    "q": N_("q: what each position looks for"),
    "k": N_("k: what each position offers"),
    "v": N_("v: what each position passes on"),
    "scores": N_("scores: q @ k.T"),
    "scaled_scores": N_("scaled scores: q @ k.T / sqrt(d)"),
    "masked_scores": N_("masked scores: scaled scores + mask"),
    "attention_weights": N_("attention weights: softmax(scaled scores + mask)"),
    "attention_output": N_("attention output: weights @ v"),
    "c_proj_output": N_("c_proj output: attention output @ c_proj.w + c_proj.b"),
    "residual": N_("residual stream: x + c_proj output"),
    "ln_2": N_("ln_2: layer norm of the residual stream, the input to the MLP"),
    "mlp_hidden": N_("MLP hidden layer: gelu(x @ c_fc.w + c_fc.b)"),
    "mlp_output": N_("MLP output"),
    "mlp_residual": N_("residual stream after the MLP"),
    "ln_f": N_("ln_f: final layer norm"),
    "logits": N_("logits: x @ wte.T"),
    "probabilities": N_("probabilities: softmax(logits)"),
}
assert set(TITLES) == {*TAPS, "q", "k", "v", "probabilities"}, "every tapped name needs a title"

KEY_AXIS = {"scores", "scaled_scores", "masked_scores", "attention_weights"}  # columns are key positions
ATTENTION_SPACE = {"q", "k", "v", "attention_output"}  # made by c_attn, read by c_proj


def title(name):
    """The title of the intermediate ``name`` (``blocks[0].scores`` or ``scores``), translated."""
    kind = name.rsplit(".", 1)[-1]
    return _(TITLES[kind])


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
            raise KeyError(
                _("{key} is ambiguous here: say which of {names}").format(key=repr(key), names=", ".join(matches))
            )
        raise KeyError(
            _("no intermediate called {key}; this trace has {names}").format(
                key=repr(key), names=", ".join(self._matrices)
            )
        )

    def __repr__(self):
        return f"Trace of {self.text!r}: " + ", ".join(self._matrices)


def position_labels(tokens, labels):
    shown = labels.tokens
    return [_("pos {i} · {token}").format(i=i, token=shown[t]) for i, t in enumerate(tokens)]


def trace(text, params=None, *, alphabet=None):
    """Run ``text`` through the model and keep every intermediate, labelled by the model's labels."""
    params = prepare(params, alphabet)
    tokens = context_tokens(text, params)
    raw = {}

    def keep(name, array):
        raw[name] = array
        if name.endswith("qkv"):  # and its thirds, as causal_self_attention splits it into q, k and v
            for part, third in zip("qkv", np.split(array, 3, axis=-1)):
                raw[name[:-3] + part] = third

    with recording(keep):
        logits = forward(tokens, params)
    raw["probabilities"] = softmax(logits)
    rows = position_labels(tokens, params.labels)
    scoped = len(params["blocks"]) > 1 or any(block.get("n_head", 1) > 1 for block in params["blocks"])
    matrices = {name: _label(name, array, rows, tokens, params, scoped) for name, array in raw.items()}
    return Trace(matrices, text, tokens)


def _label(name, array, rows, tokens_seen, params, scoped):
    kind = name.rsplit(".", 1)[-1]
    labels = params.labels
    block = int(re.match(r"blocks\[(\d+)\]", name).group(1)) if name.startswith("blocks[") else 0
    n_attn = params["blocks"][block]["attn"]["c_attn"]["w"].shape[1] // 3 if params["blocks"] else 0
    heads = labels.attention_basis(block, n_attn) if params["blocks"] else labels.residual
    basis = heads if kind in ATTENTION_SPACE else labels.residual
    splits = tuple(basis.group_starts())
    if kind in KEY_AXIS:
        cols, splits = _key_labels(tokens_seen, labels, array.shape[1]), ()
    elif kind == "qkv":
        cols, splits = [f"{part}·{n}" for part in "qkv" for n in heads], (n_attn, 2 * n_attn)
    elif kind in ("logits", "probabilities"):
        cols, splits = labels.tokens, ()
    elif kind == "mlp_hidden":
        cols, splits = labels.hidden_basis(block, array.shape[1]).names, ()
    elif array.shape[1] == len(basis):
        cols = basis.names
    else:  # one head's slice of the attention directions
        head, width = int(re.search(r"head(\d+)", name).group(1)), array.shape[1]
        groups = list(basis.groups.values())
        cols = groups[head] if len(groups) * width == len(basis) else basis.names[head * width : (head + 1) * width]
        splits = ()
    heading = title(name)
    if scoped and "." in name:  # say which block (and head) when there is more than one
        heading = f"{heading} ({name[: -len(kind) - 1]})"
    return LabelledMatrix(array, rows, cols, title=heading, col_splits=splits)


def _key_labels(tokens, labels, n_k):
    """Column labels for the keys, short (``0·a``) so that square tables stay narrow."""
    shown = labels.tokens
    return [f"{i}·{shown[t]}" for i, t in enumerate(tokens)] if len(tokens) == n_k else [str(i) for i in range(n_k)]
