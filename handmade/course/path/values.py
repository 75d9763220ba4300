"""A head's value: where it read, what it carried from there, and the entries of v and c_proj.w that
made what the reader got."""

import numpy as np

from ...arguments import fmt
from ...i18n import N_, _, listed, ngettext, then
from ...model import Name
from ..explain import tolerance
from .embeddings import embedding_step
from .stream import (
    BLOCK_PARTS,
    SHOWN_DIRECTIONS,
    PathStep,
    Read,
    effect_said,
    entries_said,
    is_bias,
    joined,
    layer_read,
    norm_note,
    reader_said,
    writer_said,
    written_by,
)

ATTENDED = 0.05  # a key whose attention weight is above this is said to be read
SHOWN_PLACES = 3  # positions named in "it reads ..."
LISTED_READS = 8  # keys a step's JSON lists where a query reads (the most read)


def attended(weights):
    """The keys a query reads (``weights``: its attention weights): those above ATTENDED, else the one it reads most."""
    return [int(j) for j in np.flatnonzero(weights > ATTENDED)] or [int(np.argmax(weights))]


def places_said(model, view, position, limit=SHOWN_PLACES):
    """ "position 1 (b) with weight 0.5, position 2 (a) with weight 0.5": where a query reads."""
    weights = view.weights[position, : position + 1]
    shown = sorted(
        [int(k) for k in np.argsort(-weights, kind="stable")[:limit] if weights[k] > ATTENDED]
        or [int(np.argmax(weights))]
    )
    text = joined([_place(model, k, weights[k]) for k in shown])
    rest = len(weights) - len(shown)
    if rest and weights[shown].sum() < 1 - ATTENDED:
        text = ngettext(
            "{places}, and {n} other position with weight {weight}",
            "{places}, and {n} other positions with weight {weight} together",
            rest,
        ).format(places=text, n=rest, weight=fmt(1 - weights[shown].sum(), 2))
    return text


def _place(model, k, weight):
    token = model.tokens[model.reading.tokens[k]]
    return _("position {position} ({token}) with weight {weight}").format(
        position=k, token=token, weight=fmt(weight, 2)
    )


def looked(model, view, position, gains):
    """The JSON of where a query reads: each key it reads, with its weight and what reading it alone would give."""
    weights = view.weights[position, : position + 1]
    read = [k for k in np.argsort(-weights, kind="stable")[:LISTED_READS] if weights[k] > ATTENDED]
    read = read or [int(np.argmax(weights))]
    return [
        {
            "position": int(k),
            "token": model.tokens[model.reading.tokens[k]],
            "weight": float(weights[k]),
            "gain": float(gains[k]),
        }
        for k in sorted(read)
    ]


def best_entry(model, kind, view, contributions, sign, prefer=None):
    """The entry of q or k (or their biases) whose contribution pushes most the way of ``sign``, named, or None; of
    entries tied for the most, one of ``prefer``'s (booleans, broadcast to ``contributions``) where any is."""
    oriented = sign * contributions
    if oriented.size == 0 or oriented.max() <= tolerance(contributions.ravel()):
        return None
    tied = oriented >= oriented.max() - tolerance(contributions.ravel())
    if prefer is not None and (tied & prefer).any():
        oriented = np.where(tied & prefer, oriented, -np.inf)
    index = np.unravel_index(np.argmax(oriented), oriented.shape)
    weights = getattr(view, f"w{kind}") if contributions.ndim == 2 else getattr(view, f"b{kind}")
    if contributions.ndim == 2:
        return model.entry(kind, view.block, (index[0], view.offset + index[1]), weights[index])
    return model.entry(f"{kind}.b", view.block, view.offset + index[0], weights[index])


def value_step(model, read, view, gains, amount, both_ways=False):
    p = read.position
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    after = _next_of_value(model, read, view, worth, amount)
    named, text = carried_said(
        model, read, view, gains, amount, stops=after is None, both_ways=both_ways, tied=read.tied
    )
    if isinstance(after, PathStep) and set(after.entries) <= set(named):
        after = None  # the embedding's entry is named here already (what it wrote, cancelling)
    small = tolerance(gains)
    if gains.max() - amount > small and gains.max() <= small:  # reading elsewhere would only do no harm
        sentence = _("No position would serve {reader}: reading another would at most do nothing for it.")
        text = then(text, sentence.format(reader=reader_said(read.reader)))
    elif p > 0 and np.ptp(gains) > small:
        text = then(text, _("No other position would serve {reader} better.").format(reader=reader_said(read.reader)))
    output = view.weights[p, : p + 1] @ view.v[: p + 1]
    facts = {"reads": looked(model, view, p, gains), "output": _output_json(model, view, output)}
    text += norm_note(model.input(p, (view.block, "attn")), p)
    return PathStep("value", read.part, p, amount, facts, tuple(named), text), after


def carried_said(model, read, view, gains, amount, stops=False, both_ways=False, tied=False):
    """(the entries of v and c_proj.w named, the sentence): where the head reads, its output there, what
    that does to the reader, and the entries that did most of it (the wrong way, or the right way too little);
    with ``stops`` (the path ends at this head), those that kept its output from the reader; with ``both_ways``
    (c_proj.w sends its output both ways, against the reader, and no key would serve it), an entry of c_proj.w
    only from a row that does so alone (columns each sent one way are what it carries, not how c_proj.w sends it);
    with ``tied`` (the step a misled unit leads to), every entry of v tied for the most, not the first of them."""
    p = read.position
    weights = view.weights[p, : p + 1]
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    output = weights @ view.v[: p + 1]  # [d_head]: the head's output there, before c_proj
    read_in = weights @ layer_read(model, view.block, "attn")[: p + 1]  # [n_embd]: the input, as the weights mix it
    v_entries = read_in[:, None] * view.wv * worth  # [n_embd, d_head]: each entry of v's part of the amount
    c_entries = output[:, None] * view.c_proj * read.direction  # [d_head, n_embd]: each entry of c_proj.w's
    sign = -1 if amount < 0 else 1
    found = (
        *_v_named(model, view, v_entries, view.bv * worth, sign, tied),
        _best_c_proj(model, view, _rows_both_ways(c_entries) if both_ways else c_entries, sign),
    )
    named = [e for e in found if e]
    said = {
        "position": p,
        "head": writer_said(read.part),
        "places": places_said(model, view, p),
        "output": _output(model, view, output),
        "effect": effect_said(read, amount),
        "entries": entries_said(named),
    }
    keys = attended(weights)  # what the keys it reads give: not a residue of the weight left on the others
    read_only = np.where(np.isin(np.arange(p + 1), keys), weights, 0.0)  # [p+1]: the weights on those keys alone
    from_keys = read_only @ view.v[: p + 1]  # [d_head]: the output they make, which a residue does not cancel
    if named and abs(weights[keys] @ gains[keys]) > tolerance([amount, *gains]):
        text = _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}, through {entries}."
        )
    elif np.abs(from_keys * worth).max() > tolerance([*(output * worth), amount]):
        named, text = _cancelled(model, view, weights, gains[: p + 1], worth, v_entries, said)
    else:  # what the keys it reads give does not reach the reader; what the others give is said apart
        unreached, text = _unreached(model, read, view, gains, read_only, from_keys, stops, said)
        return unreached or named, _with_residue(model, read, view, gains, amount, read_only, text.format(**said))
    return named, text.format(**said)


def _unreached(model, read, view, gains, read_only, from_keys, stops, said):
    """(the entries named, or [], the sentence) for a head whose keys it reads (``read_only``: [p+1], the weights on
    them alone, ``from_keys``: [d_head], the output they make) give the reader nothing; ``said`` gains the
    ``output`` and ``effect`` of those keys alone (a residue of the weight left on the others: ``_with_residue``)."""
    p, worth = read.position, view.c_proj @ read.direction
    c_entries = from_keys[:, None] * view.c_proj * read.direction  # [d_head, n_embd]
    said.update(output=_output(model, view, from_keys), effect=effect_said(read, float(read_only @ gains)))
    cancelling, text = _not_carried(model, view, worth, c_entries, gains, said)
    read_in = read_only @ layer_read(model, view.block, "attn")[: p + 1]  # [n_embd]
    unsent = [] if cancelling or not stops else _unsent(model, read, view, worth, from_keys, read_in)
    if unsent:  # the path ends here: the entries that kept the output from the reader
        said["entries"] = entries_said(unsent)
        text = _(_UNSENT[bool(np.abs(from_keys).max() > tolerance(from_keys))])
    return cancelling or unsent, text


def _with_residue(model, read, view, gains, amount, read_only, text):
    """``text`` (what the keys a head reads, ``read_only``, give), and after it, when the weight left on the
    other positions gives the reader something, what it gives."""
    p = read.position
    residue = amount - float(read_only @ gains)
    if abs(residue) <= tolerance([amount, *gains]):
        return text
    rest = view.weights[p, : p + 1] - read_only  # [p+1]
    sentence = _("The weight of {weight} left on the other positions adds {output} to its output, which {effect}.")
    said = {
        "weight": fmt(rest.sum(), 2),
        "output": _output(model, view, rest @ view.v[: p + 1]),
        "effect": effect_said(read, residue),
    }
    return then(text, sentence.format(**said))


def _cancelled(model, view, weights, gains, worth, v_entries, said):
    """(the entries named, the sentence) for a head whose output the reader gets both ways, so that it cancels:
    from the positions it reads (what each gives the reader, serving and working against); from directions of
    what it reads, carried on opposite ways (with the embedding's entry that wrote the one against, when
    ``_written_against`` can tell it); or, from one, through the entries of v that carry it into columns c_proj.w
    sends both ways."""
    gained = weights * gains
    small = tolerance([*gained, *v_entries.ravel()])
    if gained.max() > small and gained.min() < -small:  # positions that serve it, and positions that work against
        return [], _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}: what it reads cancels out."
        )
    parts = v_entries.sum(axis=1)  # [n_embd]: what each direction of its input gives the reader
    if parts.max() > small and parts.min() < -small:  # directions of what it reads, carried on opposite ways
        found = _against(model, view, weights, worth)
        if found is None:
            return [], _(
                "At position {position}, {head} reads {places}; its output there, {output}, {effect}: what it reads there has parts that serve and parts that work against, so that they cancel."
            )
        writer, key, named = found
        said.update(writer=writer_said(writer), key=key, entries=entries_said(named))
        if named[0][0].startswith(model.short[Name("v", view.block)]):  # v carries it where another direction goes
            return named, _(
                "At position {position}, {head} reads {places}; its output there, {output}, {effect}: what it reads there has parts that serve and parts that work against, so that they cancel ({entries})."
            )
        return named, _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}: what it reads there has parts that serve and parts that work against, so that they cancel; what works against it, {writer} wrote at position {key} ({entries})."
        )
    named = [e for sign in (1, -1) for e in _v_named(model, view, v_entries, view.bv * worth, sign)]
    said["entries"] = entries_said(named)
    return named, _(
        "At position {position}, {head} reads {places}; its output there, {output}, {effect}: v carries what it reads there into columns that c_proj.w sends opposite ways, so that they cancel ({entries})."
    )


def _against(model, view, weights, worth):
    """(the writer, the key, [the entry named]) when one writer alone wrote, at the keys a query reads, a
    direction that the value gives on against the reader: the entry of v that carries it into a column into
    which v carries another direction too (v mixes them); else, when v carries it only into the column of its
    own name (as a diagonal does) and an embedding wrote it, that embedding's entry. Else None."""
    pieces = _pieces(model, view, weights, view.wv @ worth)
    small = tolerance([*np.ravel(list(pieces.values())), 1.0])
    against = [(name, j, int(d)) for (name, j), x in pieces.items() for d in np.flatnonzero(x < -small)]
    if len(against) != 1:
        return None
    name, j, d = against[0]
    fed = np.abs(view.wv) > tolerance(view.wv.ravel())  # [n_embd, d_head]: the entries of v that carry anything
    write = weights[j] * model.input(j, (view.block, "attn")).shares[name][d]
    carried = write * view.wv[d] * worth  # [d_head]: each column's part of the piece against
    mixed = np.where(fed[d] & (fed.sum(axis=0) > 1), carried, np.inf)
    if mixed.min() < 0:
        c = int(np.argmin(mixed))
        return name, j, [model.entry("v", view.block, (d, view.offset + c), view.wv[d, c])]
    v = model.parts[Name("v", view.block)]
    rows, cols = model.basis(v.rows), model.basis(v.cols)
    if name.kind not in ("wte", "wpe") or any(cols[view.offset + c] != rows[d] for c in np.flatnonzero(fed[d])):
        return None
    row = model.reading.tokens[j] if name.kind == "wte" else j
    return name, j, [model.entry(name.kind, None, (row, d), model.params[name.kind][row, d])]


_UNSENT = {  # whether the head's output there is anything -> the sentence, when the path ends at its v or c_proj.w
    True: N_(
        "At position {position}, {head} reads {places}; its output there is {output}, and c_proj.w sends none of it where it is read ({entries}), so it {effect}."
    ),
    False: N_(
        "At position {position}, {head} reads {places}; its output there is 0: v carries nothing of what it reads there into {columns}, the columns c_proj.w sends where it is read ({entries}), so it {effect}."
    ),
}


def unsent_alone(model, read, view, key):
    """(the entries that would keep the head's output from the reader were it to read ``key`` alone, the sentence
    that says so), or ([], ""): for a head that reads the wrong key, where the right one would give the reader
    nothing either, which is then the fault as much as where the head looks (``_unsent``)."""
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    output, read_in = view.v[key], layer_read(model, view.block, "attn")[key]  # [d_head], [n_embd]
    named = _unsent(model, read, view, worth, output, read_in)
    if not named:
        return [], ""
    columns = model.direction_names(worth, model.structure.space("head", view.block, view.head))
    said = {
        "key": key,
        "token": model.tokens[model.reading.tokens[key]],
        "output": _output(model, view, output),
        "columns": listed(columns),
        "entries": entries_said(named),
        "reader": reader_said(read.reader),
    }
    return named, _(_UNSENT_ALONE[bool(np.abs(output).max() > tolerance(output))]).format(**said)


_UNSENT_ALONE = {  # whether the head's output, reading that key alone, would be anything -> the sentence
    True: N_(
        "Yet even reading position {key} ({token}) alone, its output, {output}, would do nothing for {reader}: c_proj.w sends none of it where it is read ({entries})."
    ),
    False: N_(
        "Yet even reading position {key} ({token}) alone, its output would be 0, doing nothing for {reader}: v carries nothing of what is there into {columns}, the columns c_proj.w sends where it is read ({entries})."
    ),
}


def _unsent(model, read, view, worth, output, read_in):
    """The entries that keep a head's output from the reader, where the path ends at the head: when it has an
    output whose largest column's row of c_proj.w is all 0, the entry of that row that would send it where the
    reader reads most (none when the row sends it elsewhere: the reader may read the wrong place), else
    the entries of v that would carry what it reads (``read_in``: [n_embd], its largest directions) into the
    column c_proj.w sends where it is read most."""
    if np.abs(output).max() > tolerance(output):
        row = int(np.argmax(np.abs(output)))
        if np.abs(view.c_proj[row]).max() > tolerance(view.c_proj.ravel()):
            return []  # its row sends it somewhere the reader does not read: c_proj.w or the reader, one context cannot tell
        # of the columns the reader reads most, one an entry of the sign of the output's sends to
        size = np.abs(read.direction)
        widest = size >= size.max() - tolerance(read.direction)
        col = int(np.argmax(np.where(widest, np.sign(output[row]) * read.direction, -np.inf)))
        return [model.entry("c_proj.w", view.block, (view.offset + row, col), view.c_proj[row, col])]
    if np.abs(worth).max() <= tolerance(worth):
        return []
    column = int(np.argmax(worth) if worth.max() > tolerance(worth) else np.argmax(-worth))
    order = np.argsort(-np.abs(read_in), kind="stable")[:SHOWN_DIRECTIONS]
    rows = sorted(int(r) for r in order if abs(read_in[r]) > tolerance(read_in))
    return [model.entry("v", view.block, (r, view.offset + column), view.wv[r, column]) for r in rows]


def _block_written(model, view, p, weights):
    """[n_embd]: what the heads and MLPs before wrote into the value's input at the keys a query reads, as its
    weights mix them."""
    found = np.zeros(model.structure.n_embd)
    for j in attended(weights):
        shares = model.input(j, (view.block, "attn")).shares
        found += weights[j] * sum((x for n, x in shares.items() if n.kind in BLOCK_PARTS), np.zeros_like(found))
    return found


def _not_carried(model, view, worth, c_entries, amounts, said):
    """(the entries of c_proj.w that cancel, or [], the sentence) for a head whose output the reader does
    not get: a row of c_proj.w that sends it both ways at once, none of it sent where it is read, or
    nothing of it in the columns that are (``said`` gains the entries or the columns it names)."""
    if np.abs(c_entries).max() > tolerance([*c_entries.ravel(), *amounts]):  # a row of c_proj.w cancels
        named = [e for e in (_best_c_proj(model, view, c_entries, sign) for sign in (1, -1)) if e]
        said["entries"] = entries_said(named)
        return named, _(
            "At position {position}, {head} reads {places}; its output there is {output}, which c_proj.w sends both ways at once, so that they cancel ({entries}), and it {effect}."
        )
    if np.abs(worth).max() <= tolerance(worth):
        return [], _(
            "At position {position}, {head} reads {places}; its output there is {output}, and c_proj.w sends none of its output where it is read, so it {effect}."
        )
    said["columns"] = listed(model.direction_names(worth, model.structure.space("head", view.block, view.head)))
    return [], _(
        "At position {position}, {head} reads {places}; its output there is {output}, with nothing in {columns}, the columns c_proj.w sends where it is read, so it {effect}."
    )


def _v_named(model, view, v_entries, b_entries, sign, tied=False):
    """The entries of v, or of v.b, whose parts of what the reader gets (``v_entries``: [n_embd, d_head];
    ``b_entries``: [d_head], v.b's, whole at every key) push most the way of ``sign``: v.b's when its part is
    the larger (a bias adds the same to every key's value, whatever the head reads), both when they are alike;
    with ``tied``, every entry of v tied for the most."""
    v_named = _tied_v(model, view, v_entries, sign) if tied else [best_entry(model, "v", view, v_entries, sign)]
    v_named = [e for e in v_named if e]
    bias = best_entry(model, "v", view, b_entries, sign)
    if bias is None:
        return v_named
    small = tolerance([*v_entries.ravel(), *b_entries])
    lead = np.max(sign * b_entries) - np.max(sign * v_entries)  # v.b's part over the largest entry of v's
    if not v_named or lead > small:
        return [bias]
    return v_named + [bias] if lead >= -small else v_named  # as large as v's: one context cannot tell them apart


def _tied_v(model, view, contributions, sign, limit=SHOWN_DIRECTIONS):
    """The entries of v whose parts (``contributions``: [n_embd, d_head]) push most the way of ``sign``, alike: of
    keys the query reads alike, one context cannot tell which entry is at fault, so all are named (``limit`` at most)."""
    oriented = sign * contributions
    if oriented.size == 0 or oriented.max() <= tolerance(contributions.ravel()):
        return []
    top = np.argwhere(oriented >= oriented.max() - tolerance(contributions.ravel()))[:limit]  # [found, 2]
    return [model.entry("v", view.block, (int(r), view.offset + int(c)), view.wv[r, c]) for r, c in top]


def _rows_both_ways(contributions):
    """``contributions`` ([d_head, n_embd]: each entry of c_proj.w's part) kept only in the rows that send the head's
    output both ways and, in sum, against the reader; 0 elsewhere."""
    small = tolerance(contributions.ravel())
    rows = (contributions.max(axis=1) > small) & (contributions.sum(axis=1) < -small)  # [d_head]
    return np.where(rows[:, None], contributions, 0.0)


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
    worst, most, embedded = None, -tolerance([amount, 1.0]), []
    for j in attended(weights):
        for name, x in model.input(j, (view.block, "attn")).shares.items():
            share = weights[j] * float(x @ reads)
            if (name.kind in BLOCK_PARTS or is_bias(name)) and share < most:
                worst, most = (name, j), share
            elif name.kind in ("wte", "wpe") and share < -tolerance([amount, 1.0]):
                embedded.append((share, name, j))
    unlike = _unlike_embedding(model, view, weights, reads, embedded, most) if embedded else None
    if unlike is not None:
        return unlike
    if worst is not None:
        name, j = worst
        direction = model.input(j, (view.block, "attn")).along(name, weights[j] * reads)
        return Read(name, j, direction, 1, ("value", view.block, view.head, j))
    if abs(amount) > tolerance([amount, *worth]):
        return None  # it carries something the right way, too little: the fault is in its own v and c_proj
    if np.abs(_block_written(model, view, p, weights)).max() > tolerance([amount, *worth]):
        return _cancelling(model, view, p, weights, reads)  # the blocks before wrote there: not what is missing
    best = int(np.argmax(weights))
    direction = model.input(best, (view.block, "attn")).back(weights[best] * reads)
    return written_by(model, Read(None, best, direction, 1, ("value", view.block, view.head, best)))


def _unlike_embedding(model, view, weights, reads, embedded, most):
    """The last step at an entry of wte or wpe unlike the embedding's other rows (``embeddings.embedding_step``) that
    wrote, at a key the query reads, what the value gives on against the reader (``embedded``: [(its share, the
    embedding, the key)]) as much as any head or MLP before (``most``) or more; else None."""
    for share, name, j in sorted(embedded, key=lambda found: found[0]):
        if share > most:
            return None
        direction = model.input(j, (view.block, "attn")).along(name, weights[j] * reads)
        step = embedding_step(model, Read(name, j, direction, 1, ("value", view.block, view.head, j)))
        if step is not None:
            return step
    return None


def _pieces(model, view, weights, reads):
    """{(writer, key): [n_embd], each direction of its write at that key, as the value gives it on to the reader}
    at the keys a query reads (``reads``: what a unit of each direction of the value's input gives the reader)."""
    return {
        (name, j): weights[j] * x * reads
        for j in attended(weights)
        for name, x in model.input(j, (view.block, "attn")).shares.items()
    }


def _cancelling(model, view, p, weights, reads):
    """The head or MLP before that wrote, at a key the query reads, what serves the reader and what works
    against it alike, so that its write cancels in the value: the next Read, where its part against the
    reader is largest; or None (what the blocks before wrote there, the head does not carry on: its v or c_proj.w)."""
    worst, most = None, -tolerance([*reads, 1.0])
    for (name, j), pieces in _pieces(model, view, weights, reads).items():
        if name.kind in BLOCK_PARTS and pieces.min() < most and pieces.max() > -most:
            worst, most = (name, j), float(pieces.min())
    if worst is None:
        return None
    name, j = worst
    direction = model.input(j, (view.block, "attn")).along(name, weights[j] * reads)
    return Read(name, j, direction, 1, ("value", view.block, view.head, j))


def _output(model, view, output):
    """A head's output in its named directions: its largest entries, ``Tb = 1``, or 0."""
    names = model.basis(model.structure.space("attention", view.block))[view.offset : view.offset + len(output)]
    order = [i for i in np.argsort(-np.abs(output), kind="stable") if abs(output[i]) > tolerance(output)][
        :SHOWN_DIRECTIONS
    ]
    return listed(f"{names[i]} = {fmt(output[i])}" for i in sorted(order)) or "0"


def _output_json(model, view, output):
    names = model.basis(model.structure.space("attention", view.block))[view.offset : view.offset + len(output)]
    return {names[i]: float(x) for i, x in enumerate(output)}
