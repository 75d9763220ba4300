"""Showing the code that runs: the package's own source, read at run time, highlighted.

``show(handmade.attention)`` displays the function as it is in the installed package, so what a
notebook shows is what ran and cannot drift from it. ``show(gpt, highlight=["wte[inputs]"])``
picks out the lines a notebook is about; ``listing(...)`` puts several functions in one numbered
listing and finds, for each of a list of phrases, the line that holds it.
"""

import ast
import html
import inspect
import io
import sys
import textwrap
import tokenize

from ..arguments import brief, strings, text_of
from ..i18n import _
from .outputs import Html

# On white, pygments' default colours are all 4.5:1 or more (WCAG AA); a marked line is a pale
# yellow that keeps them so (#aa22ff, the lowest, 4.6:1), with a bar at its left edge, so that the
# mark is not carried by colour alone. Line numbers: #6b6b6b, 5.3:1.
CODE_STYLE = "font-family:monospace;font-size:12.5px;line-height:1.45;margin:4px 0;padding:6px 10px;"
CODE_STYLE += "background:#fff;border-left:3px solid #ccc;overflow-x:auto;white-space:pre"
MARK = "background:#fffbe0;box-shadow:inset 3px 0 #8a6d00;display:inline-block;min-width:100%"
MAX_CODE = 1_000_000  # characters of code shown as text: the request limit on texts


def source_of(fn, name="fn"):
    """The source of ``fn``, a function or class written in Python, as its file has it."""
    if not (inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isclass(fn)):
        raise TypeError(
            _("{name} must be a function or class written in Python; found {value}").format(name=name, value=brief(fn))
        )
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):  # made at run time, or in C: no file holds it
        raise ValueError(_("{name}: no file holds the source of {value}").format(name=name, value=brief(fn))) from None


def code_lines(fn):
    """How many lines of ``fn`` hold code: blank lines, comments and the docstring do not count."""
    source = source_of(fn)
    tree = ast.parse(source).body[0]
    docstring = set()
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        docstring = set(range(first.lineno, first.end_lineno + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstring)


def _highlighted(code):
    """``code`` as HTML lines with colours (pygments, when it is there), one string per line."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:  # plain, but still readable
        return [html.escape(line) for line in code.splitlines()]
    formatter = HtmlFormatter(noclasses=True, nowrap=True, style="default")
    coloured = highlight(code, PythonLexer(), formatter).rstrip("\n")
    # Pygments 2.21 began escaping quotes in text; they need no escaping there. Undo it, so the
    # stored notebook outputs are the same whichever version is installed.
    coloured = coloured.replace("&quot;", '"').replace("&#39;", "'").replace("&#x27;", "'")
    return coloured.split("\n")


def _block(code, marked=(), numbers=False):
    lines = _highlighted(code)
    out = []
    for i, line in enumerate(lines, 1):
        number = f'<span style="color:#6b6b6b;user-select:none">{i:>3}  </span>' if numbers else ""
        text = number + (line or " ")
        out.append(f'<span style="{MARK}">{text}</span>' if i in marked else text)
    return f'<pre class="handmade-code" style="{CODE_STYLE}">' + "\n".join(out) + "</pre>"


def _lines_with(code, phrases):
    """The 1-based numbers of the lines of ``code`` that contain any of ``phrases``."""
    missing = [p for p in phrases if p not in code]
    if missing:  # a notebook asked for a line the code no longer has: say so rather than mark nothing
        raise ValueError(_("the code shown has no line containing {phrase}").format(phrase=repr(missing[0])))
    return {i for i, line in enumerate(code.splitlines(), 1) if any(p in line for p in phrases)}


def code_block(code):
    """Code given as text (a solution, not a function of the package), highlighted."""
    return Html(_block(text_of(code, "code", MAX_CODE)), code)


def show(fn, highlight=(), caption=None):
    """The source of ``fn`` as it is in the package, with the lines holding ``highlight`` marked.

    The caption names ``fn`` where a learner finds it: by the nearest package above its module
    (``handmade`` itself aside) that offers the same function under the same name, so a function
    of ``handmade.training.backward`` that ``handmade.training`` re-exports is captioned
    ``handmade.training.linear_backward``.
    """
    code = source_of(fn)
    marked = _lines_with(code, strings(highlight, "highlight"))
    caption = None if caption is None else text_of(caption, "caption", 1000)
    module, parts = fn.__module__, fn.__module__.split(".")
    for package in (".".join(parts[:n]) for n in range(len(parts) - 1, 1, -1)):  # nearest first, not the root
        offered = sys.modules.get(package)
        for name in fn.__qualname__.split("."):  # a method: its class, then it
            offered = getattr(offered, name, None)
        if offered is fn:
            module = package
            break
    where = caption or _("{module}.{name}, as the package runs it").format(module=module, name=fn.__qualname__)
    head = f'<div style="font-size:12px;color:#555;margin-top:6px">{html.escape(where)}</div>'
    return Html(head + _block(code, marked), code)


def _notes(notes):
    """``notes`` as a list of (phrase, note) pairs of strings."""
    pairs = isinstance(notes, (list, tuple)) and all(
        isinstance(n, (list, tuple)) and len(n) == 2 and all(isinstance(x, str) for x in n) for n in notes
    )
    if not pairs:
        raise TypeError(
            _("notes must be a list of (phrase, note) pairs of strings; found {value}").format(value=brief(notes))
        )
    return notes


def listing(functions, notes=(), caption=None):
    """Several functions as one numbered listing, then a table: for each (phrase, note) in
    ``notes``, the number of the line that holds the phrase and the note (a notebook to read)."""
    if not isinstance(functions, (list, tuple)) or not functions:
        raise TypeError(_("functions must be a list of functions; found {value}").format(value=brief(functions)))
    code = "\n\n".join(source_of(fn, "functions").rstrip("\n") for fn in functions) + "\n"
    caption = None if caption is None else text_of(caption, "caption", 1000)
    rows = []
    for phrase, note in _notes(notes):
        number = min(_lines_with(code, [phrase]))
        rows.append((number, phrase, note))
    head = (
        f'<div style="font-size:12px;color:#555;margin-top:6px">{html.escape(caption or "")}</div>' if caption else ""
    )
    table = "".join(
        f"<tr><td style='text-align:right;padding:0 8px;color:#6b6b6b'>{n}</td>"
        f"<td style='padding:0 8px'><code>{html.escape(phrase)}</code></td><td style='padding:0 8px'>{html.escape(note)}</td></tr>"
        for n, phrase, note in rows
    )
    text = "\n".join(f"{i:>3}  {line}" for i, line in enumerate(code.splitlines(), 1))
    said = _("line {n}: {phrase}, {note}")  # the phrase quoted: it is code, a fragment of a line
    text += "".join("\n" + said.format(n=n, phrase=repr(phrase), note=note) for n, phrase, note in rows)
    markup = head + _block(code, numbers=True)
    if rows:
        markup += f"<table style='border-collapse:collapse;margin-top:6px'>{table}</table>"
    return Html(markup, text)
