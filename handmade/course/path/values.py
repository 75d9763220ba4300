"""A head's value: where it read, what it carried from there, and the entries of v and c_proj.w that
made what the reader got."""

import numpy as np

from ...arguments import fmt
from ...i18n import _, listed, ngettext, then
from ..explain import tolerance
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


def best_entry(model, kind, view, contributions, sign):
    """The entry of q or k (or their biases) whose contribution pushes most the way of ``sign``, named, or None."""
    oriented = sign * contributions
    if oriented.size == 0 or oriented.max() <= tolerance(contributions.ravel()):
        return None
    index = np.unravel_index(np.argmax(oriented), oriented.shape)
    weights = getattr(view, f"w{kind}") if contributions.ndim == 2 else getattr(view, f"b{kind}")
    if contributions.ndim == 2:
        return model.entry(kind, view.block, (index[0], view.offset + index[1]), weights[index])
    return model.entry(f"{kind}.b", view.block, view.offset + index[0], weights[index])


def value_step(model, read, view, gains, amount):
    p = read.position
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    named, text = carried_said(model, read, view, gains, amount)
    small = tolerance(gains)
    if gains.max() - amount > small and gains.max() <= small:  # reading elsewhere would only do no harm
        sentence = _("No position would serve {reader}: reading another would at most do nothing for it.")
        text = then(text, sentence.format(reader=reader_said(read.reader)))
    elif p > 0 and np.ptp(gains) > small:
        text = then(text, _("No other position would serve {reader} better.").format(reader=reader_said(read.reader)))
    output = view.weights[p, : p + 1] @ view.v[: p + 1]
    facts = {"reads": looked(model, view, p, gains), "output": _output_json(model, view, output)}
    text += norm_note(model.input(p, (view.block, "attn")), p)
    return PathStep("value", read.part, p, amount, facts, tuple(named), text), _next_of_value(
        model, read, view, worth, amount
    )


def carried_said(model, read, view, gains, amount):
    """(the entries of v and c_proj.w named, the sentence): where the head reads, its output there, what
    that does to the reader, and the entries that did most of it (the wrong way, or the right way too little)."""
    p = read.position
    weights = view.weights[p, : p + 1]
    worth = view.c_proj @ read.direction  # [d_head]: what one unit of each output column gives the reader
    output = weights @ view.v[: p + 1]  # [d_head]: the head's output there, before c_proj
    read_in = weights @ layer_read(model, view.block, "attn")[: p + 1]  # [n_embd]: the input, as the weights mix it
    v_entries = read_in[:, None] * view.wv * worth  # [n_embd, d_head]: each entry of v's part of the amount
    c_entries = output[:, None] * view.c_proj * read.direction  # [d_head, n_embd]: each entry of c_proj.w's
    sign = -1 if amount < 0 else 1
    found = (
        best_entry(model, "v", view, v_entries, sign) or best_entry(model, "v", view, view.bv * worth, sign),
        _best_c_proj(model, view, c_entries, sign),
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
    if named and abs(amount) > tolerance([amount, *gains]):
        text = _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}, through {entries}."
        )
    elif np.abs(output * worth).max() > tolerance([*(output * worth), amount]):
        text = _(
            "At position {position}, {head} reads {places}; its output there, {output}, {effect}: what it reads cancels out."
        )
    else:
        cancelling, text = _not_carried(model, view, worth, c_entries, [amount, *gains], said)
        named = cancelling or named
    return named, text.format(**said)


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
            if (name.kind in BLOCK_PARTS or is_bias(name)) and share < most:
                worst, most = (name, j), share
    if worst is not None:
        name, j = worst
        direction = model.input(j, (view.block, "attn")).along(name, weights[j] * reads)
        return Read(name, j, direction, 1, ("value", view.block, view.head, j))
    if abs(amount) > tolerance([amount, *worth]):
        return None  # it carries something the right way, too little: the fault is in its own v and c_proj
    best = int(np.argmax(weights))
    direction = model.input(best, (view.block, "attn")).back(weights[best] * reads)
    return written_by(model, Read(None, best, direction, 1, ("value", view.block, view.head, best)))


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
