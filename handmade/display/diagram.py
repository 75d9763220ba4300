"""A diagram of the model, drawn from the weights: the GPT-2 block with GPT-2's names.

``diagram(params)`` draws the path of the residual stream from the tokens to the logits, with the
block's two branches (attention, and the MLP) leaving it and adding back into it. Parts the model
does not have (the blog's has no layer norms and no MLP) are drawn dashed and grey, so the figure
shows both what GPT-2 has and what this model keeps.
"""

import html

from ..i18n import _, listed
from ..inference import prepare
from ..structure import BlockShape
from .figure import Figure

INK, FAINT, ACCENT = "#222", "#767676", "#c0392b"  # FAINT: 4.5:1 on white, and dashed


def _box(x, y, w, h, label, sub="", present=True, fill="#fff"):
    colour = INK if present else FAINT
    dash = "" if present else ' stroke-dasharray="4 3"'
    parts = [
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{fill if present else "#fff"}" stroke="{colour}"{dash}/>'
    ]
    lines = sub.split("\n") if sub else []  # a sub-label of two lines when it would not fit on one
    text_y = y + h / 2 + 4 - 6.5 * len(lines)
    parts.append(
        f'<text x="{x + w / 2}" y="{text_y}" text-anchor="middle" font-size="13.5" fill="{colour}" font-family="monospace">{html.escape(label)}</text>'
    )
    parts += [
        f'<text x="{x + w / 2}" y="{text_y + 14 + 12 * k}" text-anchor="middle" font-size="11" fill="{colour}" font-family="sans-serif">{html.escape(line)}</text>'
        for k, line in enumerate(lines)
    ]
    return "".join(parts)


def _arrow(x1, y1, x2, y2):  # every arrow joins parts a model has: never faint
    return (
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{INK}" stroke-width="1.4" marker-end="url(#hm-arrow)"/>'
    )


def _plus(x, y, present=True):
    colour = INK if present else FAINT
    return (
        f'<circle cx="{x}" cy="{y}" r="8" fill="#fff" stroke="{colour}"/>'
        f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="13" fill="{colour}">+</text>'
    )


def diagram(params=None):
    """The model's forward pass as an SVG figure, with GPT-2's names (the blog's model when None)."""
    structure = prepare(params).structure  # the blog's model when None; checked, so bad weights get the usual one line
    block = structure.blocks[0] if structure.blocks else BlockShape(0)
    has = {"ln_1": block.ln_1, "ln_2": block.ln_2, "mlp": block.mlp, "ln_f": structure.ln_f}
    heads = _("{n} heads").format(n=block.n_head) if block.n_head > 1 else _("1 head")
    s = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" style="max-width:{WIDTH}px" viewBox="0 0 {WIDTH} 200" font-family="sans-serif">',
        '<defs><marker id="hm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{INK}"/></marker></defs>',
        *_stream(structure.n_layer),
        *_attention_branch(has, heads),
        *_mlp_branch(has),
        _box(890, LINE_Y - 18, 44, 36, "ln_f", "", has["ln_f"]),
        _arrow(934, LINE_Y, 946, LINE_Y),
        _box(946, LINE_Y - 22, 104, 44, "x @ wte.T", _("logits")),
        "</svg>",
    ]
    return Figure("".join(s), _caption(structure.n_layer, heads, has), width=WIDTH)


LINE_Y, WIDTH = 130, 1060  # where the residual stream runs, and the figure's width


def _stream(n_blocks):
    """The tokens, the embedding, the residual stream left to right, and the block around it."""
    stream, repeated = _("the residual stream x"), _("blocks[i] ×{n} (transformer_block)").format(n=n_blocks)
    return [
        _box(10, LINE_Y - 20, 64, 40, _("tokens"), _("ids")),
        _arrow(74, LINE_Y, 92, LINE_Y),
        _box(92, LINE_Y - 22, 120, 44, "wte + wpe", _("embedding")),
        f'<line x1="212" y1="{LINE_Y}" x2="890" y2="{LINE_Y}" stroke="{ACCENT}" stroke-width="2.2"/>',
        f'<text x="250" y="{LINE_Y + 20}" font-size="10.5" fill="{ACCENT}">{html.escape(stream)}</text>',
        f'<rect x="232" y="8" width="644" height="{LINE_Y + 30}" rx="8" fill="none" stroke="#888" stroke-dasharray="6 4"/>',
        f'<text x="240" y="{LINE_Y + 52}" font-size="11" fill="#555">{html.escape(repeated)}</text>',
    ]


def _attention_branch(has, heads):
    """Attention leaves the stream, goes through ln_1, c_attn, attention and c_proj, and comes back through +."""
    return [
        f'<path d="M250,{LINE_Y} L250,48 L262,48" fill="none" stroke="{INK}" stroke-width="1.4" marker-end="url(#hm-arrow)"/>',
        _box(262, 30, 44, 36, "ln_1", "", has["ln_1"]),
        _arrow(306, 48, 318, 48),
        _box(318, 30, 80, 36, "c_attn", "q | k | v"),
        _arrow(398, 48, 410, 48),
        _box(410, 18, 156, 60, "attention", _("softmax(qkᵀ/√d + mask)·v") + "\n" + heads, fill="#fff6e5"),
        _arrow(566, 48, 578, 48),
        _box(578, 30, 60, 36, "c_proj"),
        f'<path d="M638,48 L652,48 L652,{LINE_Y - 9}" fill="none" stroke="{INK}" stroke-width="1.4" marker-end="url(#hm-arrow)"/>',
        _plus(652, LINE_Y),
    ]


def _mlp_branch(has):
    """The MLP's branch, the same way: dashed and grey when the model has no MLP."""
    mlp = has["mlp"]
    colour, dash = (INK, "") if mlp else (FAINT, ' stroke-dasharray="4 3"')
    return [
        f'<path d="M672,{LINE_Y} L672,48 L682,48" fill="none" stroke="{colour}" stroke-width="1.4"{dash}/>',
        _box(682, 30, 44, 36, "ln_2", "", has["ln_2"]),
        f'<line x1="726" y1="48" x2="736" y2="48" stroke="{colour}" stroke-width="1.4"{dash}/>',
        _box(736, 30, 112, 36, "mlp", "c_fc · gelu · c_proj", mlp),
        f'<path d="M848,48 L858,48 L858,{LINE_Y - 9}" fill="none" stroke="{colour}" stroke-width="1.4"{dash}/>',
        _plus(858, LINE_Y, mlp),
    ]


def _caption(n_blocks, heads, has):
    """The figure as one line of text, for readers without images."""
    names = ("ln_1", "ln_2", "mlp", "ln_f")
    kept, missing = [n for n in names if has[n]], [n for n in names if not has[n]]
    text = _("tokens → wte + wpe → {n} × [x + c_proj(attention(c_attn(x))), {heads}] → x @ wte.T → logits").format(
        n=n_blocks, heads=heads
    )
    if kept:
        text += _("; with {parts}").format(parts=listed(kept))
    if missing:
        text += _("; without {parts} (dashed)").format(parts=listed(missing))
    return text
