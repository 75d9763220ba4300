"""One description of a model: its sizes, its parts and the intermediates a pass taps.

nanoGPT describes a model with a frozen ``GPTConfig``; here the weights themselves are the
description's source, so ``Structure.of(params)`` reads it off their shapes, once, where weights
come in (``check_weights`` puts it on the ``Weights`` it returns). Everything else reads it instead
of walking the weights dict: the parts a person can edit, each with the space of its rows and of
its columns; the arrays a forward pass taps, in the order it taps them; and a weights dict of the
same shape (``weights``: all zeros, or each matrix made by a function, as training's random start is).

Parts and intermediates are named by one rule, ``handmade.names``': ``blocks[1].q`` in full, ``q``
where that is unique, each a ``Name`` that says its block (and head) too. The intermediates are
declared there, once (``INTERMEDIATES``); ``taps`` reads which of them a model of this structure makes.

A space is a kind of axis, and names come from the model's ``Labels`` (``Labels.basis``): a model
without labels still has names (tokens a, b, ... or t0, t1, ...; directions e0, e1, ...).
"""

from dataclasses import dataclass

import numpy as np

from .arguments import brief, is_whole, whole
from .basis import MAX_DIRECTION_NAME, Basis
from .i18n import N_, _, listed, ngettext, translated
from .model import Name, layer_norm
from .names import INTERMEDIATES, T, resolve, shortest

LAYER_NORM_EPS = layer_norm.__defaults__[0]  # the eps of gpt()'s layer norms, read off its own function

# ---- spaces: what the rows or the columns of an array stand for ------------------------------


@dataclass(frozen=True)
class Space:
    """An axis of a part or an intermediate. ``kind`` is one of:

    tokens, positions (rows of wpe), stream (the residual stream's n_embd directions), attention (a block's n_attn
    directions of q, k and v), head (one head's slice of them), qkv (q | k | v side by side),
    hidden (a block's MLP units), keys (the positions a query reads), one (a vector's single row,
    called ``name``: bias, g or b).
    """

    kind: str
    size: int
    block: int | None = None
    head: int | None = None
    name: str | None = None


BLOCK_SPACES = ("attention", "qkv", "hidden", "head")  # the kinds of Space one block has

# ---- parts: what a person edits -----------------------------------------------------------------

PART_TITLES = {
    "wte": N_("wte: one row per token"),
    "wpe": N_("wpe: one row per position"),
    "q": N_("q block of c_attn.w: input direction (row) to query direction (column)"),
    "k": N_("k block of c_attn.w: input direction to key direction"),
    "v": N_("v block of c_attn.w: input direction to value direction"),
    "q.b": N_("bias of the queries (c_attn.b, q part)"),
    "k.b": N_("bias of the keys (c_attn.b, k part)"),
    "v.b": N_("bias of the values (c_attn.b, v part)"),
    "c_attn.w": N_("c_attn.w: makes q | k | v from each embedding row"),
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
}


def part_title(local):
    """The title of a part by its name within its block (``q``, ``c_proj.w``, ``c_attn.w``), translated."""
    return _(PART_TITLES[local])


@dataclass(frozen=True)
class Part:
    """A named piece of the weights: a whole array, or a block of columns of one (q, k, v)."""

    name: Name  # its full name: "wte", "blocks[0].q", "blocks[1].mlp.c_fc.b"
    path: tuple  # the keys that reach its array: ("blocks", 0, "attn", "c_attn", "w")
    columns: tuple | None  # (start, stop) of its columns in that array, or None for all of them
    rows: Space  # what its rows stand for (a vector has one row)
    cols: Space  # what its columns stand for

    @property
    def local(self):
        """Its name within its block: "q", "mlp.c_fc.b" (a key of PART_TITLES)."""
        return self.name.kind

    @property
    def block(self):
        """The block it is in, or None for wte, wpe and ln_f."""
        return self.name.block

    @property
    def title(self):
        """A sentence saying what it does, in the current language."""
        return part_title(self.local)

    @property
    def layer(self):
        """The layer it belongs to, within its block: "c_proj" for c_proj.w and c_proj.b, "q" for q and q.b."""
        return self.local[:-2] if self.local.endswith((".w", ".b", ".g")) else self.local

    @property
    def shape(self):
        return (self.rows.size, self.cols.size)


# ---- the description ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockShape:
    """What one transformer block has."""

    n_attn: int  # the width of q, k and v each (c_attn.w has 3 * n_attn columns)
    n_head: int = 1  # heads sharing those n_attn directions, n_attn / n_head each
    n_hidden: int = 0  # the MLP's hidden units; 0 when the block has no MLP
    ln_1: bool = False  # a layer norm before attention
    ln_2: bool = False  # a layer norm before the MLP (only with an MLP)

    @property
    def mlp(self):
        return self.n_hidden > 0

    @property
    def d_head(self):  # the width of one head
        return self.n_attn // self.n_head


@dataclass(frozen=True)
class Structure:
    """What a model is: its sizes, and per block what it has. Read off a model's weights by
    ``Structure.of``, or written down to make weights of that shape (``weights``, ``zeros``)."""

    n_vocab: int  # tokens: rows of wte
    n_ctx: int  # positions: rows of wpe, the longest context it reads
    n_embd: int  # the width of the residual stream
    blocks: tuple = ()  # a BlockShape per transformer block, in order
    ln_f: bool = False  # a final layer norm before the logits

    @classmethod
    def of(cls, params):
        """The structure of a weights dict with picoGPT's keys (its shapes already checked)."""
        n_vocab, n_embd = np.shape(params["wte"])
        blocks = [
            BlockShape(
                n_attn=attention_width(block["attn"]["c_attn"]["w"]),
                n_head=int(block.get("n_head", 1)),
                n_hidden=np.shape(block["mlp"]["c_fc"]["w"])[1] if block.get("mlp") is not None else 0,
                ln_1=block.get("ln_1") is not None,
                ln_2=block.get("ln_2") is not None,
            )
            for block in params["blocks"]
        ]
        return cls(n_vocab, len(params["wpe"]), n_embd, tuple(blocks), params.get("ln_f") is not None)

    @property
    def n_layer(self):
        return len(self.blocks)

    # ---- parts

    def parts(self):
        """Every part, in the order the forward pass uses them."""
        return _parts(self)

    def part(self, name):
        """The part called ``name`` (one naming rule: ``handmade.names``), or UnknownName naming them all
        (and, for the path of a weights dict's array, ``attn.c_attn.w``, the parts that are in it)."""
        part_name(name)
        parts = {p.name: p for p in self.parts()}
        arrays = {}  # {"blocks[0].attn.c_attn.w": [q, k, v]}: the paths a reader of gpt()'s keys may write
        for p in parts.values():
            arrays.setdefault(dotted(p.path), []).append(p.name)
        return parts[resolve(name, list(parts), _("no part called {name}; this model has {names}"), arrays)]

    def part_names(self):
        """{full name: the shortest name that says it} for every part: ``q`` in a one-block model."""
        names = [p.name for p in self.parts()]
        return {name: shortest(name, names) for name in names}

    # ---- intermediates

    def taps(self, derived=True):
        """The Name of every array one pass taps, in order; with the trace's derived ones when ``derived``."""
        declared = list(INTERMEDIATES.values())
        first_block = next(i for i, x in enumerate(declared) if x.scope != "model")  # the blocks' come there
        found = [Name(x.name) for x in declared[:first_block] if _made(x, self, derived)]
        per_head = [x.name for x in declared if x.scope == "head"]
        for b, block in enumerate(self.blocks):  # in the order gpt() taps them
            heads = range(block.n_head) if block.n_head > 1 else [None]
            for x in declared[first_block:]:
                if x.scope == "block" and _made(x, block, derived):
                    found.append(Name(x.name, b))
                elif x.name == per_head[0]:  # every head's, head by head, then their outputs side by side
                    found += [Name(each, b, head) for head in heads for each in per_head]
                    found += [Name(T.attention_output, b)] if block.n_head > 1 else []
        return found + [Name(x.name) for x in declared[first_block:] if x.scope == "model" and _made(x, self, derived)]

    def space(self, kind, block=None, head=None):
        """The Space of ``kind`` (a key of Space's kinds) in this model, for ``block`` and ``head``."""
        sizes = {
            "tokens": self.n_vocab,
            "positions": self.n_ctx,
            "stream": self.n_embd,
            "keys": self.n_ctx,
        }
        if kind in sizes:
            return Space(kind, sizes[kind])
        if kind not in BLOCK_SPACES:
            kinds = listed([*sizes, *BLOCK_SPACES])
            raise ValueError(
                _("there is no space of kind {kind}; the kinds are {kinds}").format(kind=brief(kind), kinds=kinds)
            )
        shape = self.blocks[self.block_index(block)]
        sizes = {"attention": shape.n_attn, "qkv": 3 * shape.n_attn, "hidden": shape.n_hidden, "head": shape.d_head}
        head = whole(head, "head", 0, shape.n_head - 1) if kind == "head" else None
        return Space(kind, sizes[kind], block, head)

    def block_index(self, block):
        """``block`` if this model has a block of that index (never one counted from the end); else an error
        naming the ones it has."""
        n = self.n_layer
        if not self.blocks:
            raise ValueError(_("this model has no blocks, so no block {block}").format(block=brief(block)))
        if not is_whole(block) or not 0 <= block < n:
            said = ngettext(
                "this model has {n} block, blocks[{last}]; there is no blocks[{block}]",
                "this model has {n} blocks, blocks[0] to blocks[{last}]; there is no blocks[{block}]",
                n,
            )
            raise (ValueError if is_whole(block) else TypeError)(said.format(n=n, last=n - 1, block=brief(block)))
        return int(block)

    def basis(self, space, labels):
        """The names of the directions of ``space`` in this model, from its ``labels``: a Basis."""
        kind, b = space.kind, space.block
        if kind != "one":  # a kind, a block or a head this model lacks: refused as space() refuses them
            self.space(kind, b, space.head)
        if kind == "tokens":
            return Basis(labels.token_names(self.n_vocab))
        if kind == "positions":
            return Basis([_("pos {i}").format(i=i) for i in range(space.size)])
        if kind == "keys":
            return Basis([str(i) for i in range(space.size)])
        if kind == "stream":
            return labels.residual
        if kind == "one":
            return Basis([translated(space.name)])  # "bias" in the learner's language; g and b are code
        if kind == "hidden":
            return labels.hidden_basis(b, space.size)
        heads = labels.attention_basis(b, self.blocks[b].n_attn)
        if kind == "attention":
            return heads
        if kind == "qkv":
            return Basis({x: [f"{x}·{n}" for n in heads] for x in "qkv"}, longest=MAX_DIRECTION_NAME + 2)  # "q·" added
        return _head_slice(heads, space.head, space.size)  # kind == "head"

    def entry(self, part, labels, i, j, called=None):
        """Entry (i, j) of ``part`` as its part (or ``called``, the name it was given) and its directions name it:
        ``blocks[0].c_proj.w[V, Tb]``, a bias's ``blocks[0].c_proj.b[Tb]`` (its one row unsaid). Indices count from 0,
        never from the end."""
        i, j = whole(i, "i", 0, part.rows.size - 1), whole(j, "j", 0, part.cols.size - 1)
        rows = "" if part.rows.kind == "one" else self.basis(part.rows, labels).names[i] + ", "
        return f"{called or part.name}[{rows}{self.basis(part.cols, labels).names[j]}]"

    # ---- weights of this shape

    def weights(self, matrix, vector=None, gain=None):
        """A weights dict of this shape: ``matrix(n_in, n_out)`` for every matrix (wte and wpe too),
        ``vector(n)`` for every bias and shift (zeros by default), ``gain(n)`` for layer norms' scales
        (ones by default). ``n_head`` is written only where it is not 1."""
        vector = vector or np.zeros
        gain = gain or np.ones

        def layer(n_in, n_out):
            return {"w": matrix(n_in, n_out), "b": vector(n_out)}

        def norm():
            return {"g": gain(self.n_embd), "b": vector(self.n_embd)}

        params = {"wte": matrix(self.n_vocab, self.n_embd), "wpe": matrix(self.n_ctx, self.n_embd), "blocks": []}
        for shape in self.blocks:
            block = {
                "attn": {"c_attn": layer(self.n_embd, 3 * shape.n_attn), "c_proj": layer(shape.n_attn, self.n_embd)}
            }
            block.update({"n_head": shape.n_head} if shape.n_head != 1 else {})
            block.update({"ln_1": norm()} if shape.ln_1 else {})
            if shape.mlp:
                block["mlp"] = {
                    "c_fc": layer(self.n_embd, shape.n_hidden),
                    "c_proj": layer(shape.n_hidden, self.n_embd),
                }
                block.update({"ln_2": norm()} if shape.ln_2 else {})
            params["blocks"].append(block)
        if self.ln_f:
            params["ln_f"] = norm()
        return params

    def zeros(self):
        """All-zero weights of this shape (layer norms' gains too): nothing written yet."""
        return self.weights(lambda n_in, n_out: np.zeros((n_in, n_out)), gain=np.zeros)


def _head_slice(heads, head, width):
    """One head's directions: its group of the attention basis when the groups are the heads."""
    groups = list(heads.groups.values())
    if all(len(group) == width for group in groups):  # a group per head, each as wide as a head
        return Basis(list(groups[head]))
    return Basis(list(heads.names[head * width : (head + 1) * width]))


def dotted(path):
    """A path of keys into a weights dict as the package writes it: ``("blocks", 0, "attn", "c_attn", "w")``
    is ``blocks[0].attn.c_attn.w``."""
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).removeprefix(".")


def attention_width(c_attn_w):
    """n_attn, from c_attn.w: q | k | v side by side, so a third of its columns."""
    return np.shape(c_attn_w)[1] // 3


def _made(intermediate, where, derived):
    """Whether a pass makes ``intermediate`` in ``where`` (a Structure or a BlockShape), or derives it when ``derived``."""
    return (derived or not intermediate.derived) and (intermediate.needs is None or getattr(where, intermediate.needs))


def _parts(structure):  # -> [Part] in the order of the pass
    residual = structure.space("stream")
    found = [
        Part(Name("wte"), ("wte",), None, structure.space("tokens"), residual),
        Part(Name("wpe"), ("wpe",), None, structure.space("positions"), residual),
    ]
    for b, shape in enumerate(structure.blocks):
        found += _block_parts(structure, b, shape)
    if structure.ln_f:
        found += _norm_parts("ln_f", ("ln_f",), residual, None)
    return found


def _block_parts(structure, b, shape):
    at, attn, mlp = ("blocks", b), ("blocks", b, "attn"), ("blocks", b, "mlp")
    residual, heads = structure.space("stream"), structure.space("attention", b)
    found = _norm_parts("ln_1", (*at, "ln_1"), residual, b) if shape.ln_1 else []
    spans = [(j * shape.n_attn, (j + 1) * shape.n_attn) for j in range(3)]
    found += [Part(Name(x, b), (*attn, "c_attn", "w"), s, residual, heads) for x, s in zip("qkv", spans)]
    found += [Part(Name(f"{x}.b", b), (*attn, "c_attn", "b"), s, _one(BIAS), heads) for x, s in zip("qkv", spans)]
    found += [
        Part(Name("c_proj.w", b), (*attn, "c_proj", "w"), None, heads, residual),
        Part(Name("c_proj.b", b), (*attn, "c_proj", "b"), None, _one(BIAS), residual),
    ]
    if shape.mlp:
        found += _norm_parts("ln_2", (*at, "ln_2"), residual, b) if shape.ln_2 else []
        hidden = structure.space("hidden", b)
        found += [
            Part(Name("mlp.c_fc.w", b), (*mlp, "c_fc", "w"), None, residual, hidden),
            Part(Name("mlp.c_fc.b", b), (*mlp, "c_fc", "b"), None, _one(BIAS), hidden),
            Part(Name("mlp.c_proj.w", b), (*mlp, "c_proj", "w"), None, hidden, residual),
            Part(Name("mlp.c_proj.b", b), (*mlp, "c_proj", "b"), None, _one(BIAS), residual),
        ]
    return found


def _norm_parts(norm, path, residual, block):
    return [Part(Name(f"{norm}.{key}", block), (*path, key), None, _one(key), residual) for key in "gb"]


BIAS = N_("bias")  # the row of a bias vector in a table (g and b of a layer norm are named as in code)


def _one(name):
    return Space("one", 1, name=name)


def part_name(name):
    """``name`` if it is a string; else a TypeError saying what names a part."""
    if not isinstance(name, str):
        raise TypeError(
            _("a part's name is a string, such as 'q' or 'blocks[0].c_proj.w'; found {value}").format(value=brief(name))
        )
    return name
