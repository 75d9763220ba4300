"""The parts of a model, by name: where each sits in the weights dict and how it is labelled.

``q``, ``k`` and ``v`` are column blocks of ``c_attn.w``; ``c_proj.w`` is a matrix of its own;
``blocks[1].mlp.c_fc.b`` is a vector. This module is the one place that knows such things, so
that the widgets, the checkers, the tasks and the notebooks address weights by name::

    parts.get(model, "v")                       # the v block of c_attn.w, [n_embd, n_attn]
    parts.with_part(model, "v", new_v)          # a checked copy with the v block replaced
    parts.with_qkv(model, q=new_q, v=new_v)     # several at once
    parts.weight_tables(model)["v"]["V"]        # a labelled table, and its column V

A model with one block names its parts ``q``, ``c_proj.w``, ...; with several, ``blocks[0].q``.
"""

from dataclasses import dataclass

import numpy as np

from .basis import Basis
from .i18n import N_, _
from .labelled import LabelledMatrix
from .weights import WeightsError, check_weights


@dataclass(frozen=True)
class Part:
    name: str  # what people call it: "q", "c_proj.w", "blocks[1].mlp.c_fc.b"
    path: tuple  # the keys that reach its array: ("blocks", 0, "attn", "c_attn", "w")
    columns: tuple  # (start, stop) of its columns in that array, or None for all of them
    rows: Basis  # the names of its rows (a vector has one row, "b" or "g")
    cols: Basis  # the names of its columns
    title: str  # a sentence saying what it does, in the current language


TITLES = {
    "wte": N_("wte: one row per token"),
    "wpe": N_("wpe: one row per position"),
    "q": N_("q block of c_attn.w: input direction (row) to query direction (column)"),
    "k": N_("k block of c_attn.w: input direction to key direction"),
    "v": N_("v block of c_attn.w: input direction to value direction"),
    "q.b": N_("bias of the queries (c_attn.b, q part)"),
    "k.b": N_("bias of the keys (c_attn.b, k part)"),
    "v.b": N_("bias of the values (c_attn.b, v part)"),
    "c_proj.w": N_("c_proj.w: attention output direction to residual direction"),
    "c_proj.b": N_("c_proj.b: added to every position"),
    "ln_1.g": N_("ln_1.g: scales each direction after normalising (gamma)"),
    "ln_1.b": N_("ln_1.b: then shifts it (beta)"),
    "ln_2.g": N_("ln_2.g: scales each direction of the mlp's input (gamma)"),
    "ln_2.b": N_("ln_2.b: then shifts it (beta)"),
    "mlp.c_fc.w": N_("mlp.c_fc.w: residual direction to hidden unit"),
    "mlp.c_fc.b": N_("mlp.c_fc.b: added to each hidden unit before gelu"),
    "mlp.c_proj.w": N_("mlp.c_proj.w: hidden unit to residual direction"),
    "mlp.c_proj.b": N_("mlp.c_proj.b: added to every position"),
    "ln_f.g": N_("ln_f.g: final layer norm's scale (gamma)"),
    "ln_f.b": N_("ln_f.b: final layer norm's shift (beta)"),
    "c_attn.w": N_("c_attn.w: makes q | k | v from each embedding row"),
}


def title(name):
    """The title of the part called ``name`` (without a block prefix), in the current language."""
    return _(TITLES[name])


def _one(name):
    return Basis([name])


BIAS = "bias"  # the row label of a linear layer's bias


def parts(params):
    """{name: Part} for every array of ``params`` (checked, labelled), in the order of the pass."""
    return _parts(check_weights(params))


def _parts(params):  # params: checked Weights
    labels = params.labels
    residual, n_ctx = labels.residual, len(params["wpe"])
    found = [
        Part("wte", ("wte",), None, Basis(labels.tokens), residual, title("wte")),
        Part("wpe", ("wpe",), None, Basis([_("pos {i}").format(i=i) for i in range(n_ctx)]), residual, title("wpe")),
    ]
    for i, block in enumerate(params["blocks"]):
        prefix = "" if len(params["blocks"]) == 1 else f"blocks[{i}]."
        n_attn = block["attn"]["c_attn"]["w"].shape[1] // 3
        heads = labels.attention_basis(i, n_attn)
        at = ("blocks", i)
        if "ln_1" in block:
            found += _vector_parts(prefix, "ln_1", (*at, "ln_1"), residual)
        for j, name in enumerate("qkv"):
            span = (j * n_attn, (j + 1) * n_attn)
            found.append(Part(prefix + name, (*at, "attn", "c_attn", "w"), span, residual, heads, title(name)))
        for j, name in enumerate("qkv"):
            span = (j * n_attn, (j + 1) * n_attn)
            found.append(
                Part(f"{prefix}{name}.b", (*at, "attn", "c_attn", "b"), span, _one(BIAS), heads, title(f"{name}.b"))
            )
        found.append(Part(prefix + "c_proj.w", (*at, "attn", "c_proj", "w"), None, heads, residual, title("c_proj.w")))
        found.append(
            Part(prefix + "c_proj.b", (*at, "attn", "c_proj", "b"), None, _one(BIAS), residual, title("c_proj.b"))
        )
        if "mlp" in block:
            hidden = labels.hidden_basis(i, block["mlp"]["c_fc"]["w"].shape[1])
            if "ln_2" in block:
                found += _vector_parts(prefix, "ln_2", (*at, "ln_2"), residual)
            mlp = (*at, "mlp")
            found += [
                Part(prefix + "mlp.c_fc.w", (*mlp, "c_fc", "w"), None, residual, hidden, title("mlp.c_fc.w")),
                Part(prefix + "mlp.c_fc.b", (*mlp, "c_fc", "b"), None, _one(BIAS), hidden, title("mlp.c_fc.b")),
                Part(prefix + "mlp.c_proj.w", (*mlp, "c_proj", "w"), None, hidden, residual, title("mlp.c_proj.w")),
                Part(
                    prefix + "mlp.c_proj.b",
                    (*mlp, "c_proj", "b"),
                    None,
                    _one(BIAS),
                    residual,
                    title("mlp.c_proj.b"),
                ),
            ]
    if "ln_f" in params:
        found += _vector_parts("", "ln_f", ("ln_f",), residual)
    return {part.name: part for part in found}


def _vector_parts(prefix, norm, path, residual):
    return [
        Part(f"{prefix}{norm}.{key}", (*path, key), None, _one(key), residual, title(f"{norm}.{key}")) for key in "gb"
    ]


def _find(params, name):  # params: checked Weights
    found = _parts(params)
    if name not in found:
        raise KeyError(
            _("no part called {name}; this model has {names}").format(name=repr(name), names=", ".join(found))
        )
    return found[name]


def _reach(params, path):
    node = params
    for key in path:
        node = node[key]
    return node


def get(params, name):
    """The values of one part: a matrix, or a vector as a matrix of one row."""
    params = check_weights(params)
    return _get(params, _find(params, name))


def _get(params, part):
    values = _reach(params, part.path)
    if part.columns is not None:
        values = values[..., part.columns[0] : part.columns[1]]
    return np.atleast_2d(values).copy()


def with_part(params, name, values):
    """A checked copy of ``params`` with the part ``name`` set to ``values`` (same shape)."""
    return with_parts(params, {name: values})


def with_parts(params, changes):
    """A checked copy of ``params`` with several parts replaced: ``{"q": ..., "c_proj.b": ...}``."""
    new = check_weights(params)  # a fresh copy
    for name, values in changes.items():
        part = _find(new, name)
        values = np.asarray(values, dtype=float)
        want = (len(part.rows), len(part.cols))
        if values.shape not in (want, want[1:] if want[0] == 1 else want):
            raise WeightsError(
                _("{name} is {rows}x{cols} ({row_names} by {col_names}); the new values have shape {shape}").format(
                    name=name,
                    rows=want[0],
                    cols=want[1],
                    row_names=_names(part.rows),
                    col_names=_names(part.cols),
                    shape=values.shape,
                )
            )
        *outer, key = part.path
        holder = _reach(new, outer)
        if part.columns is None:
            holder[key] = values.reshape(holder[key].shape)
        else:
            holder[key][..., part.columns[0] : part.columns[1]] = values.reshape(
                holder[key][..., part.columns[0] : part.columns[1]].shape
            )
    return check_weights(new)


def _names(basis, limit=4):
    names = list(basis)
    return " ".join(names) if len(names) <= limit else f"{' '.join(names[:limit])} …"


def qkv(params, block=0):
    """The q, k and v blocks of ``blocks[block]``'s c_attn.w: 3 of [n_embd, n_attn]."""
    params = check_weights(params)
    prefix = _block_prefix(params, block)
    return tuple(_get(params, _find(params, prefix + name)) for name in "qkv")


def with_qkv(params, block=0, *, q=None, k=None, v=None):
    """A checked copy of ``params`` with any of the q, k and v blocks of one block replaced."""
    prefix = _block_prefix(params, block)
    return with_parts(params, {prefix + name: m for name, m in (("q", q), ("k", k), ("v", v)) if m is not None})


def _block_prefix(params, block):
    n = len(params["blocks"])
    if not 0 <= block < n:
        raise IndexError(_("this model has {n} block(s); there is no blocks[{block}]").format(n=n, block=block))
    return "" if n == 1 else f"blocks[{block}]."


def table(params, name):
    """One part as a LabelledMatrix, with its row and column names."""
    params = check_weights(params)
    return _table(params, _find(params, name))


def _table(params, part):
    splits = tuple(part.cols.group_starts())
    return LabelledMatrix(_get(params, part), part.rows.names, part.cols.names, title=part.title, col_splits=splits)


def weight_tables(params=None):
    """{name: LabelledMatrix} for every part of ``params`` (the blog's model when None), plus each
    block's whole ``c_attn.w``."""
    if params is None:
        from .blog import blog_model

        params = blog_model()
    params = check_weights(params)
    tables = {name: _table(params, part) for name, part in _parts(params).items()}
    for i, block in enumerate(params["blocks"]):
        prefix = "" if len(params["blocks"]) == 1 else f"blocks[{i}]."
        q = tables[prefix + "q"]
        n_attn = len(q.cols)
        tables[prefix + "c_attn.w"] = LabelledMatrix(
            block["attn"]["c_attn"]["w"],
            q.rows,
            [f"{part}·{n}" for part in "qkv" for n in q.cols],
            title=title("c_attn.w"),
            col_splits=(n_attn, 2 * n_attn),
        )
    return tables
