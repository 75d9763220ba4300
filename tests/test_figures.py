"""Every picture with words for a reader who cannot see it (WCAG 1.1.1): ``Figure``, ``show_figure``, and the
notebooks' stored pictures. JupyterLab reads no alt text from an image output, so each comes as an ``<img alt>`` too."""

import base64
import json
from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handmade import set_language
from handmade.display import Figure
from handmade.display.labelled import LabelledMatrix
from handmade.display.trace import trace

matplotlib.use("Agg")
from matplotlib import pyplot as plt  # noqa: E402

from handmade.display.plots import DESCRIBED_ROWS, show_figure  # noqa: E402
from handmade.display.window import HEATMAP_SIDE  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text>a &amp; b</text></svg>'


def the_img(markup):
    """The attributes of the one element of ``markup``, which must be an <img>, as a browser reads them."""
    found = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, dict(attrs)))

    Reader().feed(markup)
    assert len(found) == 1 and found[0][0] == "img", found
    return found[0][1]


@settings(derandomize=True)  # the same cases every run
@given(alt=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1).filter(str.strip), png=st.booleans())
def test_a_figure_is_the_same_picture_with_the_same_words_in_every_form_it_comes_in(alt, png):
    """Quotes, ampersands and angle brackets in the words stay words: the <img> has one alt, the words."""
    picture = PNG if png else SVG
    kind = "image/png" if png else "image/svg+xml"
    data, metadata = Figure(picture, alt)._repr_mimebundle_()
    img = the_img(data["text/html"])
    assert img["alt"] == " ".join(alt.split()) and img["lang"] == "en"
    header, encoded = img["src"].split(",", 1)
    assert header == f"data:{kind};base64"
    assert base64.b64decode(encoded) == (PNG if png else SVG.encode())
    assert data[kind] == (base64.b64encode(PNG).decode("ascii") if png else SVG)
    assert data["text/plain"] == metadata[kind]["alt"] == repr(Figure(picture, alt)) == alt


def test_a_figure_says_what_is_wrong_with_what_it_is_given():
    with pytest.raises(TypeError, match="picture must be SVG text or PNG bytes; found 3"):
        Figure(3, "three")
    with pytest.raises(ValueError, match=r"picture must be SVG text \(with an <svg> element\) or PNG bytes"):
        Figure(b"GIF89a", "not a PNG")
    with pytest.raises(ValueError, match="picture has a character no page can show, '\\\\ud800', at 6"):
        Figure("<svg/>\ud800", "a half of a pair")
    with pytest.raises(ValueError, match="alt has a character no page can show, '\\\\x00', at 1"):
        Figure(PNG, "a\x00b")
    with pytest.raises(ValueError, match="width must be a whole number from 1 to 10000; found 0"):
        Figure(SVG, "no width", width=0)
    assert the_img(Figure(SVG, "as wide as it is", width=1060)._repr_mimebundle_()[0]["text/html"])["width"] == "1060"
    with pytest.raises(ValueError, match="alt is empty: say in words what the picture shows"):
        Figure(PNG, " \n")
    with pytest.raises(TypeError, match="alt must be a string"):
        Figure(PNG, None)
    with pytest.raises(ValueError, match="picture is 10000001 long; at most 10000000 characters of SVG or bytes"):
        Figure(bytes(10_000_001), "a picture too large to show")


def test_the_words_of_a_figure_are_in_the_language_it_was_made_in():
    set_language("zh")
    try:
        figure = Figure(SVG, "两个词")
    finally:
        set_language("en")
    assert the_img(figure._repr_mimebundle_()[0]["text/html"])["lang"] == "zh-CN"


# ---- show_figure: plt.show() with the figure's words ------------------------------------------------------


@pytest.fixture
def shown(monkeypatch):
    """The Figures show_figure displays, in order (IPython's display, listened to)."""
    found = []
    monkeypatch.setattr("IPython.display.display", found.append)
    yield found
    plt.close("all")


def test_a_heatmap_is_described_by_what_it_draws(shown):
    trace("aabaa")["attention_weights"].heatmap(xlabel="key (looked at)", ylabel="query (looking)")
    show_figure()
    (figure,) = shown
    assert figure.alt == (
        "A heatmap titled “attention weights: softmax(scaled scores + mask)”: 5 rows, query (looking); 5 columns, "
        "key (looked at). The largest number in each row: pos 0 · a: 0·a (1); pos 1 · a: 0·a, 1·a (0.5 each); "
        "pos 2 · b: 1·a, 2·b (0.5 each); pos 3 · a: 2·b, 3·a (0.5 each); pos 4 · a: 3·a, 4·a (0.5 each)."
    )
    assert figure.picture.startswith(b"\x89PNG") and plt.get_fignums() == []  # drawn, then closed


def largest_said(values, rows, cols, text):
    """What the words must say of each row of ``values``: worked out here from the numbers as ``text`` writes them."""
    said = []
    for i, row in enumerate(values):
        top = text(max(row))
        at = [c for c, value in zip(cols, row) if text(value) == top]
        if len(at) == len(cols) > 1:
            said.append(f"{rows[i]}: every column is {top}")
        else:
            said.append(f"{rows[i]}: {', '.join(at)} ({top}{' each' if len(at) > 1 else ''})")
    return said


@settings(max_examples=40, deadline=None, derandomize=True)  # a PNG drawn for each: no deadline
@given(values=st.lists(st.lists(st.integers(-2, 2), min_size=3, max_size=3), min_size=1, max_size=4))
def test_the_largest_number_of_every_row_is_read_from_the_numbers_the_cells_write(values):
    """Ties among the cells' numbers (here, small whole numbers repeat) are all named, and a change is said."""
    rows, cols = [f"r{i}" for i in range(len(values))], ["c0", "c1", "c2"]
    found = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("IPython.display.display", found.append)
        shown = LabelledMatrix(np.array(values, dtype=float), rows, cols, title="small numbers")
        shown.heatmap()
        show_figure()
    said = largest_said(values, rows, cols, shown.number_text)
    assert found[0].alt.endswith(f"The largest number in each row: {'; '.join(said)}.")
    assert found[0].alt.startswith(f"A heatmap titled “small numbers”: {len(values)} row")


def test_the_words_are_of_the_figure_as_it_is_shown_every_heatmap_of_it_in_order(shown):
    fig, (left, right) = plt.subplots(1, 2)
    weights = trace("aabaa")["attention_weights"]
    weights.heatmap(ax=left)
    LabelledMatrix(np.eye(2), ["x", "y"], ["u", "v"]).heatmap(ax=right)
    left.set_title("hand-set", loc="left")  # set after the heatmap: what the figure shows is said
    show_figure(fig=fig)
    first, second = shown[0].alt.split(". A heatmap")
    assert first.startswith("A heatmap titled “hand-set”: 5 rows; 5 columns.")
    assert second == ": 2 rows; 2 columns. The largest number in each row: x: u (1); y: v (1)."


def test_a_tall_heatmap_names_its_first_rows_and_counts_the_others(shown):
    n = DESCRIBED_ROWS + 3
    LabelledMatrix(np.eye(n), [f"r{i}" for i in range(n)], [f"c{j}" for j in range(n)]).heatmap()
    show_figure()
    assert shown[0].alt.endswith(f"r{DESCRIBED_ROWS - 1}: c{DESCRIBED_ROWS - 1} (1); and 3 more rows, not listed.")


def test_the_largest_number_of_a_row_is_said_where_it_is_even_in_a_column_the_picture_leaves_out(shown):
    """A matrix wider than a heatmap draws (its first and last columns): the words are true of the whole row."""
    n = 3 * HEATMAP_SIDE
    values = np.zeros((2, n))
    values[0, n // 2] = 5.0  # in a column the picture leaves out
    values[1, -1] = 7.0  # and in one it draws
    LabelledMatrix(values, ["r0", "r1"], [f"c{j}" for j in range(n)]).heatmap()
    show_figure()
    assert shown[0].alt.endswith(f"The largest number in each row: r0: c{n // 2} (5); r1: c{n - 1} (7).")


def test_labels_set_after_the_heatmap_are_the_ones_said(shown):
    ax = LabelledMatrix(np.eye(2), ["x", "y"], ["u", "v"]).heatmap()
    ax.set_xlabel("after")
    show_figure()
    assert shown[0].alt.startswith("A heatmap: 2 rows; 2 columns, after.")


def test_a_row_of_nan_and_a_row_of_many_ties_are_said_in_a_few_words(shown):
    values = np.zeros((3, 40))
    values[0] = np.nan
    values[1, :10] = 1.0  # ten columns share the largest number: six named, four counted
    values[2, 5] = np.nan  # a nan beside numbers: the largest number is still said
    LabelledMatrix(values, ["r0", "r1", "r2"], [f"c{j}" for j in range(40)]).heatmap()
    show_figure()
    assert shown[0].alt.endswith(
        "The largest number in each row: r0: no number, only nan; r1: c0, c1, c2, c3, c4, c5 and 4 more columns "
        "(1 each); r2: c0, c1, c2, c3, c4, c6 and 33 more columns (0 each)."
    )


def test_every_figure_open_is_shown_with_its_own_words_and_none_without(shown):
    """As plt.show() shows every figure open; the words of one are not put on two, and nothing is shown until every
    one has its words (the inline backend would show a figure left open, without them)."""
    LabelledMatrix(np.eye(2), ["x", "y"], ["u", "v"], title="first").heatmap()
    LabelledMatrix(np.eye(2), ["x", "y"], ["u", "v"], title="second").heatmap()
    with pytest.raises(ValueError, match=r"2 figures are open, and alt says what one shows: show each with"):
        show_figure(alt="A heatmap.")
    assert not shown and len(plt.get_fignums()) == 2
    show_figure()
    assert [figure.alt.split("”")[0] for figure in shown] == ["A heatmap titled “first", "A heatmap titled “second"]
    assert plt.get_fignums() == []
    with pytest.raises(
        ValueError, match=r"fig is None and no figure is open: draw one in this cell, then show it with show_figure\(\)"
    ):
        show_figure(alt="Nothing.")
    assert plt.get_fignums() == []  # none made to show nothing


def test_a_heatmap_beside_another_plot_is_not_said_to_be_the_whole_figure(shown):
    fig, (left, right) = plt.subplots(1, 2)
    LabelledMatrix(np.eye(2), ["x", "y"], ["u", "v"]).heatmap(ax=left)
    right.plot([0, 1])
    with pytest.raises(ValueError, match="this figure holds more than heatmaps, and only a heatmap is described"):
        show_figure()
    show_figure(alt="A heatmap of the identity, beside a rising line.")
    assert shown[0].alt == "A heatmap of the identity, beside a rising line."


def test_a_figure_with_nothing_to_describe_asks_for_its_words_and_is_kept_until_it_has_them(shown):
    plt.plot([0, 1], [1, 0])
    with pytest.raises(ValueError, match=r"holds no heatmap to describe: say what it shows, show_figure\(alt="):
        show_figure()
    with pytest.raises(ValueError, match="alt is empty"):
        show_figure(alt="  ")
    assert len(plt.get_fignums()) == 1 and not shown  # still there, not shown without words
    show_figure(alt="A line falling from 1 to 0.")
    assert shown[0].alt == "A line falling from 1 to 0." and plt.get_fignums() == []
    with pytest.raises(TypeError, match="fig must be a matplotlib figure, or None; found 'fig'"):
        show_figure(alt="words", fig="fig")


def test_outside_jupyter_the_words_are_printed(monkeypatch, capsys):
    import IPython.display

    monkeypatch.delattr(IPython.display, "display")  # as if IPython were not there: the import fails
    plt.plot([0, 1])
    show_figure(alt="A rising line.")
    assert capsys.readouterr().out == "A rising line.\n" and plt.get_fignums() == []


def test_a_chinese_heatmap_is_described_in_chinese(shown):
    set_language("zh")
    try:
        trace("ab")["scores"].heatmap()
        show_figure()
    finally:
        set_language("en")
    assert shown[0].alt.startswith("标题为“") and "每一行最大的数：" in shown[0].alt
    assert the_img(shown[0]._repr_mimebundle_()[0]["text/html"])["lang"] == "zh-CN"


# ---- the notebooks' pictures, as stored ------------------------------------------------------------------


def stored_pictures():
    """(notebook, cell number, output) for every output of a stored notebook that holds an image."""
    for path in sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "zh").glob("*.ipynb")):
        for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for output in cell.get("outputs", []):
                if any(kind.startswith("image/") for kind in output.get("data", {})):
                    yield f"{path.relative_to(NOTEBOOKS)}: cell {number}", cell, output


def test_every_picture_a_notebook_stores_is_an_img_with_its_words():
    """In both editions, as JupyterLab shows them: no image without an <img alt> of its words, which are its
    text and its image's alt too, in the edition's language; the words are stated once, in the output."""
    found = list(stored_pictures())
    assert len(found) >= 2 * 11, len(found)  # the diagram (00, 09, 10) and the figures of 04 to 21
    for where, cell, output in found:
        data = output["data"]
        (kind,) = [k for k in data if k.startswith("image/")]
        words = "".join(data["text/plain"])
        img = the_img("".join(data.get("text/html", "")))
        assert words.strip() and img["alt"] == " ".join(words.split()), where
        assert output["metadata"][kind]["alt"] == words, where
        assert img["lang"] == ("zh-CN" if where.startswith("zh") else "en"), where
        picture = "".join(data[kind])
        assert img["src"] == f"data:{kind};base64," + (
            picture if kind == "image/png" else base64.b64encode(picture.encode()).decode()
        )
        assert "mystnb" not in cell["metadata"], where
