"""The Chinese edition of what the package says and draws: the catalogue follows the glossary and
Chinese typesetting, sentences insert numbers rather than labelled phrases, what the system says
is put in Chinese, and every plot and the diagram draw Chinese (or code) with glyphs the fonts have."""

import errno
import html
import io
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import handmade
from handmade.course import checks
from handmade.course.solutions import reference
from handmade.course.tasks import TASKS, blank, get_task
from handmade.i18n import set_language

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import messages  # noqa: E402

GLOSSARY = ROOT / "handmade" / "locale" / "GLOSSARY.md"
CJK = "\u3400-\u9fff"


@pytest.fixture
def zh():
    set_language("zh")
    yield
    set_language("en")


def translations():
    """(msgid, msgstr) for every translated message of the Chinese catalogue (each plural form)."""
    for message in messages.read("zh"):
        if message.id:
            msgid = message.id if isinstance(message.id, str) else message.id[0]
            yield from ((msgid, s) for s in messages.strings(message.string))


# ---- the glossary ---------------------------------------------------------------------------


def forbidden_words():
    """The "never" column of the glossary's table: the words no translation may use."""
    words = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("English", "---"):
            for word in re.split(r"[,，]", re.sub(r"\(.*?\)", "", cells[3])):
                if word.strip():
                    words[word.strip()] = cells[0]
    return words


def test_the_glossary_lists_words_to_avoid():
    words = forbidden_words()
    assert {"令牌", "标记", "错过", "边距", "小部件"} <= set(words), words


# every Chinese text the project ships but the glossary itself and the fonts' list of characters
SHIPPED_FILES = (
    "README.md",
    "handmade/course/answers/zh.md",
    "handmade/display/plots.py",
    "handmade/reasons.py",
    "tools/site.py",
    "tools/site/README.md",
    "tools/site/locale/zh_CN/LC_MESSAGES/sphinx.po",
)


def notebook_texts(path):
    """Each cell's source and stored outputs of one notebook, in order: [(source, outputs), ...]."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [("".join(c["source"]), json.dumps(c.get("outputs", []), ensure_ascii=False)) for c in cells]


def chinese_texts():
    """(where, text) for every Chinese text the project ships: the catalogue's translations, the
    Chinese notebooks' cells with their stored outputs, the solutions, the website's own strings, the
    README (its Chinese section) and the package's Chinese tables."""
    yield from ((f"catalogue: {msgid[:60]!r}", s) for msgid, s in translations())
    for path in sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")):
        for i, (source, outputs) in enumerate(notebook_texts(path)):
            yield f"{path.name}, cell {i}", source + "\n" + outputs
    for name in SHIPPED_FILES:
        yield name, (ROOT / name).read_text(encoding="utf-8")


def allowed_compounds():
    """{word: its compounds that say something else}, from "(but ...)" in the "never" column: 目录 is
    never a folder, but 消息目录 is the message catalogue."""
    text = GLOSSARY.read_text(encoding="utf-8")
    return {
        word: re.findall(rf"[{CJK}]*{word}[{CJK}]*", but) for word, but in re.findall(r"(\S+) \(but ([^)]*)\)", text)
    }


def uses(text, word, allowed):
    for compound in allowed.get(word, ()):
        text = text.replace(compound, "")
    return word in text


def test_no_chinese_text_uses_a_word_the_glossary_forbids():
    words, allowed = forbidden_words(), allowed_compounds()
    assert allowed["目录"] == ["消息目录", "本页目录"]
    found = [(w, words[w], where) for where, text in chinese_texts() for w in words if uses(text, w, allowed)]
    assert not found, found[:20]


def test_the_texts_searched_include_each_kind():
    """The search above reads what it says it reads: a word planted in each kind of text is found."""
    kinds = {where.split(",")[0].split(":")[0] for where, _ in chinese_texts()}
    assert {"catalogue", "00_start_here.ipynb", "19_challenges_mlp_heads_blocks.ipynb", "tools/site.py"} <= kinds


def prose_between_code(path):
    """The markdown of one notebook between its code cells: [before code cell 0, before 1, ..., after
    the last]."""
    stretches = [""]
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            stretches.append("")
        else:
            stretches[-1] += "".join(cell["source"]) + "\n"
    return stretches


def aligned_texts():
    """(english, chinese) pairs that say the same thing: catalogue entries, and the two editions'
    prose between the same two code cells (the code is the same but for the Chinese notebook's first
    cell, which chooses the language: tests/test_editions.py)."""
    yield from translations()
    for zh in sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")):
        chinese = prose_between_code(zh)
        yield from zip(prose_between_code(ROOT / "notebooks" / zh.name), [chinese[0] + chinese[1], *chinese[2:]])


def test_a_shape_is_xingzhuang_and_jiegou_says_structure_only():
    """One idea, one word: a model's or a task's shape (its sizes) is 形状; 结构 is the structure."""
    pairs = [(re.sub(r"`[^`]*`|\{\w*\}", "", en), zh) for en, zh in aligned_texts()]  # words, not code
    wrong = [(en[:80], zh[:80]) for en, zh in pairs if re.search(r"\bshapes?\b", en, re.I) and "形状" not in zh]
    wrong += [(en[:80], zh[:80]) for en, zh in pairs if "结构" in zh and not re.search(r"structur", en, re.I)]
    assert not wrong, wrong[:10]


def test_bias_is_the_parameter_only():
    """偏置 says bias (the parameter), and only that: a tilt, such as the residual's bias towards
    repeating a token, is 偏向."""
    wrong = [(i, s) for i, s in translations() if "偏置" in s and not re.search(r"\bbias", i, re.I)]
    wrong += [(i, s) for i, s in translations() if re.search(r"residual(’s|'s)? bias", i, re.I) and "偏置" in s]
    assert not wrong, wrong


def test_a_missed_prediction_is_answered_wrong():
    said = [s for i, s in translations() if re.search(r"\bmissed\b", i)]
    assert said and all("答错" in s for s in said), said


# ---- typesetting --------------------------------------------------------------------------

PUNCTUATION = {
    "half-width punctuation in a Chinese sentence": rf"[{CJK}）][,;:!?]|[{CJK}]\.(\s|$)",
    "half-width brackets around Chinese (outside a formula)": rf"(?<![\w.\]])\([^()]*[{CJK}][^()]*\)",
    "an English term in half-width brackets after Chinese": rf"[{CJK}]\s*\([A-Za-z][A-Za-z -]*\)(?![*\w(])",
    "doubled brackets": r"）\s*（",
    "a space beside full-width punctuation": r" [，。；：！？、）]|[，。；：！？、（] ",
}


def _without_code(text):
    """``text`` with its placeholders and its formulas' arguments, f(梯度, 差) and √(头的宽度), left out."""
    return re.sub(r"(?<=[A-Za-z0-9_√])\([^()]*\)", "(…)", re.sub(r"\{[^{}]*\}", "X", text))


@pytest.mark.parametrize("fault", PUNCTUATION)
def test_the_catalogue_is_typeset_as_chinese(fault):
    rule = re.compile(PUNCTUATION[fault])
    found = [s for _, s in translations() if rule.search(_without_code(s))]
    assert not found, found[:10]


@pytest.mark.parametrize(
    "text, fault",
    [
        ("（上下文, 下一个字符）", "half-width punctuation in a Chinese sentence"),
        ("字母表 (alphabet)", "an English term in half-width brackets after Chinese"),
        ("平均 (上一步)", "half-width brackets around Chinese (outside a formula)"),
        ("键（key）（查询看的位置）", "doubled brackets"),
        ("答对 ，", "a space beside full-width punctuation"),
    ],
)
def test_the_typesetting_rules_find_what_they_describe(text, fault):
    assert re.search(PUNCTUATION[fault], _without_code(text))
    clean = "续写 (aab)*：softmax(缩放后的分数 + 掩码)，返回 (inputs, targets)，cosine(梯度, 差)，var(q·k / √(头的宽度))，温度（temperature）"
    assert not re.search(PUNCTUATION[fault], _without_code(clean))


def test_the_catalogue_header_is_the_projects_not_a_template():
    head = messages.po_path("zh").read_text(encoding="utf-8").split("\n\n")[0]
    for leftover in ("fuzzy", "YEAR", "FIRST AUTHOR", "EMAIL@ADDRESS", "VERSION", "ORGANIZATION", "PACKAGE"):
        assert leftover not in head, head


# ---- sentences insert numbers, not labelled phrases ------------------------------------------


def _score_sentences():
    blog = handmade.blog_model()
    return [
        checks.check_lg_threshold(1024).message,
        checks.check_lg_threshold(0.5).message,
        checks.check_lg_threshold(1.0).message,
        checks.check_values(1, -1).message,
        checks.check_values(2, 2).message,
        checks.check_pattern_weights(blog, "abb").message,
        checks.check_undo_layer_norm(np.sqrt(0.125 + 1e-5), 0.125).message,
    ]


def test_a_sentence_inserts_a_score_as_numbers():
    sentences = _score_sentences()
    assert all("ACCURACY" not in s for s in sentences), sentences
    assert "the model still gets 27 / 27 right" in sentences[0]


def test_a_chinese_sentence_inserts_a_score_as_numbers(zh):
    sentences = _score_sentences()
    assert all("准确率" not in s for s in sentences), sentences
    assert "仍然答对 27 / 27" in sentences[0]


# ---- what the system, json and numpy say --------------------------------------------------


def test_the_systems_reason_is_said_in_chinese_with_the_original(zh, tmp_path):
    from handmade.reasons import reason

    assert reason(FileNotFoundError(errno.ENOENT, "No such file or directory")) == (
        "没有这个文件或文件夹（No such file or directory）"
    )
    with pytest.raises(handmade.WeightsError, match=r"这里应当是一个值（Expecting value）"):
        handmade.weights_from_json("[", "w.json")
    folder = tmp_path / "f.json"
    folder.mkdir()
    with pytest.raises(handmade.WeightsError) as caught:
        handmade.save_weights(handmade.blog_model(), folder / "missing" / "w.json")
    assert re.search(rf"[{CJK}]+（No such file or directory）", str(caught.value)), caught.value


def test_a_reason_nobody_translated_is_kept_as_it_is(zh):
    from handmade.reasons import reason

    assert reason(ValueError("something new")) == "something new"


def test_numpys_reason_in_a_verdict_is_said_in_chinese(zh):
    verdict = checks.check_matmul(lambda a, b: a + np.ones(7))
    assert "形状无法相互广播（operands could not be broadcast together" in verdict.message, verdict.message


SYNTAX_ERRORS = {  # a tasks file Python cannot compile, one for each of reasons.SYNTAX_REASONS at least
    "invalid": "x = = 1\n",
    "a comma forgotten": "f(a b)\n",
    "an indent": "x = 1\n  y = 2\n",
    "an unindent": "if 1:\n    x = 1\n  y = 2\n",
    "no block": "def f():\nreturn 1\n",
    "never closed": "x = (1 +\n",
    "unmatched": "x = 1)\n",
    "mismatched": "x = (1]\n",
    "a string": "x = 'abc\n",
    "a triple-quoted string": 'x = """abc\n',
    "no colon": "def f()\n    return 1\n",
    "a character": "x = 1 \u2192 2\n",
    "tabs": "if 1:\n\tx = 1\n        y = 2\n",
    "a null": "x = 1\0\n",
    "a number": "x = 1a\n",
    "an assignment": "f() = 1\n",
}


def _compile_error(tmp_path, source):
    """What the package says of a tasks file of ``source``, and the reason in its brackets (without the line)."""
    from handmade.course.task_files import load_tasks

    path = tmp_path / "mine.py"
    path.write_text(source, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_tasks(path)
    message = str(caught.value)
    found = re.search(r"it is not Python \((.*?)( at line \d+)?\)$|它不是 Python 代码（(第 \d+ 行：)?(.*)）$", message)
    return message, found.group(1) or found.group(4)


def _said_in_chinese_with_pythons_words(tmp_path, said_of, source, expected=None):
    """``said_of(tmp_path, source)`` (the message, and Python's reason in it) in English, then in Chinese: the
    Chinese reason must be Chinese (the translation of ``expected``, when given), with Python's own words after
    it in brackets (to look them up)."""
    _english, python_said = said_of(tmp_path, source)  # as Python says it, whatever the version
    set_language("zh")
    try:
        chinese, reason = said_of(tmp_path, source)
        wanted = expected and handmade.i18n._(expected)
    finally:
        set_language("en")
    ours = reason.removesuffix(f"（{python_said}）")
    assert ours != reason and re.fullmatch(rf"[{CJK}，= ]+", re.sub("Python|UTF-8", "", ours)), chinese
    assert wanted is None or ours == wanted, (chinese, expected)


@pytest.mark.parametrize("case", list(SYNTAX_ERRORS))
def test_what_python_says_of_a_tasks_file_it_cannot_compile_is_said_in_chinese_its_words_kept(tmp_path, case):
    """The reason in Chinese, Python's own words after it in brackets, and the line."""
    _said_in_chinese_with_pythons_words(tmp_path, _compile_error, SYNTAX_ERRORS[case])


RUNTIME_ERRORS = {  # a teacher's rule that fails as it runs, and the reason said: one for each of reasons.CODE_REASONS at least
    "recursion": ("(lambda f: f(f))(lambda f: f(f))", "calls nest deeper than Python allows"),
    "a name": ("nothing", "a name is used that is not defined"),
    "a local name": ("(lambda: (x, [x := 1]))()", "a local name is used before it is given a value"),
    "not callable": ("len(context)(2)", "something that is not a function is called"),
    "not subscriptable": ("dict.get({}, 1)[0]", "something that cannot be indexed is indexed"),
    "a type not subscriptable": ("int[0]", "something that cannot be indexed is indexed"),
    "not iterable": ("[x for x in 5]", "something that cannot be looped over is looped over"),
    "in, not iterable": ("'a' in 5", "something that cannot be looped over is looped over"),
    "an attribute": ("context.nothing", "an object has no attribute of that name"),
    "a module's attribute": ("np.nothing", "an object has no attribute of that name"),
    "a type's attribute": ("int.nothing", "an object has no attribute of that name"),
    "an int": ("int('a')", "a text is not a whole number"),
    "a float": ("float('a')", "a text is not a number"),
    "unpacking": ("[x for x, y in [(1, 2, 3)]]", "there are not as many values as names to unpack them into"),
    "unpacking a number": ("[x for x, y in [1]]", "there are not as many values as names to unpack them into"),
    "an argument missing": ("(lambda x: x)()", "a function is called without arguments it needs"),
    "two arguments missing": ("(lambda x, y: x)()", "a function is called without arguments it needs"),
    "an argument too many": ("(lambda: 1)(2)", "a function is called with more arguments than it takes"),
    "one of a range too many": (
        "(lambda a, b=1: a)(1, 2, 3)",
        "a function is called with more arguments than it takes",
    ),
    "division by zero": ("1 / 0", "division by zero"),
    "an index": ("context[99]", "an index is out of range"),
    "numpy's index": ("np.ones(2)[5]", "an index is out of range"),
    "broadcasting": ("np.ones(2) + np.ones(3)", "the shapes do not broadcast together"),
    "matmul": ("np.ones((2, 3)) @ np.ones((2, 3))", "the shapes do not fit a matrix product"),
    "dot": ("np.dot(np.ones((2, 3)), np.ones((2, 3)))", "the shapes do not fit a matrix product"),
    "operand types": ("'a' - 1", "the operation does not take these types"),
    "utf-8": ("b'\\xff'.decode('utf-8')", "it is not UTF-8 text"),
}


def _rule_error(tmp_path, expression):
    """What the package says of a task whose rule evaluates ``expression``, and the reason after the error's kind."""
    from handmade.course.task_files import load_tasks

    path = tmp_path / "mine.py"
    head = "import numpy as np\nimport handmade\n\n@handmade.task(alphabet='ab', n_ctx=2, n_embd=4)\n"
    path.write_text(head + f'def failing(context):\n    """Fails."""\n    return {expression}\n', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        handmade.course.tasks.examples(load_tasks(path)["failing"])
    message = str(caught.value)
    # the reason, then the line of the rule that raised it, which the sentence names after it in either language
    return message, re.search(
        r"(?:raised|抛出了) \w+: (.*)(?: \(mine\.py, line 7\)|（mine\.py 第 7 行）)$", message
    ).group(1)


@pytest.mark.parametrize("case", list(RUNTIME_ERRORS))
def test_what_python_says_of_a_teachers_rule_that_fails_is_said_in_chinese_its_words_kept(tmp_path, case):
    """The error's kind as Python names it, the reason in Chinese, Python's own words after it in brackets."""
    _said_in_chinese_with_pythons_words(tmp_path, _rule_error, *RUNTIME_ERRORS[case])


@pytest.mark.parametrize("table", ["SYNTAX_REASONS", "CODE_REASONS"])
def test_every_reason_said_of_pythons_words_is_met_by_some_file_or_rule(tmp_path, table):
    from handmade import reasons

    rules = {case: expression for case, (expression, _reason) in RUNTIME_ERRORS.items()}
    said_of, sources = {"SYNTAX_REASONS": (_compile_error, SYNTAX_ERRORS), "CODE_REASONS": (_rule_error, rules)}[table]
    said = [said_of(tmp_path, source)[1] for source in sources.values()]
    for pattern, _reason in getattr(reasons, table):
        assert any(re.match(pattern, each) for each in said), pattern


def test_english_reasons_are_unchanged():
    from handmade.reasons import reason

    assert reason(FileNotFoundError(errno.ENOENT, "No such file or directory")) == "No such file or directory"


# ---- what training prints -----------------------------------------------------------------


def test_the_progress_line_shows_a_count_whole_and_names_it_with_a_noun(zh):
    from handmade.training.loop import ProgressLine

    line = ProgressLine(300, stream=io.StringIO()).line(300, 0.5, 27.0)
    assert line.endswith("损失 0.5000，评估结果 27"), line
    assert ProgressLine(3, stream=io.StringIO()).line(3, 0.5, 0.25).endswith("评估结果 0.2500")


# ---- plots and the diagram ----------------------------------------------------------------

# the words the field writes in English in Chinese texts (handmade/locale/GLOSSARY.md)
FIELD_WORDS = {"logits", "softmax", "argmax", "MLP", "mlp", "GELU", "gelu", "sqrt", "id", "ids", "attention"}


def code_words(params):
    """The words that are code in a model's tables: its direction and token names, its parts and
    intermediates, and the names of the forward functions."""
    weights = handmade.check_weights(params)
    structure, labels = weights.structure, weights.labels
    names = list(labels.residual) + list(labels.token_names(structure.n_vocab))
    for b, block in enumerate(structure.blocks):
        names += list(labels.attention_basis(b, block.n_attn)) + list(labels.hidden_basis(b, block.n_hidden))
    names += [p.name for p in structure.parts()] + structure.taps()
    return {w for name in names for w in re.findall(r"[A-Za-z]+", str(name))}


def english_words(text, code):
    """The words of ``text`` that are neither code nor single letters."""
    words = re.findall(r"[A-Za-z][A-Za-z_0-9.\[\]]*", text)
    return [w for w in words if len(w) > 1 and not re.search(r"[_0-9.\[]", w) and w not in code | FIELD_WORDS]


def drawn_texts(figure):
    """Every text a matplotlib figure draws: titles, axis labels, tick labels, annotations, legends."""
    texts = list(t.get_text() for t in figure.texts)
    for ax in figure.axes:
        texts += [ax.get_title(loc=loc) for loc in ("left", "center", "right")]
        texts += [ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts]
        if ax.get_legend() is not None:
            texts += [t.get_text() for t in ax.get_legend().get_texts()]
    return [t for t in texts if t]


def glyphs():
    """The characters the labels' fonts can draw: matplotlib's own and the packaged CJK subset."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    from handmade.display.plots import CJK_FONT

    fonts = [font_manager.findfont("DejaVu Sans"), str(CJK_FONT)]
    return {chr(c) for path in fonts for c in FT2Font(path).get_charmap()}


def models():
    return {
        "blog": handmade.blog_model(),
        **{name: reference(get_task(name)) for name in ("xor", "first_not_last", "induction")},
    }


def heatmaps(params):
    """Every heatmap the package draws of a model: its weights and every intermediate of a pass."""
    from handmade.display.plots import KEY, QUERY
    from handmade.display.trace import trace, weight_tables

    text = (params.labels.alphabet * 5)[: min(5, params.structure.n_ctx)]
    shown = trace(text, params)
    tables = [*weight_tables(params).values(), *(shown[name] for name in shown)]
    for table in tables:
        yield table, dict(xlabel=KEY, ylabel=QUERY)


@pytest.mark.parametrize("name", list(models()))
def test_every_chinese_plot_draws_chinese_with_glyphs_the_fonts_have(zh, name):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    params = handmade.check_weights(models()[name])
    code, have = code_words(params), glyphs()
    for table, labels in heatmaps(params):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "Glyph ... missing from font(s)" fails the test
            ax = table.heatmap(**labels)
            ax.figure.canvas.draw()
        texts = drawn_texts(ax.figure)
        plt.close(ax.figure)
        assert re.search(f"[{CJK}]", " ".join(texts)), texts
        english = [w for t in texts for w in english_words(t, code)]
        assert not english, (table.title, english)
        missing = {c for t in texts for c in t if c not in have and not c.isspace()}
        assert not missing, (table.title, missing)


def test_the_plot_check_finds_english():
    assert english_words("weights of one random head", set()) == ["weights", "of", "one", "random", "head"]
    assert english_words("分数：q @ k.T, softmax(x), c_proj.w, P0", set()) == []


def _svg_texts(svg):
    """(text, font size, font family, the width of the box it is in or None) for every text of the diagram."""
    boxes = [tuple(map(float, b)) for b in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"', svg)]
    found = []
    for x, size, attributes, text in re.findall(
        r'<text x="([\d.]+)" y="[\d.]+" (?:text-anchor="middle" )?font-size="([\d.]+)"([^>]*)>([^<]*)<', svg
    ):
        inside = [w for bx, by, w in boxes if bx < float(x) < bx + w and w < 600]
        family = "DejaVu Sans Mono" if "monospace" in attributes else "DejaVu Sans"
        found.append((html.unescape(text), float(size), family, min(inside) if inside else None))
    return found


def _width(text, size, family):
    """The width of ``text`` drawn in ``family`` (DejaVu, the widest of the usual fonts), with each
    Chinese character a full em."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    latin = re.sub(f"[{CJK}]", "", text)
    measured = TextToPath().get_text_width_height_descent(latin, FontProperties(family=family, size=size), False)[0]
    return measured + size * (len(text) - len(latin))


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("name", ["blog", "xor", "first_not_last"])
def test_every_label_of_the_diagram_fits_its_box(language, name):
    from handmade.display.diagram import diagram

    set_language(language)
    try:
        svg = diagram(models()[name]).picture
    finally:
        set_language("en")
    for text, size, family, width in _svg_texts(svg):
        if width is not None:
            assert _width(text, size, family) <= width - 4, (text, width)


def test_the_chinese_diagram_says_everything_in_chinese_or_code(zh):
    from handmade.display.diagram import diagram

    params = handmade.check_weights(models()["xor"])
    figure = diagram(params)
    texts = [t for t, *_ in _svg_texts(figure.picture)] + [figure.alt]
    english = [w for t in texts for w in english_words(t, code_words(params) | {"qk"})]
    assert not english, english
    assert "词元" in texts


def test_a_bias_row_is_named_in_the_learners_language(zh):
    from handmade.display.trace import weight_tables

    assert weight_tables()["c_proj.b"].rows == ("偏置",)


# ---- the grader's Chinese reports ----------------------------------------------------------------


def _scaled_below_the_margin(name):
    """The reference of ``name`` with its output (the last block's c_proj, or wte where there is no
    block) scaled down until every prediction is still right but the margin is below the threshold."""
    from handmade import parts
    from handmade.course.grader import grade

    model = reference(name)
    last = f"blocks[{len(model['blocks']) - 1}]." if len(model["blocks"]) > 1 else ""
    outputs = [n for n in parts.parts(model) if n.startswith(last) and n.endswith(("c_proj.w", "c_proj.b"))]
    outputs = [n for n in outputs if last or not n.startswith("blocks[")] or ["wte"]
    low, high = 0.0, 1.0
    for _step in range(60):
        factor = (low + high) / 2
        scaled = parts.with_parts(model, {n: factor * parts.get(model, n) for n in outputs})
        report = grade(name, scaled, diagnose=False)
        if report.correct == report.total and 0 < report.margin < report.threshold:
            return scaled
        low, high = (low, factor) if report.correct == report.total else (factor, high)
    raise AssertionError(f"no scale of {name}'s reference is right everywhere with a margin below the threshold")


def _broken(name):
    """The reference of ``name`` with one part broken at a time: the first head's q (block 0's), block
    0's c_proj and v, block 1's k, each MLP's weights, wpe; and wte negated."""
    from handmade import parts

    model = reference(name)
    names = parts.parts(model)
    first = "blocks[0]." if len(model["blocks"]) > 1 else ""
    zeroed = [n for n in names if n.endswith(("mlp.c_fc.w", "mlp.c_proj.w")) or n == "wpe"]
    if model["blocks"]:
        zeroed += [first + "c_proj.w", first + "v"] + (["blocks[1].k"] if len(model["blocks"]) > 1 else [])
        q = parts.get(model, first + "q")
        q[:, : model.structure.blocks[0].d_head] = 0  # the first head looks nowhere
        yield parts.with_part(model, first + "q", q)
    for part in zeroed:
        yield parts.with_part(model, part, 0 * parts.get(model, part))
    yield parts.with_part(model, "wte", -parts.get(model, "wte"))


def _homework(name):
    """The built-in task ``name`` as a teacher's task: the same rule and shape, and no reference."""
    import dataclasses

    return dataclasses.replace(get_task(name), name=f"{name}_homework", build=None)


def _reports(name):
    """(what was graded, the Chinese report's text) for the blank model of ``name``, its reference, the
    reference scaled below the margin, each broken variant, each of these as a teacher's task without a
    reference too (where an embedding may be the part named), and the widget's score line."""
    from handmade.course.grader import grade
    from handmade.display.views import score_html
    from handmade.widgets.score import TaskScore

    models = {"blank": blank(name), "reference": reference(name), "scaled": _scaled_below_the_margin(name)}
    models |= {f"broken {i}": model for i, model in enumerate(_broken(name))}
    for kind, model in models.items():
        for task in (name, _homework(name)):
            report = grade(task, model)
            yield f"{kind} on {get_task(task).name}", report
    for kind in ("blank", "scaled"):
        score = TaskScore(name)
        passed, summary, details = score(models[kind])
        line = re.sub(r"<[^>]+>", "", html.unescape(score_html(score.label, passed, summary, details)))
        yield f"the widget's score of the {kind} model", line


def _prose(text):
    """``text`` without code's own commas: the row and column of an entry, v[Ta, Tb]."""
    return re.sub(r"\[[^\]\n]*\]", "[]", str(text))


@pytest.mark.parametrize("name", list(TASKS))
def test_a_chinese_report_is_typeset_as_chinese(zh, name):
    """Every Chinese report of the task (its blank model, reference, reference scaled below the margin,
    broken variants, as a teacher's task too, and the widget's score line): lists joined with 、 or ；
    never an ASCII comma, → for what comes next, never ->, and no space after a full-width colon."""
    for what, report in _reports(name):
        text = str(report)
        assert ", " not in _prose(text), f"{what}: an ASCII comma joins a list:\n{text}"
        assert "->" not in text, f"{what}: -> where the course writes →:\n{text}"
        assert "： " not in text, f"{what}: a space after a full-width colon:\n{text}"
        assert "最多：" not in text, f"{what}: a push said as 'most: amount':\n{text}"


@pytest.mark.parametrize("name", list(TASKS))
def test_a_chinese_report_whose_predictions_are_all_right_says_the_margin_is_too_small(zh, name, monkeypatch):
    """All predictions right, the margin below the threshold: the report, the graded cell's line and the
    widget say that the margin is too small, and where it is smallest; never that something went wrong."""
    from handmade.course.grader import graded
    from handmade.widgets.score import TaskScore

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    model = _scaled_below_the_margin(name)
    for task in (name, _homework(name)):
        report = handmade.grade(task, model)
        assert report.correct == report.total and not report.passed
        said = "\n".join([str(report), str(graded(task, model))])
        assert "间隔太小" in said and "最小值出现在" in str(report), said
        assert not re.search("出错|答错|错误", said), said
    passed, summary, details = TaskScore(name)(model)
    assert not re.search("出错|答错|错误", " ".join([summary, *details]))


def test_the_unknown_task_error_in_chinese_lists_the_tasks_with_a_chinese_separator(zh):
    with pytest.raises(ValueError) as error:
        get_task("no_such_task")
    said = str(error.value)
    assert "、".join(list(TASKS)[:3]) in said and ", " not in said, said


@pytest.mark.parametrize("name", list(TASKS))
def test_a_chinese_task_statement_writes_an_ellipsis_as_the_notebooks_do(zh, name):
    text = TASKS[name].describe()
    assert "..." not in text and "：" in text, text


# ---- lists ------------------------------------------------------------------------------------

# Where the package joins with an ASCII ", " on purpose: code, whatever the language (a repr, a JSON
# list, an array, a shape tuple, the numbers a box holds), as (file, what the line builds).
CODE_LISTS = {
    ("handmade/display/trace.py", "Trace of"),  # a repr
    ("handmade/files.py", '"["'),  # a JSON list
    ("handmade/weights.py", "np.shape"),  # a repr: Weights(wte=(3, 3), ...)
    ("handmade/weights.py", '"("'),  # a shape tuple
    ("handmade/course/verdict.py", '"["'),  # an array as Python writes it
    ("handmade/widgets/explorers.py", "map(exact, row)"),  # the numbers typed into a box
}


def test_every_list_said_in_words_is_joined_in_the_learners_language():
    """A list inside a sentence goes through ``listed`` (、 in Chinese); an ASCII ", ".join is code only."""
    joins = {
        (str(path.relative_to(ROOT)), line.strip())
        for path in sorted((ROOT / "handmade").rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"""["'][,;] ["']\.join""", line)
    }
    unexplained = [(f, line) for f, line in joins if not any(f == g and mark in line for g, mark in CODE_LISTS)]
    assert not unexplained, unexplained
    assert len(joins) == len(CODE_LISTS), "each code list above is still there"


def test_the_librarys_lists_in_chinese_use_the_chinese_separator(zh):
    from handmade.display.diagram import _caption
    from handmade.tokenizer import check_alphabet

    said = [_caption(1, "1", {"ln_1": 0, "ln_2": 0, "mlp": 0, "ln_f": 0})]
    for bad in ({"wte": 1}, {"wte": [[1.0]], "wpe": [[1.0]], "blocks": [], "nope": 1}):
        with pytest.raises(ValueError) as error:
            handmade.check_weights(bad)
        said.append(str(error.value))
    with pytest.raises(ValueError) as error:
        check_alphabet("abca")
    said.append(str(error.value))
    assert all(", " not in _prose(text) for text in said) and any("、" in text for text in said), said


def printed_lines(path):
    """Every line a notebook's stored outputs print as text."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            yield from ("".join(text) if isinstance(text, list) else text).splitlines()


def listed_with_a_comma(line):
    """A Chinese line that joins items with an ASCII comma outside code (a Python list, a tuple, a
    quoted string, a formula such as n=5, d=8)."""
    words = re.sub(r"\[[^\]]*\]|\([^)]*\)|'[^']*'|\"[^\"]*\"|\w+=\S+", "", line)
    return bool(re.search(f"[{CJK}]", line)) and ", " in words


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")), ids=lambda p: p.name[:2])
def test_no_chinese_notebook_prints_a_list_joined_with_an_ascii_comma(path):
    assert listed_with_a_comma("ret 之前有 8 条指令：mov, cmp, jne") and not listed_with_a_comma("形状 n=5, d=8")
    assert [line for line in printed_lines(path) if listed_with_a_comma(line)] == []
