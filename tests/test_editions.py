"""The Chinese edition is the English one: the same notebooks, the same code, prose in Chinese (the
comments, docstrings and task statements of the code too)."""

import ast
import io
import json
import re
import sys
import tokenize
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ENGLISH = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
LANGUAGE_CELL = 'import handmade\n\nhandmade.set_language("zh")'
MESSAGE_CALLS = ("_", "N_", "ngettext")

sys.path.insert(0, str(ROOT / "tools"))
messages = pytest.importorskip("messages", reason="the catalogue tools need Babel: pip install babel")
import cell_language  # noqa: E402


def cells(path, kind):
    """The text of each cell of ``kind`` of the notebook at ``path``, as written (without the mark of its language)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [
        cell_language.unmarked("".join(cell["source"])).strip()
        for cell in notebook["cells"]
        if cell["cell_type"] == kind
    ]


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_every_markdown_cell_says_what_language_it_is_in(edition):
    """A screen reader reads a cell in the language its page names: each cell names its own (JupyterLab's page is
    in JupyterLab's language, whichever edition it shows)."""
    left = [f"{path.relative_to(ROOT)} cell {i}" for path, i in cell_language.cells_to_mark(edition)]
    assert not left, f"not marked (python3 tools/cell_language.py --write marks them): {left[:5]}"


CHINESE_PART = re.compile(r'<span lang="zh-CN">[^<]*</span>')
HAN = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")  # Han characters, and Chinese punctuation


@pytest.mark.parametrize("name", ENGLISH)
def test_a_chinese_word_in_the_english_edition_says_it_is_chinese(name):
    """An English cell's lang is en: a Chinese word in it (中文版, the link to the Chinese edition) sits in a span that
    names its own language, or a screen reader reads it with an English voice."""
    left = [HAN.findall(CHINESE_PART.sub("", text)) for text in cells(NOTEBOOKS / name, "markdown")]
    assert not any(left), left


@given(st.text(alphabet='ab <>/="\n`#-', max_size=40), st.sampled_from(["en", "zh-CN"]))
def test_a_cells_mark_is_put_once_and_taken_off_whole(text, tag):
    once = cell_language.marked(text, tag)
    assert cell_language.marked(once, tag) == once
    assert cell_language.unmarked(once) == cell_language.unmarked(text)
    assert cell_language.tag_of(once) == (tag if cell_language.unmarked(text).strip() else None)
    other = cell_language.marked(once, "en" if tag != "en" else "zh-CN")
    assert cell_language.unmarked(other) == cell_language.unmarked(text)


def docstrings(tree):
    """The (line, column) where each docstring of ``tree`` starts."""
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        (node.body[0].lineno, node.body[0].col_offset)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and ast.get_docstring(node, clean=False) is not None
    }


def code(python):
    """The tokens of ``python`` that are code, each with its column: no comment, each docstring one
    token ``<docstring>``, and a string that is Python code itself (a task file a cell writes) its own
    code's tokens, so that its comments and docstrings may be translated too."""
    starts, found = docstrings(ast.parse(python)), []
    for token in tokenize.generate_tokens(io.StringIO(python).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if token.type == tokenize.STRING and token.start in starts:
            found.append("<docstring>")
        elif token.type == tokenize.STRING and (inner := python_in(token.string)) is not None:
            found.append(("<python>", code(inner)))
        elif token.type == tokenize.NEWLINE:  # its column is where a line's comment began
            found.append("<newline>")
        else:
            found.append((token.type, token.string, token.start[1]))
    return found


def python_in(literal):
    """The text of a string literal when it is Python that defines something, else None."""
    try:
        text = ast.literal_eval(literal)
        tree = ast.parse(text) if isinstance(text, str) else None
    except (SyntaxError, ValueError):
        return None
    defines = tree and any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in ast.walk(tree))
    return text if defines else None


def without_prose(source):
    """A code cell as its code: its shell lines as written, its Python as ``code`` reads it."""
    shell = [line for line in source.splitlines() if line.lstrip().startswith(("%", "!"))]
    return shell, code(messages.python_of(source))


def test_every_notebook_has_its_chinese_twin_and_no_other():
    assert sorted(p.name for p in (NOTEBOOKS / "zh").glob("*.ipynb")) == ENGLISH


@pytest.mark.parametrize("name", ENGLISH)
def test_the_code_is_the_same_but_for_choosing_the_language_once_at_the_top(name):
    english, chinese = cells(NOTEBOOKS / name, "code"), cells(NOTEBOOKS / "zh" / name, "code")
    assert chinese[0] == LANGUAGE_CELL, "the first code cell of a Chinese notebook chooses the language"
    assert len(chinese[1:]) == len(english), "every other code cell is the English notebook's, in the same order"
    for number, (theirs, ours) in enumerate(zip(english, chinese[1:]), 1):
        assert without_prose(ours) == without_prose(theirs), f"code cell {number}: only the prose may differ"


def test_the_comparison_sees_code_and_not_prose():
    cell = 'def f(x):\n    """Say x."""\n    return x + 1  # one more\n!ls'
    assert without_prose(cell) == without_prose(cell.replace("Say x.", "说 x。").replace("one more", "多一"))
    for old, new in [("x + 1", "x + 2"), ("x + 1", "x +1"), ("!ls", "!ls -a"), ("x + 1", 'x + 1\n    """Say x."""')]:
        assert without_prose(cell.replace(old, new)) != without_prose(cell), new
    homework = 'Path("h.py").write_text("""@task\ndef f(c):\n    \'\'\'Say it.\'\'\'\n    return c[-1]\n""")'
    assert without_prose(homework) == without_prose(homework.replace("Say it.", "说它。"))
    assert without_prose(homework) != without_prose(homework.replace("c[-1]", "c[0]"))
    assert without_prose('print("Say it.")') != without_prose('print("说它。")')


@pytest.mark.parametrize("name", ENGLISH)
def test_the_prose_is_translated(name):
    english, chinese = cells(NOTEBOOKS / name, "markdown"), cells(NOTEBOOKS / "zh" / name, "markdown")
    assert len(chinese) >= len(english) - 1
    han = sum(1 for text in chinese for c in text if "\u4e00" <= c <= "\u9fff")
    assert han > 0.2 * sum(len(text) for text in chinese), "mostly Chinese characters"
    assert not set(english) & set(chinese) - {""}, "no markdown cell left in English"


ENGLISH_WORD = re.compile(r"[A-Za-z][a-z]+(?:'[a-z]+)?[,.;:!?]?")
NAMES = re.compile(r"prev|T[a-z0-9]|[A-Za-z]")  # a model's labels (prev a, Ta, V) and letters


def english_words(text):
    """The longest run of English words in ``text``: words inside backticks and code-like tokens
    (``my_xor``, ``h0·...``, ``x @ wte.T``, numbers, symbols) break a run, as Chinese does; a
    model's labels and single letters (``prev a``, ``Ta``, ``V``) are not counted."""
    text = re.sub(r"`[^`]*`", " ", text)
    longest = run = 0
    for word in text.split():
        word = word.strip("(\"'").rstrip(")")
        if NAMES.fullmatch(word.rstrip(",.;:!?")):
            continue  # neither English nor Chinese: a run goes on over it
        run = run + 1 if ENGLISH_WORD.fullmatch(word) else 0
        longest = max(longest, run)
    return longest


def prose(source):
    """(kind, text) of what a code cell says to the reader outside the catalogue: its comments, its
    docstrings (the task statements among them) and its other strings, not those in ``_(...)``."""
    python = messages.python_of(source)
    tree, said = ast.parse(python), []
    for token in tokenize.generate_tokens(io.StringIO(python).readline):
        if token.type == tokenize.COMMENT:
            said.append(("comment", token.string))
    marked = {id(n) for call in ast.walk(tree) if is_message_call(call) for n in ast.walk(call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in marked:
            inner = python_in(repr(node.value))
            said.extend(prose(inner) if inner is not None else [("string", node.value)])
    return said


def is_message_call(node):
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) in MESSAGE_CALLS


@pytest.mark.parametrize("name", ENGLISH)
def test_the_chinese_code_cells_speak_chinese(name):
    english = [
        f"code cell {number}: {kind} {text!r}"
        for number, source in enumerate(cells(NOTEBOOKS / "zh" / name, "code"))
        for kind, text in prose(source)
        if english_words(text) >= 4
    ]
    assert not english, "English in the Chinese notebook's code:\n" + "\n".join(english)


def test_english_words_counts_prose_not_code():
    assert english_words("# your model: start from the blank one") == 7
    assert english_words("# Try it: xor with one head and no MLP") == 8
    assert english_words("# 你的模型：从 `blank(task)` 开始，在下面搭") == 0
    assert english_words("# P0..P5 | Ta Tb Tc | prev a, prev b, prev c") == 0
    assert english_words("# the value column V, by its name") == 6


def statements(path):
    """{task: statement} of the tasks a notebook's code cells define."""
    python = [messages.python_of(source) for source in cells(path, "code")]
    return {name: text for source in python for name, text, _line in messages.task_statements(source)}


@pytest.mark.parametrize("name", ENGLISH)
def test_the_tasks_a_chinese_notebook_defines_are_stated_as_the_catalogue_translates_them(name):
    english, chinese = statements(NOTEBOOKS / name), statements(NOTEBOOKS / "zh" / name)
    catalogue = {m.id: m.string for m in messages.read("zh") if m.id}
    assert sorted(chinese) == sorted(english)
    for task, statement in english.items():
        assert chinese[task] == catalogue.get(statement), f"the task {task}: its statement is the catalogue's"


def test_each_start_page_links_to_the_other_edition():
    assert "zh/00_start_here.ipynb" in " ".join(cells(NOTEBOOKS / "00_start_here.ipynb", "markdown"))
    assert "../00_start_here.ipynb" in " ".join(cells(NOTEBOOKS / "zh" / "00_start_here.ipynb", "markdown"))


def outputs(path):
    """The text of every stored output of a notebook: its streams and its text/plain results."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                yield "".join(output["text"])
            if "text/plain" in output.get("data", {}):
                yield "".join(output["data"]["text/plain"])


@pytest.mark.parametrize("name", ENGLISH)
def test_a_full_width_colon_is_followed_by_no_space_in_the_chinese_outputs(name):
    """``print(_("label:"), value)`` puts print's space after a translated label's full-width colon:
    a label and its value are one message, ``_("label: {value}")``, translated "标签：{value}"."""
    spaced = [line for text in outputs(NOTEBOOKS / "zh" / name) for line in text.splitlines() if "： " in line]
    assert not spaced, "a space after ：in the stored outputs:\n" + "\n".join(spaced)


# a number below 1e-8 written with more than one significant digit: 4.999626e-18, 2.806315e-13
NOISE = re.compile(r"(?<![\w.])-?\d\.\d+e-(?:0?9|[1-9]\d+)\b", re.I)


def noise_figures(text):
    """The numbers in ``text`` that a machine's floating point may change: below 1e-8 and written to
    more than one digit. A stored output states such a number as the maths fixes it (a bound, an order
    of magnitude, an expression) and asserts the rest, or another machine's nbval reads a difference."""
    return NOISE.findall(text)


def test_the_noise_check_finds_what_it_looks_for():
    said = "the weight at row 1, column 1: 4.999626e-18\nthe check: 2.8063146353260925E-13, -1.5e-9"
    assert noise_figures(said) == ["4.999626e-18", "2.8063146353260925E-13", "-1.5e-9"]
    assert noise_figures("below 1e-12; about 6e-158; 1.5e-3; 0.25; e^(69/√3); 1e-18 and 1e-17") == []


@pytest.mark.parametrize("name", [*ENGLISH, *(f"zh/{n}" for n in ENGLISH)])
def test_no_stored_output_prints_a_figure_at_floating_point_noise(name):
    found = [figure for text in outputs(NOTEBOOKS / name) for figure in noise_figures(text)]
    assert not found, f"{name} prints {found[:3]}: state a bound, and assert the figure"


@pytest.mark.parametrize("name", [*ENGLISH, *(f"zh/{n}" for n in ENGLISH)])
def test_a_site_or_jupyter_mark_never_opens_a_line_of_text(name):
    """A line that opens with an HTML comment is an HTML block to Markdown: JupyterLab would show the
    words after the comment raw (a `solution(...)` with its backticks). A mark that opens a line holds
    the rest of it (or stands alone); else it comes after some words of the line."""
    cells = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]
    lines = [line for c in cells if c["cell_type"] == "markdown" for line in "".join(c["source"]).splitlines()]
    opened = [
        line for line in lines if line.lstrip().startswith("<!--") and re.sub(r"<!--.*?(-->|$)", "", line).strip()
    ]
    assert not opened, opened[:3]
