"""Every weight and every intermediate matrix of one forward pass, with labels, for the notebooks to show.

``trace()`` runs the package's one ``gpt()`` while recording its taps, and labels what it hears
with the names the model carries: rows are positions (``pos 2 · b``), columns are the model's
directions, q | k | v parts, key positions or tokens, depending on the matrix. Nothing here
recomputes the maths.
"""

from collections.abc import Mapping

import numpy as np

from ..i18n import _
from ..inference import context_tokens, prepare
from ..model import Name, recording, softmax
from ..names import INTERMEDIATES, T, resolve, shortest
from ..parts import part_values, parts
from ..structure import part_title
from ..weights import check_weights, forward
from .labelled import LabelledMatrix


def title(name):
    """The title of the intermediate ``name`` (a Name, such as ``blocks[0].scores``), translated."""
    return _(INTERMEDIATES[name.kind].title)


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
        return self._matrices[self.name(key)]

    def name(self, key):
        """The full Name of the intermediate ``key`` names (``scores`` or ``blocks[0].scores``), or UnknownName."""
        return resolve(key, list(self._matrices), _("no intermediate called {name}; this trace has {names}"))

    def __repr__(self):  # a text longer than the model reads: the letters it read, which the positions count from
        n = len(self.tokens)
        read = "" if n == len(self.text) else f" (the model reads only its last {n} letters, {self.read!r})"
        return f"Trace of {self.text!r}{read}: " + ", ".join(self._matrices)

    @property
    def read(self):
        """The letters of the text the model read (its last n_ctx): position 0 is the first of them."""
        return self.text[len(self.text) - len(self.tokens) :]


def position_labels(tokens, labels):
    shown = labels.token_names(max(tokens) + 1)
    return [_("pos {i} · {token}").format(i=i, token=shown[t]) for i, t in enumerate(tokens)]


def trace(text, params=None, *, alphabet=None):
    """Run ``text`` through the model and keep every intermediate, labelled by the model's labels."""
    params = prepare(params, alphabet)
    tokens = context_tokens(text, params)
    raw = {}

    def keep(name, array):
        raw[name] = array
        if name.kind == T.qkv:  # and its thirds, as causal_self_attention splits it into q, k and v
            for kind, third in zip((T.q, T.k, T.v), np.split(array, 3, axis=-1)):
                raw[Name(kind, name.block)] = third

    with recording(keep):
        logits = forward(tokens, params)
    raw[Name(T.probabilities)] = softmax(logits)
    structure = params.structure
    rows = position_labels(tokens, params.labels)
    scoped = structure.n_layer > 1 or any(block.n_head > 1 for block in structure.blocks)
    matrices = {name: _label(name, raw[name], rows, tokens, params, scoped) for name in structure.taps()}
    return Trace(matrices, text, tokens)


def _label(name, array, rows, tokens_seen, params, scoped):
    """One intermediate as a LabelledMatrix: its columns named as its declaration says."""
    columns, structure = INTERMEDIATES[name.kind].columns, params.structure
    if columns == "keys":
        cols, splits = _key_labels(tokens_seen, params.labels, array.shape[1]), ()
    else:
        if columns == "attention" and name.head is not None:
            columns = "head"  # one head's slice of the attention directions
        basis = structure.basis(structure.space(columns, name.block, name.head), params.labels)
        cols = basis.names
        splits = () if columns in ("tokens", "hidden", "head") else tuple(basis.group_starts())
    heading = title(name)
    if scoped and name.scope:  # say which block (and head) when there is more than one
        # TRANSLATORS: a table's title, then the block (and head) it is from, in brackets: （）in Chinese
        heading = _("{title} ({scope})").format(title=heading, scope=name.scope)
    return LabelledMatrix(array, rows, cols, title=heading, col_splits=splits)


def _key_labels(tokens, labels, n_k):
    """Column labels for the keys, short (``0·a``) so that square tables stay narrow."""
    shown = labels.token_names(max(tokens) + 1)
    return [f"{i}·{shown[t]}" for i, t in enumerate(tokens)] if len(tokens) == n_k else [str(i) for i in range(n_k)]


# ---- the weights, as tables ---------------------------------------------------------------


def table(params, name):
    """One part as a LabelledMatrix, with its row and column names."""
    params = check_weights(params)
    return _table(params, params.structure.part(name))


def _table(params, part):
    structure, labels = params.structure, params.labels
    rows, cols = structure.basis(part.rows, labels), structure.basis(part.cols, labels)
    splits = tuple(cols.group_starts())
    return LabelledMatrix(part_values(params, part), rows.names, cols.names, title=part.title, col_splits=splits)


def weight_tables(params=None):
    """{name: LabelledMatrix} for every part of ``params`` (the blog's model when None), plus each
    block's whole ``c_attn.w``."""
    if params is None:
        from ..blog import blog_model

        params = blog_model()
    params = check_weights(params)
    tables = {name: _table(params, part) for name, part in parts(params).items()}
    whole = [Name("c_attn.w", b) for b in range(len(params["blocks"]))]
    for b, block in enumerate(params["blocks"]):
        q = _table(params, params.structure.part(Name("q", b)))
        n_attn = len(q.cols)
        tables[shortest(whole[b], whole)] = LabelledMatrix(
            block["attn"]["c_attn"]["w"],
            q.rows,
            [f"{x}·{n}" for x in "qkv" for n in q.cols],
            title=part_title("c_attn.w"),
            col_splits=(n_attn, 2 * n_attn),
        )
    return tables
