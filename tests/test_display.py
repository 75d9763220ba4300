"""The notebook display helpers, the weight tables, and the other hand-built models."""

import json
import re
from itertools import product
from pathlib import Path

import numpy as np
import pytest

import handmade
from handmade.display import (
    dot_product_story,
    equations,
    matrix,
    pipeline,
    side_by_side,
    softmax_story,
    text_table,
    weighted_sums,
)
from handmade.display.trace import trace, weight_tables

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CONTEXTS = ["".join(p) for n in range(1, 6) for p in product("ab", repeat=n)]


def test_pipeline_highlights_the_given_stages():
    shown = pipeline("softmax", "values")
    assert repr(shown) == "tokens → embeddings → q/k/v → scores → [softmax] → [values] → projection → residual → logits"
    assert shown._repr_html_().count("background:#ffd866") == 2


def test_pipeline_refuses_unknown_stages():
    with pytest.raises(ValueError, match="current: no stage called 'mlp'; the stages are tokens, embeddings"):
        pipeline("mlp")


def test_side_by_side_keeps_every_table_and_its_text():
    a, b = matrix([[1]], "A"), matrix([[2]], "B")
    shown = side_by_side(a, "<i>and</i>", b)
    assert shown._repr_html_().count("<table") == 2 and "<i>and</i>" in shown._repr_html_()
    assert repr(shown) == f"{a!r}\n\n{b!r}"


def test_text_table_has_html_and_aligned_text():
    shown = text_table(["x", "long header"], [("a", 1), ("bbb", 22)], "title")
    assert repr(shown) == "title\nx    long header\na    1\nbbb  22"
    assert shown._repr_html_().count("<tr>") == 3
    # on the page (where Lab right-aligns a cell by default): words from the left, numbers from the right, heads too
    cells = re.findall(r"<t[hd][^>]*text-align:(\w+)[^>]*>([^<]*)</t[hd]>", shown._repr_html_())
    assert cells == [
        ("left", "x"),
        ("right", "long header"),
        ("left", "a"),
        ("right", "1"),
        ("left", "bbb"),
        ("right", "22"),
    ]
    written = text_table(
        ["step", "loss", "shape", "context"],
        [(0, "4.1797", "66×32", "0"), (10, "3.5", "", "001"), ("total", "", "8×32", "1")],
    )
    aligns = re.findall(r"<th scope='col' style='text-align:(\w+)", written._repr_html_())
    assert aligns == ["left", "right", "left", "left"]  # numbers written out count, an empty cell as none, 001 is text


def test_matrix_labels_rows_and_columns():
    m = matrix([[1, 2]], "m")
    assert m.rows == ("row 0",) and m.cols == ("col 0", "col 1") and m.title == "m"


def test_weighted_sums_write_each_row_out():
    shown = weighted_sums(np.array([[1, 0], [0.5, 0.5]]), np.array([1, -1]), ["r0", "r1"])
    assert repr(shown).splitlines()[1:] == ["r0   1*1               1", "r1   0.5*1 + 0.5*-1    0"]


def test_equations_are_latex_with_a_text_twin():
    shown = equations(("Q_x", np.array([[1, 2]])), ("S", np.array([[-np.inf]])))
    assert shown._repr_latex_().startswith("$\\displaystyle Q_{x} = \\left[")
    assert "-\\infty" in shown._repr_latex_() and repr(shown).startswith("Q_x =")


def test_dot_product_story_names_the_cell_and_its_sum():
    shown = dot_product_story(np.arange(1, 9).reshape(2, 4), np.arange(1, 13).reshape(4, 3), 1, 2)
    assert repr(shown) == "(A @ B)[1, 2] = 5*3 + 6*6 + 7*9 + 8*12 = 210"
    assert shown._repr_html_().count("background:#ffd866") == 4 + 4 + 1


def test_softmax_story_shows_each_move():
    story = softmax_story([1, 0, 0], scale=2)
    assert story.rows == ("x × 2", "minus the max", "exp", "softmax: divided by the sum")
    np.testing.assert_allclose(story.values[-1], handmade.softmax(np.array([2.0, 0, 0])))


def test_weight_tables_label_every_editable_matrix():
    tables = weight_tables()
    assert list(tables) == ["wte", "wpe", "q", "k", "v", "q.b", "k.b", "v.b", "c_proj.w", "c_proj.b", "c_attn.w"]
    assert tables["q"].cell("P2", "P1") == 1024 and tables["v"].cell("Tb", "V") == -1
    assert tables["v"]["V"].tolist() == [0, 0, 0, 0, 0, 1, -1, 0]  # a column by its name
    assert tables["c_attn.w"].cols[8] == "k·P0" and tables["c_attn.w"].col_splits == (8, 16)
    assert tables["wte"].rows == ("a", "b") and tables["c_proj.b"].cell("bias", "Ta") == 1024


# ---- the other hand-built models ----------------------------------------------------------


def test_flip_model_ignores_positions_solves_ab_and_not_aab():
    flip = handmade.flip_model()
    assert not flip["wpe"].any()
    assert handmade.accuracy(flip, examples=handmade.prefix_examples("ab" * 15)).perfect
    assert str(handmade.accuracy(flip)) == "ACCURACY: 66.7% (18 / 27)"


def test_two_head_model_predicts_exactly_like_the_blog_model():
    two = handmade.two_head_model()
    assert two["blocks"][0]["n_head"] == 2
    for context in CONTEXTS:
        assert np.array_equal(handmade.predict(context, two).logits, handmade.predict(context).logits), context


def test_two_head_model_splits_the_work_between_self_and_previous():
    t = trace("aabaa", handmade.two_head_model())  # its labels name each head's directions
    np.testing.assert_allclose(t["head0.attention_weights"].values, np.eye(5), atol=1e-100)
    previous = np.eye(5, k=-1)
    previous[0, 0] = 1  # the first token has nothing before it
    np.testing.assert_allclose(t["head1.attention_weights"].values, previous, atol=1e-100)
    assert t["blocks[0].attention_output"].cols[3] == "h0·V"


def test_reference_lines_differ_by_more_than_their_hue():
    """Issue 30: two yardsticks in red and green are one colour to a deuteranope."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from handmade.display.plots import REFERENCE_STYLES, reference_lines

    figure, ax = plt.subplots()
    ax.plot([0, 1], [3, 2])
    reference_lines(ax, [("guessing evenly", 4.19), ("character frequencies", 3.3), ("counting pairs", 2.5)])
    lines = ax.get_lines()[1:]
    assert [line.get_linestyle() for line in lines] == [":", "--", "-."]  # by their dashes
    darkness = {round(sum(matplotlib.colors.to_rgb(line.get_color())), 2) for line in lines}
    assert len(darkness) == 3  # by their darkness
    assert [t.get_text() for t in ax.texts] == ["guessing evenly", "character frequencies", "counting pairs"]
    assert ax.get_legend_handles_labels()[1] == []  # labelled at their ends, not again in a legend
    assert len({str(style["linestyle"]) for style in REFERENCE_STYLES}) == len(REFERENCE_STYLES)
    with pytest.raises(ValueError, match="at most 4 reference lines"):
        reference_lines(ax, [("x", 1.0)] * (len(REFERENCE_STYLES) + 1))
    plt.close(figure)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_reference_lines_label_is_covered_by_nothing_in_either_language(language):
    """Issue 30, notebook 21's loss plot drawn by the notebook's own cell (its source, read here), on a
    history of that shape: each line's label, at its right end, is outside the plot, so neither the legend
    (upper right) nor a data point at the last step (the held-out loss's marker, on the level of counting
    pairs) covers any of it, and it is whole in the figure."""
    import types

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from handmade.display.plots import FONTS, reference_lines
    from handmade.i18n import _

    folder = NOTEBOOKS if language == "en" else NOTEBOOKS / "zh"
    cells = json.loads(next(folder.glob("21_*.ipynb")).read_text(encoding="utf-8"))["cells"]
    source = next("".join(c["source"]) for c in cells if "reference_lines(ax" in "".join(c["source"]))
    steps = np.arange(501)
    history = types.SimpleNamespace(
        losses=2.45 + 1.8 * np.exp(-steps / 40), evaluated=[(0, 4.24), (100, 2.79), (500, 2.50)]
    )
    drawn = {
        "np": np,
        "plt": plt,
        "_": _,
        "reference_lines": reference_lines,
        "STEPS": len(steps),
        "history": history,
        "n_vocab": 66,
        "unigram": 3.35,
        "bigram": 2.47,
        "show_figure": lambda alt=None, fig=None: None,
    }  # fmt: skip  (the figure is kept open, to measure)
    handmade.set_language(language)
    try:
        with plt.rc_context({"font.family": FONTS}):
            exec(source, drawn)  # the notebook's cell, as it is
            figure, ax = drawn["fig"], drawn["ax"]
            figure.canvas.draw()
            renderer = figure.canvas.get_renderer()
            labels = [text.get_window_extent(renderer) for text in ax.texts[:3]]  # the three lines' labels
            marker = ax.transData.transform((500, 2.50))
            taken = [ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)]
            for text, box in zip(ax.texts, labels):
                assert not any(box.overlaps(other) for other in taken), text.get_text()
                assert not box.contains(*marker), text.get_text()
                assert figure.bbox.contains(box.x0, box.y0) and figure.bbox.contains(box.x1, box.y1), text.get_text()
            assert not any(a.overlaps(b) for k, a in enumerate(labels) for b in labels[k + 1 :])
            plt.close(figure)
    finally:
        handmade.set_language("en")


def test_a_folded_outputs_plain_text_is_its_summary_in_the_languages_brackets():
    """A viewer without HTML shows a folded output as its summary in brackets: (…) in English, （…） in Chinese,
    whose sentence takes full-width brackets."""
    from handmade.display import folded
    from handmade.i18n import set_language

    table = text_table(["a", "b"], [(1, 2)])
    assert repr(folded(table)) == "(this holds the answer to the Try it below: open it after you have tried)"
    assert repr(folded(table, "the answer")) == "(the answer)"
    try:
        set_language("zh")
        assert repr(folded(table)) == "（这里有下面“动手试试”的答案：先自己试过再打开）"
        assert "<summary>这里有下面“动手试试”的答案：先自己试过再打开</summary>" in str(folded(table))
    finally:
        set_language("en")


def test_a_listings_notes_are_in_its_text_too_escaped_in_its_page_and_said_in_the_language():
    """A listing's table of notes: the page escapes a note (it is text, not markup); the plain text that
    a viewer without HTML shows has each note beside its line, in the current language."""
    from handmade import model
    from handmade.display.source import listing
    from handmade.i18n import set_language

    shown = listing([model.softmax, model.linear], notes=[("x @ w", "a <b>matrix</b> product")])
    assert "a &lt;b&gt;matrix&lt;/b&gt; product" in shown.markup
    assert shown.text.endswith("line 6: 'x @ w', a <b>matrix</b> product")
    try:
        set_language("zh")
        assert listing([model.linear], notes=[("x @ w", "乘积")]).text.endswith("第 2 行：'x @ w'，乘积")
    finally:
        set_language("en")


# ---- a learner's mistake in a notebook ------------------------------------------------------------

MISTAKES = r"""
import sys
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_cell("import handmade\nfrom handmade.parts import with_parts\nfrom handmade.course.tasks import blank")
cells = [
    "def mine():\n    return with_parts(blank('alternate'), {'q': 1})\nmine()",  # the package's: from the learner's line
    "import numpy as np\nnp.zeros(2) @ np.zeros(3)",  # numpy's own: whole
    "@handmade.task(alphabet='ab', n_ctx=2, n_embd=2, n_layer=0)\ndef odd(context):\n    '''Odd.'''\n    return {}['x']\nhandmade.course.tasks.examples(odd)",
    "handmade.files.check_fits_a_file(handmade.course.tasks.TASKS['xor'].structure, '3', 'xor')",  # Python's, inside
    "from handmade.widgets import Playground\npg = Playground(handmade.blog_model())\npg.params['wte'][0, 0] = 1.0",
    "handmade.set_language('zh')\npg.params['wpe'][0, 0] = 1.0",  # said in the language of the moment
    "np.broadcast_to(np.zeros(2), (2, 2))[0, 0] = 1.0",  # numpy's own read-only view: the same words, said too
    "np.zeros(2)[5]",  # another of numpy's errors: nothing added
    "pg.params['wte'] *= 2",  # numpy's other words for it, "output array is read-only"
]
for cell in cells:
    ip.run_cell(cell)
    print("=====")
    print("=====", file=sys.stderr)
"""


@pytest.mark.parametrize("whole", [False, True])
def test_a_mistake_in_a_notebook_is_shown_from_the_learners_last_line_and_others_whole(whole, tmp_path):
    """In IPython, an error the package raises to say what was wrong is shown under the learner's lines alone; numpy's
    error is shown as IPython shows it, and so is Python's own inside the package (a bug, not a message); a teacher's
    rule that fails is shown into the rule; HANDMADE_FULL_TRACEBACKS=1
    shows the package's lines too."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "HANDMADE_DATA": str(tmp_path)}
    env.pop("HANDMADE_FULL_TRACEBACKS", None)
    if whole:
        env["HANDMADE_FULL_TRACEBACKS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", MISTAKES], capture_output=True, text=True, encoding="utf-8", env=env, timeout=120
    )
    ours, numpys, rules, pythons, written, in_chinese, broadcast, indexed = out.stdout.split("=====")[:8]
    package = str(Path(handmade.__file__).resolve().parent)
    assert "UnknownName: no part called 'q'; this model has wte, wpe" in ours
    assert "----> 2     return with_parts(blank('alternate'), {'q': 1})" in ours  # the learner's own function
    assert (package in ours) == whole and ("parts.py" in ours) == whole
    assert "matmul: Input operand 1 has a mismatch" in numpys
    assert "return {}['x']" in rules and "KeyError" in rules  # the teacher's line that failed, and why
    assert "files.py" in pythons and "TypeError: '>' not supported" in pythons  # not a raise of the package's: whole
    # numpy's words for a write into a playground's read-only weights, then what to do instead, in the language of
    # the moment (not where every traceback is asked for whole: nothing is added there)
    assert "----> 3 pg.params['wte'][0, 0] = 1.0" in written
    said = out.stderr.split("=====")[4:8]
    for shown, hint, language in zip((written, in_chinese), said, ("en", "zh")):
        assert "ValueError: assignment destination is read-only" in shown
        told = {"en": "put changed weights in with playground.replace(weights)", "zh": "请在演练场的网格里修改"}[
            language
        ]
        assert (told in hint) != whole
    assert "read-only" in broadcast and ("playground.replace" in said[2]) != whole  # the same words: the same hint
    assert "IndexError" in indexed and said[3].strip() == ""  # numpy's other errors: nothing added
    multiplied, hint = out.stdout.split("=====")[8], out.stderr.split("=====")[8]
    assert "output array is read-only" in multiplied and ("请在演练场的网格里修改" in hint) != whole, hint
