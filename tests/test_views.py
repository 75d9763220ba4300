"""The playground's views are plain functions from a trace to HTML: testable without ipywidgets."""

import subprocess
import sys

import numpy as np
import pytest
from helpers import random_params

import handmade
from handmade.arguments import fmt_short
from handmade.display import views
from handmade.display.colours import CHANGED
from handmade.display.outputs import matrix
from handmade.display.trace import table, trace


def test_the_views_load_without_ipywidgets():
    code = "import sys, handmade.display.views; print('ipywidgets' in sys.modules)"
    assert subprocess.check_output([sys.executable, "-c", code], text=True, encoding="utf-8") == "False\n"


def test_the_blogs_stages_put_each_layer_with_the_views_it_changes():
    stages = {s.key: s for s in views.stages(handmade.blog_model().structure)}
    assert list(stages) == ["embedding", "q", "k", "v", "c_proj"]
    assert stages["q"].parts == ("q", "q.b") and stages["q"].views == ("scores", "attention")
    assert stages["c_proj"].views == ("residual", "logits")  # no ln_f: the logits read what c_proj wrote


@pytest.mark.parametrize("n_layer", [1, 2])
def test_every_part_is_in_exactly_one_stage_whatever_the_shape(n_layer):
    params = handmade.check_weights(
        random_params(np.random.default_rng(0), n_layer=n_layer, n_head=2, ln=True, mlp=True, ln_f=True)
    )
    stages = views.stages(params.structure)
    edited = [name for stage in stages for name in stage.parts]
    assert sorted(edited) == sorted(handmade.parts.parts(params)) and len(edited) == len(set(edited))
    assert stages[-1].key == "ln_f" and stages[-1].block == n_layer - 1
    if n_layer == 2:
        assert "blocks[1].mlp.c_fc" in [s.key for s in stages]  # several blocks: the block says which


def test_a_panel_outlines_exactly_the_cells_that_changed():
    before = trace("aabaa")
    after = trace("aabaa", handmade.parts.with_part(handmade.blog_model(), "q", np.zeros((8, 8))))
    shown = views.panel_html(after, ["attention_weights"], before)
    changed = views.changed_cells(before["attention_weights"].values, after["attention_weights"].values)
    assert shown.count(CHANGED) == len(changed) > 0
    assert CHANGED not in views.panel_html(after, ["attention_weights"], after)


def test_a_score_shows_every_detail_whole():
    long = "x" * 500
    shown = views.score_html("task:", False, "0 / 3 right", [long, "second"])
    assert long in shown and "second" in shown and "…" not in shown


# ---- the numbers the tables write ----------------------------------------------------------------


def cells(matrix):
    """What a table writes in each cell (its plain-text rendering), row by row."""
    return [line.split()[-len(matrix.cols) :] for line in str(matrix).splitlines()[1 + bool(matrix.title) :]]


@pytest.mark.parametrize("lg", [1.0001, 0.99999, 1024.001, 1e-12])
def test_a_typed_lg_is_written_with_every_digit_and_the_logits_it_decides_apart(lg):
    """Lg = 1.0001 gives 27 / 27 where Lg = 1 gives 18 / 27: its tables never read as Lg = 1's (logits 1 | 1)."""
    from handmade.widgets.blog import with_lg

    params = with_lg(handmade.blog_model(), lg)
    t = trace("aabaa", params)
    written = repr(lg)
    assert written in cells(table(params, "c_proj.w"))[-1]  # the weight as typed
    assert written in [c for row in cells(t["residual"]) for c in row]
    for row, text in zip(t["logits"].values, cells(t["logits"])):
        assert (text[0] == text[1]) == (row[0] == row[1]), (row, text)  # a tie reads as one, no other pair does
    for row, text in zip(t["probabilities"].values, cells(t["probabilities"])):
        assert (text[0] == text[1]) == (row[0] == row[1]), (row, text)


def test_a_table_writes_no_rounding_noise_and_one_number_alike_in_every_cell():
    noisy = matrix([[0.1 + 0.2, 0.3, 1 + 1.0001], [1 / 3, 1 / 3 + 1e-15, 2.0001]])
    assert cells(noisy) == [["0.3", "0.3", "2.0001"], ["0.3333", "0.3333", "2.0001"]]
    apart = matrix([[1 / 3, 1 / 3 + 1e-6, 0.25, 1 / 7]])  # only the two that read alike get more digits
    assert cells(apart) == [["0.333333", "0.333334", "0.25", "0.1429"]]
    assert cells(matrix([[np.exp(-362), 0.0, 1e-12]])) == [["≈0", "0", "1e-12"]]  # too small to matter; typed
    assert cells(matrix([[1e300, 1e300 * (1 + 1e-15), -np.inf]])) == [["1e+300", "1e+300", "-∞"]]


@pytest.mark.parametrize("nudge", [np.finfo(float).eps, 1e-13, 1e-12])
def test_what_a_table_writes_does_not_depend_on_float64s_last_digits(nudge):
    """Numbers a last bit apart, or as far as sums in another order take them (1024 + 1.0001 - 1024 is 1.0001
    to within 2.5e-14; 1e-12 of each number is more than any sum of the course), are written alike."""
    rng = np.random.default_rng(0)
    typed = [float(f"{x:.{n}f}") for x, n in zip(rng.normal(size=56), rng.integers(0, 6, size=56))]  # 0 to 5 decimals
    values = np.array([*typed, *(1 / np.arange(3, 11))]).reshape(8, 8)  # and a row that is no short decimal
    nudged = values * (1 + rng.choice([-1, 0, 1], size=values.shape) * nudge)
    assert cells(matrix(values)) == cells(matrix(nudged))
    summed = (1024.0 + 1.0001) - 1024.0  # 1.000099999999975
    assert cells(matrix([[summed, 2.5]])) == cells(matrix([[1.0001, 2.5]])) == [["1.0001", "2.5"]]


def test_a_computed_number_is_seldom_taken_for_a_typed_one():
    """Of 10,000 softmax-like numbers, a handful at most are written in full as if typed; the rest with 4 digits."""
    rng = np.random.default_rng(1)
    values = rng.random(10_000)
    full = [x for x in values if fmt_short(x) is not None]
    assert len(full) <= 5, full
