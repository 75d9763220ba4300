"""The path back: from the part a margin names to the part at fault, step by step.

A head or an MLP computes from what the parts before it wrote into the residual stream, so the part
the margin names (``explain``) may only have done what its input told it. Each step here takes what a
reader reads of one part's write (the margin reads a direction of the stream; an MLP unit its
pre-activation; a later head's score a key or a query; a later head's value what it carries), and
says where that came from, exactly, in sums of terms from the recorded pass:

- an MLP: its units' shares of the read and its bias's; the unit at fault (one that fired and works
  against the reader, or one that would help and did not fire), and its pre-activation split by writer
  (``mlp.c_fc.b`` apart): the writer that pushed it the wrong way is the next step;
- a head: where it looked, and which key would have served the reader best. When looking there would
  gain much, the attention is at fault: the scaled score of the query on the key that took the weight
  (the rival) and on the wanted one is a double sum over what wrote the query's input and what wrote
  the key's (token, position, earlier heads and MLPs, biases; ``q.b`` and ``k.b`` too), and the largest
  term that made the rival win, or the wanted key lose, is named with the entries of q and k that
  carry it (``q[P1, P1]``). When it looked well, what it carried is at fault: the entries of v and
  c_proj.w that made its output, and a writer of the value that pushed the wrong way is the next step.

A step whose cause is another head or MLP leads to it; a step whose cause is an embedding, a bias or
the step's own weights ends the path. Through a layer norm (ln_1, ln_2), each writer's share is its
write centred, divided by the stream's spread at that position and scaled by the norm's g, and the
norm's b has a share of its own, as ``explain`` shares the margin out through ln_f: they add up exactly.
"""

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ..arguments import fmt
from ..i18n import N_, _
from ..model import Name
from ..names import T
from .explain import back_through, through_norm, tolerance, writers

MAX_STEPS = 8  # steps followed at most (each goes to an earlier layer, so a path is rarely longer than its blocks)
FAULT_SHARE = 0.1  # a head's attention is at fault when looking elsewhere gains this share of what its keys span
ATTENDED = 0.05  # a key whose attention weight is above this is said to be read
SHOWN_PLACES = 3  # positions named in "it reads ..."
SHOWN_DIRECTIONS = 3  # directions of a head's output named in one sentence
BLOCK_PARTS = (None, "mlp")  # the kinds of the parts that read the stream: heads (no kind) and MLPs


@dataclass(frozen=True)
class Read:
    """What a reader reads of one part's write: ``write(position) @ direction`` (more is what the reader
    wants); ``sign`` says whether that is more (+1) or less (-1) of the reader's own quantity."""

    part: Name  # a head (blocks[0].head1) or an MLP (blocks[1].mlp)
    position: int
    direction: np.ndarray  # [n_embd], on the part's vector in the stream
    sign: int
    reader: tuple  # who reads it, for the sentence: see READERS


@dataclass(frozen=True)
class Step:
    """One step of the path: what a part did at a position, why, and the weights that did it."""

    kind: str  # "attention", "value", "unit", "bias"
    part: Name
    position: int
    amount: float  # its write as the reader reads it: positive serves the reader
    facts: dict  # the numbers the sentence says (positions, shares, scores), as JSON
    entries: tuple  # (entry, its value): the weight entries named, such as ("q[P1, P1]", 1024.0)
    text: str

    def to_json(self):
        entries = [{"entry": name, "value": value} for name, value in self.entries]
        return {"kind": self.kind, "part": str(self.part), "position": self.position, "amount": self.amount} | {
            **self.facts,
            "entries": entries,
            "text": self.text,
        }


def follow(reading, position, params, part, direction, reader):
    """The Steps back from ``part`` (a head or an MLP) at ``position``, read along ``direction``."""
    model = _Model(reading, params)
    read, steps = Read(part, position, direction, 1, reader), []
    while isinstance(read, Read) and len(steps) < MAX_STEPS:
        step, read = (_mlp_step if read.part.kind == "mlp" else _head_step)(model, read)
        steps.append(step)
    if isinstance(read, Step):  # the last step: nothing before writes what was read
        steps.append(read)
    return tuple(steps)


# ---- what every step reads: the pass, the weights, and the names of rows and columns ------------------


class _Model:
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


def _layer_input(model, position, block, layer):
    vectors = writers(model.reading, position, model.params, (block, layer))
    norm = "ln_1" if layer == "attn" else "ln_2"
    weights = model.params["blocks"][block].get(norm)
    if weights is None:
        return _Input(vectors, None, None, 1.0)
    shared, spread = through_norm(vectors, weights, Name(f"{norm}.b", block))
    return _Input(shared, Name(norm, block), weights, spread)


def _head_view(model, block, head):
    """A head's q, k and v rows in this pass (from the tapped qkv), its attention, and its weights' slices."""
    shape, params = model.structure.blocks[block], model.params["blocks"][block]["attn"]
    width, n_attn, tapped_head = shape.d_head, shape.n_attn, head if shape.n_head > 1 else None
    spans = [slice(start + head * width, start + (head + 1) * width) for start in (0, n_attn, 2 * n_attn)]
    qkv, w, b = model.tapped[Name(T.qkv, block)], params["c_attn"]["w"], params["c_attn"]["b"]
    return SimpleNamespace(
        **{x: qkv[:, span] for x, span in zip("qkv", spans)},  # [n_seq, d_head] each
        **{f"w{x}": w[:, span] for x, span in zip("qkv", spans)},  # [n_embd, d_head] each
        **{f"b{x}": b[span] for x, span in zip("qkv", spans)},  # [d_head] each
        weights=model.tapped[Name(T.attention_weights, block, tapped_head)],  # [n_seq, n_seq]
        c_proj=params["c_proj"]["w"][spans[0]],  # [d_head, n_embd]: the head's rows of c_proj.w
        offset=head * width,  # its first column in the block's attention space
        scale=1 / np.sqrt(width),
        block=block,
        head=head,
    )


def _writers_before(model, upto):
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


def _written_by(model, read):
    """``read`` (whose part is a guess) made a Read of the head or MLP before it that can move its
    direction most; or, when none can, a last Step that says so, naming their empty columns; or None
    when there is no head or MLP before it."""
    upto = (read.reader[1], "mlp" if read.reader[0] == "unit" else "attn")
    writers = _writers_before(model, upto)
    reach = {name: float(np.abs(matrix @ read.direction).max()) for name, matrix in writers}
    best = max(reach, key=reach.get, default=None)
    if best is not None and reach[best] > tolerance(read.direction):
        return Read(best, read.position, read.direction, read.sign, read.reader)
    directions = model.direction_names(read.direction)
    if not writers or not directions:
        return None
    kinds = {None: "c_proj.w", "mlp": "mlp.c_proj.w"}
    named = tuple(
        (f"{model.short[Name(kinds[name.kind], name.block)]}[·, {directions[0]}]", 0.0) for name, _m in writers[-2:]
    )
    text = _(
        "No head or MLP before it writes into {directions}, which {reader} reads at position {position}: {entries}."
    ).format(
        directions=", ".join(directions),
        reader=_reader(read.reader),
        position=read.position,
        entries=_entries_said(named),
    )
    facts = {"directions": directions}
    return Step("unwritten", writers[-1][0], read.position, 0.0, facts, named, text)


# ---- a head -------------------------------------------------------------------------------------


def _head_step(model, read):
    view = _head_view(model, read.part.block, read.part.head)
    p = read.position
    gains = view.v[: p + 1] @ (view.c_proj @ read.direction)  # [p+1]: what reading key j alone would give
    weights = view.weights[p, : p + 1]
    amount = float(weights @ gains)
    wanted = int(np.lexsort((-weights, -gains))[0])  # the key that serves the reader best; of equals, the most read
    lost = float(gains[wanted] - amount)
    if lost > max(tolerance(gains), FAULT_SHARE * float(np.ptp(gains))):
        return _attention(model, read, view, gains, wanted, amount)
    return _value(model, read, view, gains, amount)


def _places(model, view, position, limit=SHOWN_PLACES):
    """ "position 1 (b) with weight 0.5, position 2 (a) with weight 0.5": where a query reads."""
    weights = view.weights[position, : position + 1]
    shown = sorted(
        [int(k) for k in np.argsort(-weights, kind="stable")[:limit] if weights[k] > ATTENDED]
        or [int(np.argmax(weights))]
    )
    text = _joined([_place(model, k, weights[k]) for k in shown])
    rest = len(weights) - len(shown)
    if rest and weights[shown].sum() < 1 - ATTENDED:
        text = _("{places}, and {n} other positions with weight {weight} together").format(
            places=text, n=rest, weight=fmt(1 - weights[shown].sum(), 2)
        )
    return text


def _place(model, k, weight):
    token = model.tokens[model.reading.tokens[k]]
    return _("position {position} ({token}) with weight {weight}").format(
        position=k, token=token, weight=fmt(weight, 2)
    )


def _looked(model, view, position, gains):
    """The JSON of where a query reads: each key it reads, with its weight and what reading it alone would give."""
    weights = view.weights[position, : position + 1]
    read = [k for k in np.argsort(-weights, kind="stable")[:8] if weights[k] > ATTENDED] or [int(np.argmax(weights))]
    return [
        {
            "position": int(k),
            "token": model.tokens[model.reading.tokens[k]],
            "weight": float(weights[k]),
            "gain": float(gains[k]),
        }
        for k in sorted(read)
    ]


# ---- a head's attention: why the rival key outscores the wanted one ------------------------------------


@dataclass(frozen=True)
class _Pairs:
    """The scaled scores of one query on two keys, each a sum over (query writer, key writer)."""

    query: list  # the query's writers (q.b last)
    key: list  # the keys' writers (k.b last)
    rival: np.ndarray  # [len(query), len(key)]: the terms of the rival key's score
    wanted: np.ndarray  # the same for the wanted key
    inputs: dict  # {position: _Input} at the query and the two keys


def _pairs(model, view, p, rival, wanted):
    at = {j: model.input(j, (view.block, "attn")) for j in (p, rival, wanted)}
    query = {**{a: x @ view.wq for a, x in at[p].shares.items()}, Name("q.b", view.block): view.bq}  # [d_head] each

    def keys(j):
        return np.array([x @ view.wk for x in at[j].shares.values()] + [view.bk])  # [n_writers, d_head]

    rows = np.array(list(query.values()))
    key_names = [*at[p].shares, Name("k.b", view.block)]
    scores = [rows @ keys(j).T * view.scale for j in (rival, wanted)]  # [n_query_writers, n_key_writers] each
    return _Pairs(list(query), key_names, scores[0], scores[1], at)


def _culprit(pairs):
    """(the term to speak of, as (i, j) or None, the key it is about: "rival" or "wanted", the case):
    "outscores" (a term makes the rival win), "same" (the rival gets as much from a term as the wanted
    key), "leads" (the wanted key leads, by too little), "nothing" (no term tells them apart or lifts them)."""
    gap = pairs.rival - pairs.wanted
    small = tolerance([*pairs.rival.ravel(), *pairs.wanted.ravel()])
    if gap.sum() >= -small:
        i, j = np.unravel_index(np.argmax(gap), gap.shape)
        if gap[i, j] > small:
            return (i, j), "rival" if pairs.rival[i, j] >= -pairs.wanted[i, j] else "wanted", "outscores"
        i, j = np.unravel_index(np.argmax(pairs.rival), gap.shape)
        if pairs.rival[i, j] > small:
            return (i, j), "rival", "same"
        return None, "wanted", "nothing"
    i, j = np.unravel_index(np.argmin(gap), gap.shape)
    return (i, j), "wanted", "leads"


def _attention(model, read, view, gains, wanted, amount):
    p = read.position
    weights = view.weights[p, : p + 1]
    cost = weights * (gains[wanted] - gains)
    cost[wanted] = -np.inf
    rival = int(np.argmax(cost))
    pairs = _pairs(model, view, p, rival, wanted)
    term, side, case = _culprit(pairs)
    gap = float(pairs.rival.sum() - pairs.wanted.sum())
    facts = {
        "reads": _looked(model, view, p, gains),
        "wanted": wanted,
        "rival": rival,
        "scores": {"rival": float(pairs.rival.sum()), "wanted": float(pairs.wanted.sum())},
        "terms": _terms(pairs),
    }
    unanswered = _unanswered(view, pairs, term, p, wanted)
    if unanswered is not None:
        entries, why, after = _unmet(model, read, view, pairs, unanswered, rival, wanted)
    elif term is None:
        entries, why, after = _nothing(model, read, view, pairs, rival, wanted)
    else:
        entries, why, after = _term(model, read, view, pairs, term, side, case, rival, wanted)
    carried, text = _carried(model, read, view, gains, amount)
    said = {
        "wanted": wanted,
        "token": model.tokens[model.reading.tokens[wanted]],
        "reader": _reader(read.reader),
        "gain": fmt(gains[wanted] - amount),
    }
    better = _("Reading position {wanted} ({token}) instead would serve {reader} better, by {gain}.").format(**said)
    text = _both(_both(text, better), why) + _norm_note(pairs.inputs[p], p)
    facts["gap"] = gap
    return Step("attention", read.part, p, amount, facts, tuple(entries + carried), text), after


def _terms(pairs, limit=8):
    """The largest terms of the rival's lead, as JSON: which query writer, which key writer, how much."""
    gap = pairs.rival - pairs.wanted
    order = np.argsort(-np.abs(gap), axis=None, kind="stable")[:limit]
    found = []
    for flat in order:
        i, j = np.unravel_index(flat, gap.shape)
        if abs(gap[i, j]) > tolerance(gap.ravel()) or abs(pairs.rival[i, j]) > tolerance(pairs.rival.ravel()):
            found.append(
                {
                    "query": str(pairs.query[i]),
                    "key": str(pairs.key[j]),
                    "rival": float(pairs.rival[i, j]),
                    "wanted": float(pairs.wanted[i, j]),
                }
            )
    return found


OPENINGS = {  # (the case, how the rival's score compares) -> the sentence on the term named
    ("outscores", 1): N_(
        "Position {rival} outscores position {wanted} by {gap}; the largest term for position {rival}, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
    ("outscores", 0): N_(
        "Position {rival} scores as much as position {wanted}; the largest term for position {rival}, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
    ("same", 0): N_(
        "Position {rival} scores as much as position {wanted}, {score}; the largest term of that score, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
    ("leads", -1): N_(
        "Position {wanted} leads position {rival} by only {gap}; the largest term for position {wanted}, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
}


def _term(model, read, view, pairs, term, side, case, rival, wanted):
    """(the entries named, the sentence, the next Read or None) for the term (i, j) of ``pairs``."""
    i, j = term
    a, b, p = pairs.query[i], pairs.key[j], read.position
    sign = -1 if case == "leads" else 1  # the entries named push the way the term does
    q_row, k_row, q_entries, k_entries = _sides(model, view, pairs, a, b, case, p, rival, wanted)
    named = [e for e in (_best(model, "q", view, q_entries, sign), _best(model, "k", view, k_entries, sign)) if e]
    gap = float(pairs.rival.sum() - pairs.wanted.sum())
    small = tolerance([*pairs.rival.ravel(), *pairs.wanted.ravel()])
    compared = 1 if gap > small else -1 if gap < -small else 0
    value = pairs.rival[i, j] if case == "same" else pairs.rival[i, j] - pairs.wanted[i, j]
    sentence = _(OPENINGS[(case, compared)]).format(
        rival=rival,
        wanted=wanted,
        gap=fmt(abs(gap)),
        score=fmt(pairs.rival.sum()),
        term=fmt(abs(value)),
        query=_writer(a),
        key=_writer(b),
        entries=_entries_said(named),
    )
    return named, sentence, _next_of_term(view, pairs, a, b, side, case, p, rival, wanted)


def _sides(model, view, pairs, a, b, case, p, rival, wanted):
    """(the query writer's row of q, the key writer's row of k (the rival's minus the wanted key's, or the
    rival's alone), and each side's contributions to the term, by entry)."""
    at = pairs.inputs
    x_a = at[p].shares.get(a)
    q_row = view.bq if x_a is None else x_a @ view.wq  # [d_head]
    if b.kind == "k.b":
        x_b, k_row = None, view.bk if case == "same" else np.zeros_like(view.bk)
    else:
        x_b = at[rival].shares[b] - (0 if case == "same" else at[wanted].shares[b])  # [n_embd]
        k_row = x_b @ view.wk
    q_side = view.bq * k_row * view.scale if x_a is None else x_a[:, None] * view.wq * k_row * view.scale
    k_side = view.bk * q_row * view.scale if x_b is None else x_b[:, None] * view.wk * q_row * view.scale
    return q_row, k_row, q_side, k_side


def _best(model, kind, view, contributions, sign):
    """The entry of q or k (or their biases) whose contribution pushes most the way of ``sign``, named, or None."""
    oriented = sign * contributions
    if oriented.size == 0 or oriented.max() <= tolerance(contributions.ravel()):
        return None
    index = np.unravel_index(np.argmax(oriented), oriented.shape)
    weights = getattr(view, f"w{kind}") if contributions.ndim == 2 else getattr(view, f"b{kind}")
    if contributions.ndim == 2:
        return model.entry(kind, view.block, (index[0], view.offset + index[1]), weights[index])
    return model.entry(f"{kind}.b", view.block, view.offset + index[0], weights[index])


def _next_of_term(view, pairs, a, b, side, case, p, rival, wanted):
    """The Read that follows the term back: into the key's writer at the key the term is about, else
    into the query's writer, when either is a head or an MLP; else None (the fault is in q or k)."""
    if b.kind in BLOCK_PARTS:
        at = rival if side == "rival" else wanted
        sign = -1 if side == "rival" else 1
        direction = pairs.inputs[at].back(view.wk @ view.q[p] * view.scale)
        return Read(b, at, sign * direction, sign, ("key", view.block, view.head, at, p))
    if a.kind in BLOCK_PARTS and case != "same":
        direction = pairs.inputs[p].back(view.wq @ (view.k[rival] - view.k[wanted]) * view.scale)
        return Read(a, p, -direction, -1, ("query", view.block, view.head, p, rival, wanted))
    return None


def _asked_column(asked, offered):
    """The column of the query to speak of: the one it asks for most where k reads anything; else the
    one it asks for most; else the one it avoids most."""
    small = tolerance([*asked, 1.0])
    for found in (asked * offered, asked, np.abs(asked)):
        if found.max() > small:
            return int(np.argmax(found))
    return 0


def _nothing(model, read, view, pairs, rival, wanted):
    """(entries, sentence, next Read or Step) when no term tells the two keys apart or lifts either."""
    p, at = read.position, pairs.inputs
    asked = view.q[p]  # [d_head]: what the query asks for
    score = fmt(pairs.rival.sum())
    if np.abs(asked).max() <= tolerance([*asked, 1.0]):
        layer_in = _layer_in(model, view.block, "attn")
        apart = layer_in[wanted] - layer_in[rival]  # [n_embd]
        found = _best(model, "k", view, np.abs(apart[:, None] * view.wk), 1)
        sentence = _("The query there is 0, so every key scores the same, {score}.").format(score=score)
        if found:
            sentence = _(
                "The query there is 0, so every key scores the same, {score}; {entry} would tell position {wanted} apart, for a query that asks for its column."
            ).format(score=score, entry=found[0], wanted=wanted)
        return [found] if found else [], sentence, None
    column = _asked_column(asked, np.abs(view.wk).sum(axis=0))
    named, said = _ask(model, view, p, column)
    sentence = (
        _(
            "Position {rival} scores as much as position {wanted}, {score}: the query {ask} (through {entries}), which k reads from {directions}, and neither key has more of it."
        )
        if said["directions"]
        else _(
            "Position {rival} scores as much as position {wanted}, {score}: the query {ask} (through {entries}), and k makes nothing of {column} from any direction ({empty} = 0)."
        )
    ).format(rival=rival, wanted=wanted, score=score, **said)
    direction = at[wanted].back(view.wk[:, column] * asked[column] * view.scale)
    return (
        named,
        sentence,
        _written_by(model, Read(None, wanted, direction, 1, ("key", view.block, view.head, wanted, p))),
    )


def _ask(model, view, p, column):
    """(the entries of q and k that make and read the query's ``column``, the words to say it with)."""
    asked = view.q[p]
    x_p = _layer_in(model, view.block, "attn")[p]  # [n_embd]: the query's input
    only = np.arange(len(asked)) == column
    q_entry = _best(model, "q", view, np.sign(asked[column]) * x_p[:, None] * view.wq * only, 1) or _best(
        model, "q", view, np.sign(asked[column]) * view.bq * only, 1
    )
    k_entry = _best(model, "k", view, np.abs(view.wk) * only, 1)
    name = model.basis(model.structure.space("attention", view.block))[view.offset + column]
    empty = f"{model.short[Name('k', view.block)]}[·, {name}]"  # the column k leaves empty
    ask = _("asks most for {column}") if asked[column] > 0 else _("asks for no column, and avoids {column} most")
    said = {
        "ask": ask.format(column=name),
        "column": name,
        "entries": _entries_said([q_entry] if q_entry else []),
        "directions": ", ".join(model.direction_names(view.wk[:, column])) if k_entry else "",
        "empty": empty,
    }
    return [e for e in (q_entry, k_entry or (empty, 0.0)) if e], said


def _unanswered(view, pairs, term, p, wanted):
    """The column of the query that a key offering it would score most for (its largest ask), when
    neither the wanted key gets half of that from it nor does any one term of the rival's lead come near:
    the key misses what the query asks for. Else None."""
    asked = view.q[p]
    potential = asked * np.abs(view.wk).max(axis=0) * view.scale  # [d_head]: a key offering each column fully
    column = int(np.argmax(potential))
    most = potential[column]
    got = asked[column] * view.k[wanted][column] * view.scale
    lead = 0.0 if term is None else abs(pairs.rival[term] - pairs.wanted[term])
    if most <= tolerance([*potential, 1.0]) or got >= most / 2 or lead >= most / 2:
        return None
    return column


def _unmet(model, read, view, pairs, column, rival, wanted):
    """(entries, sentence, next Read or Step) when the wanted key misses the query's largest ask."""
    p, asked = read.position, view.q[read.position]
    named, said = _ask(model, view, p, column)
    gap = float(pairs.rival.sum() - pairs.wanted.sum())
    sentence = (
        _(
            "Position {rival} outscores position {wanted} by {gap}: the query {ask} (through {entries}), which k reads from {directions}, and the key of position {wanted} scores {got} from it, less than half of what it could."
        )
        if gap > 0
        else _(
            "Position {wanted} leads position {rival} by only {gap}: the query {ask} (through {entries}), which k reads from {directions}, and the key of position {wanted} scores {got} from it, less than half of what it could."
        )
    )
    got = asked[column] * view.k[wanted][column] * view.scale
    text = sentence.format(rival=rival, gap=fmt(abs(gap)), wanted=wanted, got=fmt(got), **said)
    direction = pairs.inputs[wanted].back(view.wk[:, column] * asked[column] * view.scale)
    return named, text, _written_by(model, Read(None, wanted, direction, 1, ("key", view.block, view.head, wanted, p)))


# ---- a head's value: what it carried from where it looked ---------------------------------------------


def _value(model, read, view, gains, amount):
    p = read.position
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    named, text = _carried(model, read, view, gains, amount)
    if p > 0 and np.ptp(gains) > tolerance(gains):
        text = _both(text, _("No other position would serve {reader} better.").format(reader=_reader(read.reader)))
    output = view.weights[p, : p + 1] @ view.v[: p + 1]
    facts = {"reads": _looked(model, view, p, gains), "output": _output_json(model, view, output)}
    text += _norm_note(model.input(p, (view.block, "attn")), p)
    return Step("value", read.part, p, amount, facts, tuple(named), text), _next_of_value(
        model, read, view, worth, amount
    )


def _carried(model, read, view, gains, amount):
    """(the entries of v and c_proj.w named, the sentence): where the head reads, its output there, what
    that does to the reader, and the entries that did most of it (the wrong way, or the right way too little)."""
    p = read.position
    weights = view.weights[p, : p + 1]
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    output = weights @ view.v[: p + 1]  # [d_head]: the head's output there, before c_proj
    read_in = weights @ _layer_in(model, view.block, "attn")[: p + 1]  # [n_embd]: the input, as the weights mix it
    v_entries = read_in[:, None] * view.wv * worth  # [n_embd, d_head]: each entry of v's part of the amount
    c_entries = output[:, None] * view.c_proj * read.direction  # [d_head, n_embd]: each entry of c_proj.w's
    sign = -1 if amount < 0 else 1
    found = (
        _best(model, "v", view, v_entries, sign) or _best(model, "v", view, view.bv * worth, sign),
        _best_c_proj(model, view, c_entries, sign),
    )
    named = [e for e in found if e]
    said = {
        "position": p,
        "head": _writer(read.part),
        "places": _places(model, view, p),
        "output": _output(model, view, output),
        "effect": _effect(read, amount),
        "entries": _entries_said(named),
    }
    if named and abs(amount) > tolerance([amount, *gains]):
        text = _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}, through {entries}."
        )
    elif np.abs(output * worth).max() > tolerance([*(output * worth), amount]):
        text = _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}: what it reads cancels out."
        )
    elif np.abs(worth).max() <= tolerance(worth):
        text = _(
            "At position {position}, {head} reads {places}; its output there is {output}, and c_proj.w sends none of its output where it is read, so it {effect}."
        )
    else:
        said["columns"] = ", ".join(model.direction_names(worth, model.structure.space("head", view.block, view.head)))
        text = _(
            "At position {position}, {head} reads {places}; its output there is {output}, with nothing in {columns}, the columns c_proj.w sends where it is read, so it {effect}."
        )
    return named, text.format(**said)


def _layer_in(model, block, layer):
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


def _best_c_proj(model, view, contributions, sign):
    oriented = sign * contributions
    if oriented.max() <= tolerance(contributions.ravel()):
        return None
    row, col = np.unravel_index(np.argmax(oriented), oriented.shape)
    return model.entry("c_proj.w", view.block, (view.offset + row, col), view.c_proj[row, col])


def _next_of_value(model, read, view, worth, amount):
    """A head or MLP that wrote what the value read and pushed the wrong way through it, the most: the
    next Read, at the key where it did; or, when the value carries nothing, one that could write it."""
    p, weights = read.position, view.weights[read.position, : read.position + 1]
    reads = view.wv @ worth  # [n_embd]: what a unit of each direction of the value's input gives the reader
    worst, most = None, -tolerance([amount, 1.0])
    for j in [k for k in range(p + 1) if weights[k] > ATTENDED] or [int(np.argmax(weights))]:
        for name, x in model.input(j, (view.block, "attn")).shares.items():
            share = weights[j] * float(x @ reads)
            if name.kind in BLOCK_PARTS and share < most:
                worst, most = (name, j), share
    if worst is not None:
        name, j = worst
        direction = model.input(j, (view.block, "attn")).back(weights[j] * reads)
        return Read(name, j, direction, 1, ("value", view.block, view.head, j))
    if abs(amount) > tolerance([amount, *worth]):
        return None  # it carries something the right way, too little: the fault is in its own v and c_proj
    best = int(np.argmax(weights))
    direction = model.input(best, (view.block, "attn")).back(weights[best] * reads)
    return _written_by(model, Read(None, best, direction, 1, ("value", view.block, view.head, best)))


def _output(model, view, output):
    """A head's output in its named directions: its largest entries, ``Tb = 1``, or 0."""
    names = model.basis(model.structure.space("attention", view.block))[view.offset : view.offset + len(output)]
    order = [i for i in np.argsort(-np.abs(output), kind="stable") if abs(output[i]) > tolerance(output)][
        :SHOWN_DIRECTIONS
    ]
    return ", ".join(f"{names[i]} = {fmt(output[i])}" for i in sorted(order)) or "0"


def _output_json(model, view, output):
    names = model.basis(model.structure.space("attention", view.block))[view.offset : view.offset + len(output)]
    return {names[i]: float(x) for i, x in enumerate(output)}


# ---- an MLP: which unit fired, or did not, and what made its pre-activation ----------------------------


def _mlp_step(model, read):
    b, p = read.part.block, read.position
    mlp = model.params["blocks"][b]["mlp"]
    hidden = model.tapped[Name(T.mlp_hidden, b)][p]  # [n_hidden]
    worth = mlp["c_proj"]["w"] @ read.direction  # [n_hidden]: what one unit of each hidden unit gives the reader
    units, bias = hidden * worth, float(mlp["c_proj"]["b"] @ read.direction)
    amount = float(units.sum() + bias)
    small = tolerance([*units, bias, *worth])
    facts = {"units": _units_json(model, b, p, units), "bias": bias}
    unit = _unit_at_fault(model, b, p, units, worth, bias, small)
    if unit is None:  # the bias outweighs the units: at fault, unless what feeds the units is
        helper = int(np.argmax(units))
        if units[helper] > small:
            step, after = _unit(model, read, facts, helper, units, bias, amount, feed=True)
            if isinstance(after, Read) and (units.sum() < -bias / 2 or _faulty(model, after)):
                return step, after
        return _mlp_bias(model, read, facts, units, bias, amount), None
    if units[unit] >= -small and worth[unit] <= small:  # no unit could serve the reader
        text = _("At position {position}, no unit of {mlp} can serve {reader}: mlp.c_proj.w sends none of them there.")
        said = text.format(position=p, mlp=_writer(read.part), reader=_reader(read.reader))
        return Step("unit", read.part, p, amount, facts, (), said), None
    return _unit(model, read, facts, unit, units, bias, amount)


def _unit_at_fault(model, b, p, units, worth, bias, small):
    """The unit that works against the reader most; else, when the bias does and no unit serves the reader,
    the unit that would serve it most and does not fire (None: the bias is at fault, outweighing what its
    units do, or with no unit that could); else the unit that would serve the reader most."""
    worst = int(np.argmin(units))
    if units[worst] < -small and units[worst] <= bias:
        return worst
    pre = model.tapped[Name(T.mlp_pre, b)][p]
    idle = np.where(pre <= 0, worth, -np.inf)  # what each unit that does not fire would give, once it did
    if bias < -small:
        return int(np.argmax(idle)) if idle.max() > small and units.sum() <= small else None
    return int(np.argmax(worth))


def _faulty(model, read):
    """Whether the step ``read`` leads to finds a fault there: a head that looks in the wrong place, a
    write that works against its reader, or one that nothing makes."""
    step, _after = (_mlp_step if read.part.kind == "mlp" else _head_step)(model, read)
    return step.kind in ("attention", "unwritten") or step.amount < -tolerance([step.amount, 1.0])


def _unit(model, read, facts, unit, units, bias, amount, feed=False):
    """The step on one unit (that works against the reader, or would serve it), and the next Read: the
    writer that pushed its pre-activation the wrong way; with ``feed``, the one that fed it most."""
    b, p = read.part.block, read.position
    mlp, pre = model.params["blocks"][b]["mlp"], float(model.tapped[Name(T.mlp_pre, b)][p][unit])
    want = 1 if (mlp["c_proj"]["w"][unit] @ read.direction) > 0 else -1  # raise the unit, or lower it
    at = model.input(p, (b, "mlp"))
    shares = {name: float(x @ mlp["c_fc"]["w"][:, unit]) for name, x in at.shares.items()}
    shares[Name("mlp.c_fc.b", b)] = float(mlp["c_fc"]["b"][unit])
    layer_in = _layer_in(model, b, "mlp")[p]
    named = [_unit_input_entry(model, b, unit, layer_in, -want), _unit_output_entry(model, read, unit)]
    named = [e for e in named if e]
    name = model.basis(model.structure.space("hidden", b))[unit]
    said = {
        "position": p,
        "unit": name,
        "mlp": _writer(read.part),
        "effect": _effect(read, float(units[unit])),
        "pre": fmt(pre),
        "shares": _largest(shares),
        "entries": _entries_said(named),
    }
    fires = (
        _("At position {position}, unit {unit} of {mlp} fires (its pre-activation, {pre}, is above 0) and {effect}.")
        if pre > 0
        else _(
            "At position {position}, unit {unit} of {mlp} does not fire (its pre-activation, {pre}, is not above 0) and {effect}."
        )
    ).format(**said)
    if abs(bias) > tolerance([bias, *units]):
        fires = _both(fires, _("Its output bias, mlp.c_proj.b, {effect}.").format(effect=_effect(read, bias)))
    text = _both(fires, _("Its pre-activation, part by part: {shares}; through {entries}.").format(**said))
    facts = {**facts, "unit": name, "pre": pre, "fires": pre > 0, "pre_shares": {str(n): v for n, v in shares.items()}}
    step = Step("unit", read.part, p, amount, facts, tuple(named), text + _norm_note(at, p))
    if feed:
        return step, _next_of_unit(model, read, at, shares, unit, want, feed=True)
    helps = units[unit] >= -tolerance(units) and pre > 0  # it fires the right way, too little: its own weights
    return step, None if helps else _next_of_unit(model, read, at, shares, unit, want)


def _next_of_unit(model, read, at, shares, unit, want, feed=False):
    """The head or MLP that pushed the unit's pre-activation the wrong way most (with ``feed``, the right
    way most); or, when nothing was written there, one that could write it; or None."""
    b, p = read.part.block, read.position
    column = model.params["blocks"][b]["mlp"]["c_fc"]["w"][:, unit]  # [n_embd]
    against = {n: want * v * (-1 if feed else 1) for n, v in shares.items() if n.kind in BLOCK_PARTS}
    worst = min(against, key=against.get, default=None)
    reader = ("unit", b, model.basis(model.structure.space("hidden", b))[unit])
    if worst is not None and against[worst] < -tolerance(shares.values()):
        return Read(worst, p, want * at.back(column), want, reader)
    if any(abs(v) > tolerance([*shares.values(), 1.0]) for v in against.values()):
        return None
    return _written_by(model, Read(None, p, want * at.back(column), want, reader))


def _unit_input_entry(model, b, unit, layer_in, sign):
    """The entry of mlp.c_fc (w or b) that moved the unit's pre-activation most the way of ``sign``."""
    c_fc = model.params["blocks"][b]["mlp"]["c_fc"]
    pieces = np.append(layer_in * c_fc["w"][:, unit], c_fc["b"][unit])  # [n_embd + 1]
    oriented = sign * pieces
    if oriented.max() <= tolerance(pieces):
        return None
    row = int(np.argmax(oriented))
    if row == len(layer_in):
        return model.entry("mlp.c_fc.b", b, unit, c_fc["b"][unit])
    return model.entry("mlp.c_fc.w", b, (row, unit), c_fc["w"][row, unit])


def _unit_output_entry(model, read, unit):
    """The entry of mlp.c_proj.w by which the unit's activation reaches the reader most."""
    w = model.params["blocks"][read.part.block]["mlp"]["c_proj"]["w"][unit]  # [n_embd]
    pieces = np.abs(w * read.direction)
    if pieces.max() <= tolerance(pieces):
        return None
    col = int(np.argmax(pieces))
    return model.entry("mlp.c_proj.w", read.part.block, (unit, col), w[col])


def _mlp_bias(model, read, facts, units, bias, amount):
    b, p = read.part.block, read.position
    w = model.params["blocks"][b]["mlp"]["c_proj"]["b"]
    col = int(np.argmin(w * read.direction))
    named = (model.entry("mlp.c_proj.b", b, col, w[col]),)
    text = _(
        "At position {position}, the output bias of {mlp}, mlp.c_proj.b, {effect}, through {entries}; the sum of its units {units}."
    ).format(
        position=p,
        mlp=_writer(read.part),
        effect=_effect(read, bias),
        entries=_entries_said(named),
        units=_effect(read, float(units.sum())),
    )
    return Step("bias", read.part, p, amount, facts, named, text + _norm_note(model.input(p, (b, "mlp")), p))


def _units_json(model, b, p, units):
    pre = model.tapped[Name(T.mlp_pre, b)][p]
    names = model.basis(model.structure.space("hidden", b))
    return {names[u]: {"pre": float(pre[u]), "share": float(units[u])} for u in range(len(units))}


# ---- saying it ----------------------------------------------------------------------------------------

WRITERS = {
    None: N_("head {head} of block {block}"),
    "wte": N_("the token (wte)"),
    "wpe": N_("the position (wpe)"),
    "mlp": N_("the MLP of block {block}"),
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


def _writer(name):
    """A writer of the stream, or a bias of a layer, as a sentence names it: "head 0 of block 1", "q.b"."""
    if name.kind in WRITERS:
        return _(WRITERS[name.kind]).format(block=name.block, head=name.head)
    if name.block is None or name.kind in ("q.b", "k.b", "mlp.c_fc.b"):
        return name.kind  # code: ln_f.b, and the biases of the layer the step is about
    return _("{name} of block {block}").format(name=name.kind, block=name.block)


def _fields(reader):
    kind, *values = reader
    return kind, dict(zip(READER_FIELDS[kind], values))


def _reader(reader):
    kind, fields = _fields(reader)
    return _(READERS[kind]).format(**fields)


def _effect(read, amount):
    """What a write of ``amount`` (along the read: positive serves the reader) does to the reader's own
    quantity, said with its size and a verb for its sign: never a push "toward" by a negative amount."""
    kind, fields = _fields(read.reader)
    raw = read.sign * amount
    more, less, none = EFFECTS[kind]
    if abs(raw) <= tolerance([raw]):
        return _(none).format(**fields)
    return _(more if raw > 0 else less).format(amount=fmt(abs(raw)), **fields)


def _largest(shares, limit=4):
    """ "head 0 of block 0 1024, mlp.c_fc.b -3": the largest shares (the rest together, when more)."""
    small = tolerance(shares.values())
    order = [n for n in sorted(shares, key=lambda n: -abs(shares[n])) if abs(shares[n]) > small]
    said = _joined([f"{_writer(n)} {fmt(shares[n])}" for n in order[:limit]]) or "0"
    if len(order) > limit:
        rest = sum(shares[n] for n in order[limit:])
        said = _("{shares}, and the other parts together {rest}").format(shares=said, rest=fmt(rest))
    return said


def _joined(items):
    """Items of a list, one after the other: "a, b" in English, "a；b" in Chinese."""
    text = items[0] if items else ""
    for item in items[1:]:
        text = _("{places}, {place}").format(places=text, place=item)
    return text


def _entries_said(named):
    """ "q[P1, P1] = 1024 and k[P1, P1] = 1"."""
    said = [f"{name} = {fmt(value)}" for name, value in named]
    if not said:
        return _("its weights together")
    text = said[0]
    for more in said[1:]:
        text = _("{first} and {second}").format(first=text, second=more)
    return text


def _both(first, second):
    """Two sentences, one after the other: after a space in English, straight after 。 in Chinese."""
    return _("{previous} {sentence}").format(previous=first, sentence=second)


def _norm_note(layer_input, position):
    """A sentence on how a layer norm apportions the shares of a step, or ""."""
    if layer_input.norm is None:
        return ""
    note = _(
        "Through {norm}, each share is the part's write centred, divided by the stream's spread at position {position} ({spread}), times g; {norm}.b has its own."
    )
    return _both("", note.format(norm=layer_input.norm, position=position, spread=fmt(layer_input.spread)))
