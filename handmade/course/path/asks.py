"""What a head's query asks for, and what k makes of it: the step on a head's attention when the wanted key misses
the query's largest ask (``unanswered``, ``unmet``), when k makes nothing of a column the query asks for
(``empty_ask``), when no term of the scores tells the two keys apart (``nothing``), or when the keys differ in a
column the query asks nothing of (``unasked``). Each names the entries of q (and q.b) that ask, and of k that
make the column (or the column k leaves empty, ``k[·, Ta]``)."""

import numpy as np

from ...arguments import fmt
from ...i18n import _, listed, then
from ...model import Name
from ..explain import tolerance
from .embeddings import unlike_query
from .stream import SHOWN_DIRECTIONS, Read, embedding_writes, entries_said, layer_read, turned_said, written_by
from .values import best_entry


def _asked_column(asked, offered):
    """The column of the query to speak of: the one it asks for most where k reads anything; else the
    one it asks for most; else the one it avoids most."""
    small = tolerance([*asked, 1.0])
    for found in (asked * offered, asked, np.abs(asked)):
        if found.max() > small:
            return int(np.argmax(found))
    return 0


def nothing(model, read, view, pairs, rival, wanted):
    """(entries, sentence, next Read or PathStep or None) when no term tells the two keys apart or lifts either."""
    p, at = read.position, pairs.inputs
    asked = view.q[p]  # [d_head]: what the query asks for
    score = fmt(pairs.rival.sum())
    if np.abs(asked).max() <= tolerance([*asked, 1.0]):
        entries, sentence, _after = _silent(model, view, p, score, rival, wanted)
        return entries, sentence, unlike_query(model, view, pairs, p, rival, wanted)
    column = _asked_column(asked, np.abs(view.wk).sum(axis=0))
    named, said = _ask(model, view, p, column)
    if not said["directions"] and asked[column] > 0:  # asks for what k never makes: of what place, maybe
        empty = _empty_column(model, view, p, column, rival, wanted)
        if empty is not None:
            sentence = _(
                "Position {rival} scores as much as position {wanted}, {score}: the query {ask} (through {entries}), and k makes nothing of {column} from any direction, not even from what position {wanted} has more of: {k_entry}."
            ).format(rival=rival, wanted=wanted, score=score, k_entry=entries_said([empty]), **said)
            return [*named[:-1], empty], sentence, None
    apart = unasked(model, view, p, rival, wanted) if said["directions"] else None  # else: asks what k never makes
    if apart is not None:
        opening = _("Position {rival} scores as much as position {wanted}, {score}.").format(
            rival=rival, wanted=wanted, score=score
        )
        return apart[0], then(opening, apart[1]), None  # the query's missing ask: q's own entries
    sentence = (
        _(
            "Position {rival} scores as much as position {wanted}, {score}: the query {ask} (through {entries}), which k reads from {directions}, and neither key has more of it."
        )
        if said["directions"]
        else _(
            "Position {rival} scores as much as position {wanted}, {score}: the query {ask} (through {entries}), and k makes nothing of {column} from any direction ({empty} = 0)."
        )
    ).format(rival=rival, wanted=wanted, score=score, **said)
    if asked[column] <= 0 or not _upstream(model, view)[column]:  # an avoided column, or one an embedding writes
        return named, sentence, None
    direction = at[wanted].back(view.wk[:, column] * asked[column] * view.scale)
    return (
        named,
        sentence,
        written_by(model, Read(None, wanted, direction, 1, ("key", view.block, view.head, wanted, p))),
    )


def _silent(model, view, p, score, rival, wanted):
    """(entries, sentence, None) when the query is 0: the entry of k that would tell the wanted key from the
    rival (the wanted key's more of it), and the entries of q through which the query could ask for it."""
    layer_in = layer_read(model, view.block, "attn")
    apart = layer_in[wanted] - layer_in[rival]  # [n_embd]: what the wanted key's input has more of
    found = best_entry(model, "k", view, apart[:, None] * view.wk, 1)
    if not found:
        return [], _("The query there is 0, so every key scores the same, {score}.").format(score=score), None
    column = int(np.argmax(np.max(apart[:, None] * view.wk, axis=0)))
    asks = _ask_entries(model, view, p, column)
    sentence = _(
        "The query there is 0, so every key scores the same, {score}; {entry} would tell position {wanted} apart, for a query that asks for {column} ({asks})."
    ).format(
        score=score,
        entry=entries_said([found]),
        wanted=wanted,
        column=_column_name(model, view, column),
        asks=entries_said(asks),
    )
    return [*asks, found], sentence, None


def unasked(model, view, p, rival, wanted, avoid=True):
    """(entries, sentence) when the two keys differ in a column the query asks nothing of (the wanted key has
    more of it, or, with ``avoid``, less): the entry of k that makes the difference, and the entries of q
    through which the query could ask for it (or avoid it); else None."""
    asked, diff = view.q[p], view.k[wanted] - view.k[rival]  # [d_head] each
    free = np.abs(asked) <= tolerance([*asked, 1.0])  # the columns the query asks nothing of
    gaps = np.abs(diff) * free * view.scale
    asking, avoiding = gaps * (diff > 0), gaps * (diff < 0) * avoid
    if max(asking.max(), avoiding.max()) <= tolerance([*gaps, *view.k[wanted], 1.0]):
        return None
    sign = 1 if asking.max() >= avoiding.max() - tolerance(gaps) else -1  # of equal gaps, one to ask for
    column = int(np.argmax(asking if sign > 0 else avoiding))
    layer_in = layer_read(model, view.block, "attn")
    only = np.arange(len(asked)) == column
    k_entry = best_entry(model, "k", view, (layer_in[wanted] - layer_in[rival])[:, None] * view.wk * only, sign)
    asks = _ask_entries(model, view, p, column)
    said = {
        "column": _column_name(model, view, column),
        "key": wanted if sign > 0 else rival,
        "other": rival if sign > 0 else wanted,
        "gap": fmt(abs(diff[column])),
        "entries": entries_said([k_entry] if k_entry else []),
        "asks": entries_said(asks),
    }
    sentence = (
        _(
            "The key of position {key} has {gap} more of {column} than position {other}'s (through {entries}), and the query asks nothing of {column}: {asks}."
        )
        if sign > 0
        else _(
            "The key of position {key} has {gap} more of {column} than position {other}'s (through {entries}), and the query does not avoid {column}: {asks}."
        )
    ).format(**said)
    return [*asks, *([k_entry] if k_entry else [])], sentence


def _ask_entries(model, view, p, column):
    """The entries of q (and q.b) through which the query at ``p`` could ask for ``column``: the rows of the
    directions its input has most of, then the bias; as they are (0, or nearly)."""
    x_p = layer_read(model, view.block, "attn")[p]  # [n_embd]: the query's input
    rows = [int(r) for r in np.argsort(-np.abs(x_p), kind="stable")[:SHOWN_DIRECTIONS] if abs(x_p[r]) > tolerance(x_p)]
    found = [model.entry("q", view.block, (r, view.offset + column), view.wq[r, column]) for r in rows]
    return [*found, model.entry("q.b", view.block, view.offset + column, view.bq[column])]


def _column_name(model, view, column):
    return model.basis(model.structure.space("attention", view.block))[view.offset + column]


def _upstream(model, view):
    """[d_head] booleans: the columns of k that only blocks can feed (no embedding writes a direction k
    reads them from)."""
    return ~embedding_writes(model, view.wk)


def _ask(model, view, p, column):
    """(the entries of q and k that make and read the query's ``column``, the words to say it with)."""
    asked = view.q[p]
    x_p = layer_read(model, view.block, "attn")[p]  # [n_embd]: the query's input
    only = np.arange(len(asked)) == column
    q_entry = best_entry(model, "q", view, np.sign(asked[column]) * x_p[:, None] * view.wq * only, 1) or best_entry(
        model, "q", view, np.sign(asked[column]) * view.bq * only, 1
    )
    k_entry = best_entry(model, "k", view, np.abs(view.wk) * only, 1)
    name = _column_name(model, view, column)
    empty = f"{model.short[Name('k', view.block)]}[·, {name}]"  # the column k leaves empty
    ask = _("asks most for {column}") if asked[column] > 0 else _("asks for no column, and avoids {column} most")
    said = {
        "ask": ask.format(column=name),
        "column": name,
        "entries": entries_said([q_entry] if q_entry else []),
        "directions": listed(model.direction_names(view.wk[:, column])) if k_entry else "",
        "empty": empty,
    }
    return [e for e in (q_entry, k_entry or (empty, 0.0)) if e], said


def unanswered(model, view, pairs, term, p, wanted):
    """The column of the query that a key offering it would score most for (its largest ask, among the
    columns k reads from directions no embedding writes: a token's or a position's own directions are
    missing from every other key by design), when the wanted key falls short of that: it gets less than
    half of it and no one term of the rival's lead comes near, or what it lacks of it is more than the
    rival's lead. The key misses what the query asks for, and what should have written it is upstream.
    Else None."""
    asked = view.q[p]
    potential = asked * np.abs(view.wk).max(axis=0) * view.scale * _upstream(model, view)
    column = int(np.argmax(potential))
    most = potential[column]
    got = asked[column] * view.k[wanted][column] * view.scale
    lead = 0.0 if term is None else abs(pairs.rival[term] - pairs.wanted[term])
    gap = float(pairs.rival.sum() - pairs.wanted.sum())
    small = tolerance([*potential, 1.0])
    if most <= small:
        return None
    if (got < most / 2 and lead < most / 2) or (small < gap < most - got):
        return column
    return None


def empty_ask(model, view, pairs, p, rival, wanted):
    """(entries, sentence) when the rival outscores the wanted key and the query asks for a column, as much as for
    the one that gives the rival its lead, of which k makes nothing from any direction, in a k that makes each
    column it makes from one direction of the stream, in order (a diagonal: ``_empty_column``), when the wanted
    key has more of that direction than the rival: the entry of q that asks, and the entry of k (0) on the
    diagonal. Else None."""
    asked, gap = view.q[p], float(pairs.rival.sum() - pairs.wanted.sum())
    lead = asked * (view.k[rival] - view.k[wanted])  # [d_head]: each column's part of the rival's lead
    small = tolerance([*asked, *view.wk.ravel(), 1.0])
    if gap <= tolerance([gap, *pairs.rival.ravel()]) or lead.max() <= small:
        return None
    unmade = np.abs(view.wk).max(axis=0) <= small  # [d_head]: the columns k makes nothing of
    candidates = unmade & (asked > small) & (asked >= asked[int(np.argmax(lead))] * (1 - 1e-9))
    column = int(np.argmax(np.where(candidates, asked, -np.inf)))
    k_entry = _empty_column(model, view, p, column, rival, wanted) if candidates.any() else None
    if k_entry is None:
        return None
    named, said = _ask(model, view, p, column)
    sentence = _(
        "Position {rival} outscores position {wanted} by {gap}: the query asks for {column} as much as for what gives position {rival} its lead (through {entries}), and k makes nothing of {column} from any direction, not even from what position {wanted} has more of: {k_entry}."
    ).format(rival=rival, wanted=wanted, gap=fmt(gap), k_entry=entries_said([k_entry]), **said)
    return [*named[:1], k_entry], sentence


def _empty_column(model, view, p, column, rival, wanted):
    """The entry of k (0) from which it would make ``column``, a column it makes nothing of, as it makes the
    others, when the key of position ``wanted`` has more of that direction than ``rival``'s; else None. k makes
    each column it makes from one direction of the stream, in the order of the head's columns: a diagonal,
    the same place (``k[Ta, Ta]``), or one shifted alike for them all (a second head's columns made from the
    stream's first directions, ``k[Ta, h1·a]``); the same place when it makes no column."""
    small = tolerance([*view.q[p], *view.wk.ravel(), 1.0])
    made = np.flatnonzero(np.abs(view.wk).max(axis=0) > small)  # [the columns k makes]
    shifts = np.argmax(np.abs(view.wk[:, made]), axis=0) - made  # [made]: how far from each its direction is
    row = column + (int(shifts[0]) if len(made) else view.offset)  # the direction k would make ``column`` from
    layer_in = layer_read(model, view.block, "attn")
    apart = layer_in[wanted] - layer_in[rival]  # [n_embd]: what the wanted key's input has more of
    if column in made or (shifts != row - column).any() or not 0 <= row < len(apart):
        return None
    if apart[row] <= tolerance(apart):
        return None
    return model.entry("k", view.block, (row, view.offset + column), view.wk[row, column])


def unmet(model, read, view, pairs, column, rival, wanted):
    """(entries, sentence, next Read or PathStep) when the wanted key misses the query's largest ask."""
    p, asked = read.position, view.q[read.position]
    named, said = _ask(model, view, p, column)
    gap = float(pairs.rival.sum() - pairs.wanted.sum())
    sentence = (
        _(
            "Position {rival} outscores position {wanted} by {gap}: the query {ask} (through {entries}), which k reads from {directions}, and the key of position {wanted} scores only {got} from it, of the {most} it could."
        )
        if gap > tolerance([gap, *pairs.rival.ravel()])
        else _(
            "Position {wanted} leads position {rival} by only {gap}: the query {ask} (through {entries}), which k reads from {directions}, and the key of position {wanted} scores only {got} from it, of the {most} it could."
        )
        if gap < -tolerance([gap, *pairs.rival.ravel()])
        else _(
            "Position {rival} scores as much as position {wanted}: the query {ask} (through {entries}), which k reads from {directions}, and the key of position {wanted} scores only {got} from it, of the {most} it could."
        )
    )
    got = asked[column] * view.k[wanted][column] * view.scale
    most = asked[column] * np.abs(view.wk[:, column]).max() * view.scale
    text = sentence.format(rival=rival, gap=fmt(abs(gap)), wanted=wanted, got=fmt(got), most=fmt(most), **said)
    direction = pairs.inputs[wanted].back(view.wk[:, column] * asked[column] * view.scale)
    after = written_by(model, Read(None, wanted, direction, 1, ("key", view.block, view.head, wanted, p)))
    turned = turned_said(model, pairs.inputs[wanted], after, view.wk @ view.q[p] * view.scale, named)
    return (named, then(text, turned), None) if turned else (named, text, after)
