"""Grading a learner's weights on a task: every context, a margin, and where it goes wrong.

The weights are data (a dict, ``Weights`` or what ``load_weights`` read), never code: they run
through ``handmade.weights.forward``, the same ``gpt()`` the series teaches, and nothing else.
Every graded context of the task is asked (``tasks.examples``), so there is no sampling and no
seed. A causal model's prediction at position i of a window that starts at position 0 is its
prediction for that prefix, so one pass over the longest context answers all its prefixes.

A pass needs every context right AND a margin above ``MARGIN_THRESHOLD``: the margin is the
smallest gap, over all graded contexts, between the right token's logit and the best wrong one.
A tie has margin 0, so a model that is "right" only because argmax breaks ties by order fails.

When the weights fail, the report says where: for the first failing context (or the one with the
smallest margin) it runs the learner's model and the task's reference solution through
``handmade.trace.trace`` and names the first stage, in the order the pass uses them, that differs
in a way that matters. Attention weights are compared by which keys get a real share of the
weight (more than ``ATTENDED``); other stages by which directions are used, their signs, and
their sizes to within a factor ``FACTOR``. Stages whose columns are named directions are compared
only when the learner's model names its directions as the reference does (a blank model does).
When the shapes differ (another number of blocks, heads, no MLP), the report still lists the
failing contexts and what the model predicted there.
"""

import html
import os
from dataclasses import dataclass, replace

import numpy as np

from ..display.labelled import fmt
from ..display.trace import trace
from ..i18n import N_, _, ngettext
from ..inference import Example
from ..weights import NonFiniteError, WeightsError, check_weights, count_nonzero, forward, labels_of, with_alphabet
from .tasks import examples as task_examples
from .tasks import get_task, graded_tokens, reference

# A logit gap of 1 makes the right token at least e = 2.7 times as likely as any wrong one, and
# it is 10^15 times float64's rounding error on these logits: a pass cannot come from a tie that
# argmax broke by order, or from rounding. It costs a correct design nothing (scale c_proj up);
# every reference solution clears it by a factor of more than 3, most by hundreds.
MARGIN_THRESHOLD = 1.0
SHOWN_FAILURES = 5  # failing contexts listed in a report

ATTENDED = 0.05  # a key whose attention weight is above this is read by the query
SHARES_DIFFER = 0.25  # same keys read, but a share differs by more than this: the mix differs
FACTOR = 2.0  # two numbers of the same sign differ when one is more than FACTOR times the other
NOISE = 1e-3  # a number below this fraction of its row's largest counts as zero
SHOWN_DIRECTIONS = 4  # differing directions named in one sentence


# ---- the report ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Miss:
    """A graded context the model got wrong."""

    example: Example
    predicted: str  # the token with the largest logit (the first of a tie)
    margin: float  # right logit minus best wrong logit: negative or 0 when wrong
    tie: bool  # whether the largest logit is shared

    def __str__(self):  # 'ab': expected a, the model predicted b (margin -1)
        line = (
            _("{context}: expected {expected}, the model predicted {predicted} by a tie (margin {margin})")
            if self.tie
            else _("{context}: expected {expected}, the model predicted {predicted} (margin {margin})")
        )
        context, expected = repr(self.example.context), self.example.expected
        return line.format(context=context, expected=expected, predicted=self.predicted, margin=fmt(self.margin))


@dataclass(frozen=True, repr=False)
class Report:
    """What grading found: ``print(report)`` reads it, ``report.passed`` decides, and in a
    notebook the report shows itself as the same few lines."""

    task: str  # the task's name
    correct: int
    total: int
    margin: float  # the smallest margin over every graded context
    smallest_at: Example  # where it is smallest
    nonzero: int  # weights that are not zero, counted from the weights themselves
    failures: tuple  # Miss, for the first SHOWN_FAILURES failing contexts in grading order
    n_failures: int
    diagnosed: Example | None = None  # the context the diagnosis is about
    diagnosis: str | None = None  # where it goes wrong, as a sentence
    threshold: float = MARGIN_THRESHOLD

    @property
    def accuracy(self):
        return self.correct / self.total

    @property
    def passed(self):
        return self.correct == self.total and self.margin > self.threshold

    @property
    def exit_status(self):  # for the command line: 0 on a pass, 1 on a fail
        return 0 if self.passed else 1

    def __bool__(self):
        return self.passed

    def lines(self):
        verdict = _("PASS") if self.passed else _("FAIL")
        lines = [
            _("task {task}: {verdict}").format(task=self.task, verdict=verdict),
            _("  right: {correct} / {total} contexts ({percent:.1f}%)").format(
                correct=self.correct, total=self.total, percent=100 * self.accuracy
            ),
            _(
                "  margin: {margin} (smallest at {context} -> {expected}); a pass needs 100% and more than {threshold}"
            ).format(
                margin=fmt(self.margin),
                context=repr(self.smallest_at.context),
                expected=self.smallest_at.expected,
                threshold=fmt(self.threshold),
            ),
            _("  non-zero weights: {n}").format(n=self.nonzero),
        ]
        if self.failures:
            lines.append(_("  first failing contexts ({n} in all):").format(n=self.n_failures))
            lines += [f"    {miss}" for miss in self.failures]
        if self.diagnosis:
            lines.append(
                _("  where it goes wrong, for {context} -> {expected}: {diagnosis}").format(
                    context=repr(self.diagnosed.context), expected=self.diagnosed.expected, diagnosis=self.diagnosis
                )
            )
        return lines

    def __str__(self):
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self):  # the same lines, wrapped at spaces on a narrow page, with a coloured edge
        colour = "#1a7f37" if self.passed else "#b3261e"
        style = f"white-space:pre-wrap;word-break:normal;border-left:4px solid {colour};padding:4px 8px;margin:0"
        return f'<pre style="{style}">{html.escape(str(self))}</pre>'


# ---- grading -------------------------------------------------------------------------------


def submission(task, params):
    """``params`` checked for ``task``: Weights whose tokens are the task's alphabet, or WeightsError.

    The numbers are what is graded; the names only help the diagnosis. Weights keep their own
    labels when these fit; a plain dict, or weights whose labels no longer fit their shape, is
    read with the task's named directions if it has the task's width, else with e0, e1, ...
    Weights labelled with another alphabet are graded by token id, in the task's alphabet.
    """
    task = get_task(task)
    if isinstance(params, (str, bytes, os.PathLike)):
        raise WeightsError(
            _(
                "grade takes the weights themselves (a dict or handmade.Weights); load a file first with handmade.load_weights"
            )
        )
    checked = check_weights(dict(params) if isinstance(params, dict) else params)  # the numbers alone
    n_vocab, n_ctx = len(checked["wte"]), len(checked["wpe"])
    if n_vocab != task.n_vocab:
        raise WeightsError(
            _(
                "wte has {n} token rows, but the task {task} has {want} tokens ({alphabet}): n_vocab must be {want}"
            ).format(n=n_vocab, task=task.name, want=task.n_vocab, alphabet=task.alphabet)
        )
    if n_ctx < task.n_ctx:
        raise WeightsError(
            _(
                "wpe has {n} rows, but the task {task} grades contexts of up to {want} tokens: wpe needs at least {want} rows"
            ).format(n=n_ctx, task=task.name, want=task.n_ctx)
        )
    for labels in (labels_of(params), task.labels):  # its own names if they fit, else the task's
        if labels is not None:
            try:
                checked = check_weights(checked, labels)
                break
            except WeightsError:  # names that no longer fit (a part was removed): set them aside
                continue
    if checked.labels.alphabet != task.alphabet:
        checked = with_alphabet(checked, task.alphabet)
    return checked


def grade(task, params, *, diagnose=True):
    """Grade ``params`` on every context of ``task``; a Report. WeightsError for unusable weights.

    ``diagnose=False`` skips the search for where it goes wrong (for a quick score after an edit).
    """
    task = get_task(task)
    params = submission(task, params)
    examples, graded = task_examples(task), graded_tokens(task)
    logits = logits_per_context([tokens for tokens, _right in graded], params)  # [n_examples, n_vocab]
    right = np.array([r for _tokens, r in graded])
    margins, predicted = margins_of(logits, right)
    wrong = np.flatnonzero(predicted != right)
    smallest = int(np.argmin(margins))
    misses = [_miss(examples[i], logits[i], task.alphabet, margins[i]) for i in wrong[:SHOWN_FAILURES]]
    report = Report(
        task=task.name,
        correct=len(examples) - len(wrong),
        total=len(examples),
        margin=float(margins[smallest]),
        smallest_at=examples[smallest],
        nonzero=count_nonzero(params),
        failures=tuple(misses),
        n_failures=len(wrong),
    )
    if report.passed or not diagnose:
        return report
    about = examples[wrong[0]] if len(wrong) else examples[smallest]
    return replace(report, diagnosed=about, diagnosis=where_it_goes_wrong(task, params, about))


def logits_per_context(contexts, params):  # contexts: token-id tuples -> [len(contexts), n_vocab]
    """The logits after each context (its last n_ctx tokens), one forward pass per longest window:
    the pass over a window gives the logits of every prefix of it too."""
    n_ctx = len(params["wpe"])
    windows = [tokens[-n_ctx:] for tokens in contexts]
    after = {}  # window prefix -> logits after its last token
    for window in sorted(set(windows), key=len, reverse=True):
        if window in after:
            continue
        try:
            logits = forward(window, params)  # [len(window), n_vocab]
        except NonFiniteError as error:
            raise WeightsError(str(error)) from None
        for end in range(1, len(window) + 1):
            after[window[:end]] = logits[end - 1]
    return np.array([after[window] for window in windows])


def margins_of(logits, right):  # [n, n_vocab], [n] -> margins [n], predicted ids [n]
    rows = np.arange(len(logits))
    wrong = logits.copy()
    wrong[rows, right] = -np.inf
    return logits[rows, right] - wrong.max(axis=1), logits.argmax(axis=1)


def _miss(example, logits, alphabet, margin):
    best = int(np.argmax(logits))
    tie = int(np.sum(logits == logits[best])) > 1
    return Miss(example, alphabet[best], float(margin), tie)


# ---- where it goes wrong -------------------------------------------------------------------

PLACES = {  # each stage the diagnosis compares, as a place in the pass
    "embedding": N_("the embedding at position {position} ({token})"),
    "ln_1": N_("ln_1's output at position {position} ({token})"),
    "attention_weights": N_("position {position}'s attention weights"),
    "v": N_("the value v at position {position} ({token})"),
    "c_proj_output": N_("what attention adds to the residual stream (c_proj's output) at position {position}"),
    "ln_2": N_("ln_2's output at position {position}"),
    "mlp_hidden": N_("the MLP's hidden units at position {position}"),
    "mlp_output": N_("what the MLP adds to the residual stream at position {position}"),
    "ln_f": N_("ln_f's output at position {position}"),
    "logits": N_("the logits at position {position}"),
}
# the stages whose columns are named directions (residual, attention or hidden): compared only
# when both models use the same names; attention weights and logits need no names
NAMED = {"embedding", "ln_1", "v", "c_proj_output", "ln_2", "mlp_hidden", "mlp_output", "ln_f"}


@dataclass(frozen=True)
class Stage:
    kind: str  # a key of PLACES
    name: str  # its name in the trace: "blocks[1].head0.attention_weights"
    block: int | None
    head: int | None  # None when the block has one head
    rows: str  # the positions that matter for the last prediction: "all", "last", or "read" (the keys it reads)


def stages(params):
    """The stages to compare, in the order the pass uses them, for a model of this shape.

    After the last block's attention only the last position reaches the prediction; before it,
    every position can (as a key or a value); the last block's values matter where they are read.
    """
    blocks = params["blocks"]
    found = [Stage("embedding", "embedding", None, None, "all" if blocks else "last")]
    for b, block in enumerate(blocks):
        at, final = f"blocks[{b}].", b == len(blocks) - 1
        after_attention = "last" if final else "all"
        if "ln_1" in block:
            found.append(Stage("ln_1", at + "ln_1", b, None, "all"))
        n_head = block.get("n_head", 1)
        for h in range(n_head):
            name = at + ("attention_weights" if n_head == 1 else f"head{h}.attention_weights")
            found.append(Stage("attention_weights", name, b, h if n_head > 1 else None, after_attention))
        found.append(Stage("v", at + "v", b, None, "read" if final else "all"))
        found.append(Stage("c_proj_output", at + "c_proj_output", b, None, after_attention))
        if "mlp" in block:
            found += [
                Stage(kind, at + kind, b, None, after_attention)
                for kind in ("ln_2", "mlp_hidden", "mlp_output")
                if kind != "ln_2" or "ln_2" in block
            ]
    if "ln_f" in params:
        found.append(Stage("ln_f", "ln_f", None, None, "last"))
    found.append(Stage("logits", "logits", None, None, "last"))
    return found


def where_it_goes_wrong(task, params, example):
    """A sentence naming the first stage at which ``params`` differs from the task's reference
    solution on ``example`` in a way that matters (``params``: checked, as ``submission`` gives)."""
    task = get_task(task)
    ref = submission(task, reference(task))
    difference = shape_difference(params, ref)
    if difference:
        return _(
            "your model's shape differs from the reference solution's ({difference}), so their stages cannot be compared one by one"
        ).format(difference=difference)
    if min(len(example.context), len(params["wpe"])) > len(ref["wpe"]):
        return _(
            "this context is longer than the reference solution's {n} positions, so the two cannot be compared stage by stage"
        ).format(n=len(ref["wpe"]))
    mine, theirs = trace(example.context, params), trace(example.context, ref)
    same_names = _names(params) == _names(ref)
    read = _read_keys(mine, theirs, ref)
    for stage in stages(ref):
        if stage.kind in NAMED and not same_names:
            continue
        sentence = _compare(stage, mine, theirs, params, read)
        if sentence:
            return sentence
    return None


def shape_difference(mine, theirs):
    """A phrase naming the first way two checked models differ in shape (not n_ctx), or None."""
    if mine["wte"].shape[1] != theirs["wte"].shape[1]:
        return _("n_embd is {mine}, the reference solution's is {theirs}").format(
            mine=mine["wte"].shape[1], theirs=theirs["wte"].shape[1]
        )
    if len(mine["blocks"]) != len(theirs["blocks"]):
        return ngettext(
            "your model has {mine} block, the reference solution {theirs}",
            "your model has {mine} blocks, the reference solution {theirs}",
            len(mine["blocks"]),
        ).format(mine=len(mine["blocks"]), theirs=len(theirs["blocks"]))
    for b, (ours, ref) in enumerate(zip(mine["blocks"], theirs["blocks"])):
        if ours["attn"]["c_attn"]["w"].shape != ref["attn"]["c_attn"]["w"].shape:
            return _("block {block} has n_attn = {mine}, the reference solution's {theirs}").format(
                block=b, mine=ours["attn"]["c_attn"]["w"].shape[1] // 3, theirs=ref["attn"]["c_attn"]["w"].shape[1] // 3
            )
        if ours.get("n_head", 1) != ref.get("n_head", 1):
            return ngettext(
                "block {block} has {mine} head, the reference solution's {theirs}",
                "block {block} has {mine} heads, the reference solution's {theirs}",
                ours.get("n_head", 1),
            ).format(block=b, mine=ours.get("n_head", 1), theirs=ref.get("n_head", 1))
        if ("mlp" in ours) != ("mlp" in ref):
            if "mlp" in ref:
                return _("block {block} has no MLP, the reference solution's has one").format(block=b)
            return _("block {block} has an MLP, the reference solution's has none").format(block=b)
        if "mlp" in ours and ours["mlp"]["c_fc"]["w"].shape != ref["mlp"]["c_fc"]["w"].shape:
            return _("block {block}'s MLP has {mine} hidden units, the reference solution's {theirs}").format(
                block=b, mine=ours["mlp"]["c_fc"]["w"].shape[1], theirs=ref["mlp"]["c_fc"]["w"].shape[1]
            )
        for norm in ("ln_1", "ln_2"):
            if (norm in ours) != (norm in ref):
                return _("block {block}'s {norm} is in one model and not in the other").format(block=b, norm=norm)
    if ("ln_f" in mine) != ("ln_f" in theirs):
        return _("ln_f is in one model and not in the other")
    return None


def _names(params):  # the names of every space a model's stages are read in
    labels = params.labels
    spaces = [labels.residual]
    for b, block in enumerate(params["blocks"]):
        spaces.append(labels.attention_basis(b, block["attn"]["c_attn"]["w"].shape[1] // 3))
        if "mlp" in block:
            spaces.append(labels.hidden_basis(b, block["mlp"]["c_fc"]["w"].shape[1]))
    return spaces


def _read_keys(mine, theirs, params):
    """The positions the last block's last query reads in either model (any head)."""
    if not params["blocks"]:
        return []
    last = len(params["blocks"]) - 1
    names = [s.name for s in stages(params) if s.kind == "attention_weights" and s.block == last]
    read = set()
    for name in names:
        for t in (mine, theirs):
            read |= set(np.flatnonzero(t[name].values[-1] > ATTENDED).tolist())
    return sorted(read)


def _compare(stage, mine, theirs, params, read):
    ours, ref = mine[stage.name].values, theirs[stage.name].values  # [n_seq, n_cols]
    n_seq = len(ref)
    rows = {"all": range(n_seq), "last": [n_seq - 1], "read": read}[stage.rows]
    for row in rows:
        place = _place(stage, row, params.labels.tokens[mine.tokens[row]], len(params["blocks"]))
        if stage.kind == "attention_weights":
            sentence = _attention_sentence(place, ours[row], ref[row])
        elif stage.kind == "logits":
            sentence = _logits_sentence(place, ours[row], ref[row], params.labels.tokens)
        else:
            sentence = _values_sentence(place, ours[row], ref[row], theirs[stage.name].cols)
        if sentence:
            return sentence
    return None


def _place(stage, position, token, n_blocks):
    place = _(PLACES[stage.kind]).format(position=position, token=token)
    if stage.head is not None and n_blocks > 1:
        return _("{place} in block {block}, head {head}").format(place=place, block=stage.block, head=stage.head)
    if stage.head is not None:
        return _("{place} in head {head}").format(place=place, head=stage.head)
    if stage.block is not None and n_blocks > 1:
        return _("{place} in block {block}").format(place=place, block=stage.block)
    return place


def _positions(keys):
    listed = ", ".join(str(k) for k in keys)
    return ngettext("position {list}", "positions {list}", len(keys)).format(list=listed)


def _attention_sentence(place, ours, ref):  # one query's weights over the keys, in each model
    our_keys, ref_keys = np.flatnonzero(ours > ATTENDED).tolist(), np.flatnonzero(ref > ATTENDED).tolist()
    if our_keys != ref_keys:
        if len(our_keys) > len(ref_keys) and set(ref_keys) <= set(our_keys):
            return ngettext(
                "{place}: you spread them over {n} token ({mine}); the reference solution reads only {theirs}",
                "{place}: you spread them over {n} tokens ({mine}); the reference solution reads only {theirs}",
                len(our_keys),
            ).format(place=place, n=len(our_keys), mine=_positions(our_keys), theirs=_positions(ref_keys))
        return _("{place}: you attend to {mine}; the reference solution attends to {theirs}").format(
            place=place, mine=_positions(our_keys), theirs=_positions(ref_keys)
        )
    if np.max(np.abs(ours - ref)) > SHARES_DIFFER:

        def shares(weights):
            return ", ".join(_("pos {i} = {weight}").format(i=k, weight=fmt(weights[k], 2)) for k in ref_keys)

        return _("{place}: you give {mine}; the reference solution gives {theirs}").format(
            place=place, mine=shares(ours), theirs=shares(ref)
        )
    return None


def differing(ours, ref):
    """Indices where two rows differ in a way that matters: a direction used in one and not the
    other, opposite signs, or sizes more than FACTOR apart."""
    scale = max(np.max(np.abs(ours)), np.max(np.abs(ref)), 1e-12)
    zero_ours, zero_ref = np.abs(ours) <= NOISE * scale, np.abs(ref) <= NOISE * scale
    both = ~zero_ours & ~zero_ref
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(both, np.abs(ours) / np.abs(ref), 1.0)
    far = both & ((np.sign(ours) != np.sign(ref)) | (ratio > FACTOR) | (ratio < 1 / FACTOR))
    return np.flatnonzero((zero_ours != zero_ref) | far)


def _values_sentence(place, ours, ref, cols):
    found = differing(ours, ref)
    if not len(found):
        return None
    shown = found[:SHOWN_DIRECTIONS]
    more = "…" if len(found) > SHOWN_DIRECTIONS else ""

    def values(row):
        return ", ".join(f"{cols[i]} = {fmt(row[i])}" for i in shown) + more

    return _("{place}: you have {mine}; the reference solution has {theirs}").format(
        place=place, mine=values(ours), theirs=values(ref)
    )


def _logits_sentence(place, ours, ref, tokens):
    def scores(row):
        return ", ".join(f"{t} = {fmt(x)}" for t, x in zip(tokens, row))

    return _("{place}: you score {mine}; the reference solution scores {theirs}").format(
        place=place, mine=scores(ours), theirs=scores(ref)
    )
