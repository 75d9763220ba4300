"""The widgets, driven from Python: edits, bad entries, reset, Lg, break it, save and load."""

import numpy as np
import pytest

import handmade
from handmade import widgets
from handmade.widgets import Playground, ProductExplorer, SoftmaxExplorer


def type_into(playground, name, i, j, text):
    playground.editors[name].boxes[i][j].value = text


def accuracy_text(playground):
    return playground.views["accuracy"].value


def test_playground_starts_from_the_blog_model():
    p = Playground()
    assert "ACCURACY: 100.0% (27 / 27)" in accuracy_text(p)
    assert "aabaa :: baabaabaab" in p.views["completion"].value
    assert set(p.editors) == set(widgets.EDITABLE)
    assert p.editors["c_proj.w"].boxes[7][6].value == "1024"


def test_editing_a_weight_changes_the_model_and_every_view():
    p = Playground()
    before = p.views["attention"].value
    type_into(p, "q", 1, 0, "0")  # position 1 no longer looks back at position 0
    assert p.params["blocks"][0]["attn"]["c_attn"]["w"][1, 0] == 0
    assert p.views["attention"].value != before


def test_zeroing_lg_in_c_proj_breaks_accuracy_and_reset_restores_it():
    p = Playground()
    type_into(p, "c_proj.w", 7, 6, "0")
    assert "(27 / 27)" not in accuracy_text(p)
    p.widget.children[0]  # the controls are there
    reset = _find(p.widget, "hm-reset")
    reset.click()
    assert "(27 / 27)" in accuracy_text(p)
    assert p.editors["c_proj.w"].boxes[7][6].value == "1024"


@pytest.mark.parametrize(
    "text, message",
    [
        ("abc", "'abc' is not a number; the model keeps 1024"),
        ("inf", "inf is not finite"),
        ("nan", "nan is not finite"),
    ],
)
def test_a_bad_entry_shows_a_message_and_keeps_the_model(text, message):
    p = Playground()
    type_into(p, "c_proj.w", 7, 6, text)
    assert message in p.editors["c_proj.w"].message.value
    assert p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == 1024
    assert "(27 / 27)" in accuracy_text(p)
    type_into(p, "c_proj.w", 7, 6, "1024")
    assert p.editors["c_proj.w"].message.value == ""


def test_an_entry_that_overflows_is_refused_with_the_reason():
    p = Playground()
    type_into(p, "wte", 0, 5, "1e200")
    assert "inf or nan" in p.editors["wte"].message.value and "the model keeps 1" in p.editors["wte"].message.value
    assert p.params["wte"][0, 5] == 1


def test_the_context_box_refuses_foreign_characters():
    p = Playground()
    _find(p.widget, "hm-context").value = "abz"
    assert "cannot tokenize 'z' at position 2" in p._text_message.value and p.text == "aabaa"
    _find(p.widget, "hm-context").value = "ab"
    assert p.text == "ab" and "ab :: aabaabaaba" in p.views["completion"].value


def test_lg_slider_sets_c_proj_and_shows_where_predictions_break():
    p = Playground()
    slider = _find(p.widget, "hm-lg")
    slider.value = 0.5
    assert "(27 / 27)" not in accuracy_text(p)
    assert p.editors["c_proj.b"].boxes[0][5].value == "0.5"
    slider.value = 2
    assert "(27 / 27)" in accuracy_text(p)


def test_break_it_zeroes_the_chosen_weight():
    p = Playground()
    assert _find(p.widget, "hm-break-row").value == "V" and _find(p.widget, "hm-break-col").value == "Tb"
    _find(p.widget, "hm-break-go").click()
    assert p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == 0 and "(27 / 27)" not in accuracy_text(p)
    _find(p.widget, "hm-break-matrix").value = "wte"
    _find(p.widget, "hm-break-action").value = "flip sign"
    _find(p.widget, "hm-break-col").value = "Ta"
    _find(p.widget, "hm-break-go").click()
    assert p.params["wte"][0, 5] == -1


def test_save_then_load_restores_the_weights(tmp_path):
    p = Playground(save_path=tmp_path / "w.json")
    type_into(p, "q", 2, 1, "7")
    _find(p.widget, "hm-file-save").click()
    assert "saved the weights" in p.status.value
    type_into(p, "q", 2, 1, "9")
    _find(p.widget, "hm-file-load").click()
    assert p.params["blocks"][0]["attn"]["c_attn"]["w"][2, 1] == 7
    assert p.editors["q"].boxes[2][1].value == "7"


def test_loading_a_bad_file_keeps_the_model(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"wte": [[1]]}')
    p = Playground(save_path=path)
    _find(p.widget, "hm-file-load").click()
    assert "is missing 'wpe'" in p.status.value and "the model is unchanged" in p.status.value
    assert "(27 / 27)" in accuracy_text(p)


def test_loading_weights_of_another_shape_is_refused(tmp_path):
    params = handmade.blog_model()
    params["blocks"].append(params["blocks"][0])
    handmade.save_weights(params, tmp_path / "two.json")
    p = Playground(save_path=tmp_path / "two.json")
    _find(p.widget, "hm-file-load").click()
    assert "edits one block" in p.status.value


def test_subsets_of_editors_views_and_controls():
    p = Playground(edit=("q",), views=("scores",), controls=("text",))
    assert list(p.editors) == ["q"] and list(p.views) == ["scores"]
    with pytest.raises(ValueError, match="no view called 'nope'; choose from embedding, qkv"):
        Playground(views=("nope",))
    with pytest.raises(ValueError, match="no matrix called 'x'; choose from wte, wpe, q, k, v, c_proj.w, c_proj.b"):
        Playground(edit=("x",))
    with pytest.raises(ValueError, match="no control called 'undo'"):
        Playground(controls=("undo",))


def test_snapshot_is_the_widgets_views_as_static_html():
    p = Playground(views=("attention", "accuracy"))
    html = p.snapshot()._repr_html_()
    assert p.views["attention"].value in html and "27 / 27" in html


def test_widget_text_form_is_one_fixed_line():
    assert repr(Playground().widget) == "[Playground: an interactive widget; run the notebook in Jupyter to use it]"


def test_product_explorer_writes_out_the_dot_product():
    e = ProductExplorer(np.arange(1, 9).reshape(2, 4), np.arange(1, 13).reshape(4, 3))
    assert "1*1 + 2*4 + 3*7 + 4*10 = <b>70</b>" in e.view.value
    e.row.value, e.col.value = 1, 2
    assert "5*3 + 6*6 + 7*9 + 8*12 = <b>210</b>" in e.view.value


def test_softmax_explorer_scales_and_refuses_bad_rows():
    e = SoftmaxExplorer()
    assert "0.5761" in e.view.value
    e.scale.value = 100
    assert "≈0" in e.view.value
    e.text.value = "1, x"
    assert "is not a list of numbers" in e.message.value and e.row.tolist() == [1, 0, 0]


def _find(widget, css_class):
    if css_class in getattr(widget, "_dom_classes", ()):
        return widget
    for child in getattr(widget, "children", ()):
        found = _find(child, css_class)
        if found is not None:
            return found
    return None


def test_break_it_offers_exactly_the_editable_matrices():
    p = Playground()
    assert list(_find(p.widget, "hm-break-matrix").options) == list(widgets.EDITABLE)


def test_new_weights_that_overflow_are_refused_and_the_model_kept():
    p = Playground()
    assert not p.replace(widgets.with_matrix(p.params, "wte", np.full((2, 8), 1e200)), "too big")
    assert "inf or nan" in p.status.value and "the model is unchanged" in p.status.value
    assert p.params["wte"][0, 5] == 1 and p.editors["wte"].boxes[0][5].value == "1"
    assert "(27 / 27)" in accuracy_text(p)
