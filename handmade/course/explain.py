"""Why a model says what it says after one context: its margin, shared out among its parts.

The logits are the residual stream read through the unembedding, ``x @ wte.T``, and the stream is
a sum: the token's embedding, the position's, and what every block adds to it (each attention
head through its rows of c_proj, c_proj's bias, each MLP). So the margin, the right token's logit
minus the best wrong one's, is a sum too: each part's vector times ``wte[right] - wte[wrong]``.
Without a final layer norm the shares add up to the margin exactly. With ``ln_f`` the stream is
centred, divided by its spread and scaled by ``ln_f.g`` before the unembedding; each part's share is
then its centred vector, divided by the whole stream's spread, times ``ln_f.g``, and ``ln_f.b``
has a share of its own: they still add up to the margin exactly (the spread is the stream's, shared
by all). Layer norms inside the blocks change what a head or an MLP computes, not this sum.

``shares`` computes them from one recorded pass (``read_window``); ``explain`` turns them into a sentence about the
learner's own model: the part that pushed the wrong way, or the one that did not push enough, and,
for a head, where it looked.
"""

import functools
from dataclasses import dataclass

import numpy as np

from ..arguments import fmt
from ..i18n import N_, _
from ..model import Name, recording
from ..names import T
from ..structure import LAYER_NORM_EPS
from ..weights import forward

ATTENDED = 0.05  # a key whose attention weight is above this is read by the query
SMALL = 1e-9  # a share below this (in size) is no push at all


@dataclass(frozen=True)
class Reading:
    """What one pass over a window did, kept for explaining the predictions after its prefixes."""

    tokens: tuple  # the window's token ids
    tapped: dict  # every array the pass tapped, by its full name


def read_window(tokens, params):
    """Run ``tokens`` through the model (checked weights), keeping every tapped array."""
    tapped = {}
    with recording(tapped.__setitem__):
        forward(list(tokens), params)
    return Reading(tuple(tokens), tapped)


def part_vectors(reading, position, params):
    """{part: the vector it adds to the stream at ``position``}, in the order of the pass; with
    ``ln_f`` each is taken through it (centred, over the stream's spread, times g) and ``ln_f.b`` joins."""
    structure, seen = params.structure, reading.tapped
    vectors = {Name("wte"): seen[T.token_embedding][position], Name("wpe"): seen[T.position_embedding][position]}
    for b, (shape, block) in enumerate(zip(structure.blocks, params["blocks"])):
        c_proj = block["attn"]["c_proj"]
        for h in range(shape.n_head):
            out = seen[Name(T.attention_output, b, h if shape.n_head > 1 else None)]
            rows = slice(h * shape.d_head, (h + 1) * shape.d_head)  # the head's rows of c_proj.w
            vectors[Name(None, b, h)] = out[position] @ c_proj["w"][rows]  # blocks[b].head{h}
        vectors[Name("c_proj.b", b)] = c_proj["b"]
        if shape.mlp:
            vectors[Name("mlp", b)] = seen[Name(T.mlp_output, b)][position]
    if structure.ln_f:
        stream = sum(vectors.values())
        spread = np.sqrt(np.var(stream) + LAYER_NORM_EPS)
        g, b = params["ln_f"]["g"], params["ln_f"]["b"]
        vectors = {name: g * (v - v.mean()) / spread for name, v in vectors.items()}
        vectors[Name("ln_f.b")] = b
    return vectors


def shares(reading, position, params, right, wrong):
    """{part: its share of logit[right] - logit[wrong] after ``position``}: they sum to that margin."""
    direction = params["wte"][right] - params["wte"][wrong]  # [n_embd]
    return {name: float(v @ direction) for name, v in part_vectors(reading, position, params).items()}


def where_it_looked(reading, position, params, block, head):
    """The positions (with tokens) a head's query at ``position`` reads, with their weights."""
    one = params.structure.blocks[block].n_head == 1
    weights = reading.tapped[Name(T.attention_weights, block, None if one else head)][position]
    tokens = params.labels.token_names(params.structure.n_vocab)
    return [(k, tokens[reading.tokens[k]], float(w)) for k, w in enumerate(weights) if w > ATTENDED]


# ---- saying it --------------------------------------------------------------------------------------

PHRASES = {
    "wte": N_("the token embedding (wte)"),
    "wpe": N_("the position embedding (wpe)"),
    "head": N_("head {head} of block {block} (through c_proj)"),
    "c_proj.b": N_("c_proj's bias in block {block}"),
    "mlp": N_("the MLP of block {block}"),
    "ln_f.b": N_("ln_f's shift (ln_f.b)"),
}
SHOWN_DIRECTIONS = 3  # directions of a head's output named in one sentence


def phrase(name):
    """A part of the margin (a Name), as the learner reads it: ``blocks[0].head1`` is "head 1 of block 0
    (through c_proj)"."""
    kind = "head" if name.kind is None else name.kind  # a head's Name has no kind: it is the head itself
    return _(PHRASES[kind]).format(block=name.block, head=name.head)


@dataclass(frozen=True)
class Explanation:
    """Why the model's margin after one context is what it is, from its own numbers."""

    context: str
    expected: str  # the token that should come next
    wrong: str  # the best wrong token: what the model predicts when it is wrong
    margin: float  # logit(expected) - logit(wrong)
    shares: dict  # {part: its share of the margin}, in the order of the pass; they sum to the margin
    sentence: str


def explain(reading, position, params, example, right, threshold, prefer=None):
    """The Explanation of the margin after ``reading.tokens[:position + 1]`` (the context of
    ``example``, whose right token is id ``right``). ``prefer``: the part to speak of when no part
    pushes the wrong way (the one a reference solution relies on, if this model has it)."""
    logits = reading.tapped[T.logits][position]
    wrong = int(np.argmax(np.where(np.arange(len(logits)) == right, -np.inf, logits)))
    found = shares(reading, position, params, right, wrong)
    tokens = params.labels.token_names(params.structure.n_vocab)
    words = {"expected": tokens[right], "wrong": tokens[wrong], "threshold": fmt(threshold)}
    margin = float(logits[right] - logits[wrong])
    sentence, part = _reason(found, margin, words, prefer)
    if part in ("wte", "wpe"):  # a token's or position's fixed push: say what the blocks do about it
        sentence, part = sentence + _what_the_blocks_add(found, words), _strongest_block_part(found) or part
    looked = _looked(reading, position, params, part) if part else ""
    return Explanation(example.context, tokens[right], tokens[wrong], margin, found, f"{sentence}{looked}")


def _strongest_block_part(found):
    """The head or MLP that pushes the right way most (the parts a design changes; of equals, the
    one nearest the logits), or None."""
    acting = [name for name in found if name.block is not None and name.kind != "c_proj.b"]
    return max(reversed(acting), key=found.get, default=None)


def _what_the_blocks_add(found, words):
    """When an embedding is named, a sentence on the head or MLP that could outweigh it."""
    part = _strongest_block_part(found)
    if part is None:
        return ""
    return _after(
        _("Of the blocks, {part} pushes most toward {expected}: {amount}.").format(
            part=phrase(part), amount=fmt(found[part]), expected=words["expected"]
        )
    )


def _reason(found, margin, words, prefer):
    """(a sentence, the part it speaks of, or None): ``prefer`` if this model has it, else the part
    that pushes the wrong way most, else the one that pushes the right way most."""
    if all(abs(share) < SMALL for share in found.values()):
        sentence = _(
            "no part of the model tells {expected} from {wrong} here yet: every part's share of the margin is 0"
        )
        return sentence.format(**words), None
    worst, best = min(found, key=found.get), max(found, key=found.get)
    part = prefer if prefer in found else worst if found[worst] < -SMALL else best
    if found[part] < -SMALL:
        others = sum(share for name, share in found.items() if name != part)
        sentence = _(
            "{part} pushes toward {wrong} by {amount}; all the other parts together add {others} toward {expected}."
        )
        return sentence.format(part=phrase(part), amount=fmt(-found[part]), others=fmt(others), **words), part
    sentence = _(
        "{part} pushes toward {expected} by {amount}, not enough: the margin over {wrong} is {margin}, and a pass needs more than {threshold}."
    )
    return sentence.format(part=phrase(part), amount=fmt(found[part]), margin=fmt(margin), **words), part


def missing(mine, theirs, expected):
    """A sentence when the part that pushes most in ``theirs`` (a model of the task's designed shape)
    is not in this model at all, else ""."""
    part = max(theirs, key=theirs.get, default=None)
    if part is None or part in mine or theirs[part] <= SMALL:
        return ""
    return _after(
        _(
            "{part} is not in this model: in the shape this task is designed for, the push toward {expected} can come from there."
        ).format(part=phrase(part), expected=expected)
    )


def lagging(mine, theirs):
    """The part whose share falls furthest short of the same part's share in ``theirs`` (another
    model's shares on the same context, such as a reference solution's), or None."""
    common = [name for name in mine if name in theirs]
    short = {name: theirs[name] - mine[name] for name in common}
    found = max(short, key=short.get, default=None)
    return found if found is not None and short[found] > SMALL else None


def _looked(reading, position, params, name):
    """For a head, a second sentence: where its query looked, and what it carried into c_proj."""
    if name.head is None:
        return ""
    block, head = name.block, name.head
    places = functools.reduce(
        lambda shown, place: _("{places}, {place}").format(places=shown, place=place),
        [
            _("position {position} ({token}) with weight {weight}").format(position=k, token=t, weight=fmt(w, 2))
            for k, t, w in where_it_looked(reading, position, params, block, head)
        ],
    )
    output = _head_output(reading, position, params, block, head)
    return _after(_("It reads {places}; before c_proj its output is {output}.").format(places=places, output=output))


def _after(sentence):
    """``sentence`` as it follows another: after a space in English, straight after 。 in Chinese."""
    return _("{previous} {sentence}").format(previous="", sentence=sentence)


def _head_output(reading, position, params, block, head):
    """The head's output at ``position`` in its named directions: its largest entries."""
    structure = params.structure
    shape = structure.blocks[block]
    out = reading.tapped[Name(T.attention_output, block, head if shape.n_head > 1 else None)][position]
    names = structure.basis(structure.space("head" if shape.n_head > 1 else "attention", block, head), params.labels)
    order = [i for i in np.argsort(-np.abs(out), kind="stable") if abs(out[i]) >= SMALL][:SHOWN_DIRECTIONS]
    return ", ".join(f"{names.names[i]} = {fmt(out[i])}" for i in sorted(order)) or "0"
