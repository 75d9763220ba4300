"""Small pieces of notebook display shared by every notebook and by the widgets.

Everything returns an ``Html`` object: rich HTML in Jupyter, GitHub and nbviewer, and a
readable plain-text twin elsewhere. Nothing here needs IPython.
"""

import html

STAGES = ("tokens", "embeddings", "q/k/v", "scores", "softmax", "values", "projection", "residual", "logits")


class Html:
    """HTML with a plain-text twin, displayed by Jupyter through ``_repr_html_``."""

    def __init__(self, markup, text=""):
        self.markup, self.text = markup, text or "(HTML)"

    def _repr_html_(self):
        return self.markup

    def __repr__(self):
        return self.text

    def __str__(self):
        return self.markup


def pipeline(*current):
    """The path from tokens to logits, with the stages this notebook covers highlighted."""
    unknown = [stage for stage in current if stage not in STAGES]
    if unknown:
        raise ValueError(f"unknown stage {unknown[0]!r}; the stages are {', '.join(STAGES)}")
    boxes, plain = [], []
    for stage in STAGES:
        here = stage in current
        style = "background:#ffd866;font-weight:bold;" if here else "background:#eee;color:#666;"
        boxes.append(f'<span style="{style}padding:2px 8px;border-radius:4px">{html.escape(stage)}</span>')
        plain.append(f"[{stage}]" if here else stage)
    arrow = ' <span style="color:#999">→</span> '
    return Html(f'<div style="font-family:sans-serif;margin:4px 0">{arrow.join(boxes)}</div>', " → ".join(plain))


def side_by_side(*parts):
    """Tables (anything with ``.html()`` or ``_repr_html_``) or HTML strings, in one row."""
    cells = "".join(f'<div style="margin-right:24px">{_markup(part)}</div>' for part in parts)
    return Html(
        f'<div style="display:flex;flex-wrap:wrap;align-items:flex-start">{cells}</div>', "(tables side by side)"
    )


def text_table(header, rows, title=""):
    """A table of words and numbers (not a matrix): a header row, then one row per item."""
    esc = html.escape
    head = "".join(f"<th style='text-align:left;padding:0 8px'>{esc(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td style='padding:0 8px;font-family:monospace'>{esc(str(c))}</td>" for c in row) + "</tr>"
        for row in rows
    )
    caption = f"<caption style='caption-side:top;text-align:left'>{esc(title)}</caption>" if title else ""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    lines = [title] if title else []
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header, *rows]]
    return Html(f"<table style='border-collapse:collapse'>{caption}<tr>{head}</tr>{body}</table>", "\n".join(lines))


def _markup(part):
    if isinstance(part, str):
        return part
    if hasattr(part, "html"):
        return part.html()
    return part._repr_html_()
