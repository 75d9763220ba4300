"""A diagram of the model, drawn from the weights: the GPT-2 block with GPT-2's names.

``diagram(params)`` draws the path of the residual stream from the tokens to the logits, with the
block's two branches (attention, and the MLP) leaving it and adding back into it. Parts the model
does not have (the blog's has no layer norms and no MLP) are drawn dashed and grey, so the figure
shows both what GPT-2 has and what this model keeps.
"""

import html

from ..i18n import _
from ..inference import prepare
from .outputs import Svg

INK, FAINT, ACCENT = "#222", "#aaa", "#c0392b"


def _box(x, y, w, h, label, sub="", present=True, fill="#fff"):
    colour = INK if present else FAINT
    dash = "" if present else ' stroke-dasharray="4 3"'
    parts = [
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{fill if present else "#fff"}" stroke="{colour}"{dash}/>'
    ]
    text_y = y + h / 2 + (-3 if sub else 4)
    parts.append(
        f'<text x="{x + w / 2}" y="{text_y}" text-anchor="middle" font-size="13.5" fill="{colour}" font-family="monospace">{html.escape(label)}</text>'
    )
    if sub:
        parts.append(
            f'<text x="{x + w / 2}" y="{y + h / 2 + 11}" text-anchor="middle" font-size="11" fill="{colour}" font-family="sans-serif">{html.escape(sub)}</text>'
        )
    return "".join(parts)


def _arrow(x1, y1, x2, y2, present=True):
    colour = INK if present else FAINT
    dash = "" if present else ' stroke-dasharray="4 3"'
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="1.4" marker-end="url(#hm-arrow)"{dash}/>'


def _plus(x, y, present=True):
    colour = INK if present else FAINT
    return (
        f'<circle cx="{x}" cy="{y}" r="8" fill="#fff" stroke="{colour}"/>'
        f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="13" fill="{colour}">+</text>'
    )


def diagram(params=None):
    """The model's forward pass as an SVG figure, with GPT-2's names (the blog's model when None)."""
    params = prepare(params)  # the blog's model when None; checked, so bad weights get the usual one line
    blocks = params["blocks"]
    block = blocks[0] if blocks else {}
    has = {name: name in block for name in ("ln_1", "ln_2", "mlp")}
    has["ln_f"] = "ln_f" in params
    n_head = block.get("n_head", 1)
    line_y, width = 130, 1060
    s = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" style="max-width:{width}px" viewBox="0 0 {width} 200" font-family="sans-serif">',
        '<defs><marker id="hm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{INK}"/></marker></defs>',
    ]
    stream = _("the residual stream x")
    # the residual stream, left to right
    s.append(_box(10, line_y - 20, 64, 40, "tokens", _("ids")))
    s.append(_arrow(74, line_y, 92, line_y))
    s.append(_box(92, line_y - 22, 120, 44, "wte + wpe", _("embedding")))
    s.append(f'<line x1="212" y1="{line_y}" x2="890" y2="{line_y}" stroke="{ACCENT}" stroke-width="2.2"/>')
    s.append(f'<text x="250" y="{line_y + 20}" font-size="10.5" fill="{ACCENT}">{html.escape(stream)}</text>')
    # the block
    n = len(blocks)
    s.append(
        f'<rect x="232" y="8" width="644" height="{line_y + 30}" rx="8" fill="none" stroke="#888" stroke-dasharray="6 4"/>'
    )
    repeated = _("blocks[i] ×{n} (transformer_block)").format(n=n)
    s.append(f'<text x="240" y="{line_y + 52}" font-size="11" fill="#555">{html.escape(repeated)}</text>')
    # the attention branch: leaves the stream, comes back through +
    heads = _("{n} heads").format(n=n_head) if n_head > 1 else _("1 head")
    s.append(
        f'<path d="M250,{line_y} L250,48 L262,48" fill="none" stroke="{INK}" stroke-width="1.4" marker-end="url(#hm-arrow)"/>'
    )
    s.append(_box(262, 30, 44, 36, "ln_1", "", has["ln_1"]))
    s.append(_arrow(306, 48, 318, 48))
    s.append(_box(318, 30, 80, 36, "c_attn", "q | k | v"))
    s.append(_arrow(398, 48, 410, 48))
    s.append(
        _box(410, 22, 156, 52, "attention", _("softmax(qkᵀ/√d + mask)·v, {heads}").format(heads=heads), fill="#fff6e5")
    )
    s.append(_arrow(566, 48, 578, 48))
    s.append(_box(578, 30, 60, 36, "c_proj"))
    s.append(
        f'<path d="M638,48 L652,48 L652,{line_y - 9}" fill="none" stroke="{INK}" stroke-width="1.4" marker-end="url(#hm-arrow)"/>'
    )
    s.append(_plus(652, line_y))
    # the MLP branch, the same way
    mlp = has["mlp"]
    colour, dash = (INK, "") if mlp else (FAINT, ' stroke-dasharray="4 3"')
    s.append(f'<path d="M672,{line_y} L672,48 L682,48" fill="none" stroke="{colour}" stroke-width="1.4"{dash}/>')
    s.append(_box(682, 30, 44, 36, "ln_2", "", has["ln_2"]))
    s.append(f'<line x1="726" y1="48" x2="736" y2="48" stroke="{colour}" stroke-width="1.4"{dash}/>')
    s.append(_box(736, 30, 112, 36, "mlp", "c_fc · gelu · c_proj", mlp))
    s.append(f'<path d="M848,48 L858,48 L858,{line_y - 9}" fill="none" stroke="{colour}" stroke-width="1.4"{dash}/>')
    s.append(_plus(858, line_y, mlp))
    # after the blocks
    s.append(_box(890, line_y - 18, 44, 36, "ln_f", "", has["ln_f"]))
    s.append(_arrow(934, line_y, 946, line_y))
    s.append(_box(946, line_y - 22, 104, 44, "x @ wte.T", _("logits")))
    s.append("</svg>")
    kept = [name for name in ("ln_1", "ln_2", "mlp", "ln_f") if has[name]]
    missing = [name for name in ("ln_1", "ln_2", "mlp", "ln_f") if not has[name]]
    text = _("tokens → wte + wpe → {n} × [x + c_proj(attention(c_attn(x))), {heads}] → x @ wte.T → logits").format(
        n=n, heads=heads
    )
    if kept:
        text += _("; with {parts}").format(parts=", ".join(kept))
    if missing:
        text += _("; without {parts} (dashed)").format(parts=", ".join(missing))
    return Svg("".join(s), text)
