"""What a step of the path back reads: one recorded pass, its weights, the names of rows and columns,
what each layer reads split by writer, and the words a step is said with.

``Read`` is what a reader reads of one part's write (a direction on the part's vector in the stream);
``PathStep`` what the path says of it. What a layer reads at a position (``PassView.input``) is split by the
parts that wrote into the stream before it; through a layer norm (ln_1, ln_2) each share is the part's
write centred, divided by the stream's spread there and scaled by the norm's g, and the norm's b has a
share of its own, as ``explain`` shares the margin out through ln_f: they add up to what the layer read.
"""

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ...arguments import fmt
from ...i18n import N_, _, listed, then
from ...model import Name
from ...names import T
from ...parts import part_values
from ..explain import back_through, through_norm, tolerance, writers

SHOWN_DIRECTIONS = 3  # directions of a head's output named in one sentence
BLOCK_PARTS = (None, "mlp")  # the kinds of the parts that read the stream: heads (no kind) and MLPs
BIASES = ("c_proj.b", "ln_1.b", "ln_2.b")  # the kinds of the stream's writers that are biases: a path ends at one


def is_bias(name):
    """Whether a writer of what a layer reads is a bias (c_proj.b, a layer norm's b): the same at every position."""
    return name.kind in BIASES


@dataclass(frozen=True)
class Read:
    """What a reader reads of one part's write: ``write(position) @ direction`` (more is what the reader
    wants); ``sign`` says whether that is more (+1) or less (-1) of the reader's own quantity."""

    part: Name  # a head (blocks[0].head1) or an MLP (blocks[1].mlp)
    position: int
    direction: np.ndarray  # [n_embd], on the part's vector in the stream
    sign: int
    reader: tuple  # who reads it, for the sentence: see READERS
    tied: bool = False  # a head's value step names every entry of v tied for the most (one a misled unit leads to)


@dataclass(frozen=True)
class PathStep:
    """One step of the path: what a part did at a position, why, and the weights that did it."""

    kind: str  # "attention", "value" (a head's), "unit", "bias" (an MLP's), "unwritten" (nothing wrote what was read),
    # "embedding" (an entry of wte or wpe unlike the embedding's other rows)
    part: Name
    position: int
    amount: float  # its write as the reader reads it: positive serves the reader
    facts: dict  # the numbers the sentence says (positions, shares, scores), as JSON
    entries: tuple  # (entry, its value): the weight entries named, such as ("q[P1, P1]", 1024.0)
    text: str

    def to_json(self):
        """The step as data: its kind, part, position and amount, its numbers, the entries named, its text."""
        entries = [{"entry": name, "value": value} for name, value in self.entries]
        return {"kind": self.kind, "part": str(self.part), "position": self.position, "amount": self.amount} | {
            **self.facts,
            "entries": entries,
            "text": self.text,
        }


class PassView:
    """One recorded pass (``explain.Reading``) and its checked weights, as every step reads them: what each
    layer read at a position, split by writer (kept once computed), and the names of rows and columns."""

    def __init__(self, reading, params):
        self.reading, self.params, self.structure = reading, params, params.structure
        self.tapped, self.labels = reading.tapped, params.labels
        self.short = self.structure.part_names()
        self.parts = {part.name: part for part in self.structure.parts()}
        self.tokens = self.labels.token_names(self.structure.n_vocab)
        self._inputs, self._bases = {}, {}

    def input(self, position, upto):
        """What the layer ``upto`` = (block, "attn" or "mlp") reads at ``position``, split by writer."""
        key = (position, upto)
        if key not in self._inputs:
            self._inputs[key] = _layer_input(self, position, *upto)
        return self._inputs[key]

    def basis(self, space):
        if space not in self._bases:
            self._bases[space] = self.structure.basis(space, self.labels).names
        return self._bases[space]

    def entry(self, kind, block, index, value):
        """(``q[P1, P1]``, value): an entry of a part, named by its rows' and columns' directions."""
        part = self.parts[Name(kind, block)]
        cols = self.basis(part.cols)
        if part.rows.kind == "one":
            return f"{self.short[part.name]}[{cols[index]}]", float(value)
        row, col = index
        return f"{self.short[part.name]}[{self.basis(part.rows)[row]}, {cols[col]}]", float(value)

    def direction_names(self, vector, space=None):
        """The names of the largest entries of a stream vector (or of ``space``'s), largest first."""
        names = self.basis(space or self.structure.space("stream"))
        order = [i for i in np.argsort(-np.abs(vector), kind="stable") if abs(vector[i]) > tolerance(vector)]
        return [names[i] for i in order[:SHOWN_DIRECTIONS]]


@dataclass(frozen=True)
class _Input:
    """What a layer reads at one position: {writer: its share}, and the layer norm it went through."""

    shares: dict  # {writer: [n_embd]}: they add up to what the layer reads
    norm: Name | None  # blocks[0].ln_1, or None
    weights: dict | None  # the norm's g and b
    spread: float  # the stream's spread there (1 without a norm)

    def back(self, direction):
        """The direction on the writers' own vectors whose product is their share of ``direction``."""
        return direction if self.norm is None else back_through(self.weights, self.spread, direction)

    def along(self, writer, direction):
        """The direction on ``writer``'s own vector whose product is its share of ``direction``: the norm's b
        as it is (it is added after the norm), every other writer through the norm (``back``)."""
        if self.norm is not None and writer == Name(f"{self.norm.kind}.b", self.norm.block):
            return direction
        return self.back(direction)


def _layer_input(model, position, block, layer):
    vectors = writers(model.reading, position, model.params, (block, layer))
    norm = "ln_1" if layer == "attn" else "ln_2"
    weights = model.params["blocks"][block].get(norm)
    if weights is None:
        return _Input(vectors, None, None, 1.0)
    shared, spread = through_norm(vectors, weights, Name(f"{norm}.b", block))
    return _Input(shared, Name(norm, block), weights, spread)


def layer_read(model, block, layer):
    """What ``block``'s attention (``layer`` "attn") or MLP ("mlp") read, as the pass tapped it: [n_seq, n_embd]."""
    shape, tapped = model.structure.blocks[block], model.tapped
    if layer == "mlp":
        return tapped[Name(T.ln_2, block)] if shape.ln_2 else tapped[Name(T.residual, block)]
    if shape.ln_1:
        return tapped[Name(T.ln_1, block)]
    if block == 0:
        return tapped[Name(T.embedding)]
    before = model.structure.blocks[block - 1]
    return tapped[Name(T.mlp_residual if before.mlp else T.residual, block - 1)]


def head_view(model, block, head):
    """A head's q, k and v rows in this pass (from the tapped qkv), its attention, and its weights' slices."""
    shape, params = model.structure.blocks[block], model.params["blocks"][block]["attn"]
    width, n_attn, tapped_head = shape.d_head, shape.n_attn, head if shape.n_head > 1 else None
    spans = [slice(start + head * width, start + (head + 1) * width) for start in (0, n_attn, 2 * n_attn)]
    qkv, w, b = model.tapped[Name(T.qkv, block)], params["c_attn"]["w"], params["c_attn"]["b"]
    return SimpleNamespace(
        **{x: qkv[:, span] for x, span in zip("qkv", spans)},  # [n_seq, d_head] each
        **{f"w{x}": w[:, span] for x, span in zip("qkv", spans)},  # [n_embd, d_head] each
        **{f"b{x}": b[span] for x, span in zip("qkv", spans)},  # [d_head] each
        scores=model.tapped[Name(T.scores, block, tapped_head)],  # [n_seq, n_seq]: q @ k.T, as the pass made them
        weights=model.tapped[Name(T.attention_weights, block, tapped_head)],  # [n_seq, n_seq]
        c_proj=params["c_proj"]["w"][spans[0]],  # [d_head, n_embd]: the head's rows of c_proj.w
        offset=head * width,  # its first column in the block's attention space
        scale=1 / np.sqrt(width),
        block=block,
        head=head,
    )


def turned_said(model, layer_input, after, weights, named):
    """The sentence that ends the path at a head when the writer ``after`` leads to (a Read into the writer of the key
    it should have read) wrote a flag there, positive where it gives ``weights`` (the head's score per unit of each
    direction) the most, and those weights make it negative: the head's own q or k turn it against the query.
    "" otherwise. ``named``: the step's entries, of which those of the head's q and k are said again."""
    share = layer_input.shares.get(after.part) if isinstance(after, Read) else None
    if share is None:
        return ""
    pieces = share * weights  # [n_embd]: what each direction of the write gives the score
    most = int(np.argmax(np.abs(pieces)))
    if not (share[most] > tolerance(share) and pieces[most] < -tolerance(pieces)):
        return ""
    b, direction = after.reader[1], model.basis(model.structure.space("stream"))[most]
    own = tuple(model.short[Name(kind, b)] + "[" for kind in ("q", "k") if Name(kind, b) in model.short)
    mine = [e for e in named if e[0].startswith(own)]
    reading = [e for e in mine if direction in e[0][e[0].index("[") + 1 : -1].split(", ")] or mine
    if not reading:  # no entry of its q or k to name: said no more than the step says
        return ""
    said = {
        "position": after.position,
        "writer": writer_said(after.part),
        "direction": direction,
        "value": fmt(share[most]),
        "entries": entries_said(reading),
    }
    return _(
        "At position {position}, {writer} wrote {direction} = {value}, as a flag is written, and this head's own q and k read it against the query ({entries}): the fault is theirs, not that of {writer}."
    ).format(**said)


def writers_before(model, upto):
    """[(a head or MLP that writes before ``upto`` = (block, "attn" or "mlp"), its output matrix)], latest last."""
    block, layer = upto
    found = []
    for b, shape in enumerate(model.structure.blocks[: block + (layer == "mlp")]):
        params = model.params["blocks"][b]
        for h in range(shape.n_head):
            found.append((Name(None, b, h), params["attn"]["c_proj"]["w"][h * shape.d_head : (h + 1) * shape.d_head]))
        if shape.mlp and b < block:
            found.append((Name("mlp", b), params["mlp"]["c_proj"]["w"]))
    return found


def written_by(model, read):
    """``read`` (whose part is a guess) made a Read of the head or MLP before it that can move its
    direction most; or, when none can, a last PathStep that says so, naming their empty columns; or None
    when there is no head or MLP before it, or an embedding writes that direction."""
    upto = (read.reader[1], "mlp" if read.reader[0] == "unit" else "attn")
    writers = writers_before(model, upto)
    reach = {name: float(np.abs(matrix @ read.direction).max()) for name, matrix in writers}
    best = max(reach, key=reach.get, default=None)
    if best is not None and reach[best] > tolerance(read.direction):
        return Read(best, read.position, read.direction, read.sign, read.reader)
    directions = model.direction_names(read.direction)
    if not writers or not directions or embedding_writes(model, read.direction):
        return None  # an embedding writes it (a token's, a position's direction): not unwritten
    kinds = {None: "c_proj.w", "mlp": "mlp.c_proj.w"}
    named = tuple(
        (f"{model.short[Name(kinds[name.kind], name.block)]}[·, {directions[0]}]", 0.0) for name, _m in writers[-2:]
    )
    text = _(
        "No head or MLP before it writes into {directions}, which {reader} reads at position {position}: {entries}."
    ).format(
        directions=listed(directions),
        reader=reader_said(read.reader),
        position=read.position,
        entries=entries_said(named),
    )
    facts = {"directions": directions}
    return PathStep("unwritten", writers[-1][0], read.position, 0.0, facts, named, text)


def embedding_writes(model, directions):  # [n_embd] or [n_embd, k] -> a bool, or [k] bools
    """Whether a row of wte or wpe (a token's or a position's own direction) writes along ``directions``."""
    embedded = np.vstack([model.params["wte"], model.params["wpe"]]) @ directions  # [n_vocab + n_ctx, ...]
    return np.abs(embedded).max(axis=0) > tolerance([*np.ravel(embedded), 1.0])


def bias_step(model, read):
    """The last step, at a bias that wrote what the reader reads (c_proj.b of an earlier block, a layer
    norm's b): what it gives the reader, and its entry that did the most of it."""
    values = part_values(model.params, model.parts[read.part])[0]  # [n_embd]
    pieces = values * read.direction  # [n_embd]: each entry's part of what the reader reads; they add up to it
    amount = float(pieces.sum())
    index = int(np.argmin(pieces) if amount < 0 else np.argmax(pieces))
    named = (model.entry(read.part.kind, read.part.block, index, values[index]),)
    text = _(
        "At position {position}, {bias}, which writes the same at every position, {effect}, through {entries}."
    ).format(
        position=read.position,
        bias=writer_said(read.part),
        effect=effect_said(read, amount),
        entries=entries_said(named),
    )
    return PathStep("bias", read.part, read.position, amount, {}, named, text), None


WRITERS = {
    None: N_("head {head} of block {block}"),
    "wte": N_("the token (wte)"),
    "wpe": N_("the position (wpe)"),
    "mlp": N_("the MLP of block {block}"),
    "others": N_("the other parts together"),
}


EFFECTS = {  # the reader's kind -> (more of what it reads, less, none)
    "margin": (
        N_("pushes toward {expected} by {amount}"),
        N_("pushes toward {wrong} by {amount}"),
        N_("pushes toward neither {expected} nor {wrong}"),
    ),
    "unit": (
        N_("adds {amount} to the pre-activation of unit {unit} of the MLP of block {block}"),
        N_("takes {amount} from the pre-activation of unit {unit} of the MLP of block {block}"),
        N_("adds nothing to the pre-activation of unit {unit} of the MLP of block {block}"),
    ),
    "key": (
        N_("adds {amount} to the score of key {key} for query {query} in head {head} of block {block}"),
        N_("takes {amount} from the score of key {key} for query {query} in head {head} of block {block}"),
        N_("adds nothing to the score of key {key} for query {query} in head {head} of block {block}"),
    ),
    "query": (
        N_(
            "adds {amount} to the lead of key {rival} over key {wanted} for query {query} in head {head} of block {block}"
        ),
        N_(
            "takes {amount} from the lead of key {rival} over key {wanted} for query {query} in head {head} of block {block}"
        ),
        N_(
            "adds nothing to the lead of key {rival} over key {wanted} for query {query} in head {head} of block {block}"
        ),
    ),
    "value": (
        N_("helps head {head} of block {block}, which reads it at position {key}, by {amount}"),
        N_("works against head {head} of block {block}, which reads it at position {key}, by {amount}"),
        N_("does nothing for head {head} of block {block}, which reads it at position {key}"),
    ),
}


READERS = {
    "margin": N_("the margin of {expected} over {wrong}"),
    "unit": N_("unit {unit} of the MLP of block {block}"),
    "key": N_("the score of key {key} for query {query} in head {head} of block {block}"),
    "query": N_("the score of key {wanted} against key {rival} for query {query} in head {head} of block {block}"),
    "value": N_("head {head} of block {block}, which reads it at position {key}"),
}


READER_FIELDS = {
    "margin": ("expected", "wrong"),
    "unit": ("block", "unit"),
    "key": ("block", "head", "key", "query"),
    "query": ("block", "head", "query", "rival", "wanted"),
    "value": ("block", "head", "key"),
}


def writer_said(name):
    """A writer of the stream, or a bias of a layer, as a sentence names it: "head 0 of block 1", "q.b"."""
    if name.kind in WRITERS:
        return _(WRITERS[name.kind]).format(block=name.block, head=name.head)
    if name.block is None or name.kind in ("q.b", "k.b", "mlp.c_fc.b"):
        return name.kind  # code: ln_f.b, and the biases of the layer the step is about
    return _("{name} of block {block}").format(name=name.kind, block=name.block)


def _fields(reader):
    kind, *values = reader
    return kind, dict(zip(READER_FIELDS[kind], values))


def reader_said(reader):
    kind, fields = _fields(reader)
    return _(READERS[kind]).format(**fields)


def effect_said(read, amount):
    """What a write of ``amount`` (along the read: positive serves the reader) does to the reader's own
    quantity, said with its size and a verb for its sign: never a push "toward" by a negative amount."""
    kind, fields = _fields(read.reader)
    raw = read.sign * amount
    more, less, none = EFFECTS[kind]
    if abs(raw) <= tolerance([raw]):
        return _(none).format(**fields)
    return _(more if raw > 0 else less).format(amount=fmt(abs(raw)), **fields)


def largest_said(shares, limit=4):
    """ "1024 from head 0 of block 0, -3 from mlp.c_fc.b": the largest shares (the rest together, when more)."""
    small = tolerance(shares.values())
    order = [n for n in sorted(shares, key=lambda n: -abs(shares[n])) if abs(shares[n]) > small]
    share = _("{amount} from {part}")
    said = listed(share.format(part=writer_said(n), amount=fmt(shares[n])) for n in order[:limit]) or "0"
    if len(order) > limit:
        rest = sum(shares[n] for n in order[limit:])
        said = _("{shares}, and {rest} from the other parts together").format(shares=said, rest=fmt(rest))
    return said


def joined(items):
    """Items of a list, one after the other: "a, b" in English, "a；b" in Chinese."""
    text = items[0] if items else ""
    for item in items[1:]:
        text = _("{places}, {place}").format(places=text, place=item)
    return text


def entries_said(named):
    """ "q[P1, P1] = 1024 and k[P1, P1] = 1"."""
    said = [f"{name} = {fmt(value)}" for name, value in named]
    if not said:
        return _("its weights together")
    if len(said) == 1:
        return said[0]
    return _("{first} and {second}").format(first=listed(said[:-1]), second=said[-1])


def norm_note(layer_input, position):
    """A sentence on how a layer norm apportions the shares of a step, or ""."""
    if layer_input.norm is None:
        return ""
    note = _(
        "Through {norm}, each share is the part's write centred, divided by the stream's spread at position {position} ({spread}), times g; {norm}.b has its own."
    )
    return then("", note.format(norm=layer_input.norm, position=position, spread=fmt(layer_input.spread)))
