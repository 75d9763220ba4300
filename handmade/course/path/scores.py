"""A head's attention: which key would have served the reader best, and why the key that took the
weight (the rival) outscores it. The scaled score of the query on a key is a double sum over what wrote
the query's input and what wrote the key's (token, position, earlier heads and MLPs, biases; q.b and k.b
too); the term named is the largest that made the rival win, or the wanted key lose, with the entries of
q and k that carry it (``q[P1, P1]``): of entries tied for the most, one through which the wanted key loses."""

from dataclasses import dataclass

import numpy as np

from ...arguments import fmt
from ...i18n import N_, _, listed, then
from ...model import Name
from ..explain import tolerance
from .asks import empty_ask, nothing, unanswered, unasked, unmet
from .embeddings import embedding_step, key_read, query_read
from .stream import (
    BLOCK_PARTS,
    PathStep,
    Read,
    entries_said,
    head_view,
    is_bias,
    norm_note,
    reader_said,
    turned_said,
    writer_said,
)
from .values import best_entry, carried_said, looked, unsent_alone, value_step

FAULT_SHARE = 0.1  # a head's attention is at fault when looking elsewhere gains this share of what its keys span
ALIKE = 0.9  # another key that gains this share of the best one's gain serves nearly as well: named beside it
MAX_WRITERS = 48  # writers of a score kept apart in its terms; more are summed as one, OTHERS
OTHERS = Name("others")  # the writers a score's terms do not keep apart, summed


def head_step(model, read):
    """The step on a head: its attention when looking elsewhere would serve the reader much better, else
    what it carried (``values``); and the next Read, or a last PathStep, or None."""
    view = head_view(model, read.part.block, read.part.head)
    p = read.position
    gains = view.v[: p + 1] @ (view.c_proj @ read.direction)  # [p+1]: what reading key j alone would give
    weights = view.weights[p, : p + 1]
    amount = float(weights @ gains)
    products = np.abs(view.q[p] * view.k[: p + 1]).sum(axis=1)  # [p+1]: the size of what makes each key's score
    size = max(1.0, float(products.max(initial=0)))  # compared to 9 digits: a last bit is no lead
    scores, spread = (np.round(x / size, 9) for x in (view.scores[p, : p + 1], products))  # [p+1] each
    # the key that serves the reader best; of equals, the most read, then the nearest to being read, then the one
    # whose score is made of the smallest products (not one a large product keeps out, as q.b[P0] may), then the first
    wanted = int(np.lexsort((spread, -scores, -weights, -gains))[0])
    lost = float(gains[wanted] - amount)
    both_ways = _sent_both_ways(view, read, gains, wanted)
    if lost > max(tolerance(gains), FAULT_SHARE * float(np.ptp(gains))) and not both_ways:
        return _attention(model, read, view, gains, wanted, amount)
    return value_step(model, read, view, gains, amount, both_ways)


def _sent_both_ways(view, read, gains, wanted):
    """Whether the head's output where it reads works against the reader though c_proj.w sends some of it the
    reader's way, and no key would serve the reader: reading elsewhere would only do no harm, and what is at
    fault is what it carries, or how c_proj.w sends it, not where it looks (which entries of c_proj.w, if any, the
    value step says: ``values._not_carried``)."""
    p = read.position
    output = view.weights[p, : p + 1] @ view.v[: p + 1]  # [d_head]
    sent = output[:, None] * view.c_proj * read.direction  # [d_head, n_embd]: each entry of c_proj.w's part
    small = tolerance([*sent.ravel(), *gains])
    return gains[wanted] <= small and sent.sum() < -small and sent.max() > small


@dataclass(frozen=True)
class _Pairs:
    """The scaled scores of one query on two keys, each a sum over (query writer, key writer)."""

    query: list  # the query's writers (q.b last)
    key: list  # the keys' writers (k.b last)
    rival: np.ndarray  # [len(query), len(key)]: the terms of the rival key's score
    wanted: np.ndarray  # the same for the wanted key
    inputs: dict  # {position: _Input} at the query and the two keys
    vectors: dict  # {position: {writer: [n_embd]}}: what each writer (or OTHERS) gave the layer there


def _pairs(model, view, p, rival, wanted):
    at = {j: model.input(j, (view.block, "attn")) for j in (p, rival, wanted)}
    kept = _kept(at, view, p, rival, wanted)
    vectors = {j: _merged(at[j].shares, kept) for j in (p, rival, wanted)}  # {position: {writer: [n_embd]}}
    query = {**{a: x @ view.wq for a, x in vectors[p].items()}, Name("q.b", view.block): view.bq}  # [d_head] each

    def keys(j):
        return np.array([x @ view.wk for x in vectors[j].values()] + [view.bk])  # [n_writers, d_head]

    rows = np.array(list(query.values()))
    key_names = [*vectors[p], Name("k.b", view.block)]
    scores = [rows @ keys(j).T * view.scale for j in (rival, wanted)]  # [n_query_writers, n_key_writers] each
    return _Pairs(list(query), key_names, scores[0], scores[1], at, vectors)


def _kept(at, view, p, rival, wanted):
    """The writers a score's terms keep apart: all of them, or the MAX_WRITERS - 1 that move the query and
    the two keys most (the same at the three positions), the rest to be summed as one."""
    names = list(at[p].shares)
    if len(names) <= MAX_WRITERS:
        return names

    def moves(name):
        return float(
            np.abs(at[p].shares[name] @ view.wq).max()
            + max(np.abs(at[j].shares[name] @ view.wk).max() for j in (rival, wanted))
        )

    top = set(sorted(names, key=moves, reverse=True)[: MAX_WRITERS - 1])
    return [name for name in names if name in top]


def _merged(shares, kept):
    """``shares`` with the writers not ``kept`` summed into one, OTHERS."""
    if len(kept) == len(shares):
        return shares
    found = {name: shares[name] for name in kept}
    found[OTHERS] = sum(vector for name, vector in shares.items() if name not in found)
    return found


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
        "reads": looked(model, view, p, gains),
        "wanted": wanted,
        "rival": rival,
        "key_scores": {"rival": float(pairs.rival.sum()), "wanted": float(pairs.wanted.sum())},
        "terms": _terms(pairs),
    }
    missed = unanswered(model, view, pairs, term, p, wanted)  # the column of the query's largest ask, or None
    empty = empty_ask(model, view, pairs, p, rival, wanted) if missed is None else None
    if missed is not None:
        entries, why, after = unmet(model, read, view, pairs, missed, rival, wanted)
    elif empty is not None:  # the wanted key misses an ask as large as the rival's, which k makes of nothing
        (entries, why), after = empty, None
    elif term is None:
        entries, why, after = nothing(model, read, view, pairs, rival, wanted)
    else:
        entries, why, after = _term(model, read, view, pairs, term, side, case, rival, wanted)
    named, text = carried_said(model, read, view, gains, amount)
    said = {
        "wanted": wanted,
        "token": model.tokens[model.reading.tokens[wanted]],
        "reader": reader_said(read.reader),
        "gain": fmt(gains[wanted] - amount),
    }
    better = _("Reading position {wanted} ({token}) instead would serve {reader} better, by {gain}.").format(**said)
    alike = _alike_said(model, gains, wanted, amount)
    text = then(then(text, better), alike) if alike else then(text, better)
    blocked, useless = unsent_alone(model, read, view, wanted) if gains[wanted] <= tolerance(gains) else ([], "")
    text = then(then(text, useless) if useless else text, why) + norm_note(pairs.inputs[p], p)
    facts["gap"] = gap
    return PathStep("attention", read.part, p, amount, facts, tuple(entries + named + blocked), text), after


def _alike_said(model, gains, wanted, amount, limit=3):
    """A sentence naming the other keys that would serve the reader nearly as well as ``wanted`` (ALIKE of its
    gain, or more), the best first: which of them a design means, the steps after speak of ``wanted`` alone; else ""."""
    best = gains[wanted] - amount
    alike = [int(j) for j in np.argsort(-gains, kind="stable") if j != wanted and gains[j] - amount >= ALIKE * best]
    if not alike:
        return ""
    each = _("position {key} ({token}) by {gain}")
    keys = [each.format(key=j, token=model.tokens[model.reading.tokens[j]], gain=fmt(gains[j] - amount)) for j in alike]
    sentence = _("So would reading {keys}; what follows speaks of position {wanted}.")
    return sentence.format(keys=listed(keys[:limit]), wanted=wanted)


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
        "Position {rival} outscores position {wanted} by {gap}; the term most in its favour, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
    ("outscores", 0): N_(
        "Position {rival} scores as much as position {wanted}; the term most in its favour, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
    ("same", 0): N_(
        "Position {rival} scores as much as position {wanted}, {score}; the largest term of that score, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
    ("leads", -1): N_(
        "Position {wanted} leads position {rival} by only {gap}; the term most in its favour, {term}, is {query} at the query times {key} at the key, through {entries}."
    ),
}


def _term(model, read, view, pairs, term, side, case, rival, wanted):
    """(the entries named, the sentence, the next Read or None) for the term (i, j) of ``pairs``."""
    i, j = term
    a, b, p = pairs.query[i], pairs.key[j], read.position
    sign = -1 if case == "leads" else 1  # the entries named push the way the term does
    q_entries, k_entries, q_losing, k_losing = _sides(model, view, pairs, a, b, case, p, rival, wanted)
    found = (
        best_entry(model, "q", view, q_entries, sign, q_losing),
        best_entry(model, "k", view, k_entries, sign, k_losing),
    )
    named = [e for e in found if e]
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
        query=writer_said(a),
        key=writer_said(b),
        entries=entries_said(named),
    )
    upstream = a.kind in BLOCK_PARTS or b.kind in BLOCK_PARTS  # the term is what an earlier block wrote
    apart = unasked(model, view, p, rival, wanted, avoid=upstream)
    if apart is not None:  # what would tell the keys apart, that the query leaves alone
        named, sentence = named + apart[0], then(sentence, apart[1])
    after = _next_of_term(model, view, pairs, a, b, side, case, p, rival, wanted)
    at_wanted_key = isinstance(after, Read) and after.position == wanted and after.reader[0] == "key"
    turned = turned_said(model, pairs.inputs[wanted], after, view.wk @ view.q[p] * view.scale, named)
    if at_wanted_key and turned:  # the wanted key's writer wrote its flag as one: the path ends at this head
        return named, then(sentence, turned), None
    return named, sentence, after


def _sides(model, view, pairs, a, b, case, p, rival, wanted):
    """(each side's contributions to the term, by entry; and, where the rival outscores, those through which the wanted
    key loses: for q, the columns it has more of than the rival; for k, the rows of its own input)."""
    at = pairs.vectors
    x_a = at[p].get(a)
    q_row = view.bq if x_a is None else x_a @ view.wq  # [d_head]
    if b.kind == "k.b":
        x_b, k_row = None, view.bk if case == "same" else np.zeros_like(view.bk)
    else:
        x_b = at[rival][b] - (0 if case == "same" else at[wanted][b])  # [n_embd]
        k_row = x_b @ view.wk
    q_side = view.bq * k_row * view.scale if x_a is None else x_a[:, None] * view.wq * k_row * view.scale
    k_side = view.bk * q_row * view.scale if x_b is None else x_b[:, None] * view.wk * q_row * view.scale
    outscores = case == "outscores"
    q_losing = (k_row < -tolerance(k_row)) & outscores  # [d_head]
    k_losing = None if x_b is None else (x_b < -tolerance(x_b))[:, None] & outscores  # [n_embd, 1]
    return q_side, k_side, q_losing, k_losing


def _next_of_term(model, view, pairs, a, b, side, case, p, rival, wanted):
    """What follows the term back: the Read into the key's writer at the key the term is about, else into the
    query's writer, when either is a head or an MLP (or a bias); or the last step at an entry of wte or wpe, unlike
    the embedding's other rows, that wrote one side (``embeddings.embedding_step``); else None (the fault is in q or k)."""
    keys = (rival, wanted) if side == "rival" else (wanted, rival)  # an embedding's row at the other key too
    reads = [(b, key_read(view, pairs, b, at, p, 1 if at == wanted else -1), at == keys[0]) for at in keys]
    if case != "same":
        reads.append((a, query_read(view, pairs, a, p, rival, wanted), True))
    for writer, read, followed in reads:  # a head, an MLP or a bias is followed where the term is about it
        if (writer.kind in BLOCK_PARTS or is_bias(writer)) and followed:
            return read
        step = embedding_step(model, read) if writer.kind in ("wte", "wpe") else None
        if step is not None:
            return step
    return None
