"""An entry of wte or wpe at fault: where an embedding's rows are alike (each writes one value into a direction of its
own and nothing else, as a design's one-hot rows do) and the row a head read is not, the entry that, made as theirs
are, would serve the reader is the last step of the path (``embedding_step``); a head's value, its score's key
or its query (``key_read``, ``query_read``, ``unlike_query``) may lead there."""

import numpy as np

from ...arguments import fmt
from ...i18n import _
from ...model import Name
from ..explain import tolerance
from .stream import PathStep, Read, effect_said, entries_said, reader_said, writer_said


def embedding_step(model, read):
    """The last step, at the entry of wte or wpe (``read.part``) that wrote what the reader read the wrong way,
    when the embedding's other rows are alike (each writes one value into a direction of its own and nothing else)
    and the row at ``read.position`` is not: the entry that, made as they are, would serve the reader most. None
    when the row is like the others, or they are not alike, or no such entry serves the reader."""
    kind = read.part.kind
    table = model.params[kind]  # [n_rows, n_embd]
    row = model.reading.tokens[read.position] if kind == "wte" else read.position
    found = _unlike_entry(table, row, read.direction)
    if found is None:
        return None
    col, made, value = found
    named = (model.entry(kind, None, (row, col), table[row, col]),)
    amount = float(table[row] @ read.direction)
    text = _(
        "At position {position}, {writer} {effect}, through {entries}. Each of its other rows writes {value} into a direction of its own and nothing else, and this row does not: were that entry {made}, the row would be like them, and better for {reader}."
    ).format(
        position=read.position,
        writer=writer_said(read.part),
        effect=effect_said(read, amount),
        entries=entries_said(named),
        value=fmt(value),
        made=fmt(made),
        reader=reader_said(read.reader),
    )
    return PathStep("embedding", read.part, read.position, amount, {"made": made}, named, text)


def _unlike_entry(table, row, direction):
    """(the column, the value it would take, the others' value) of the one entry of ``table``'s ``row`` that, changed,
    makes the row like the others (each has one entry, the same value, in a column of its own: in order, when theirs
    are in the order of their rows) and serves ``direction`` most; None when the other rows are not alike so, or the
    row is like them, or no change serves ``direction``. With one other row, two such rows may each be the odd one:
    only a row that writes against a positive value is taken."""
    others = np.delete(table, row, axis=0)  # [n_rows - 1, n_embd]
    small = tolerance(table.ravel())
    used = np.abs(others) > small
    if not len(others) or (used.sum(axis=1) != 1).any() or used.sum(axis=0).max() > 1:
        return None
    value, free = others[used][0], _free_columns(used, row)
    if np.abs(others[used] - value).max() > small or _alike(table[row], value, free, small):
        return None
    mine = np.abs(table[row]) > small
    if len(others) == 1 and mine.sum() == 1 and not value > 0 > table[row][mine][0]:
        return None  # two rows, each one entry: either may be the odd one, unless one writes against a positive value
    best, gain = None, tolerance([*direction, 1.0])
    for col in range(table.shape[1]):
        for made in (0.0, float(value)):
            changed = table[row].copy()
            changed[col] = made
            served = float(direction[col] * (made - table[row, col]))
            if served > gain and _alike(changed, value, free, small):
                best, gain = (col, made, float(value)), served
    return best


def _free_columns(used, row):
    """[n_embd] booleans: the columns the embedding's ``row`` may write in, when the other rows (``used``: [n_rows - 1,
    n_embd], the entry each writes) write one each: one no other row writes, and, when their columns are in the
    order of their rows, one between those of the rows before and after it (side by side, the one in its place)."""
    columns = np.argmax(used, axis=1)  # [n_rows - 1]: each other row's column, in the order of the rows
    free = ~used.any(axis=0)
    place = np.arange(used.shape[1])
    if len(columns) > 1 and (np.diff(columns) == 1).all():  # side by side: its own is the one in its place
        return free & (place == columns[0] + row - (row == 0))
    if (np.diff(columns) > 0).all():
        low, high = columns[:row][-1:], columns[row:][:1]  # the columns of the rows just before and after it
        free &= (place > low.max(initial=-1)) & (place < high.min(initial=used.shape[1]))
    return free


def _alike(vector, value, free, small):
    """Whether ``vector`` (a row of an embedding) has one entry, ``value``, in a ``free`` column, and no other."""
    nonzero = np.abs(vector) > small
    return nonzero.sum() == 1 and free[nonzero][0] and abs(vector[nonzero][0] - value) <= small


def key_read(view, pairs, writer, at, p, sign):
    """What the score of key ``at`` for query ``p`` reads of ``writer``'s write there (``sign`` -1: less serves)."""
    direction = pairs.inputs[at].along(writer, view.wk @ view.q[p] * view.scale)
    return Read(writer, at, sign * direction, sign, ("key", view.block, view.head, at, p))


def query_read(view, pairs, writer, p, rival, wanted):
    """What the lead of key ``rival`` over key ``wanted`` for query ``p`` reads of ``writer``'s write at ``p``."""
    direction = pairs.inputs[p].along(writer, view.wq @ (view.k[rival] - view.k[wanted]) * view.scale)
    return Read(writer, p, -direction, -1, ("query", view.block, view.head, p, rival, wanted))


def unlike_query(model, view, pairs, p, rival, wanted):
    """The last step at an entry of wte or wpe, unlike the embedding's other rows, that wrote the input of a query
    that asks nothing (``embeddings.embedding_step``), the one that would let the wanted key lead; else None."""
    for kind in ("wte", "wpe"):
        step = embedding_step(model, query_read(view, pairs, Name(kind), p, rival, wanted))
        if step is not None:
            return step
    return None
