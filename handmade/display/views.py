"""What the playground shows, as plain functions from a trace (or a model) to HTML.

No widget here: ``handmade.widgets`` puts these strings into ipywidgets, and the tests and a
notebook's static snapshot read them directly. A model's views are grouped by stage, in the order
of the pass: each stage is a layer a person edits (``q``, ``c_proj``, ...) with the views that an
edit of it changes (``scores`` and ``attention`` for ``q``).
"""

import html
from dataclasses import dataclass

import numpy as np

from ..arguments import fmt_apart
from ..basis import text_shown
from ..i18n import _, ngettext
from ..inference import complete
from ..names import INTERMEDIATES, T
from .labelled import LabelledMatrix
from .outputs import side_by_side

# a view name -> the intermediates it shows; a view that shows one intermediate is called as it is
VIEW_KINDS = {
    T.embedding: (T.embedding,),
    T.ln_1: (T.ln_1,),
    T.scores: (T.scores,),
    "attention": (T.attention_weights,),
    T.v: (T.v,),
    T.attention_output: (T.attention_output,),
    T.residual: (T.residual,),
    T.mlp_hidden: (T.ln_2, T.mlp_hidden),
    T.mlp_residual: (T.mlp_residual,),
    T.logits: (T.ln_f, T.logits, T.probabilities),
}
SCROLLS = "hm-scroll"  # a table's region that scrolls when the table is wider than its room (view_html)
OUTCOMES = ("accuracy", "predictions", "completion")  # views of what the model says, not of a matrix
LAYER_VIEWS = {  # a layer a person edits -> the views an edit of it changes
    T.embedding: (T.embedding,),
    "ln_1": (T.ln_1,),
    "q": (T.scores, "attention"),
    "k": (T.scores, "attention"),
    "v": (T.v, T.attention_output),
    "c_proj": (T.residual,),
    "mlp.c_fc": (T.mlp_hidden,),
    "mlp.c_proj": (T.mlp_residual,),
    "ln_f": (T.logits,),
}


# ---- stages -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    key: str  # "embedding", "blocks[1].q", ...: the stage's layer, by the shortest name that says it
    label: str  # the tab's title
    parts: tuple  # the parts edited here, by their shortest names
    views: tuple  # the views shown here (keys of VIEW_KINDS)
    block: int = -1  # the block whose intermediates the views show (-1: none)


def stages(structure):
    """The stages of a model of this ``Structure``, in the order of the pass."""
    names, multi = structure.part_names(), structure.n_layer > 1
    found, by_layer = [Stage(T.embedding, "wte · wpe", ("wte", "wpe"), (T.embedding,))], {}
    for part in structure.parts()[2:]:
        layer = "mlp.c_fc" if part.layer == "ln_2" else part.layer  # ln_2 normalises the MLP's input
        by_layer.setdefault((part.block, layer), []).append(names[part.name])
    for (block, layer), shown in by_layer.items():
        key = f"blocks[{block}].{layer}" if multi and block is not None else layer
        label = f"{block}·{layer}" if multi and block is not None else layer
        found.append(Stage(key, label, tuple(shown), LAYER_VIEWS[layer], -1 if block is None else block))
    if not structure.ln_f:  # the logits join the last stage: what it writes into the stream is what they read
        last = found[-1]
        found[-1] = Stage(last.key, last.label, last.parts, (*last.views, T.logits), last.block)
    elif found[-1].block == -1:
        found[-1] = Stage(found[-1].key, found[-1].label, found[-1].parts, found[-1].views, structure.n_layer - 1)
    return found


def view_names(t, view, block):
    """The names in the trace ``t`` that ``view`` shows for ``block`` (several heads: one per head)."""
    kinds = VIEW_KINDS[view]
    return [
        name
        for name in t
        if name.kind in kinds
        and (block < 0 or name.block in (None, block))
        and not (name.kind == T.attention_output and name.head is not None)  # the heads' outputs: side by side
    ]


# ---- tables ---------------------------------------------------------------------------------------


def changed_cells(before, after):
    """The cells of ``after`` that differ from ``before`` (same shape), as a set of (row, col)."""
    if before is None or before.shape != after.shape:
        return frozenset()
    with np.errstate(all="ignore"):
        differ = ~np.isclose(before, after, rtol=1e-12, atol=1e-12, equal_nan=True)
    return frozenset(map(tuple, np.argwhere(differ)))


def view_html(t, name, before=None, caption=True):
    """One intermediate of a trace as an HTML table that scrolls inside itself when wide: a region named by the
    table's title that the Tab key reaches (its arrow keys scroll it); in a live playground the widgets' marks take
    that away while the table fits, and in a snapshot (plain HTML, no marks) every table stays a stop. The cells that
    differ from the trace ``before`` are outlined."""
    name = t.name(name)
    matrix = t[name]
    changed = changed_cells(None if before is None or name not in before else before[name].values, matrix.values)
    return scrolling(matrix.html(heat=INTERMEDIATES[name.kind].heated, changed=changed, caption=caption), matrix.title)


def scrolling(table, title):
    """``table`` (HTML) in a region that scrolls sideways when it is wider than its room, named ``title``, that the
    Tab key reaches (its arrow keys scroll it): what is beside and above it stays put."""
    title = html.escape(title)
    return (
        f'<div class="{SCROLLS}" role="region" tabindex="0" aria-label="{title}" data-label="{title}" '
        f'style="overflow-x:auto;max-width:100%">{table}</div>'
    )


def panel_html(t, names, before=None):
    """Several intermediates side by side, each under its title; one wider than the room scrolls in its region."""
    tables = "".join(
        "<div style='margin:0 0 4px 0;min-width:0;max-width:100%'><div style='font-size:12px;margin-top:4px'>"
        f"<b>{html.escape(t[name].title)}</b></div>{view_html(t, name, before, caption=False)}</div>"
        for name in names
    )
    return f"<div style='display:flex;flex-wrap:wrap;align-items:flex-start;column-gap:16px'>{tables}</div>"


# ---- what the model says --------------------------------------------------------------------------


def prediction_html(t):
    """One line: after the context, the token the model predicts and its probability; and, for a context longer than
    the model's positions, the letters it reads."""
    probs = t[T.probabilities]  # its columns name the tokens of the weights it ran
    best = int(np.argmax(probs.values[-1]))
    token, p = probs.cols[best], probs.values[-1, best]
    rival = max(np.delete(probs.values[-1], best), default=0.0)  # the next token's: p is written apart from it
    context = t.text if len(t.text) <= 24 else "…" + t.text[-23:]
    said = {"context": html.escape(text_shown(context)), "token": html.escape(token), "p": fmt_apart(p, rival, 3)}
    n = len(t.tokens)
    if n == len(t.text):
        return _("after <code>{context}</code> the model predicts <b>{token}</b> (p = {p})").format(**said)
    sentence = ngettext(  # a context longer than its positions: the views show the letters it reads
        "after <code>{context}</code> the model, which reads only its last {n} letter, <code>{window}</code>, predicts <b>{token}</b> (p = {p})",
        "after <code>{context}</code> the model, which reads only its last {n} letters, <code>{window}</code>, predicts <b>{token}</b> (p = {p})",
        n,
    )
    return sentence.format(n=n, window=html.escape(text_shown(t.text[-n:])), **said)


def predictions_html(t):
    """The probabilities at every position, and the guess after each."""
    probs = t[T.probabilities]
    tokens = probs.cols  # the tokens of the weights that ran, not of those on screen before
    table = LabelledMatrix(
        probs.values, probs.rows, [f"P({c})" for c in tokens], title=_("prediction at each position")
    )
    guesses = "".join(
        "<li>{}</li>".format(
            _("after {row}: {token}").format(
                row=html.escape(row), token=f"<b>{html.escape(tokens[int(np.argmax(p))])}</b>"
            )
        )
        for row, p in zip(probs.rows, probs.values)
    )
    return side_by_side(table.html(heat=True), f"<ul style='margin:0'>{guesses}</ul>").markup


def completion_html(params, text):
    return f"<pre>{html.escape(complete(text, 10, params))}</pre>"


def score_html(label, passed, summary, details=()):
    """A score's verdict in colour, then its details, each line whole (wrapped, never cut)."""
    colour = "#1a7f37" if passed else "#b3261e"
    return (
        f"<div style='line-height:1.3'><span style='color:{colour}'>{_labelled(label, summary)}</span>"
        f"{details_html(details)}</div>"
    )


def _labelled(label, summary):
    """A score's label and its summary as one line: "abc: 3 / 15 right" in English, "abc：答对 3 / 15" in Chinese."""
    if not label:
        return f"<b>{html.escape(summary)}</b>"
    # TRANSLATORS: a score's label (it ends with its own colon) and its summary; in Chinese, no space between
    line = _("{label} {summary}")
    head, _sep, tail = line.partition("{summary}")
    return html.escape(head.format(label=label)) + f"<b>{html.escape(summary)}</b>" + html.escape(tail)


def details_html(details):
    """A score's details (its first miss, why), a line each, wrapped, never cut."""
    style = "font-size:12px;line-height:1.4;margin-bottom:6px;overflow-wrap:anywhere"  # a wrapped line reads as one
    return "".join(f"<div style='{style}'>{html.escape(d)}</div>" for d in details)


def snapshot_html(summary, heading, sections):
    """The views as one static page, collapsed under ``summary``: ``heading`` (the bar's lines),
    then each (stage label, its panels' HTML) of ``sections``."""
    parts = [heading]
    for label, panels in sections:
        parts.append(f"<h4 style='margin:8px 0 2px'>{html.escape(label)}</h4>")
        parts += panels
    return (
        f"<details class='hm-snapshot'><summary style='color:#555'>{html.escape(summary)}</summary>"  # upright: no italic Chinese
        f"{''.join(parts)}</details>"
    )
