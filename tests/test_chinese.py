"""The Chinese edition reads as Chinese: its prose is typeset as Chinese, and what its notebooks
print and draw is Chinese too, but for code.

Two kinds of check, both over the stored notebooks (no kernel is started):

- the prose (markdown cells): no hard line break inside a paragraph with a Chinese character or
  full-width punctuation on either side of it (it renders as a stray space: 。 GELU, 的 cos), no
  half-width parentheses beside Chinese (full-width （） there), no doubled brackets (键（key）（…）),
  no italics on Chinese (a fake slant: bold or “” instead);
- the outputs (stream text, text/plain, HTML and SVG with their tags stripped, the widgets'
  snapshots, which are HTML): no English word that is not code.

What counts as code, and why, is spelled out in ``is_code`` below: it is derived from the notebook's
own code cells and from the package's names, not listed from what the outputs happen to hold today.
"""

import ast
import html
import json
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHINESE = sorted((NOTEBOOKS / "zh").glob("[0-9][0-9]_*.ipynb"))
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = HAN + "\u3000-\u303f\uff00-\uffef"  # characters and their full-width punctuation


def notebook(path):
    return json.loads(path.read_text(encoding="utf-8"))


def markdown_cells(path):
    return ["".join(cell["source"]) for cell in notebook(path)["cells"] if cell["cell_type"] == "markdown"]


def code_cells(path):
    return ["".join(cell["source"]) for cell in notebook(path)["cells"] if cell["cell_type"] == "code"]


# ---------------------------------------------------------------- the prose


def prose(markdown):
    """The markdown's text with code, maths, links' targets and HTML tags taken out (they are not prose)."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "`code`", text)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", "$math$", text, flags=re.S)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)  # a link's target
    return re.sub(r"<[^>\n]+>", " ", text)


def paragraphs(markdown):
    """Runs of lines that markdown joins into one paragraph: not lists, headings, tables, quotes or code."""
    block = r"^\s*([-*+]\s|\d+[.)]\s|#|\||>|```|<|\$\$)"
    text = re.sub(r"```.*?```", "\n\n", markdown, flags=re.S)
    for chunk in re.split(r"\n\s*\n", text):
        lines = chunk.split("\n")
        run = []
        for line in lines:
            if re.match(block, line):  # a new block starts: what came before ends
                if len(run) > 1:
                    yield run
                run = [line] if re.match(r"^\s*([-*+]\s|\d+[.)]\s|>)", line) else []
            else:
                run.append(line)
        if len(run) > 1:
            yield run


FAULTS = {
    "a line break beside Chinese inside a paragraph (renders as a space)": None,
    # a gloss in half-width parentheses, (residual connection) or (*Coriolanus*), beside Chinese; not
    # a call (log(x), √(d)), a pattern ((aab)*) or a pair of numbers ((0, 0))
    "half-width parentheses around a term beside Chinese (use （）)": re.compile(
        rf"(?:[{CJK}]\s*|^)\((?=[*_]*[A-Za-z]{{2}})[^()\n]*\)(?![*\\])"
        rf"|(?<![\w√])\((?=[*_]*[A-Za-z]{{2}})[^()\n]*\)(?![*\\])\s*[{HAN}]",
        re.M,
    ),
    "doubled brackets": re.compile(r"）\s*[（(]"),
    "italics on Chinese (a fake slant: use bold or “”)": re.compile(
        rf"(?<![*A-Za-z0-9)\\])\*(?=[^\s*])[^*\n]*[{HAN}][^*\n]*(?<=[^\s*\\])\*(?![*A-Za-z0-9])"
        rf"|(?<![_\w\\])_(?=[^\s_])[^_\n]*[{HAN}][^_\n]*(?<=[^\s_\\])_(?![_\w])"
    ),
}


def faults(markdown):
    found = []
    for run in paragraphs(markdown):
        for before, after in zip(run, run[1:]):
            end, start = prose(before).rstrip(" *_")[-1:], prose(after).lstrip(" *_")[:1]  # through **bold**
            intended = before.endswith(("  ", "\\"))  # a hard break markdown keeps
            beside = re.match(rf"[{CJK}]", end) or re.match(rf"[{CJK}]", start)  # next to Latin or code too
            if end and start and beside and not intended:
                found.append((list(FAULTS)[0], f"{before[-20:]}⏎{after[:20]}"))
    text = prose(markdown)
    for fault, pattern in list(FAULTS.items())[1:]:
        found += [(fault, text[max(0, m.start() - 12) : m.end() + 12]) for m in pattern.finditer(text)]
    return found


@pytest.mark.parametrize("path", CHINESE, ids=lambda p: p.stem)
def test_the_chinese_prose_is_typeset_as_chinese(path):
    found = [f"{fault}: …{where}…" for cell in markdown_cells(path) for fault, where in faults(cell)]
    assert not found, "\n".join(found)


def test_the_prose_checks_find_each_fault():
    assert faults("第一行\n第二行")  # a hard line break between Chinese characters
    assert faults("恒等映射（identity）。\nGELU 不是线性的") and faults("满分的\ncos 72°")  # or beside Latin
    assert faults("`handmade.two_head_model()`\n把每个位置") and faults("- 分毫不差：\n  `tests/x.py` 检查")
    assert not faults("an English line\nand the next") and not faults("第一行\n\n`code` 第二段")
    assert not faults("第一行\n\n第二行") and not faults("- 一\n- 二") and not faults("第一行  \n第二行")
    assert faults("词元(token)") and faults("权重 (weights) 是") and not faults("词元（token）")
    assert faults("键（key）（见上）") and not faults("键（key）和值（value）")
    assert faults("看 *读的是哪个位置* 吧") and faults("看 _哪个_ 吧") and not faults("看 **哪个** 和 *x* 吧")
    assert faults("减去*它自己*的最大值") and not faults("选 (aab)* 而不是 (ab)*")
    assert not faults("`f(x)` 是代码") and not faults("$f(x)$ 是公式")


# ---------------------------------------------------------------- the outputs


@cache
def english_vocabulary():
    """Words the English edition uses as English: its prose (code and maths taken out). A word of
    an output that is also a name in code is flagged only if it is one of these and shows up
    outside code (a bare ``loss`` is English; ``loss(...)`` and ``held_loss`` are code)."""
    words = set()
    for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"):
        for cell in markdown_cells(path):
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", prose(cell).replace("`code`", " ")))
    return words


@cache
def tensor_names():
    """Names that are code wherever they appear, even where they are English words too: the keys of
    the weights (wte, c_attn, mlp, ...), the intermediates a trace shows (scores, residual, ...), the
    tasks (first, majority, ...) and the package's classes (Playground, Basis, ...)."""
    import handmade
    from handmade.course.tasks import TASKS
    from handmade.names import INTERMEDIATES

    weights = handmade.blog_model()
    names = set(INTERMEDIATES) | set(TASKS) | set(weights) | {"mlp", "c_fc"}  # with the parts the blog leaves out
    names |= {key for block in weights["blocks"] for key in block}
    names |= {key for block in weights["blocks"] for part in block.values() for key in part}
    for path in (ROOT / "handmade").rglob("*.py"):
        names |= {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.ClassDef)}
    return names


@cache
def package_names():
    """Names of the package a learner may meet as code: its functions, their keyword arguments,
    its constants (code when they are not also English words, see ``is_code``)."""
    import handmade

    names = set(handmade.__all__)
    for path in (ROOT / "handmade").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def notebook_names(path):
    """Every identifier the notebook's code cells use: variables, functions, attributes, keywords."""
    names = set()
    for source in code_cells(path):
        source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            for field in ("id", "attr", "arg", "name", "asname"):
                value = getattr(node, field, None)
                if isinstance(value, str):
                    names.update(value.split("."))
    return names


@cache
def token_words():
    """Texts of tokens: words over a task's alphabet (aabaa, abcab) and the worked example's words."""
    from handmade.course.tasks import TASKS
    from handmade.course.worked_example import VOCABULARY

    alphabets = {task.alphabet for task in TASKS.values()}
    words = {w for word in VOCABULARY for w in re.findall(r"[A-Za-z]+", word)}
    return alphabets, words


# Words that stay as they are in a Chinese text, each for a reason:
TERMS = {
    "softmax", "argmax", "logits", "logit", "MLP", "GELU", "ReLU", "XOR", "FLOPs", "FLOP",  # the field's own terms, kept in Latin letters by Chinese writing on it (and by this edition's prose)
    "GPT", "picoGPT", "numpy", "NumPy", "JAX", "Python", "Jupyter", "JupyterLab", "nbviewer", "GitHub",  # names of things
    "mov", "cmp", "jne", "je", "ret", "rdi", "rsi", "al",  # x86 assembly in notebook 13
    "ln", "exp", "sqrt", "log", "max", "min", "inf", "nan", "var", "cos", "sin", "e",  # maths
    "True", "False", "None",  # Python's values, printed as Python prints them
    "id", "ids",  # as Chinese technical writing says it (词元 id)
    "xy", "xyz",  # letters that stand for any tokens, in the tasks' statements ("xy 后面接 x")
    "KB", "MB", "ms", "µs",  # units
}  # fmt: skip


def is_code(word, before, after, allowed, tokens=frozenset()):
    """Whether ``word`` (seen between the texts ``before`` and ``after``) is code rather than English."""
    if len(word) == 1 or word in TERMS or not re.search("[a-z]", word, re.I):
        return True  # a letter (a token, a variable), a term of the field
    if re.search(r"[_0-9]", word) or re.search(r"[a-z][A-Z]", word):  # c_proj, ln_1, FlopCounter
        return True
    if re.fullmatch(r"T[a-z]|P(\d+|i|j)|t\d+", word):  # the names of directions: Ta, P0, Pi, t3
        return True
    if word in tensor_names():
        return True  # wte, scores, first, Playground
    if re.match(r"\s*[(\[.=/]", after) or re.search(r"[.\[(/]\s*$", before) and not re.search(r"\s\.\s*$", before):
        return True  # called, indexed, an index, an attribute, an argument, a path: f(x), wte[tokens], a.b, n=3
    if re.search(r"\w\([^()]*$", before) and re.match(r"[^()]*\)", after):
        return True  # an argument among others: attention(q, k, v, mask)
    if re.match(r"\s*[@*+−-]\s*\w", after) or re.search(r"[@=]\s*$", before):
        return True  # a term of a formula: loop = triangle @ x
    if re.search(rf"[{HAN}]（[^（）]*$", before) and re.match(r"[^（）]*）", after):
        return True  # a gloss: 间隔（margin）, the term in English beside the Chinese one, as the prose does
    if word in tokens or any(set(word) <= set(alphabet) for alphabet in token_words()[0]):
        return True  # a token's text
    return word in package_names() and word.lower() not in english_vocabulary() or word in allowed


@cache
def english_code_words():
    """Words the English edition itself writes as code, in backticks, and never as a plain word:
    `prev a`, `two_back`."""
    words = set()
    for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"):
        for cell in markdown_cells(path):
            for span in re.findall(r"`([^`\n]+)`", cell):
                words.update(re.findall(r"[A-Za-z][A-Za-z0-9_]*", span))
    return {word for word in words if word.lower() not in english_vocabulary()}


def chinese_terms(path):
    """Latin words the Chinese prose of this notebook uses as its own, outside glosses: softmax, Lg."""
    text = " ".join(prose(cell) for cell in markdown_cells(path))
    text = re.sub(r"（[^（）]*）", " ", text)  # 间隔（margin）: a gloss, not a term the prose adopts
    return set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", text.replace("`code`", " ")))


def output_texts(output):
    """(kind, text) for what a reader sees of one output, as plain text, code listings taken out."""
    data = output.get("data", {})
    if output["output_type"] == "stream":
        yield "stream", "".join(output["text"])
    for kind in ("text/html", "image/svg+xml"):
        if kind in data:
            text = "".join(data[kind])
            text = re.sub(r"<(code|kbd|style|script)\b.*?</\1>", " ", text, flags=re.S)  # code is code,
            text = re.sub(r"<pre class=\"handmade-code\".*?</pre>", " ", text, flags=re.S)  # and so is shown source
            text = re.sub(r"<[^>]+>", " ", text)
            yield kind, html.unescape(text)
    if "text/plain" in data and not ({"text/html", "image/svg+xml", "image/png", "text/latex"} & set(data)):
        yield "text/plain", "".join(data["text/plain"])
    if output["output_type"] == "error":
        yield "error", output.get("evalue", "")


def prints_data(source):
    """Whether a cell prints text that the model wrote or the corpus holds (samples, quotes)."""
    return bool(re.search(r"\bsample\(|print\(text\[|print\(repr\(", source))


def english_words(path):
    """(word, line) for each English word in the notebook's stored outputs that is not code."""
    names = notebook_names(path)
    allowed = {name for name in names if name.lower() not in english_vocabulary()}
    allowed |= english_code_words() | chinese_terms(path)
    tokens = token_words()[1] if "worked_example" in names else frozenset()  # notebook 11's words are tokens
    found = []
    for cell in notebook(path)["cells"]:
        if cell["cell_type"] != "code":
            continue
        data = prints_data("".join(cell["source"]))
        for output in cell.get("outputs", []):
            for kind, text in output_texts(output):
                # the model's diagram is drawn with the code's own names (attention, gelu, mlp)
                names = allowed | package_names() if kind == "image/svg+xml" else allowed
                text = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", "''", text)  # a value's repr: 'aabaa'
                for line in text.splitlines():
                    if data and not re.search(f"[{HAN}]", line):
                        continue  # the model's or the corpus's text; lines with Chinese in them are messages
                    for m in re.finditer(r"[A-Za-z][A-Za-z0-9_]*", line):
                        if not is_code(m.group(), line[: m.start()], line[m.end() :], names, tokens):
                            found.append((m.group(), line.strip()[:100]))
    return found


@pytest.mark.parametrize("path", CHINESE, ids=lambda p: p.stem)
def test_the_chinese_notebooks_print_no_english_but_code(path):
    found = english_words(path)
    lines = sorted({f"{word!r} in: {line}" for word, line in found})
    assert not found, f"{len(lines)} English words outside code:\n" + "\n".join(lines[:40])


def test_the_output_check_tells_english_from_code():
    assert not is_code("the", "", " loss", set()) and not is_code("loss", "the ", "", set())
    assert not is_code("PASS", "", "", set()) and not is_code("yet", "not ", "", set())
    for word, before, after in [("c_proj", "", ""), ("loss", "", "(params)"), ("aabaa", "", ""), ("Ta", "", "")]:
        assert is_code(word, before, after, set()), word
    assert is_code("softmax", "", "", set()) and is_code("wte", "", "", set()) and is_code("Tb", "", "", set())


# ---------------------------------------------------------------- the plots

LABELS = {"xlabel", "ylabel", "title", "label", "suptitle", "set_title", "set_xlabel", "set_ylabel", "text"}


def literal_labels(source):
    """The English string literals a cell hands matplotlib (or a heatmap) as a label: a title, an
    axis's name, a legend's entry, a text drawn on the axes. A literal inside ``_()`` is a message,
    not a literal; formulas and names (gelu(z), z, x0) are code."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        values = [k.value for k in node.keywords if k.arg in LABELS]
        if name in LABELS - {"xlabel", "ylabel", "title", "label"}:
            values += node.args[2:3] if name == "text" else node.args[:1]
        for value in values:
            for part in [value, *getattr(value, "values", [])]:  # an f-string's pieces too
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    words = [w for w in re.findall(r"[A-Za-z]{2,}", part.value) if w.lower() in english_vocabulary()]
                    code = re.fullmatch(r"[\w.]+\([^()]*\)|[\w.]*[._\d][\w.]*", part.value.strip())
                    if words and not code:  # gelu(z) and wte.T are code
                        found.append(part.value)
    return found


def drawn(source):
    """``source`` without its calls of ``show_figure``, whose words (a figure's alt) are said, not drawn."""
    calls = [
        n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "show_figure"
    ]
    for call in calls:
        source = source.replace(ast.get_source_segment(source, call), "show_figure()")
    return source


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_every_label_a_plot_draws_is_a_message(path):
    sources = [re.sub(r"(?m)^\s*[%!].*$", "", source) for source in code_cells(path)]
    found = [label for source in sources for label in literal_labels(source)]
    assert not found, f"labels drawn in English in both editions (mark them with _()): {found}"
    draws_itself = any(re.search(r"\bplt\.(subplots|figure)\(", s) and re.search(r"\b_\(", drawn(s)) for s in sources)
    if draws_itself:  # its own Chinese labels need the package's fonts, as its heatmaps have
        assert any('plt.rcParams["font.family"] = FONTS' in s for s in sources), "set the fonts: FONTS"


def test_the_words_of_a_figure_are_not_taken_for_its_labels():
    assert drawn('plt.plot(z)\nshow_figure(_("A line."))') == "plt.plot(z)\nshow_figure()"
    assert drawn('ax.set(title=_("loss"))\nshow_figure()') == 'ax.set(title=_("loss"))\nshow_figure()'


def test_the_label_check_finds_english_labels():
    assert literal_labels('ax.set(xlabel="step", ylabel="loss", title="the source")') == ["step", "loss", "the source"]
    assert literal_labels('ax.plot(x, y, label=f"after {n} steps")') == ["after ", " steps"]
    assert not literal_labels(
        'ax.set(xlabel=_("step")); ax.plot(z, g, label="gelu(z)"); ax.set(xlabel="z", title="wte.T")'
    )
