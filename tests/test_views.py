"""The playground's views are plain functions from a trace to HTML: testable without ipywidgets."""

import subprocess
import sys

import numpy as np
import pytest
from helpers import random_params

import handmade
from handmade.display import views
from handmade.display.colours import CHANGED
from handmade.display.trace import trace


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
