"""Why a model says what it says after one context: its margin, shared out among its parts; and a grade's text.

The logits are the residual stream read through the unembedding, ``x @ wte.T``, and the stream is a sum: the token's
embedding, the position's, and what every block adds (each head through its rows of c_proj, c_proj's bias, each
MLP). So the margin, the right token's logit minus the best wrong one's, is a sum too: each part's vector times
``wte[right] - wte[wrong]``, exactly. With ``ln_f`` each part's share is its centred vector, over the whole stream's
spread, times ``ln_f.g``, and ``ln_f.b`` has a share of its own: they still add up exactly. Layer norms inside the
blocks change what a head or an MLP computes, not this sum.

``shares`` computes them from one recorded pass (``read_window``); ``explain`` turns them into a sentence about the
learner's own model: the part that pushed the wrong way, or the one that did not push enough (a push "toward" a
token is always positive), and the head or MLP the path back (``course.path``) starts from. ``writers`` and
``through_norm`` split what any layer reads the same way, for the path's steps. ``report_lines`` words a whole grade
from its data (``Report.to_json``): every number in the text is in the data.
"""

from dataclasses import dataclass

import numpy as np

from ..arguments import brief, fmt, fmt_apart
from ..basis import CONTEXT_SAID, context_said, token_shown
from ..i18n import N_, _, listed, ngettext, then
from ..model import Name, recording
from ..names import T
from ..structure import LAYER_NORM_EPS
from ..weights import finite_pass

SMALL = 1e-9  # a share below this (in size) is no push at all


@dataclass(frozen=True)
class Reading:
    """What one pass over a window did, kept for explaining the predictions after its prefixes."""

    tokens: tuple  # the window's token ids
    tapped: dict  # every array the pass tapped, by its full name


def read_window(tokens, params):
    """Run ``tokens`` (ids that fit the model: the grader's own) through the model (checked weights),
    keeping every tapped array."""
    tapped = {}
    with recording(tapped.__setitem__):
        finite_pass(list(tokens), params)
    return Reading(tuple(tokens), tapped)


def writers(reading, position, params, upto=None):
    """{part: the vector it wrote into the stream at ``position``}, in the order of the pass: the
    token's and the position's embeddings, each head (through its rows of c_proj), c_proj's bias, each
    MLP. ``upto`` = (block, "attn" or "mlp"): only those written before that layer reads the stream."""
    structure, seen = params.structure, reading.tapped
    vectors = {Name("wte"): seen[T.token_embedding][position], Name("wpe"): seen[T.position_embedding][position]}
    for b, (shape, block) in enumerate(zip(structure.blocks, params["blocks"])):
        if upto == (b, "attn"):
            return vectors
        c_proj = block["attn"]["c_proj"]
        for h, rows in enumerate(np.split(c_proj["w"], shape.n_head)):  # each head's rows, split as gpt() splits
            out = seen[Name(T.attention_output, b, h if shape.n_head > 1 else None)]
            vectors[Name(None, b, h)] = out[position] @ rows  # blocks[b].head{h}
        vectors[Name("c_proj.b", b)] = c_proj["b"]
        if upto == (b, "mlp"):
            return vectors
        if shape.mlp:
            vectors[Name("mlp", b)] = seen[Name(T.mlp_output, b)][position]
    return vectors


def through_norm(vectors, norm, shift):
    """(the vectors as a layer norm shares out its output, the stream's spread): each centred,
    divided by the spread of their sum (the whole stream's, shared by all) and scaled by ``norm["g"]``;
    the norm's ``b`` joins under the name ``shift``. They add up to the norm's output exactly."""
    spread = float(np.sqrt(np.var(sum(vectors.values())) + LAYER_NORM_EPS))
    shared = {name: norm["g"] * (v - v.mean()) / spread for name, v in vectors.items()}
    shared[shift] = norm["b"]
    return shared, spread


def part_vectors(reading, position, params):
    """{part: the vector it adds to the stream at ``position``}, in the order of the pass; with
    ``ln_f`` each is taken through it (centred, over the stream's spread, times g) and ``ln_f.b`` joins."""
    vectors = writers(reading, position, params)
    if params.structure.ln_f:
        vectors, _spread = through_norm(vectors, params["ln_f"], Name("ln_f.b"))
    return vectors


def back_through(norm, spread, direction):
    """The direction in the stream, before a layer norm, whose product with a part's vector is that
    part's share of ``direction`` after it (``through_norm``): scaled by g over the spread, centred."""
    scaled = norm["g"] * direction / spread
    return scaled - scaled.mean()


def margin_direction(reading, position, params, right, wrong):
    """The direction in the stream that the margin after ``position`` reads: a part's share is its
    vector (``writers``, before ``ln_f``) times it; ``ln_f.b``'s share is apart (``shares``)."""
    direction = params["wte"][right] - params["wte"][wrong]  # [n_embd]
    if not params.structure.ln_f:
        return direction
    _shared, spread = through_norm(writers(reading, position, params), params["ln_f"], Name("ln_f.b"))
    return back_through(params["ln_f"], spread, direction)


def shares(reading, position, params, right, wrong):
    """{part: its share of logit[right] - logit[wrong] after ``position``}: they sum to that margin."""
    direction = params["wte"][right] - params["wte"][wrong]  # [n_embd]
    return {name: float(v @ direction) for name, v in part_vectors(reading, position, params).items()}


# ---- saying it --------------------------------------------------------------------------------------

PHRASES = {
    "wte": N_("the token embedding (wte)"),
    "wpe": N_("the position embedding (wpe)"),
    "head": N_("head {head} of block {block} (through c_proj)"),
    "c_proj.b": N_("c_proj's bias in block {block}"),
    "mlp": N_("the MLP of block {block}"),
    "ln_f.b": N_("ln_f's shift (ln_f.b)"),
}


def phrase(name):
    """A part of the margin (a Name) as the learner reads it: ``blocks[0].head1`` is "head 1 of block 0 (through c_proj)"."""
    kind = "head" if name.kind is None else name.kind  # a head's Name has no kind: it is the head itself
    return _(PHRASES[kind]).format(block=name.block, head=name.head)


def tolerance(values, axis=None):
    """How small a number among ``values`` (of each row, along ``axis``) must be to count as none: SMALL, or a billionth."""
    if axis is None:  # a few numbers, many times a grade: in Python, faster than numpy's call
        return SMALL * max([1.0, *(abs(float(v)) for v in values)])
    return SMALL * np.maximum(1.0, np.abs(values).max(axis=axis))


def margins_of(logits, right, threshold):  # [n, n_vocab], [n] -> margins [n], predicted ids [n]
    """Each row's right logit minus its best wrong one, and the token predicted: the right one only where it
    leads, else the best wrong one (a tie with the right token predicts neither, and is said as the other: argmax
    breaking it by order earns nothing, in the count of right predictions either). A margin within rounding of
    ``threshold`` (``tolerance`` of its row) is ``threshold``, and one within rounding of 0 is 0, a tie: a design whose
    margin is exactly the threshold gets 1.0000000000000002 on one machine and 0.9999999999999998 on another, as the
    order of the sums goes, and two logits that are equal in exact arithmetic may differ in their last digits."""
    rows = np.arange(len(logits))
    wrong = logits.copy()
    wrong[rows, right] = -np.inf
    rival = wrong.argmax(axis=1)  # [n]: the best wrong token (the first of a tie)
    margins, rounding = logits[rows, right] - wrong[rows, rival], tolerance(logits, axis=1)
    tie = np.where(np.abs(margins) <= rounding, 0.0, margins)  # (where both are near, as at 1e9: the threshold)
    margins = np.where(np.abs(margins - threshold) <= rounding, threshold, tie)
    return margins, np.where(margins > 0, right, rival)


@dataclass(frozen=True)
class Explanation:
    """Why the model's margin after one context is what it is, from its own numbers."""

    context: str
    expected: str  # the token that should come next
    wrong: str  # the best wrong token: the margin is measured against it
    predicted: str  # the token predicted: ``expected`` where it leads, else ``wrong`` (a tie predicts neither)
    margin: float  # logit(expected) - logit(wrong)
    shares: dict  # {part: its share of the margin}, in the order of the pass; they sum to the margin
    sentence: str
    named: Name | None = None  # the part the sentence speaks of
    part: Name | None = None  # the head or MLP the path back starts from, if any
    path: tuple | None = None  # the Steps back from ``part`` to the cause (``course.path``); None: not followed
    window: str = ""  # the letters the model reads, the context's last n_ctx: its positions are counted in them

    def to_json(self):
        """The explanation as data: what ``grade --json`` prints for one context, and what the report's text says."""
        return {
            "context": self.context,
            "expected": self.expected,
            "predicted": self.predicted,
            "against": self.wrong,
            "margin": self.margin,
            "contributions": self.shares,
            "sentence": self.sentence,
            "named": None if self.named is None else str(self.named),
            "path": None if self.path is None else [step.to_json() for step in self.path],
            "window": self.window,
        }


def explain(reading, position, params, example, right, threshold, prefer=None):
    """The Explanation of the margin after ``reading.tokens[:position + 1]`` (the context of
    ``example``, whose right token is id ``right``). ``prefer``: the part to speak of, if this model has
    it (the grader's: the one whose share falls furthest short of a reference solution's)."""
    logits = reading.tapped[T.logits][position]
    wrong = int(np.argmax(np.where(np.arange(len(logits)) == right, -np.inf, logits)))
    vectors = part_vectors(reading, position, params)
    direction = params["wte"][right] - params["wte"][wrong]  # [n_embd]
    found = {name: float(v @ direction) for name, v in vectors.items()}
    tokens = params.labels.token_names(params.structure.n_vocab)
    words = {"expected": tokens[right], "wrong": tokens[wrong], "threshold": fmt(threshold)}
    margins, chosen = margins_of(logits[None], [right], threshold)
    margin, predicted = float(margins[0]), tokens[int(chosen[0])]
    window = example.context[-(position + 1) :]  # the last letters, as many as the pass read
    said = (example.context, tokens[right], tokens[wrong], predicted, margin, found)
    same_rows = not direction.any()  # wte's two rows, the same to the last digit
    if same_rows and _writing_most(vectors, everyone=True):  # no part's write can move the margin: nothing to follow
        return Explanation(*said, _(SAME_ROWS).format(**words), Name("wte"), window=window)
    sentence, part = _reason(found, margin, words, prefer)
    named = part
    if part is None:  # no part tells them apart: the one a reference relies on, else the head or MLP that writes most
        acting = prefer is not None and prefer in found and (prefer.kind is None or prefer.kind == "mlp")
        part = prefer if acting else _writing_most(vectors)
    if part is not None and part.kind in ("wte", "wpe"):  # a fixed push: say what the blocks do about it
        embedding, part = part, _strongest_block_part(found)
        if part is not None and named == embedding and found[embedding] < -tolerance(found.values()):
            sentence, named = _blocks_first(found, part, embedding, words), part  # the blocks are what a design sets
        else:
            sentence += _what_the_blocks_add(found, part, words)
    writer = named or _writing_most(vectors, everyone=True)  # None: no part writes anything here, blocks or not
    if params.structure.n_layer == 0 or writer is None:  # the margin is read through wte's rows: that is the path
        at = (reading.tokens[position], position)
        sentence += _read_through_wte(params, vectors, found, direction, writer, (right, wrong), at)
    if part is not None and not (part.kind is None or part.kind == "mlp"):  # a bias: nothing to follow back
        part = None
    return Explanation(*said, sentence, named, part, window=window)


SAME_ROWS = N_(
    "wte's rows of {expected} and {wrong} are the same, and the logits read the stream through them (x @ wte.T): "
    "whatever the parts write, {expected} and {wrong} score alike, until those two rows differ."
)


def _writing_most(vectors, everyone=False):
    """The head or MLP (with ``everyone``, the part) whose vector is largest, or None when none writes anything."""
    acting = {name: float(np.abs(v).max()) for name, v in vectors.items() if everyone or name.kind in (None, "mlp")}
    part = max(acting, key=acting.get, default=None)
    return part if part is not None and acting[part] > tolerance(acting.values()) else None


def _strongest_block_part(found):
    """The head or MLP that pushes the right way most (the parts a design changes; of equals, the
    one nearest the logits), or None."""
    acting = [name for name in found if name.kind is None or name.kind == "mlp"]
    small = tolerance(found.values())
    return max(reversed(acting), key=lambda name: found[name] if abs(found[name]) > small else 0.0, default=None)


def _what_the_blocks_add(found, part, words):
    """When an embedding is named, a sentence on the head or MLP that could outweigh it."""
    if part is None:
        return ""
    share, small = found[part], tolerance(found.values())
    if share > small:
        sentence = _("Of the blocks, {part} pushes most toward {expected}: {amount}.")
    elif share < -small:
        sentence = _(
            "None of the blocks pushes toward {expected}; even {part}, the nearest to doing so, pushes toward {wrong} by {amount}."
        )
    else:
        sentence = _("None of the blocks pushes toward {expected}; {part}, the nearest to doing so, adds nothing.")
    return then("", sentence.format(part=phrase(part), amount=fmt(abs(share)), **words))


def _read_through_wte(params, vectors, found, direction, part, pair, at):
    """Where the logits read through wte what the parts write (a model without blocks, or one whose blocks write
    nothing here): a sentence on the direction ``part`` writes at ``at`` (token id, position) that carries most of
    its share (in ``found``: the push the sentence before spoke of; where it is 0, the direction it writes most),
    with the entries of wte's rows of ``pair`` (right, wrong) that read it. Where ``part`` (None: every part, blocks too) writes only zeros, a sentence
    naming the rows of the embedding that are all 0."""
    if part is None:  # nothing writes anything here: the rows the stream is made of
        (token, wte), (position, wpe), (_b, shift) = (_row(params, Name(kind), at) for kind in ("wte", "wpe", "ln_f.b"))
        if wte.any() or wpe.any() or shift.any():  # they cancel, or a layer norm takes them away: not said here
            return ""
        sentence = _(
            "Here nothing is written into the stream: {token} and {position}, the rows the embedding adds up, are all 0, so every logit is 0."
        )
        return then("", sentence.format(token=token, position=position))
    row, weights = _row(params, part, at)
    if not weights.any():
        return then("", _("Here {part} writes nothing: {row} is all 0.").format(part=phrase(part), row=row))
    vector = vectors[part]  # [n_embd]
    pushes = vector * direction  # [n_embd]: each direction's part of its share
    share = found[part]  # pushes.sum()
    d = int(np.argmax(np.sign(share) * pushes if abs(share) > tolerance(found.values()) else np.abs(vector)))
    tokens = params.labels.token_names(params.structure.n_vocab)
    direction = params.structure.basis(params.structure.space("stream"), params.labels).names[d]
    entries = [f"wte[{tokens[t]}, {direction}] = {fmt(params['wte'][t, d])}" for t in pair]
    sentence = _("Here {part} writes {direction} = {value}, which the logits read through wte's rows: {entries}.")
    said = _("{first} and {second}").format(first=entries[0], second=entries[1])
    return then("", sentence.format(part=phrase(part), direction=direction, value=fmt(vector[d]), entries=said))


def _row(params, part, at):
    """(its name, the weights) that ``part`` (wte, wpe or ln_f.b) adds to the stream at ``at`` (token id,
    position): ``wte[b]``, ``wpe[pos 0]``, ``ln_f.b`` (zeros in a model without ln_f)."""
    token, position = at
    if part.kind == "wte":
        return f"wte[{params.labels.token_names(params.structure.n_vocab)[token]}]", params["wte"][token]
    if part.kind == "wpe":
        names = params.structure.basis(params.structure.space("positions"), params.labels).names
        return f"wpe[{names[position]}]", params["wpe"][position]
    return "ln_f.b", params["ln_f"]["b"] if params.structure.ln_f else np.zeros(1)


def _blocks_first(found, part, embedding, words):
    """When an embedding pushes the wrong way most, and the model has blocks: a sentence on what the blocks
    do (``part``, the head or MLP that pushes the right way most, else the nearest), then the embedding's push."""
    share, small = found[part], tolerance(found.values())
    if share > small:
        sentence = _(
            "Of the blocks, {part} pushes most toward {expected}, by {amount}; {embedding} pushes toward {wrong} by {push}, and a pass needs a margin above {threshold}."
        )
    elif share < -small:
        sentence = _(
            "None of the blocks pushes toward {expected}: even {part}, the nearest to doing so, pushes toward {wrong} by {amount}, and {embedding} pushes toward {wrong} too, by {push}."
        )
    else:
        sentence = _(
            "None of the blocks pushes toward {expected}: {part}, the nearest to doing so, adds nothing, and {embedding} pushes toward {wrong} by {push}."
        )
    said = {"part": phrase(part), "embedding": phrase(embedding), "push": fmt(abs(found[embedding]))}
    return sentence.format(amount=fmt(abs(share)), **said, **words)


def _reason(found, margin, words, prefer):
    """(a sentence, the part it speaks of, or None): ``prefer`` if this model has it, else the part
    that pushes the wrong way most, else the one that pushes the right way most."""
    small = tolerance(found.values())
    if all(abs(share) <= small for share in found.values()):
        sentence = _(
            "no part of the model tells {expected} from {wrong} here yet: every part's share of the margin is 0."
        )
        return sentence.format(**words), None
    worst, best = min(found, key=found.get), max(found, key=found.get)
    part = prefer if prefer in found else worst if found[worst] < -small else best
    said = {"part": phrase(part), "amount": fmt(abs(found[part])), "margin": fmt(margin), **words}
    others = margin - found[part]
    if found[part] >= -small:
        return _too_little(found[part], others, small).format(others=fmt(abs(others)), **said), part
    if others > small:
        sentence = _(
            "{part} pushes toward {wrong} by {amount}; all the other parts together push toward {expected} by {others}."
        )
    elif others < -small:
        sentence = _(
            "{part} pushes toward {wrong} by {amount}; all the other parts together push toward {wrong} too, by {others}."
        )
    else:
        sentence = _("{part} pushes toward {wrong} by {amount}; all the other parts together add nothing.")
    return sentence.format(others=fmt(abs(others)), **said), part


def _too_little(share, others, small):
    """The sentence on a part that pushes the right way, or not at all, when the margin is too small:
    with what all the other parts together push the wrong way, when they do."""
    if others < -small:
        return (
            _(
                "{part} pushes toward {expected} by {amount}, not enough: all the other parts together push toward {wrong} by {others}, and a pass needs a margin above {threshold}."
            )
            if share > small
            else _(
                "{part} does not push toward {expected}, and all the other parts together push toward {wrong} by {others}; a pass needs a margin above {threshold}."
            )
        )
    if share > small:
        return _("{part} pushes toward {expected} by {amount}, not enough: a pass needs a margin above {threshold}.")
    return _("{part} does not push toward {expected}, and a pass needs a margin above {threshold}.")


# ---- the report's text, made from its data (Report.to_json) -------------------------------------------

SHOWN_STEPS = 3  # steps of the path back shown in the text (--json has every step: at most path.MAX_PATH_STEPS)


def miss_said(miss):
    """A wrong prediction (``Miss.to_json()``) as the report prints it."""
    line = (
        _(
            "{context}: expected {expected}, whose logit ties with that of {predicted} (margin {margin}): a tie counts as wrong"
        )
        if miss["tie"]
        else _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})")
    )
    return line.format(
        context=context_said(miss["context"]),
        expected=token_shown(miss["expected"]),
        predicted=token_shown(miss["predicted"]),
        margin=fmt(miss["margin"]),
    )


def report_lines(data):
    """The lines of a report, from its data (``Report.to_json``): the verdict, the score, the margin, the
    first wrong predictions, how many more are right by too small a margin, where it goes wrong and the path
    back, the reference when asked (or why it cannot be used), the progress note."""
    verdict = _("PASS") if data["passed"] else _("FAIL")
    smallest = data["smallest_at"]
    lines = [
        _("task {task}: {verdict}").format(task=data["task"], verdict=verdict),
        _("  right: {correct} / {total} contexts ({percent:.1f}%)").format(
            correct=data["right"], total=data["graded"], percent=100 * data["right"] / data["graded"]
        ),
        _(
            "  margin: {margin} (smallest at {context} → {expected}); a pass needs 100% and more than {threshold}"
        ).format(
            margin=fmt_apart(data["margin"], data["threshold"]),
            context=context_said(smallest["context"]),
            expected=token_shown(smallest["expected"]),
            threshold=fmt(data["threshold"]),
        ),
        _("  non-zero weights: {n}").format(n=data["nonzero"]),
    ]
    if data["first_wrong"]:
        lines.append(
            ngettext(
                "  the wrong prediction ({n} in all):", "  first wrong predictions ({n} in all):", data["wrong"]
            ).format(n=data["wrong"])
        )
        lines += [f"    {miss_said(miss)}" for miss in data["first_wrong"]]
    if data["right_below_margin"]:  # right, but not by enough: they fail too
        below = data["right_below_margin"]
        said = ngettext(
            "  predicted right, but by a margin of {threshold} or less: {n} context",
            "  predicted right, but by a margin of {threshold} or less: {n} contexts",
            below,
        )
        lines.append(said.format(threshold=fmt(data["threshold"]), n=below))
    if data["diagnosed"] is not None:
        lines += diagnosis_lines(data)
    lines += [data[line] for line in ("revealed", "reference_problem") if data[line]]
    if data["progress_note"]:
        lines.append(f"  {data['progress_note']}")
    return lines


def diagnosis_lines(data):
    """Where it goes wrong (a report's data, ``Report.to_json``): the diagnosed context and its margin, the
    parts' shares, the sentence, then the path back, a line a step (the first SHOWN_STEPS of them)."""
    focus = data["failing"][data["diagnosed"]]
    heading = (
        _(
            "  where it goes wrong, for {context} → {expected}: the margin over {wrong} is {margin}; part by part: {shares}"
        )
        if data["right"] < data["graded"]  # a report whose predictions are all right speaks of the margin
        else _(
            "  why the margin is too small, for {context} → {expected}: the margin over {wrong} is {margin}; part by part: {shares}"
        )
    )
    said = {"context": context_said(focus["context"]), "expected": focus["expected"], "wrong": focus["against"]}
    lines = [
        heading.format(
            margin=fmt_apart(focus["margin"], data["threshold"]), shares=shares_listed(focus["contributions"]), **said
        ),
        f"    {focus['sentence']}",
    ]
    if focus["window"] != focus["context"]:  # a context longer than the model's positions
        n = len(focus["window"])
        read = ngettext(
            "    The model reads only its last {n} letter, {window}: positions are counted from it.",
            "    The model reads only its last {n} letters, {window}: positions are counted from the first of them.",
            n,
        )
        lines.append(
            read.format(n=n, window=brief(focus["window"], CONTEXT_SAID))
        )  # by its start, which it counts from
    path = focus["path"] or []
    lines += [f"    → {step['text']}" for step in path[:SHOWN_STEPS]]
    if len(path) > SHOWN_STEPS:
        more = len(path) - SHOWN_STEPS
        lines.append(
            ngettext(
                "    → {n} more step back: grade --json has it",
                "    → {n} more steps back: grade --json has them",
                more,
            ).format(n=more)
        )
    return lines


def shares_listed(found):  # {part: share} -> "wte 1.5, blocks[0].head0 -0.5, blocks[0].mlp 2"
    return listed(f"{name} {fmt(share)}" for name, share in found.items())
