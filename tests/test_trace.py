"""The trace shows gpt()'s own numbers, with labels; the labelled matrix renders them."""

import subprocess
import sys

import numpy as np
import pytest

import handmade
from handmade import Basis
from handmade.display.labelled import LabelledMatrix, fmt
from handmade.display.trace import trace

STAGES = [
    "token_embedding",
    "position_embedding",
    "embedding",
    "blocks[0].qkv",
    "blocks[0].q",
    "blocks[0].k",
    "blocks[0].v",
    "blocks[0].scores",
    "blocks[0].scaled_scores",
    "blocks[0].masked_scores",
    "blocks[0].attention_weights",
    "blocks[0].attention_output",
    "blocks[0].c_proj_output",
    "blocks[0].residual",
    "logits",
    "probabilities",
]


def test_trace_records_every_stage_in_order():
    assert list(trace("aabaa")) == STAGES


def test_trace_numbers_are_gpts_numbers():
    t = trace("aabaa")
    logits = handmade.gpt(np.array([0, 0, 1, 0, 0]), **handmade.blog_model())
    assert np.array_equal(t["logits"].values, logits)
    assert np.array_equal(t["probabilities"].values, handmade.softmax(logits))


def test_trace_labels_rows_by_position_and_token():
    t = trace("aabaa")
    assert t["embedding"].rows == ("pos 0 · a", "pos 1 · a", "pos 2 · b", "pos 3 · a", "pos 4 · a")
    assert t["embedding"].cols == ("P0", "P1", "P2", "P3", "P4", "Ta", "Tb", "V")
    assert t["embedding"].col_splits == (5, 7)


def test_a_text_longer_than_the_model_reads_is_said_to_be_read_from_its_last_letters():
    """The blog's model reads 5 letters: a trace of 8 says which 5, which its rows count from 0."""
    t = trace("abbaabab")
    assert t.read == "aabab" and t["embedding"].rows[0] == "pos 0 · a"
    assert repr(t).startswith("Trace of 'abbaabab' (the model reads only its last 5 letters, 'aabab'): token_embedding")
    assert repr(trace("aab")).startswith("Trace of 'aab': token_embedding") and trace("aab").read == "aab"


def test_trace_labels_qkv_scores_and_logits():
    t = trace("aab")
    assert t["qkv"].cols[:2] == ("q·P0", "q·P1") and t["qkv"].cols[8] == "k·P0" and t["qkv"].cols[-1] == "v·V"
    assert t["qkv"].col_splits == (8, 16)
    assert t["scores"].rows == ("pos 0 · a", "pos 1 · a", "pos 2 · b") and t["scores"].cols == ("0·a", "1·a", "2·b")
    assert t["logits"].cols == ("a", "b")
    assert t["residual"].cell("pos 2 · b", "Ta") == 1024


def test_trace_short_names_and_errors():
    t = trace("ab")
    assert t["q"] is t["blocks[0].q"]
    with pytest.raises(KeyError, match="no intermediate called 'nope'"):
        t["nope"]


def test_trace_with_two_heads_and_two_blocks_names_each():
    m = handmade.blog_model()
    m["blocks"][0]["n_head"] = 2
    m["blocks"].append(handmade.blog_model()["blocks"][0])
    t = trace("aab", m)
    assert "blocks[0].head1.attention_weights" in t and "blocks[1].attention_weights" in t
    assert t["blocks[0].head1.attention_output"].cols == ("P4", "Ta", "Tb", "V")
    assert "(blocks[0].head1)" in t["blocks[0].head1.scores"].title
    with pytest.raises(KeyError, match="ambiguous"):
        t["attention_weights"]


def test_trace_of_a_model_of_another_width_uses_numbered_directions():
    rng = np.random.default_rng(0)
    params = {
        "wte": rng.normal(size=(2, 4)),
        "wpe": rng.normal(size=(3, 4)),
        "blocks": [],
    }
    t = trace("ab", params)
    assert t["embedding"].cols == ("e0", "e1", "e2", "e3")  # a plain dict: nobody named its directions
    assert t["logits"].cols == ("a", "b")


def test_labels_travel_with_the_weights_and_must_fit_them():
    rng = np.random.default_rng(0)
    named = handmade.Weights(
        {"wte": rng.normal(size=(3, 4)), "wpe": rng.normal(size=(3, 4)), "blocks": []},
        handmade.Labels("xyz", Basis({"where": ["w0", "w1"], "what": ["x", "y"]})),
    )
    t = trace("zx", named)
    assert t["embedding"].cols == ("w0", "w1", "x", "y") and t["embedding"].col_splits == (2,)
    assert t["embedding"].rows == ("pos 0 · z", "pos 1 · x") and t["logits"].cols == ("x", "y", "z")
    named.labels = handmade.Labels("xyz", handmade.BASIS)
    with pytest.raises(
        ValueError,
        match=r"the weights' labels do not fit: the labels name residual directions for a width of 8, but the model is 4 wide",
    ):
        trace("zx", named)


def test_an_eight_wide_model_is_not_mistaken_for_the_blogs():
    plain = {key: value for key, value in handmade.blog_model().items()}  # a plain dict: no labels
    assert trace("ab", plain)["embedding"].cols == tuple(f"e{i}" for i in range(8))
    assert trace("ab")["embedding"].cols == handmade.BASIS.names


def test_trace_with_layer_norm_and_mlp_records_them():
    m = handmade.blog_model()
    m["blocks"][0]["ln_1"] = {"g": np.ones(8), "b": np.zeros(8)}
    m["blocks"][0]["ln_2"] = {"g": np.ones(8), "b": np.zeros(8)}
    m["blocks"][0]["mlp"] = {"c_fc": {"w": np.eye(8), "b": np.zeros(8)}, "c_proj": {"w": np.eye(8), "b": np.zeros(8)}}
    m["ln_f"] = {"g": np.ones(8), "b": np.zeros(8)}
    names = list(trace("aab", m))
    for name in [
        "blocks[0].ln_1",
        "blocks[0].ln_2",
        "blocks[0].mlp_hidden",
        "blocks[0].mlp_output",
        "blocks[0].mlp_residual",
        "ln_f",
    ]:
        assert name in names
    assert trace("aab", m)["mlp_hidden"].cols[0] == "h0"


# ---- basis --------------------------------------------------------------------------------


def test_basis_keeps_declared_order_and_groups():
    b = handmade.BASIS
    assert b.names == ("P0", "P1", "P2", "P3", "P4", "Ta", "Tb", "V")
    assert b.group_starts() == [5, 7]
    assert repr(b) == "Basis(P0 P1 P2 P3 P4 | Ta Tb | V)"


def test_basis_builds_from_rules():
    b = Basis(["x", "y", "z"])
    assert b.vector({"z": 2}).tolist() == [0, 0, 2]
    assert b.matrix({("x", "y"): 3}).tolist() == [[0, 3, 0], [0, 0, 0], [0, 0, 0]]
    assert b.one_hot_rows(["z", "x"]).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert b.matrix({("x", "u"): 1}, cols=Basis(["u", "v"])).tolist() == [[1, 0], [0, 0], [0, 0]]


def test_basis_errors():
    with pytest.raises(KeyError, match="unknown direction 'w'; this basis has x y"):
        Basis(["x", "y"]).vector({"w": 1})
    with pytest.raises(ValueError, match="repeated: x"):
        Basis(["x", "x"])


# ---- labelled matrix ----------------------------------------------------------------------


def small():
    return LabelledMatrix([[1, 0.5], [-1e10, 0]], ["r0", "r1"], ["c0", "c1"], title="t", col_splits=(1,))


@pytest.mark.parametrize(
    "x, text",
    [
        (1024.0, "1024"),
        (0.5, "0.5"),
        (-0.0, "0"),
        (1 / 3, "0.3333"),
        (-1e10, "-1e+10"),
        (2.9e-158, "≈0"),
        (np.inf, "∞"),
    ],
)
def test_numbers_are_written_as_people_write_them(x, text):
    assert fmt(x) == text


def test_text_rendering():
    assert str(small()) == "t\n        c0 |  c1\nr0       1 | 0.5\nr1  -1e+10 |   0"


def test_html_rendering_marks_splits_highlights_and_zeros():
    html = small().with_highlight({(0, 0)})._repr_html_()
    assert html.count("<tr>") == 3 and "<caption" in html
    assert "border-left:2px solid" in html  # the split before column 1
    assert "background:#ffd866" in html  # the highlighted cell
    assert "color:#6b6b6b" in html  # the zero


def test_html_escapes_labels():
    m = LabelledMatrix([[1]], ["<b>"], ["&"])
    assert "&lt;b&gt;" in m.html() and "&amp;" in m.html()


def test_latex_rendering():
    tex = small().latex("M")
    assert tex.startswith("M = \\left[\\begin{array}{r|r}")
    assert "1 & 0.5 \\\\\n-1e+10 & 0" in tex
    labelled = small().latex(labels=True)
    assert "\\text{c0}" in labelled and "\\hline" in labelled


def test_labels_must_fit_the_matrix():
    with pytest.raises(
        ValueError, match="values is a 2x2 matrix: it needs 2 labels in rows and 2 in cols; found 1 and 2"
    ):
        LabelledMatrix(np.zeros((2, 2)), ["a"], ["x", "y"])


def test_heatmap_draws_labelled_axes():
    code = (
        "import matplotlib; matplotlib.use('Agg');"
        "from handmade.display.trace import trace;"
        "ax = trace('aabaa')['attention_weights'].heatmap();"
        "print([t.get_text() for t in ax.get_yticklabels()][2], len(ax.texts))"
    )
    out = subprocess.check_output([sys.executable, "-c", code], text=True, encoding="utf-8")
    assert out == "pos 2 · b 25\n"


def test_import_handmade_pulls_in_numpy_only():
    code = (
        "import sys, handmade;"
        "heavy = {'matplotlib', 'ipywidgets', 'IPython', 'scipy', 'pandas'};"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    assert subprocess.check_output([sys.executable, "-c", code], text=True, encoding="utf-8") == "[]\n"
