"""The widgets, driven from Python: edits, bad entries, reset, Lg, break it, save and load, any model."""

import html
import importlib
import json
import pkgutil
import re
from dataclasses import replace

import anywidget
import ipywidgets as W
import numpy as np
import pytest
from helpers import random_params

import handmade
from handmade import parts, widgets
from handmade.arguments import exact
from handmade.display import views
from handmade.display.colours import CHANGED
from handmade.display.labelled import fmt
from handmade.parts import with_parts
from handmade.widgets import Playground, ProductExplorer, SoftmaxExplorer, blog_playground
from handmade.widgets.blog import with_lg
from handmade.widgets.choice import Chosen, Menu
from handmade.widgets.editors import QUIET_LABEL, refusing
from handmade.widgets.marks import Marks
from handmade.widgets.slider import LogSlider
from handmade.widgets.textbox import TextBox


def type_into(playground, name, i, j, text):
    playground.editors[name].boxes[i][j].value = text


def accuracy_text(playground):
    return playground.summary["accuracy"].value


def view(playground, name):
    """Everything the playground shows for view ``name``, across its stages."""
    return "".join(panel.value for (stage, shown), panel in playground.panels.items() if shown == name)


def _find(widget, css_class):
    if css_class in getattr(widget, "_dom_classes", ()):
        return widget
    for child in getattr(widget, "children", ()):
        found = _find(child, css_class)
        if found is not None:
            return found
    return None


# ---- the blog's model ---------------------------------------------------------------------


def test_playground_starts_from_the_blog_model_with_every_part_editable():
    p = blog_playground()
    assert "ACCURACY: 100.0% (27 / 27)" in accuracy_text(p)
    assert "predicts <b>b</b>" in p.summary["prediction"].value
    assert list(p.editors) == list(parts.parts(handmade.blog_model()))
    assert p.editors["c_proj.w"].boxes[7][6].value == "1024"
    assert p.status.value == "" and p.strength.message.value == ""  # nothing to report before anything is done


def test_the_stages_put_each_grid_beside_the_views_it_changes():
    stages = {stage.key: stage for stage in views.stages(handmade.blog_model().structure)}
    assert list(stages) == ["embedding", "q", "k", "v", "c_proj"]
    assert stages["q"].parts == ("q", "q.b") and stages["q"].views == ("scores", "attention")
    assert stages["v"].views == ("v", "attention_output")
    assert stages["c_proj"].views == ("residual", "logits")


def test_editing_a_weight_changes_the_model_and_marks_what_changed():
    p = blog_playground()
    before = view(p, "attention")
    assert CHANGED not in before  # nothing changed yet
    type_into(p, "q", 1, 0, "0")  # position 1 no longer looks back at position 0
    assert p.params["blocks"][0]["attn"]["c_attn"]["w"][1, 0] == 0
    after = view(p, "attention")
    assert after != before and CHANGED in after


def test_one_edit_costs_one_traced_pass_and_the_accuracys_passes(monkeypatch):
    calls = []
    real = handmade.weights.gpt
    monkeypatch.setattr(handmade.weights, "gpt", lambda *a, **k: calls.append(1) or real(*a, **k))
    p = blog_playground()
    calls.clear()
    type_into(p, "q", 4, 3, "0")
    distinct_windows = len({e.context[-5:] for e in handmade.prefix_examples()})
    assert len(calls) == 1 + distinct_windows == 7


def test_zeroing_lg_in_c_proj_breaks_accuracy_and_reset_puts_back_every_control():
    p = blog_playground()
    type_into(p, "c_proj.w", 7, 6, "0")
    _find(p.widget, "hm-context").value = "ab"
    p.strength.box.value = "3"
    assert "(27 / 27)" in accuracy_text(p)  # Lg = 3 rewrote c_proj by the rule
    type_into(p, "c_proj.w", 7, 6, "0")
    assert "(27 / 27)" not in accuracy_text(p)
    _find(p.widget, "hm-reset").click()
    assert "(27 / 27)" in accuracy_text(p)
    assert p.editors["c_proj.w"].boxes[7][6].value == "1024"
    assert p.strength.box.value == "1024" and p.strength.slider.value == 1024
    assert _find(p.widget, "hm-context").value == "aabaa" and p.text == "aabaa"


def _weights(p):
    return {name: array.copy() for name, array in handmade.weights.arrays_of(p.params).items()}


def _same(weights, other):
    return weights.keys() == other.keys() and all(np.array_equal(weights[k], other[k]) for k in weights)


def _with_a_file_to_load(tmp_path):
    """The blog's playground, whose file box names a file of the blog's model: a load puts it back."""
    handmade.save_weights(handmade.blog_model(), tmp_path / "blog.json")
    return blog_playground(save_path=tmp_path / "blog.json")


UNDONE = {  # what replaces a design: its button, its undo button, the undo's method, the context it leaves
    "reset": ("hm-reset", "hm-undo-reset", "undo_reset", "aabaa"),
    "load": ("hm-file-load", "hm-file-undo", "undo_load", "ab"),
}


@pytest.mark.parametrize("kind", list(UNDONE))
def test_an_undo_brings_back_the_weights_the_context_and_the_lg_box_a_reset_or_a_load_replaced_once(tmp_path, kind):
    """A reset, or "load weights", is one click: what it replaced (a learner's design, not saved, the context, what the
    Lg box said) comes back with "undo reset" or "undo load", shown beside it however often it is pressed again; after
    that, and after one that changed nothing, there is nothing to undo. A load keeps the context."""
    p = _with_a_file_to_load(tmp_path)
    button, undo = (_find(p.widget, css) for css in UNDONE[kind][:2])
    method, context = UNDONE[kind][2:]
    button.click()  # nothing changed yet: nothing to bring back
    assert undo.layout.display == "none" and "undo" not in p.status.value and undo.description == f"undo {kind}"
    p.strength.box.value = "3"
    type_into(p, "c_proj.w", 7, 6, "0")
    _find(p.widget, "hm-context").value = "ab"
    designed, shown, lg = _weights(p), accuracy_text(p), p.strength.box.value
    for _twice in range(2):  # the second changes nothing, and keeps what the first replaced
        button.click()
        assert undo.layout.display is None and f"“undo {kind}” brings back" in p.status.value
        assert p.text == context and p.editors["c_proj.w"].boxes[7][6].value == "1024"
        assert "(27 / 27)" in accuracy_text(p) or kind == "load"  # the blog's model, on the context kept
    assert sum(_find(p.widget, css).layout.display is None for _b, css, _m, _c in UNDONE.values()) == 1
    undo.click()
    assert _same(_weights(p), designed) and p.editors["c_proj.w"].boxes[7][6].value == "0"
    assert p.text == "ab" and _find(p.widget, "hm-context").value == "ab"
    assert accuracy_text(p) == shown and p.strength.box.value == lg
    assert undo.layout.display == "none" and f"from before the {kind} are back" in p.status.value
    getattr(p, method)()  # once: a second undo changes nothing, and says so
    assert _same(_weights(p), designed) and p.text == "ab" and f"there is no {kind} to undo" in p.status.value


@pytest.mark.parametrize("change", ["heads", "names"])
def test_a_load_that_changes_only_the_heads_or_the_names_is_a_change_and_can_be_undone(tmp_path, change):
    """The same arrays under two heads (19 / 27, not 27 / 27), or under other names, are another model: the load offers
    its undo, which brings back the one before."""
    params = handmade.weights.check_weights(handmade.blog_model())
    if change == "heads":
        params["blocks"][0]["n_head"] = 2
    else:
        names = [f"d{k}" for k in range(len(params.labels.residual))]
        params = handmade.weights.check_weights(params, replace(params.labels, residual=handmade.Basis(names)))
    handmade.save_weights(params, tmp_path / "other.json")
    p = blog_playground(save_path=tmp_path / "other.json")
    before = _weights(p), p.params.structure, p.params.labels
    _find(p.widget, "hm-file-load").click()
    assert (p.params.structure, p.params.labels) != before[1:]
    assert _find(p.widget, "hm-file-undo").layout.display is None and "“undo load” brings back" in p.status.value
    p.undo_load()
    assert _same(_weights(p), before[0]) and (p.params.structure, p.params.labels) == before[1:]


def test_each_save_row_shows_the_undo_and_its_undo_gives_the_keyboard_to_its_own_load_button(tmp_path, monkeypatch):
    """A second save row (``save_control()`` called again): built after a load, it shows the undo too; an undo pressed
    in one row gives the keyboard to that row's "load weights", not to the other's."""
    focused = []
    monkeypatch.setattr(handmade.widgets.undo, "give_focus", focused.append)
    p = _with_a_file_to_load(tmp_path)
    type_into(p, "q", 1, 0, "7")
    _find(p.widget, "hm-file-load").click()
    second = p.save_control()
    first_undo, second_undo = _find(p.widget, "hm-file-undo"), _find(second, "hm-file-undo")
    assert first_undo.layout.display is None and second_undo.layout.display is None
    second_undo.click()
    assert focused == [_find(second, "hm-file-load")] and p.params["blocks"][0]["attn"]["c_attn"]["w"][1, 0] == 7
    assert first_undo.layout.display == "none" and second_undo.layout.display == "none"


def test_one_undo_at_a_time_for_the_last_reset_or_load_and_a_refused_load_keeps_it(tmp_path):
    """A reset and then a load: "undo load" brings back what the reset put in, and "undo reset" goes (the reset's
    weights are no longer one step back). A load refused (another shape) changes nothing, its undo included."""
    p = _with_a_file_to_load(tmp_path)
    undo_reset, undo_load = _find(p.widget, "hm-undo-reset"), _find(p.widget, "hm-file-undo")
    type_into(p, "q", 1, 0, "7")
    designed = _weights(p)
    p.reset()
    type_into(p, "c_proj.w", 7, 6, "0")  # the reset's undo goes at the next change
    edited = _weights(p)
    _find(p.widget, "hm-file-load").click()
    assert (undo_reset.layout.display, undo_load.layout.display) == ("none", None)
    p.undo_reset()
    assert "there is no reset to undo" in p.status.value and not _same(_weights(p), designed)
    other = handmade.blog_model()
    other["blocks"].append(other["blocks"][0])
    handmade.save_weights(other, tmp_path / "two.json")
    _find(p.widget, "hm-file-path").value = str(tmp_path / "two.json")
    _find(p.widget, "hm-file-load").click()
    assert "the model is unchanged" in p.status.value and undo_load.layout.display is None
    undo_load.click()
    assert _same(_weights(p), edited) and p.editors["c_proj.w"].boxes[7][6].value == "0"


@pytest.mark.parametrize(
    "text, message",
    [
        ("abc", "'abc' is not a number (write one as 1.5, -2 or 3e-4); the model keeps 1024"),
        ("inf", "inf is not finite"),
        ("nan", "nan is not finite"),
        ("-Infinity", "-Infinity is not finite"),
        ("1e400", "1e400 is too large (float64 holds numbers up to about 1.8e308)"),
        ("－１e400", "－１e400 is too large (float64"),
        ("1" * 3000, f"{'1' * 39}… is too large (float64"),  # cut, and said to be: finite, too large
        ("1e-400", "1e-400 is too close to 0 (float64 would hold it as 0); the model keeps 1024"),
        ("－１e-400", "－１e-400 is too close to 0 (float64"),  # as the grids read it: a number, not 0
        ("", "c_proj.w[V, Tb]: type a number to use it; the model keeps 1024"),
        ("  ", "type a number to use it; the model keeps 1024"),
        ("x" * 5000, f"'{'x' * 37}…' is not a number"),  # cut inside its quotes, which close
        ("1_5", "'1_5' is not a number (write one as 1.5"),  # Python's digit separator: never 15 unsaid
        ("１_５", "'１_５' is not a number"),
        (
            "123456789012345678901",
            "has more digits than float64 keeps (the nearest number it holds is 1.2345678901234568e+20)",
        ),
        (
            "1.00000000000000001",
            "1.00000000000000001 has more digits than float64 keeps (the nearest number it holds is 1);",
        ),
    ],
)
def test_a_bad_entry_shows_a_message_and_keeps_the_model(text, message):
    p = blog_playground()
    type_into(p, "c_proj.w", 7, 6, text)
    assert message in p.editors["c_proj.w"].message.value
    assert len(p.editors["c_proj.w"].message.value) < 400
    assert p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == 1024
    assert "(27 / 27)" in accuracy_text(p)
    type_into(p, "c_proj.w", 7, 6, "1024")
    assert p.editors["c_proj.w"].message.value == ""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_grid_that_puts_back_dozens_of_boxes_names_those_that_fit_and_counts_the_rest(language):
    """Every box of c_proj.w refused, then one taken: 63 put back, said in one short line, not a failure: the names
    that fit in a line's 80 characters (three of these), and how many more."""
    handmade.set_language(language)
    try:
        p = blog_playground()
        editor = p.editors["c_proj.w"]
        for i, j in np.ndindex(*editor.values.shape):
            type_into(p, "c_proj.w", i, j, "x")
        type_into(p, "c_proj.w", 0, 0, "1")
        said = _said(editor.message)
        more = {"en": "c_proj.w[P0, P3] = 0 and 60 more", "zh": "c_proj.w[P0, P3] = 0 以及另外 60 个"}[language]
        assert said.endswith(more) and said.count("=") == 3 and len(said) < 200, said
        assert not refusing(editor)
    finally:
        handmade.set_language("en")


def test_no_box_shows_a_number_the_model_does_not_use_once_its_message_is_gone():
    """A refused entry stays in its box, to mend, while the message beside the grid says what the model
    keeps; once a later edit takes the message's place, every box that held refused text shows the
    model's own value again, and the box edited last shows what was typed."""
    p = blog_playground()
    editor = p.editors["c_proj.w"]
    type_into(p, "c_proj.w", 7, 6, "abc")
    type_into(p, "c_proj.w", 0, 0, "1e400")
    assert editor.boxes[7][6].value == "abc" and editor.boxes[0][0].value == "1e400"  # the latest is said
    assert "1e400 is too large (float64 holds numbers up to about 1.8e308); the model keeps 0" in (editor.message.value)
    type_into(p, "c_proj.w", 1, 1, "-0.5")
    back = "back to the numbers the model uses: c_proj.w[P0, P0] = 0, c_proj.w[V, Tb] = 1024"  # both, said
    assert _said(editor.message) == back and p.params["blocks"][0]["attn"]["c_proj"]["w"][1, 1] == -0.5
    shown = [[float(box.value) for box in row] for row in editor.boxes]
    assert np.array_equal(shown, p.params["blocks"][0]["attn"]["c_proj"]["w"]), (
        "a box shows what the model does not use"
    )
    assert editor.boxes[1][1].value == "-0.5"


def test_an_entry_that_overflows_is_refused_with_the_reason():
    p = blog_playground()
    type_into(p, "wte", 0, 5, "1e200")
    assert "inf or nan" in p.editors["wte"].message.value and "the model keeps 1" in p.editors["wte"].message.value
    assert p.params["wte"][0, 5] == 1


def test_a_huge_query_weight_cannot_make_position_0_see_the_future():
    p = blog_playground()
    type_into(p, "q", 0, 1, "1e11")  # the weight that made the -1e10 mask leak
    assert p.editors["q"].message.value == ""
    first_row = p.params and handmade.display.trace.trace("ab", p.params)["attention_weights"].values[0]
    assert first_row.tolist() == [1.0, 0.0]


def test_the_context_box_refuses_foreign_characters_and_huge_texts():
    p = blog_playground()
    _find(p.widget, "hm-context").value = "abz"
    assert "cannot tokenize 'z' at position 2" in p.text_message.value and p.text == "aabaa"
    _find(p.widget, "hm-context").value = "ab" * 10_000
    assert "at most 10000 characters" in p.text_message.value and p.text == "aabaa"
    _find(p.widget, "hm-context").value = "ab"
    assert p.text == "ab" and "after <code>ab</code>" in p.summary["prediction"].value


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_context_longer_than_the_models_positions_says_which_letters_the_model_reads(language):
    """The blog's model reads 5 positions: after 12 letters the bar says it reads the last 5, which the views show."""
    from handmade.i18n import set_language

    set_language(language)
    try:
        p = blog_playground()
        _find(p.widget, "hm-context").value = "abababababab"
        said = p.summary["prediction"].value
    finally:
        set_language("en")
    expected = {
        "en": "after <code>abababababab</code> the model, which reads only its last 5 letters, <code>babab</code>,",
        "zh": "在 <code>abababababab</code> 之后，模型只读它的最后 5 个字母 <code>babab</code>，预测",
    }
    assert expected[language] in said
    assert "reads only its last" not in blog_playground().summary["prediction"].value  # aabaa: 5 letters, all read


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_scores_label_and_its_summary_are_kept_apart_in_either_language(language):
    """The bar's score reads "label: summary", "label：summary" in Chinese (whose sentence puts no space after
    the label's own colon): the blog's label as well as a task's, never glued to the summary, "(aab)*准确率"."""
    from handmade.i18n import set_language

    set_language(language)
    try:
        bars = {"(aab)*": accuracy_text(blog_playground()), "seen_b": accuracy_text(Playground(task="seen_b"))}
    finally:
        set_language("en")
    separator = {"en": ": ", "zh": "："}[language]
    for label, bar in bars.items():
        head = re.sub(r"<[^>]*>", "", bar.split("<b>")[0])
        assert head == label + separator, bar
    said = re.sub(r"<[^>]*>", "", bars["(aab)*"])
    assert said == {"en": "(aab)*: ACCURACY: 100.0% (27 / 27)", "zh": "(aab)*：准确率：100.0%（27 / 27）"}[language]


def test_lg_takes_any_exact_value_and_the_slider_follows():
    p = blog_playground()
    p.strength.box.value = "1.0"
    assert "(18 / 27)" in accuracy_text(p)  # a tie, which argmax breaks towards a
    p.strength.box.value = "1.01"
    assert "(27 / 27)" in accuracy_text(p) and p.editors["c_proj.b"].boxes[0][5].value == "1.01"
    assert p.strength.slider.value == pytest.approx(1.01)
    p.strength.box.value = "0"
    assert p.strength.box.value == "0" and p.strength.slider.value == 2.0**-4  # the slider goes as far as it can
    assert p.editors["c_proj.b"].boxes[0][5].value == "0"
    p.strength.slider.value = 2.0
    assert p.strength.box.value == "2" and "(27 / 27)" in accuracy_text(p)
    assert "Lg = 2" in p.status.value


@pytest.mark.parametrize("typed", ["1.0001", "0.99999", "1e-12", "1024.000001"])
def test_an_lg_that_rounds_to_a_shorter_number_is_shown_with_every_digit_it_was_given(typed):
    """Lg = 1.0001 gives 27 / 27 where Lg = 1 gives 18 / 27: the status, the grids it set and the prediction
    say the number the model runs (every digit), never one that rounds to what another model would show."""
    p = blog_playground()
    p.strength.box.value = typed
    lg = float(typed)
    assert f"Lg = {typed}" in p.status.value, p.status.value
    shown = {box.value for row in p.editors["c_proj.b"].boxes for box in row}
    assert typed in shown and all(float(value) in (0.0, lg, -lg) for value in shown), shown
    p.text = "a"
    p.refresh()
    said = p.summary["prediction"].value
    assert ("(p = 0.5)" in said) == (lg == 1), said  # a p of 0.50002 is not written 0.5


@pytest.mark.parametrize(
    "text, said",
    [
        (
            "0,5",
            "'0,5' is not a number (write one as 1.5, -2 or 3e-4); keeping 1024",
        ),  # a comma is never read as a decimal point, nor dropped
        ("abc", "'abc' is not a number (write one as 1.5, -2 or 3e-4); keeping 1024"),
        ("1e308", "1e308 is outside what this control can use, -1e+300 to 1e+300; keeping 1024"),
        ("nan", "nan is not finite (write a finite number, such as 1.5); keeping 1024"),
        ("-inf", "-inf is not finite (write a finite number, such as 1.5); keeping 1024"),
        ("1e400", "1e400 is too large (float64 holds numbers up to about 1.8e308)"),
        ("1e-400", "1e-400 is too close to 0 (float64 would hold it as 0); keeping 1024"),
        ("1_024", "'1_024' is not a number (write one as 1.5, -2 or 3e-4); keeping 1024"),
        (
            "1024.0000000000001",
            "1024.0000000000001 has more digits than float64 keeps (the nearest number it holds is 1024); keeping 1024",
        ),
    ],
)
def test_lg_refuses_what_is_no_number_it_can_use_beside_the_box_and_keeps_the_model(text, said):
    p = blog_playground()
    before = p.params["blocks"][0]["attn"]["c_proj"]["w"].copy()
    p.strength.box.value = text
    assert said in p.strength.message.value and p.strength.value == 1024
    assert np.array_equal(p.params["blocks"][0]["attn"]["c_proj"]["w"], before)


@pytest.mark.parametrize(
    "text, value",
    [("１２", 12), ("－３", -3), ("−0.5", -0.5), (" 7 ", 7), ("0.1", 0.1), ("0.30000000000000004", 0.1 + 0.2)]
    + [("1.10", 1.1), ("+2.5e-3", 0.0025), ("١٢", 12), ("1E2", 100)],  # digits float64 keeps: used as typed
)
def test_lg_reads_full_width_digits_and_signs_as_the_grids_do(text, value):
    p = blog_playground()
    p.strength.box.value = text
    assert p.strength.value == value and p.strength.message.value == ""
    type_into(p, "c_proj.w", 7, 6, text)  # the same text in a grid
    assert p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == value


def test_after_an_edit_leaves_the_rule_the_box_is_empty_and_typing_its_old_value_puts_the_rule_back():
    p = blog_playground()
    type_into(p, "c_proj.w", 7, 6, "0")  # what "break it" does by default
    assert p.strength.box.value == "" and "(27 / 27)" not in accuracy_text(p)
    p.strength.box.value = "1024"  # the value it showed before: used, not taken for no change
    assert p.strength.box.value == "1024" and "(27 / 27)" in accuracy_text(p)
    assert p.editors["c_proj.w"].boxes[7][6].value == "1024"


def test_the_lg_box_never_shows_a_value_the_model_does_not_use_nor_says_what_no_longer_holds():
    p = blog_playground()
    p.strength.box.value = "abc"  # refused: the message says the model keeps 1024
    type_into(p, "c_proj.w", 7, 6, "0")  # the rule left: the box empty, and the refusal gone: the news said instead
    assert p.strength.box.value == "" and "keeps" not in p.strength.message.value
    assert "no longer follow this rule" in p.strength.message.value
    type_into(p, "v", 5, 7, "1e200")
    p.strength.box.value = "1e300"  # the rule at 1e300 overflows with this v: refused, the model unchanged
    assert p.strength.box.value == "" and p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == 0
    type_into(p, "v", 5, 7, "1")
    p.strength.box.value = "1024"  # typed into the empty box: used
    assert p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == 1024 and p.strength.box.value == "1024"


@pytest.mark.parametrize("language, empty", [("en", "; the box stays empty"), ("zh", "；输入框保持为空")])
def test_a_refusal_in_the_emptied_lg_box_says_the_box_stays_empty_as_a_clause_of_its_own(language, empty):
    """The Lg box emptied (the weights left its rule), then a bad entry: what stays is no value. It was said as a value
    kept, "keeping the empty box", which read "保留原值 空着的输入框" in Chinese; each refusal ends with a clause of its
    own for it now, and with the value kept while there is one."""
    handmade.set_language(language)
    try:
        p = blog_playground()
        p.strength.box.value = "abc"
        assert p.strength.said.endswith("1024") and empty not in p.strength.said, p.strength.said
        type_into(p, "c_proj.w", 7, 6, "0")  # the rule left: the box emptied
        for typed in ("abc", " ", "1e301"):
            p.strength.box.value = typed
            assert p.strength.said.endswith(empty) and "1024" not in p.strength.said, p.strength.said
    finally:
        handmade.set_language("en")


def settle(slider, step=0.05):
    """What the browser does after a value is set: the slider snaps to its nearest step and says so."""
    slider.value = slider.base ** (round(np.log2(slider.value) / step) * step)


@pytest.mark.parametrize("order", [(1.01, 500, 3, 100, 1.5), (500, 1.01, 1.5, 1, 3), (1.5, 100, 1.01, 0.0, 1024)])
def test_lg_keeps_exactly_what_is_typed_in_any_order_even_when_the_slider_settles(order):
    p = blog_playground()
    for value in order:
        p.strength.box.value = str(value)
        settle(p.strength.slider)  # the slider's echo must not move the box
        assert float(p.strength.box.value) == value and p.strength.value == value
        shown = float(p.editors["c_proj.w"].boxes[7][6].value)  # V -> Tb is Lg in the blog's rule
        assert shown == pytest.approx(value, rel=1e-3) and f"Lg = {fmt(value)}" in p.status.value
        right = handmade.accuracy(with_lg(handmade.blog_model(), value)).correct
        assert f"({right} / 27)" in accuracy_text(p)


def test_dragging_the_slider_uses_its_position_and_shows_it_in_the_box():
    p = blog_playground()
    p.strength.slider.value = 2.0**3.05
    assert float(p.strength.box.value) == float(f"{2.0**3.05:.4g}") == p.strength.value


def test_a_change_that_changes_nothing_keeps_the_outlines_of_the_last_one():
    p = blog_playground()
    p.strength.box.value = "1"
    outlined = view(p, "attention") + view(p, "residual")
    assert CHANGED in outlined
    settle(p.strength.slider)
    p.refresh()  # the same weights again
    assert view(p, "attention") + view(p, "residual") == outlined


def test_break_it_zeroes_the_chosen_weight():
    p = blog_playground()
    assert _find(p.widget, "hm-break-row").value == "V" and _find(p.widget, "hm-break-col").value == "Tb"
    _find(p.widget, "hm-break-go").click()
    assert p.params["blocks"][0]["attn"]["c_proj"]["w"][7, 6] == 0 and "(27 / 27)" not in accuracy_text(p)
    _find(p.widget, "hm-break-matrix").value = "wte"
    _find(p.widget, "hm-break-action").value = "flip sign"
    _find(p.widget, "hm-break-col").value = "Ta"
    _find(p.widget, "hm-break-go").click()
    assert p.params["wte"][0, 5] == -1


def test_break_it_offers_exactly_the_editable_parts():
    p = blog_playground()
    assert list(_find(p.widget, "hm-break-matrix").options) == list(p.editors)


# ---- files --------------------------------------------------------------------------------


def test_save_then_load_restores_the_weights(tmp_path):
    p = blog_playground(save_path=tmp_path / "w.json")
    type_into(p, "q", 2, 1, "7")
    _find(p.widget, "hm-file-save").click()
    assert "wrote the weights to" in p.status.value
    type_into(p, "q", 2, 1, "9")
    _find(p.widget, "hm-file-save").click()
    assert "replaced the weights in" in p.status.value
    type_into(p, "q", 2, 1, "7")
    _find(p.widget, "hm-file-load").click()
    assert p.params["blocks"][0]["attn"]["c_attn"]["w"][2, 1] == 9
    assert p.editors["q"].boxes[2][1].value == "9"


def test_a_save_while_boxes_show_text_the_model_did_not_take_says_which_and_what_the_file_holds(tmp_path):
    """The boxes keep refused text to mend; a save said only "saved", and the file held numbers the boxes did not show.
    It names each grid and Lg that shows such text, in any tab; once they are mended, a save says "saved" alone."""
    p = blog_playground(save_path=tmp_path / "w.json")
    type_into(p, "q", 2, 1, "lots")
    type_into(p, "c_proj.w", 0, 0, "7")  # another grid's edit, taken
    p.strength.box.value = "-1e400"
    _find(p.widget, "hm-file-save").click()
    said = _said(p.status)
    assert "wrote the weights to" in said and "but q, c_proj Lg still show text the model did not take" in said, said
    assert 'data-hm-says="alert"' in p.status.value
    assert (
        handmade.load_weights(tmp_path / "w.json")["blocks"][0]["attn"]["c_attn"]["w"][2, 1]
        == p.params["blocks"][0]["attn"]["c_attn"]["w"][2, 1]
    )
    type_into(p, "q", 2, 1, "3")
    p.strength.box.value = "2"
    _find(p.widget, "hm-file-save").click()
    assert "replaced the weights in" in _said(p.status) and "still show" not in _said(p.status)
    assert 'data-hm-says="status"' in p.status.value


def test_loading_weights_that_follow_the_lg_rule_shows_their_lg_in_the_box(tmp_path):
    """Notebook 09: "save, change something, load: the weights come back exactly", and so does their Lg."""
    p = blog_playground(save_path=tmp_path / "w.json")
    p.strength.box.value = "1.0001"
    _find(p.widget, "hm-file-save").click()
    said = []
    p.strength.message.observe(said.append, names="value")
    p.strength.box.value = "5"
    assert said == []  # a value typed is used, and nothing said of it beside the box, not for a moment
    _find(p.widget, "hm-file-load").click()
    assert p.strength.box.value == "1.0001" and p.strength.value == 1.0001
    assert p.strength.slider.valuetext == "1.0001" and p.strength.slider.value == pytest.approx(1.0001)
    assert "follow this rule at 1.0001" in p.strength.message.value and "loaded the weights" in p.status.value
    type_into(p, "c_proj.w", 7, 6, "0")  # left the rule: the box empty
    assert p.strength.box.value == "" and "no longer follow" in p.strength.message.value
    _find(p.widget, "hm-file-load").click()  # and back in it
    assert p.strength.box.value == "1.0001" and "(27 / 27)" in accuracy_text(p)


def test_loading_weights_that_leave_the_lg_rule_empties_the_box_and_says_why(tmp_path):
    p = blog_playground(save_path=tmp_path / "w.json")
    type_into(p, "c_proj.w", 7, 6, "3")
    _find(p.widget, "hm-file-save").click()
    _find(p.widget, "hm-reset").click()
    assert p.strength.box.value == "1024" and p.strength.message.value == ""  # reset says nothing stale
    _find(p.widget, "hm-file-load").click()
    assert p.strength.box.value == "" and "no longer follow this rule" in p.strength.message.value
    assert p.strength.slider.valuetext.startswith("none")


@pytest.mark.parametrize("lg", [3.0, 0.0, -2.5, 1e-12])
def test_weights_put_in_by_replace_or_typed_back_show_the_lg_they_follow(lg):
    p = blog_playground()
    p.replace(with_lg(handmade.blog_model(), lg))
    assert p.strength.box.value == handmade.arguments.exact(lg) and p.strength.value == lg
    type_into(p, "c_proj.b", 0, 5, "7")  # the bias no longer the rule's
    assert p.strength.box.value == ""
    type_into(p, "c_proj.b", 0, 5, handmade.arguments.exact(lg))  # typed back: the rule again, at that Lg
    assert p.strength.box.value == handmade.arguments.exact(lg)


def test_saving_over_a_file_that_is_not_weights_is_refused(tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_text('{"my": "notes"}', encoding="utf-8")
    p = blog_playground(save_path=notes)
    _find(p.widget, "hm-file-save").click()
    assert "is not a weights file, and it is kept as it is: type another file name in the file box" in p.status.value
    assert notes.read_text(encoding="utf-8") == '{"my": "notes"}'


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"wte": [[1]]}', "are missing 'wpe'"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (None, "a whole number of 400 digits"),
        ("{not json", "is not valid JSON"),
    ],
)
def test_loading_a_bad_file_shows_a_message_and_keeps_the_model(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content is None:  # a weight with 400 digits
        data = json.loads(handmade.weights_to_json(handmade.blog_model()))
        data["wte"][0][0] = int("9" * 400)
        content = json.dumps(data)
    path.write_text(content, encoding="utf-8")
    p = blog_playground(save_path=path)
    _find(p.widget, "hm-file-load").click()
    assert message in p.status.value and "the model is unchanged" in p.status.value
    assert "(27 / 27)" in accuracy_text(p)


def test_loading_weights_of_another_shape_is_refused_with_a_message(tmp_path):
    params = handmade.blog_model()
    params["blocks"].append(params["blocks"][0])
    handmade.save_weights(params, tmp_path / "two.json")
    p = blog_playground(save_path=tmp_path / "two.json")
    _find(p.widget, "hm-file-load").click()
    assert "this playground edits a model with parts" in p.status.value and "the model is unchanged" in p.status.value


def test_a_refused_load_does_not_let_the_next_save_replace_that_file_unasked(tmp_path):
    """Another model's file, refused by the load (another shape), is still another model's: the save asks first,
    and "keep it" keeps it, byte for byte (a load that took its weights would let the save go ahead)."""
    params = handmade.blog_model()
    params["blocks"].append(params["blocks"][0])
    other = tmp_path / "other.json"
    handmade.save_weights(params, other)
    before = other.read_bytes()
    p = blog_playground(save_path=other)
    _find(p.widget, "hm-file-load").click()
    assert "the model is unchanged" in p.status.value
    _find(p.widget, "hm-file-save").click()
    assert "holds another model: replace it with this playground's weights?" in p.status.value
    _find(p.widget, "hm-file-keep").click()
    assert other.read_bytes() == before


def test_the_playground_keeps_its_own_copy_so_what_it_shows_is_what_is_graded():
    """Weights given to it and changed afterwards, or its ``params`` changed in place or replaced, change nothing it
    shows: numpy refuses the write, and ``params`` cannot be set; ``replace`` and the grids are the ways in."""
    from handmade.course.tasks import blank

    mine = blank("alternate")
    p = Playground(mine, task="alternate")
    mine["wte"][0, 0] = 5.0  # the learner's own array: not the playground's
    assert p.params["wte"][0, 0] == 0 and p.editors["wte"].boxes[0][0].value == "0"
    with pytest.raises(ValueError, match="read-only"):
        p.params["wpe"][0, 1] = 5000
    with pytest.raises(AttributeError, match=r"put other weights in with replace\(weights\)"):
        p.params = mine
    p.replace(mine)
    mine["wte"][0, 0] = 7.0
    assert p.params["wte"][0, 0] == 5 and p.editors["wte"].boxes[0][0].value == "5"
    type_into(p, "wte", 0, 0, "3")
    assert p.params["wte"][0, 0] == 3 and not p.params["wte"].flags.writeable


# ---- any model ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "model, first_edit",
    [
        (handmade.two_head_model(), "q"),
        (random_params(np.random.default_rng(0), n_layer=2), "blocks[1].v"),
        (random_params(np.random.default_rng(1), ln=True, mlp=True, ln_f=True), "mlp.c_fc.w"),
        (random_params(np.random.default_rng(2), n_vocab=4, n_embd=6, n_attn=4, n_head=2), "c_proj.w"),
    ],
    ids=["two heads", "two blocks", "mlp and layer norms", "another alphabet and width"],
)
def test_the_playground_takes_any_model_the_package_can_run(model, first_edit):
    p = blog_playground(model)
    assert p.editors and first_edit in p.editors
    before = dict((key, panel.value) for key, panel in p.panels.items())
    type_into(p, first_edit, 0, 0, "3")
    assert parts.get(p.params, first_edit)[0, 0] == 3
    assert any(panel.value != before[key] for key, panel in p.panels.items())
    assert "predicts" in p.summary["prediction"].value


def test_two_heads_show_each_heads_attention():
    p = Playground(handmade.two_head_model())
    attention = view(p, "attention")
    assert "(blocks[0].head0)" in attention and "(blocks[0].head1)" in attention
    assert "h0·V" in view(p, "attention_output")


def test_subsets_of_editors_views_and_controls():
    p = blog_playground(edit=("q",), views=("scores",), controls=("text",))
    assert list(p.editors) == ["q"] and {shown for _stage, shown in p.panels} == {"scores"}
    with pytest.raises(ValueError, match="no view called 'nope'; choose from embedding"):
        blog_playground(views=("nope",))
    with pytest.raises(ValueError, match="no part called 'x'; choose from wte, wpe, q, k, v"):
        blog_playground(edit=("x",))
    with pytest.raises(ValueError, match="no control called 'undo'"):
        blog_playground(controls=("undo",))


def test_snapshot_is_the_views_as_static_html_collapsed_and_titled():
    p = blog_playground(views=("attention", "accuracy"))
    html = p.snapshot()._repr_html_()
    assert html.startswith('<div lang="en"><details') and "Snapshot saved with the notebook" in html
    assert "attention weights" in html and "27 / 27" in html


def test_widget_text_form_is_one_fixed_line():
    assert (
        repr(blog_playground().widget)
        == "[Playground: an interactive widget; run this cell in Jupyter to use it (again, if it does not show)]"
    )


def test_new_weights_that_overflow_are_refused_and_the_model_kept():
    """Refused in the cell that asked (a ValueError with its reason), and in the status line, as a button's are."""
    p = blog_playground()
    with pytest.raises(ValueError, match=r"^the forward pass produced inf or nan .*; the model is unchanged$"):
        p.replace(parts.with_part(p.params, "wte", np.full((2, 8), 1e200)), "too big")
    assert "inf or nan" in p.status.value and "the model is unchanged" in p.status.value
    assert p.params["wte"][0, 5] == 1 and p.editors["wte"].boxes[0][5].value == "1"
    assert "(27 / 27)" in accuracy_text(p)


# ---- the small explorers ------------------------------------------------------------------


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
    assert "is not a list of 1 to 12 numbers" in e.message.value and e.row.tolist() == [1, 0, 0]


def test_softmax_explorer_says_so_when_a_row_overflows():
    e = SoftmaxExplorer()
    e.text.value = "1e306, 0"
    shown = e.view.value
    e.scale.value = 1000
    assert "larger than float64 can hold" in e.message.value
    assert e.view.value == shown and "nan" not in e.view.value and "∞" not in e.view.value
    # the scale was refused, not the row: the message says the scale kept, and the slider shows it again
    assert "keeping the scale at 1" in e.message.value and "last row" not in e.message.value
    assert e.scale.value == 1.0 and e.text.value == "1e306, 0"  # as typed


@pytest.mark.parametrize("typed", ["1；0；0", "1, x", "1e400, 0"])
def test_softmax_explorer_never_shows_a_refused_row_beside_another_rows_table(typed):
    """A refused row stays in the box to mend, with its refusal; a new scale then shows the row in use again, in
    the box too (every digit of it), never the refused text beside the last row's table without a word."""
    e = SoftmaxExplorer(row=(1.23456789, 0, -2))
    e.text.value = typed
    assert e.text.value == typed and "keeping the last row" in e.message.value
    e.scale.value = 2.0
    assert e.message.value == "" and e.text.value == "1.23456789, 0, -2" and e.row.tolist() == [1.23456789, 0, -2]
    e.text.value, e.scale.value = "1e306, 0", 1.0  # a row that fits at this scale
    e.text.value = typed  # refused
    e.scale.value = 1000  # refused too: the box shows the row in use again, the message the scale kept
    assert e.text.value == "1e+306, 0" and "keeping the scale at 1" in e.message.value and e.scale.value == 1.0


@pytest.mark.parametrize("typed", ["１，０，０", "1，0，0", "1、0、0", "−1, ０.5, 0"])
def test_softmax_explorer_reads_a_row_as_the_grids_read_a_number(typed):
    """A Chinese input method's commas (，、) and full-width digits or a minus sign, as the grids take them."""
    e = SoftmaxExplorer()
    e.text.value = typed
    assert e.message.value == "" and e.row.tolist() in ([1, 0, 0], [-1, 0.5, 0]), e.message.value


def test_a_task_playground_edits_the_blank_and_shows_the_grade_with_its_margin():
    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS

    p = Playground(task="abc")
    assert "0 / 15 right, margin 0 (smallest at &#x27;a&#x27; → b;" in accuracy_text(p)
    assert "why, for &#x27;a&#x27; → b" in p.summary["diagnosis"].value  # below the grids, whole
    # the learner's own shares, which the answer's are shown beside when asked
    shares = "part by part: wte 0, wpe 0, blocks[0].head0 0, blocks[0].c_proj.b 0"
    assert f"your model&#x27;s shares of that margin, {shares}" in p.summary["diagnosis"].value
    from handmade.course.explain import shares_listed
    from handmade.course.grader import grade

    weak = with_parts(reference(TASKS["abc"]), {"c_proj.w": parts.get(reference(TASKS["abc"]), "c_proj.w") / 2048})
    p.replace(weak)
    assert f"part by part: {shares_listed(grade('abc', weak).shares)}" in p.summary["diagnosis"].value
    assert "strength" not in p.controls  # the blog's Lg rule means nothing here
    p.replace(reference(TASKS["abc"]))
    assert "PASS, not recorded (below, why): 15 / 15 right" in accuracy_text(p)  # notebook 14's design
    assert "the reference solution of abc" in p.summary["diagnosis"].value
    B = TASKS["abc"].labels.residual
    p.replace(with_parts(reference(TASKS["abc"]), {"v": 2 * B.matrix({(t, t): 1 for t in B})}))  # one's own
    assert "PASS, recorded in your progress: 15 / 15 right" in accuracy_text(p)


@pytest.mark.parametrize("task", ["abc", "xor", "induction", "first_not_last"])
def test_break_it_works_in_every_task_playground_from_its_first_choice(task):
    p = Playground(task=task)
    which, row, col = (_find(p.widget, f"hm-break-{name}") for name in ("matrix", "row", "col"))
    assert which.value and row.value and col.value  # never pressed without a choice
    _find(p.widget, "hm-break-action").value = _find(p.widget, "hm-break-action").options[2]  # add 1
    _find(p.widget, "hm-break-go").click()
    i, j = p.editors[which.value].matrix.rows.index(row.value), p.editors[which.value].matrix.cols.index(col.value)
    assert parts.get(p.params, which.value)[i, j] == 1 and "is now 1" in p.status.value


def test_break_it_says_the_weight_it_made_with_every_digit():
    """ "add 1" to a weight of 1e-12: the status says 1.000000000001, the number the model runs, as the grid shows it."""
    p = Playground(task="abc")
    which, row, col = (_find(p.widget, f"hm-break-{name}") for name in ("matrix", "row", "col"))
    i, j = p.editors[which.value].matrix.rows.index(row.value), p.editors[which.value].matrix.cols.index(col.value)
    values = np.array(parts.get(p.params, which.value))
    values[i, j] = 1e-12
    p.replace(with_parts(p.params, {which.value: values}))
    _find(p.widget, "hm-break-action").value = _find(p.widget, "hm-break-action").options[2]  # add 1
    _find(p.widget, "hm-break-go").click()
    assert "is now 1.000000000001" in p.status.value, p.status.value
    assert p.editors[which.value].boxes[i][j].value == "1.000000000001"


def browser_sends(widget, value):
    """What the browser sends when a person chooses ``value`` in a menu, the radio buttons or the Lg slider, or types it into a box: a message
    of its own (``model.send``), which the kernel takes in its turn among the buttons' clicks."""
    widget._handle_custom_msg({"value": value}, [])


def _anywidgets():
    """Every anywidget class of ``handmade.widgets``."""
    modules = [importlib.import_module(m.name) for m in pkgutil.iter_modules(widgets.__path__, "handmade.widgets.")]
    found = {cls for module in modules for cls in vars(module).values() if isinstance(cls, type)}
    return {cls for cls in found if issubclass(cls, anywidget.AnyWidget) and cls.__module__.startswith("handmade.")}


def test_no_control_sends_a_choice_as_a_change_of_its_model_which_ipywidgets_would_hold_back_behind_a_click():
    """ipywidgets holds a model's later changes back while one is on its way to the kernel, but not a click: a menu
    arrowed twice while the kernel was busy, and "break it" clicked, broke the weight of the first choice. Every control
    of the package's own sends what a person chooses as a message (``Chosen``), which keeps its place among the clicks."""
    # what a person chooses with: Marks listens to the page (a tab bar left), and chooses nothing
    controls = {cls for cls in _anywidgets() if "addEventListener" in getattr(cls, "_esm", "") and cls is not Marks}
    assert {cls.__name__ for cls in controls} >= {"Menu", "Choice", "LogSlider", "TextBox"}
    sent = [cls for cls in controls if "save_changes" not in cls._esm and "sender(model" in cls._esm]
    assert {cls.__name__ for cls in controls if cls not in sent or not issubclass(cls, Chosen)} == set()
    # and each puts on its view the classes the kernel sets after it is drawn, which anywidget leaves off (a red edge)
    assert {cls.__name__ for cls in controls if "keepClasses(model, el);" not in cls._esm} == set()


def _every_widget(widget):
    """``widget`` and every widget in its tree, with the tabs' grids built."""
    if isinstance(widget, W.Tab):
        for k in range(len(widget.children)):
            widget.selected_index = k  # a tab's grids are built when it is first shown
        widget.selected_index = 0
    return [widget] + [w for child in getattr(widget, "children", ()) for w in _every_widget(child)]


@pytest.mark.parametrize(
    "make",
    [
        blog_playground,
        lambda: Playground(task="induction"),
        lambda: ProductExplorer(np.arange(1, 9).reshape(2, 4), np.arange(1, 13).reshape(4, 3)),
        lambda: SoftmaxExplorer([1.0, 2.0, 3.0]),
    ],
    ids=["blog", "induction", "product", "softmax"],
)
def test_every_control_has_its_messages_handled_in_the_kernels_main_thread_in_the_order_sent(monkeypatch, make):
    """ipykernel 7.4 sends a widget's message to the thread from which the widget last sent one, not to the one the
    browser asked for: a grid's box redrawn while the widgets' subshell handled a message went there, the save button to
    the main thread, and a click ran beside a slow edit and before the edit typed after it. Every control a person can
    operate (all but the boxes that lay out and the text that shows) is routed to the main thread, wherever it sent
    from; made with the kernel's own comms, as in a notebook."""
    import comm
    from ipykernel.comm.comm import BaseComm  # what ipykernel's create_comm makes

    monkeypatch.setattr(comm, "create_comm", BaseComm)
    made = make()
    every = _every_widget(made.widget)
    shows = (W.HTML, W.HTMLMath, W.Label, W.Output, Marks)
    controls = [w for w in every if not isinstance(w, shows) and (isinstance(w, W.Tab) or not isinstance(w, W.Box))]
    assert len(controls) >= 2
    for control in controls:
        control.comm._reply_subshell_id = "the widgets' subshell"  # it last sent from there
        assert control.comm._reply_subshell_for({}, "the widgets' subshell") is None, control
    stock = W.Button(description="made elsewhere")  # what the kernel does with a widget the package did not make
    stock.comm._reply_subshell_id = "the widgets' subshell"
    assert stock.comm._reply_subshell_for({}, None) == "the widgets' subshell"


@pytest.mark.parametrize("control", ["menu", "radio buttons", "slider", "text box"])
def test_a_choice_sent_by_the_browser_is_used_or_refused_and_answered_once_after_the_change_it_made(
    monkeypatch, control
):
    """The browser shows the kernel's value once the kernel has answered its last choice (SENDER_JS): each choice is
    answered once, after the value is set, or kept when refused; what an observer raises does not stop the answer."""
    p, explorer = blog_playground(), ProductExplorer(np.arange(1, 9).reshape(2, 4), np.arange(1, 13).reshape(4, 3))
    widget, chosen, refused, used = {  # used: what shows the choice was used
        "menu": (_find(p.widget, "hm-break-row"), "Tb", "no such row", lambda: p.status.value),
        "radio buttons": (explorer.row, 1, 7, lambda: explorer.view.value),
        "slider": (p.strength.slider, 2.0**3, "three", lambda: p.editors["c_proj.w"].boxes[7][6].value),
        "text box": (p.editors["c_proj.w"].boxes[7][6], "3", 3, lambda: p.editors["c_proj.w"].values[7, 6]),
    }[control]
    answers, before = [], used()
    monkeypatch.setattr(widget, "send", lambda content, buffers=None: answers.append((content, widget.value)))
    browser_sends(widget, chosen)
    assert widget.value == chosen and answers == [({"answered": True}, chosen)]
    if control == "menu":
        _find(p.widget, "hm-break-go").click()
        assert "c_proj.w[Tb, " in p.status.value, p.status.value
    assert used() != before
    for value in (refused, None):
        browser_sends(widget, value)
        assert widget.value == chosen and answers[-1] == ({"answered": True}, chosen)
    widget._handle_custom_msg("not a choice", [])  # anywidget's own messages are not choices: no answer
    assert len(answers) == 3
    another = {"menu": "Ta", "radio buttons": 0, "slider": 2.0**2, "text box": "4"}[control]
    widget.observe(lambda change: 1 / 0, names="value")  # an observer's failure is its own, and logged
    browser_sends(widget, another)
    assert answers[-1] == ({"answered": True}, another) and len(answers) == 4


def test_a_menu_keeps_one_of_its_names_whatever_the_browser_sends_and_refuses_a_list_it_cannot_show():
    """The break tab's menus: a name the browser offered before the options changed (a row of the last
    part, sent before the new rows came) keeps the current one, and "break it" still breaks a weight;
    the browser cannot change the names; names come as a list, each once, and a value is one of them."""
    p = blog_playground()
    which, rows, cols = (_find(p.widget, f"hm-break-{name}") for name in ("matrix", "row", "col"))
    browser_sends(which, "wpe")
    browser_sends(rows, "a")  # one of wte's rows, which wpe does not have
    assert rows.value == rows.options[0] == "pos 0" and rows.options == list(p.editors["wpe"].matrix.rows)
    rows.set_state({"options": ["x"], "value": "pos 2"})  # a change of its model, sent by another front end
    assert rows.options == list(p.editors["wpe"].matrix.rows) and rows.value == "pos 2"
    _find(p.widget, "hm-break-go").click()
    assert "wpe[pos 2, " in p.status.value
    for bad, error in [({"b", "a"}, TypeError), (["a", "a"], ValueError), ([], ValueError), (["a" * 201], ValueError)]:
        with pytest.raises(error, match="options"):
            Menu(bad)
    with pytest.raises(ValueError, match=r"^value must be one of the options \('a\\nb'\); found 'c'$"):
        Menu(["a\nb"], "c")  # one line, whatever the names hold
    with pytest.raises(TypeError, match="quiet must be True or False"):
        Menu(["a"], quiet="no")


def _boxes(widget):
    """Every container in ``widget``'s tree (a tab set, a box), itself first."""
    found = [widget] if isinstance(widget, W.Box) else []
    for child in getattr(widget, "children", ()):
        found += _boxes(child)
    return found


@pytest.mark.parametrize("controls", [("text",), ("text", "reset", "save")])
def test_a_playground_with_nothing_to_edit_draws_no_empty_tab_set(controls):
    """edit=() (notebook 08's asker): no grids, so no tabs, and no empty bordered box where they would be."""
    p = blog_playground(edit=(), views=("predictions", "completion"), controls=controls, text="baab")
    assert not [box for box in _boxes(p.widget) if isinstance(box, W.Tab)]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("name, row, col, text", [("v", "Ta", "V", "1e308"), ("wte", "a", "Ta", "1e300")])
def test_a_weight_that_overflows_the_pass_is_refused_with_its_whole_reason_named_as_the_grid_names_it(
    name, row, col, text, language
):
    """A huge number typed into a grid: the pass overflows, and the message says where first, names the largest weight
    by its part and directions as the grid does (never by array indices), and what the model keeps: whole, not cut."""
    p = blog_playground()
    editor = p.editors[name]
    i, j = editor.matrix.rows.index(row), editor.matrix.cols.index(col)
    handmade.set_language(language)
    try:
        type_into(p, name, i, j, text)
        said = editor.message.value
    finally:
        handmade.set_language("en")
    entry = f"{name}[{row}, {col}]" if name == "wte" else f"blocks[0].{name}[{row}, {col}]"
    assert entry in said and "…" not in said and f"{float(text):g}" in said, said
    assert ("the model keeps" if language == "en" else "模型保留") in said, said
    assert not re.search(r"\[\d+, \d+\]", said), said


@pytest.mark.parametrize("language", ["en", "zh"])
def test_what_a_box_of_a_tab_left_still_refuses_is_said_again_in_the_status_line_with_the_tabs_name(language):
    """A refusal is said beside its box; a click on another tab hid it, and the status line said nothing, so a learner
    who typed x and went on never saw that it was not used. Leaving a tab says what its boxes still refuse (a grid's
    message names the weight; the Lg box's is named by its label), and so does a refusal that comes once its tab is
    hidden (a click on a tab changes it before the box sends); a tab with nothing refused, the tools' tab and a refusal
    in the tab shown say nothing there, and what the status line said stays. Back at the tab, the status line no longer
    says it, unless it has said something else since."""
    handmade.set_language(language)
    try:
        p = blog_playground()
        tabs = next(box for box in _boxes(p.widget) if isinstance(box, W.Tab))
        c_proj, tools = [tabs.get_title(k) for k in range(len(tabs.children))].index("c_proj"), len(tabs.children) - 1
        tab, colon = ("“c_proj”", ": ") if language == "en" else ("“c_proj”标签页", "：")
        for typed_into, text, named in [
            (p.editors["c_proj.w"].boxes[7][6], "x", f"{tab}{colon}c_proj.w[V, Tb]{colon}'x' "),
            (
                p.strength.box,
                "abc",
                f"{tab}，c_proj Lg{colon}'abc' " if language == "zh" else f"{tab}, c_proj Lg: 'abc' ",
            ),
        ]:
            tabs.selected_index = c_proj
            browser_sends(typed_into, text)
            p.status.value = "what was said before"
            tabs.selected_index = 1  # q: the c_proj tab is left
            assert named in p.status.value and "1024" in p.status.value, p.status.value
            tabs.selected_index = c_proj  # back: the box and its message say it here, and the status line no more
            assert p.status.value == "", p.status.value
            tabs.selected_index = 1
            p.status.value = "what was said before"
            tabs.selected_index = tools  # q left: nothing refused there
            tabs.selected_index = 0  # the tools' tab left
            assert p.status.value == "what was said before"
            tabs.selected_index = c_proj
            browser_sends(typed_into, "1024")  # mended: the same value, used
            tabs.selected_index = 1
            assert tab not in p.status.value, p.status.value
        browser_sends(p.editors["c_proj.w"].boxes[7][6], "y")  # sent once its tab is hidden (a click on another tab)
        assert f"{tab}{colon}c_proj.w[V, Tb]{colon}'y' " in p.status.value, p.status.value
        p.status.value = "news since"  # the status line said something else since: back at the tab, that stays
        tabs.selected_index = c_proj
        assert p.status.value == "news since"
        tabs.selected_index = 1
        p.status.value = "what was said before"
        browser_sends(p.editors["q"].boxes[0][0], "z")  # a refusal in the tab shown is said beside its box alone
        assert p.status.value == "what was said before"
    finally:
        handmade.set_language("en")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_boxes_put_back_in_a_tab_left_are_said_in_the_status_line_as_news(language):
    """A box typed in and left by a click on another tab sends once its tab is hidden; the boxes its edit puts back
    were said beside the hidden grid, which a screen reader does not hear. The status line says it, as news (not
    an alert), with the tab's name; back at the tab, the grid says it there and the status line no more. The Lg box's
    news is not said again so: it follows a load or a reset made in the tools' tab, whose own news it would replace."""
    handmade.set_language(language)
    try:
        p = blog_playground()
        tabs = next(box for box in _boxes(p.widget) if isinstance(box, W.Tab))
        c_proj = [tabs.get_title(k) for k in range(len(tabs.children))].index("c_proj")
        tabs.selected_index = c_proj
        browser_sends(p.editors["c_proj.w"].boxes[7][6], "x")
        tabs.selected_index = 1  # the refusal is said in the status line (an alert)
        assert '"alert"' in p.status.value and "1024" in _said(p.status), p.status.value
        browser_sends(p.editors["c_proj.w"].boxes[7][5], "2")  # sent once its tab is hidden: [V, Tb] put back
        tab = "“c_proj”" if language == "en" else "“c_proj”标签页"
        back = _said(p.editors["c_proj.w"].message)
        assert "c_proj.w[V, Tb] = 1024" in back and not refusing(p.editors["c_proj.w"])
        assert tab in _said(p.status) and _said(p.status).endswith(back), _said(p.status)
        assert '"status"' in p.status.value and '"alert"' not in p.status.value, p.status.value
        tabs.selected_index = c_proj  # back: the grid says it, and the status line no more
        assert p.status.value == ""
        p.strength.show("news of the Lg box", ok=True)
        tabs.selected_index = 1
        p.strength.show("news of the Lg box, again", ok=True)  # as after a load: not said again
        assert p.status.value == ""
    finally:
        handmade.set_language("en")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_refusal_said_for_a_tab_left_stands_while_it_is_so_and_goes_once_mended(language):
    """What the status line says of a hidden tab's refused box stays while it is so: before, the box left by the tab's
    click in another grid of that tab, or an edit in the tab shown, cleared it (the news of an action before goes at
    an edit). It is never left saying what is no longer so: a box put back in a grid of the hidden tab while another
    grid there still refuses says that one (not news), and the refused box mended as its tab is left takes it back."""
    handmade.set_language(language)
    try:
        p = blog_playground()
        tabs = next(box for box in _boxes(p.widget) if isinstance(box, W.Tab))
        c_proj = [tabs.get_title(k) for k in range(len(tabs.children))].index("c_proj")
        bias = {"en": "c_proj.b[bias, Tb]", "zh": "c_proj.b[偏置, Tb]"}[language]
        tabs.selected_index = c_proj
        browser_sends(p.editors["c_proj.b"].boxes[0][6], "x")
        tabs.selected_index = 1  # q
        standing = p.status.value
        assert bias in _said(p.status) and '"alert"' in standing, standing
        browser_sends(p.editors["c_proj.w"].boxes[7][5], "2")  # sent once its tab is hidden: nothing put back
        browser_sends(p.editors["q"].boxes[0][0], "5")  # an edit in the tab shown
        assert p.status.value == standing
        browser_sends(p.editors["c_proj.w"].boxes[7][6], "y")  # a refusal of its own, said
        assert "c_proj.w[V, Tb]" in _said(p.status) and "'y'" in _said(p.status), _said(p.status)
        browser_sends(p.editors["c_proj.w"].boxes[7][5], "3")  # [V, Tb] put back; c_proj.b still refuses
        assert bias in _said(p.status) and '"alert"' in p.status.value, _said(p.status)
        browser_sends(p.editors["c_proj.b"].boxes[0][6], "0")  # mended as its tab was left: nothing refuses there
        assert p.status.value == "" and not any(refusing(e) for e in p.editors.values())
        tabs.selected_index = c_proj
        browser_sends(p.editors["c_proj.b"].boxes[0][6], "x")
        tabs.selected_index = 1
        assert bias in _said(p.status)
        tabs.selected_index = c_proj  # shown again: the boxes say it, and the status line no more
        assert p.status.value == ""
        browser_sends(p.editors["c_proj.b"].boxes[0][6], "0")
        browser_sends(p.strength.box, "abc")  # the Lg box too
        tabs.selected_index = 1
        assert "c_proj Lg" in _said(p.status) and "'abc'" in _said(p.status), _said(p.status)
        browser_sends(p.strength.box, "1024")  # mended as its tab was left: said what it did, not what it refused
        assert "'abc'" not in _said(p.status) and "1024" in _said(p.status) and not refusing(p.strength)
    finally:
        handmade.set_language("en")


def test_a_refusal_left_behind_never_outlives_its_box_and_gives_way_to_another_that_still_stands():
    """The status line's word of a hidden tab's refusal: an Lg box put right by the kernel's code takes it back at the
    next edit; mended in one hidden tab, it gives way to another hidden tab's refusal that still stands; a reset made
    with refusals out of sight says none of them on its way (the grids' text going one grid after another)."""
    p = blog_playground()
    tabs = next(box for box in _boxes(p.widget) if isinstance(box, W.Tab))
    titles = [tabs.get_title(k) for k in range(len(tabs.children))]
    c_proj, q, k = (titles.index(name) for name in ("c_proj", "q", "k"))
    tabs.selected_index = c_proj
    browser_sends(p.strength.box, "abc")
    tabs.selected_index = q
    assert "c_proj Lg" in _said(p.status)
    p.strength.set(1024)  # the kernel's code: the box shows a number the model uses, and its message stays
    browser_sends(p.editors["q"].boxes[0][0], "5")
    assert p.status.value == "" and not refusing(p.strength)
    tabs.selected_index = c_proj
    browser_sends(p.editors["c_proj.b"].boxes[0][6], "x")
    tabs.selected_index = q  # c_proj's refusal said
    browser_sends(p.editors["q"].boxes[0][0], "zz")
    tabs.selected_index = k  # q's said in its place
    assert "'zz'" in _said(p.status)
    browser_sends(p.editors["q"].boxes[0][0], "1")  # mended as q was left: c_proj's, which still stands, again
    assert "c_proj.b[bias, Tb]" in _said(p.status) and '"alert"' in p.status.value, _said(p.status)
    browser_sends(p.editors["k"].boxes[0][0], "1")  # and it stands through an edit in the tab shown
    assert "c_proj.b[bias, Tb]" in _said(p.status)
    tabs.selected_index = c_proj
    browser_sends(p.editors["c_proj.w"].boxes[7][6], "y")
    tabs.selected_index = k  # two refusals out of sight: c_proj.w's said, c_proj.b's next
    assert "'y'" in _said(p.status)
    said = []
    p.status.observe(lambda change: said.append(change["new"]), names="value")
    p.reset()
    assert said and not any('"alert"' in value for value in said), said
    assert not any(refusing(editor) for editor in p.editors.values())


def test_a_playground_needs_a_model_or_a_task():
    with pytest.raises(ValueError, match="a playground needs a model"):
        Playground()


# ---- for a screen reader: every control has a name, every message is announced ----------------


def _controls(widget):
    """Every widget a person can operate in ``widget``'s tree, with the tabs' grids built."""
    kinds = (W.Text, W.Textarea, W.FloatText, TextBox, Menu, W.Dropdown, W.Button, W.ToggleButton, LogSlider)
    return [w for w in _every_widget(widget) if isinstance(w, kinds)]


@pytest.mark.parametrize("make", [blog_playground, lambda: Playground(task="induction")], ids=["blog", "induction"])
def test_every_control_of_a_playground_has_a_name(make):
    p = make()
    controls = _controls(p.widget)
    assert len(controls) > 100
    for control in controls:
        name = control.label if isinstance(control, (LogSlider, Menu)) else control.description
        assert name.strip(), control
    for name, editor in p.editors.items():
        matrix = editor.matrix
        for (i, j), box in np.ndenumerate(np.array(editor.boxes, dtype=object)):
            assert box.description == f"{name}, row {matrix.rows[i]}, column {matrix.cols[j]}"
            assert QUIET_LABEL in box._dom_classes  # read out, not shown: the grid's own labels show it
            assert box.placeholder == ""  # not ipywidgets' zero-width space, which passes for a name


@pytest.mark.parametrize(
    "make",
    [blog_playground, lambda: Playground(task="induction"), SoftmaxExplorer],
    ids=["blog", "induction", "softmax explorer"],
)
def test_every_text_box_sends_what_was_typed_once_when_left_as_a_message_of_its_own(make):
    """ipywidgets holds back a model's later changes while one is on its way to the kernel, but not a button's click:
    a stock box that sent each key could have "save weights" read a file name cut short (tests/ui: a name typed fast
    and saved at once), and one edited twice while the kernel was busy had the click use the first edit. Every box
    is a TextBox: what was typed goes when the box is left or on Enter, as a message of its own, never key by key."""
    made = make()
    controls = _controls(made.widget)
    assert [c for c in controls if isinstance(c, (W.Text, W.Textarea, W.FloatText, W.Dropdown))] == []
    assert [c for c in controls if isinstance(c, TextBox)]
    listens = set(re.findall(r'addEventListener\("(\w+)"', TextBox._esm))
    assert listens == {"change", "keydown"} and 'event.key === "Enter"' in TextBox._esm  # not "input": key by key


def test_a_refusal_is_an_alert_and_other_news_a_status():
    """Marked for the box's speakers (marks.SAID, tests/ui): no region of its own, put on the page with its words."""
    p = blog_playground()
    type_into(p, "q", 1, 0, "lots")
    assert 'data-hm-says="alert"' in p.editors["q"].message.value and "role" not in p.editors["q"].message.value
    p.reset()
    assert 'data-hm-says="status"' in p.status.value and "reset" in p.status.value


@pytest.mark.parametrize("language, heading", [("en", "the grader's explanation"), ("zh", "评分的解释")])
def test_a_task_playgrounds_explanation_comes_under_a_heading_a_screen_reader_moves_to(language, heading):
    """After every grid (hundreds of boxes), the grade's details have a heading of their own, hidden on the page."""
    handmade.set_language(language)
    try:
        children = Playground(task="abc").widget.children
    finally:
        handmade.set_language("en")
    at = next(i for i, w in enumerate(children) if "hm-diagnosis" in w._dom_classes)
    assert f">{heading}</h4>" in html.unescape(children[at - 1].value) and "clip-path" in children[at - 1].value


def test_the_same_failure_again_is_said_again(tmp_path):
    """A save refused twice: the second is a change of the status line too (``say_in``), which the speakers read
    out again (a learner who pressed save again heard nothing)."""
    p = blog_playground()
    changes = []
    p.status.observe(lambda change: changes.append(change["new"]), names="value")
    _find(p.widget, "hm-file-path").value = str(tmp_path)  # a folder: no file can be written there
    for _ in range(2):
        _find(p.widget, "hm-file-save").click()
    said = [value for value in changes if value]
    assert len(said) == 2 and said[0] == said[1] and "could not save" in said[0], changes


# ---- what a screen reader hears ---------------------------------------------------------------


def test_the_lg_slider_says_the_value_in_use_beyond_its_ends_after_it_settles_and_when_there_is_none():
    """The slider's spoken value (``valuetext``) is the value the model uses: beyond the slider's ends
    (it rests at an end), after the browser settles it on a step, and "none" when an edit left the rule;
    the box's emptying is said beside it once, not again at each edit after it."""
    p = blog_playground()
    p.strength.box.value = "-5"
    assert p.strength.value == -5 and p.strength.slider.valuetext == "-5, beyond this slider's range"
    p.strength.box.value = "1.01"
    settle(p.strength.slider)  # the browser puts it on the nearest step, 1
    assert p.strength.slider.value != 1.01 and p.strength.slider.valuetext == "1.01"
    type_into(p, "c_proj.w", 7, 6, "0")
    said = p.strength.message.value
    assert p.strength.box.value == "" and p.strength.slider.valuetext.startswith("none")
    assert 'data-hm-says="status"' in said and "no longer follow this rule" in said
    changes = []
    p.strength.message.observe(changes.append, names="value")
    type_into(p, "c_proj.w", 6, 7, "0")  # a second edit away from the rule: said once already
    assert changes == [] and p.strength.message.value == said


@pytest.mark.parametrize("typed", ["1.0001", "1024.000001", "-1.0001"])
def test_the_lg_slider_says_every_digit_of_the_value_in_use_as_the_box_shows_it(typed):
    """Lg = 1.0001 is not said "1", which is another model (18 / 27, not 27 / 27)."""
    p = blog_playground()
    p.strength.box.value = typed
    if float(typed) > 0:  # the browser puts the slider on its nearest step
        settle(p.strength.slider)
    assert p.strength.slider.valuetext.split(",")[0] == typed == p.strength.box.value


def test_a_message_said_again_is_read_out_again():
    """A live region is read out when it changes: the same message again (a grid's refusal, the status
    after a second "break it" on the same weight) takes the region's text out and puts it back."""
    p = blog_playground()
    for region, say in ((p.editors["q"].message, p.editors["q"].show), (p.status, lambda t: p.replace(p.params, t))):
        say("q[P0, P0]: 'abc' is not a number (write one as 1.5, -2 or 3e-4); the model keeps 1024")
        said, changes = region.value, []
        region.observe(lambda change, seen=changes: seen.append(change["new"]), names="value")
        say("q[P0, P0]: 'abc' is not a number (write one as 1.5, -2 or 3e-4); the model keeps 1024")
        assert changes == ["", said] and region.value == said


def test_the_answers_button_says_whether_it_is_on_and_what_it_did(monkeypatch):
    from handmade.course.solutions import reference

    passing = Playground(reference("abc"), task="abc")
    _find(passing.widget, "hm-reveal").value = True  # a pass has no diagnosis to show them in: said so
    assert "the model passes, so there is no diagnosis" in passing.status.value
    p = Playground(task="abc")
    button = _find(p.widget, "hm-reveal")
    assert button.description == "show the answer's shares"
    button.value = True
    assert button.description == "hide the answer's shares" and "now shows the answer's shares" in p.status.value
    assert "cannot" not in p.status.value
    assert "the answer, as you asked" in p.summary["diagnosis"].value
    button.value = False
    assert button.description == "show the answer's shares" and "hidden" in p.status.value
    assert "the answer, as you asked" not in p.summary["diagnosis"].value
    monkeypatch.setenv("HANDMADE_NO_REFERENCES", "1")  # a learners' install: the diagnosis says why there are none
    button.value = True
    assert "cannot be shown" in p.status.value and "not installed here" in p.summary["diagnosis"].value
    assert "now shows" not in p.status.value


def saying_always(char):
    def say_it(context):
        """Say the one character that is not a letter, whatever the text."""
        return char

    return say_it


@pytest.mark.parametrize("alphabet, char", [("a b", " "), ("\tx", "\t"), ("x\n", "\n")])
def test_a_task_playground_says_a_space_tab_or_new_line_as_the_report_says_it(alphabet, char):
    """A character that would vanish (a space) or break the line: the why line names it as the report's text
    does (␣ ⇥ ⏎), not raw: that line and the report's heading agree on the context and the token."""

    from handmade.basis import TOKEN_SHOWN
    from handmade.course.grader import grade
    from handmade.course.tasks import blank

    task = handmade.task(alphabet=alphabet, n_ctx=2, n_embd=3, n_layer=0)(saying_always(char))
    report = grade(task, blank(task))
    heading = next(
        line for line in report.lines() if re.search("(where it goes wrong|the margin is too small), for", line)
    )
    context_and_token = heading.split(", for ")[1].split(": the margin")[0]  # "'a' → ␣"
    shown = html.unescape(Playground(task=task).summary["diagnosis"].value)
    assert f"why, for {context_and_token}:" in shown, (context_and_token, shown)
    assert context_and_token.endswith(f" → {TOKEN_SHOWN[char]}"), context_and_token


def _refusal_marked(box, name, message):
    """Whether ``box`` is drawn with the red edge; a grid's box (whose label only a screen reader reads) is named
    "``name``, not used" then, and ``name`` else; a box whose label is on the page keeps it. A refused box's
    description (``why``, which a screen reader reads with it) is what ``message`` (its HTML widget) says; a box
    that is not refused has none."""
    from handmade.widgets.editors import QUIET_LABEL, REFUSED

    refused = REFUSED in box._dom_classes
    quiet = QUIET_LABEL in box._dom_classes
    assert box.description == (f"{name}, not used" if refused and quiet else name), (box.description, refused)
    said = html.unescape(re.sub(r"<[^>]*>", "", message.value))
    assert (box.why == said and said) if refused else box.why == "", (box.why, said, refused)
    return refused


def test_every_box_that_holds_refused_text_says_so_until_what_is_used_is_shown_again():
    """A grid box, the Lg box, the context box and the softmax explorer's row: refused text keeps a red edge on the
    box, and a grid's box named "…, not used" (a screen reader hears it with the box, after the alert); taking a
    value, another box's edit that puts the model's value back, a reset or a load of values clears it."""
    p = blog_playground()
    grid, cell = p.editors["c_proj.w"], "c_proj.w, row V, column Tb"
    grid.boxes[7][6].value = "lots"
    assert _refusal_marked(grid.boxes[7][6], cell, grid.message)
    grid.boxes[7][5].value = "-512"  # another box's edit: the refused text is put back to the model's value, and said
    assert grid.boxes[7][6].value == "1024" and not _refusal_marked(grid.boxes[7][6], cell, grid.message)
    assert _said(grid.message) == "back to the numbers the model uses: c_proj.w[V, Tb] = 1024", _said(grid.message)
    assert 'data-hm-says="status"' in grid.message.value  # news, read when the reader is free
    grid.boxes[7][5].value = "-511"  # nothing put back: nothing said
    assert grid.message.value == ""
    grid.boxes[7][6].value = "1e400"
    assert _refusal_marked(grid.boxes[7][6], cell, grid.message)
    grid.set_values(grid.values)  # a load or a reset writes every box again
    assert not _refusal_marked(grid.boxes[7][6], cell, grid.message)

    lg = p.strength
    for typed in ("lots", "", "1e400"):
        lg.box.value = typed
        assert _refusal_marked(lg.box, lg.label, lg.message), typed
        lg.box.value = "512"
        assert not _refusal_marked(lg.box, lg.label, lg.message) and lg.value == 512

    before = p.text
    p.text_box.value = "abc"  # c is not a token of (aab)*
    assert _refusal_marked(p.text_box, "context", p.text_message) and p.text == before
    p.text_box.value = "ab"
    assert not _refusal_marked(p.text_box, "context", p.text_message) and p.text == "ab"

    e = SoftmaxExplorer()
    e.text.value = "x"
    assert _refusal_marked(e.text, "row", e.message)
    e.text.value = "1, 2"
    assert not _refusal_marked(e.text, "row", e.message)
    e.scale.value = 1000
    e.text.value = "1e306, 0"  # numbers, but too large at this scale: not used
    assert _refusal_marked(e.text, "row", e.message) and "last row that fits" in e.message.value
    e.scale.value = 2.0  # a new scale puts the row in use back in the box
    assert not _refusal_marked(e.text, "row", e.message)


def test_a_context_in_full_width_letters_is_read_as_the_letters_and_shown_so():
    """A Chinese input method's full-width ａａｂ: the box shows aab, and aab is what the model reads; a
    character that is no letter of the alphabet in either form is refused as before."""
    p = blog_playground()
    p.text_box.value = "ａｂａ"
    assert p.text_box.value == "aba" and p.text == "aba" and p.text_message.value == ""
    p.text_box.value = (
        "ａａｃ"  # the letters read as letters; the ｃ, no letter of (aab)* either way, named where it is
    )
    assert p.text_box.value == "aaｃ" and p.text == "aba" and "'ｃ' at position 2" in p.text_message.value


def test_the_prediction_and_the_score_are_statuses_that_a_screen_reader_reads_after_an_edit():
    """Their widgets are status regions the page keeps (marks.LIVE, tests/ui): a value holds no region of its own,
    which would be put on the page together with its words each time, and not read by every screen reader."""
    from handmade.widgets.marks import LIVE

    p = blog_playground()
    p.editors["c_proj.w"].boxes[7][6].value = "0.5"
    for key in ("prediction", "accuracy"):
        assert LIVE in p.summary[key]._dom_classes, key
        assert "aria-live" not in p.summary[key].value and "role=" not in p.summary[key].value, key
    assert "66.7%" in p.summary["accuracy"].value
    assert not [w for w in (p.status, p.text_message, *p.outcomes.values()) if LIVE in w._dom_classes]


@pytest.mark.parametrize(
    "typed, said",
    [
        ("1e400, 0", "1e400 is too large (float64 holds numbers up to about 1.8e308)"),
        ("0, -1e999", "-1e999 is too large (float64"),
        ("1, inf", "inf is not finite"),
        ("NaN, 0", "NaN is not finite"),
        ("1, ＩＮＦ", "ＩＮＦ is not finite"),  # quoted as typed, read as the grids read it
        ("-Infinity", "-Infinity is not finite"),
        ("1, 1e-400", "1e-400 is too close to 0 (float64 would hold it as 0)"),
        ("1, 0.10000000000000000001", "0.10000000000000000001 has more digits than float64 keeps"),
    ],
)
def test_softmax_explorer_says_a_number_too_large_or_not_finite_as_the_grids_say_it(typed, said):
    """Numbers, all of them: not "not a list of numbers", but which one cannot be used and why."""
    e = SoftmaxExplorer()
    shown = e.view.value
    e.text.value = typed
    assert said in e.message.value and "keeping the last row" in e.message.value, e.message.value
    assert e.row.tolist() == [1, 0, 0] and e.view.value == shown
    assert e.text.placeholder == "" and _refusal_marked(e.text, "row", e.message)


def test_each_playground_has_a_heading_a_screen_reader_finds_naming_it():
    """Four playgrounds on one page: each named by a heading (hidden on the page), its task or the blog's (aab)*."""
    headings = {
        "seen_b": Playground(task="seen_b").widget.children[1].value,
        "(aab)*": blog_playground().widget.children[1].value,
        "": Playground(handmade.blog_model()).widget.children[1].value,
        None: Playground(handmade.blog_model(), score=UnlabelledScore()).widget.children[1].value,  # no text: none
    }
    for name, markup in headings.items():
        said = re.search(r'<h3 class="hm-playground-heading" style="([^"]*)">([^<]*)</h3>', markup)
        assert said and "clip-path:inset(50%)" in said[1], markup[-300:]
        assert said[2] == (f"playground: {name}" if name else "playground"), said[2]


class UnlabelledScore:
    label = None  # a score of one's own whose label is not text

    def __call__(self, params):
        return True, "fine", []


def test_a_task_playground_says_where_its_margin_is_when_the_miss_it_explains_is_elsewhere():
    """The bar's margin is the smallest over every context; the why below speaks of the first miss: the bar names
    the context of its margin, as grade() does, so a margin of -1 is never read as the explained tie's."""
    from handmade.course.grader import grade

    p = Playground(task="induction")
    type_into(p, "wte", 0, p.params.labels.residual.index("Ta"), "1")  # wte[a, Ta] = 1, as the walkthrough typed it
    report = grade("induction", p.params)
    where = f"smallest at &#x27;{report.smallest_at.context}&#x27; → {report.smallest_at.expected};"
    assert report.smallest_at != report.diagnosed and where in accuracy_text(p), accuracy_text(p)


def after_d(context):
    """Say the letter that came after the last d before the current letter."""
    i = context[:-1].rfind("d")
    return context[i + 1] if i >= 0 else None


def test_a_task_playground_whose_grade_at_each_edit_would_take_too_long_is_refused_before_it_is_built(monkeypatch):
    """A playground grades at each edit: a teacher's task of thousands of contexts (seconds a grade) is refused in one
    line with its estimate, before a widget is built or a pass run; every built-in task's playground is within it."""
    from handmade.course import tasks
    from handmade.widgets import options

    homework = handmade.task(alphabet="abcd", n_ctx=6, n_embd=16, n_layer=2)(after_d)  # 4,004 contexts
    cost = tasks.grading_cost(homework, homework.structure)[0]
    assert cost > options.MAX_EDIT_GRADING
    monkeypatch.setattr(W.Widget, "__init__", lambda *a, **k: pytest.fail("a widget was built"))
    with pytest.raises(ValueError) as error:
        Playground(task=homework)
    said = str(error.value)
    assert said == (
        f"grading task after_d at each edit would take about {cost:.1e} operations; a playground grades at most"
        " 1e+10 at each edit: grade a model of it in a cell, with grade(...)"
    ), said
    assert "\n" not in said and len(said) <= 200
    monkeypatch.undo()
    assert all(tasks.grading_cost(task, task.structure)[0] <= options.MAX_EDIT_GRADING for task in tasks.TASKS.values())
    task = tasks.get_task("after_last_c")  # within it as designed; a far larger model of it is not
    big = handmade.training.init_params(len(task.alphabet), task.n_ctx, 32, rng=0, n_layer=8, alphabet=task.alphabet)
    cost = tasks.grading_cost(task, big.structure)[0]
    assert cost > options.MAX_EDIT_GRADING
    with pytest.raises(
        ValueError, match=re.escape(f"grading task after_last_c at each edit would take about {cost:.1e}")
    ):
        Playground(big, task=task)


# ---- every digit of a box's text shows, however it got there ----------------------------------------------------

ARIAL_12 = {"-": 4.0, ".": 3.4, "+": 7.1}  # px: a grid box's characters in Chromium's Arial 12px; a digit or e, 6.7


def _needed(text, edges=8):  # px: the width of a grid box (padding and border: ``edges``) that shows ``text`` whole
    return edges + sum(ARIAL_12.get(c, 13.4 if ord(c) > 0x2E7F else 6.7) for c in text)


def _cut_boxes(p):
    """[(box name, its text, its width)] of every grid box of ``p`` too narrow for the text it shows (a box after a
    heads' line gives that line 4 px)."""
    from handmade.widgets.editors import SPLIT_ROOM

    cut = []
    for editor in p.editors.values():
        for i, row in enumerate(editor.boxes):
            for j, box in enumerate(row):
                room = int(box.layout.width.removesuffix("px")) - (SPLIT_ROOM if j in editor.matrix.col_splits else 0)
                if len(box.value) <= 24 and room < _needed(box.value):  # a longer text is no number: it scrolls
                    cut.append((editor.box_name(i, j), box.value, box.layout.width))
    return cut


LONG_TEXTS = ["-0.00123", "-1024.75", "1.7e308", "-1.2345678901234567e-300", "1e400", "abc def ghi", "－１２３４．５"]


@pytest.mark.parametrize("text", LONG_TEXTS)
def test_a_grid_box_shows_every_character_of_what_was_typed_taken_or_refused(text):
    """A text typed into a grid box, whether the model takes it or not (it stays in the box to mend), shows whole: the
    box grows to it, from any width it had (a 0 before it, or a long number)."""
    p = blog_playground()
    editor, (i, j) = p.editors["c_proj.w"], (7, 6)  # c_proj.w[V, Tb], 1024
    for before in ("0", "-1.2345678901234567e-300", "0"):
        type_into(p, "c_proj.w", i, j, before)
        type_into(p, "c_proj.w", i, j, text)
        assert editor.boxes[i][j].value == text and not _cut_boxes(p), _cut_boxes(p)


def test_every_grid_box_shows_every_digit_of_a_value_the_model_writes():
    """Values written into the grids by the strength's rule, a load (replace), a reset, or a refused text put back:
    every digit of each shows, the longest float64 number too (24 characters)."""
    p = blog_playground()
    for lg in (-1.23456789012345e-300, 1e-5, -1.2345678901234567e-300, 9.999999999999999e299):
        p.strength.box.value = exact(lg)
        assert p.editors["c_proj.b"].boxes[0][5].value == exact(lg) and not _cut_boxes(p), (lg, _cut_boxes(p))
    p.reset()
    assert not _cut_boxes(p), _cut_boxes(p)
    long = with_lg(p.params, -1.2345678901234567e-300)
    p.replace(long)
    assert len(p.editors["c_proj.w"].boxes[7][5].value) == 23 and not _cut_boxes(p), _cut_boxes(p)  # 1.23…e-300
    type_into(p, "c_proj.w", 0, 0, "1e400")  # refused, and kept in its box
    type_into(p, "c_proj.w", 0, 1, "-0.000123456789")  # taken: the refused text is put back as the model's 0
    assert p.editors["c_proj.w"].boxes[0][0].value == "0" and not _cut_boxes(p), _cut_boxes(p)


@pytest.mark.parametrize("text", ["-1.2345678901234567e-300", "-0.00123", "1e400", "１２３４５６７８９０"])
def test_the_strength_box_grows_to_what_it_shows(text):
    """The Lg box, as wide as its label and the number it shows, typed (taken or refused) or set (a reset, the slider)."""
    p = blog_playground()
    box = p.strength.box
    room = len(box.description) * 7.3 + 8  # its label at 13 px, and the gap after it
    for step in (lambda: setattr(box, "value", text), p.reset, lambda: setattr(box, "value", text)):
        step()
        assert int(box.layout.width.removesuffix("px")) - room >= _needed(box.value) * 13 / 12, box.layout.width


# ---- a message is never cut through its middle ------------------------------------------------------------------


def _said(region):
    return re.sub(r"<[^>]+>", "", region.value)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_an_overflow_beside_a_grid_names_where_it_happened_and_the_largest_weight_whole(language):
    """c_proj.w[V, Tb] = 1.7e308, then c_proj.b[bias, Tb] = 1.7e308: the pass overflows, and the message beside the
    bias (longer than a library's line) says every word: where the pass first overflowed, the largest weight, what
    the model keeps."""
    p = blog_playground(edit=("c_proj.w", "c_proj.b"), views=("residual", "logits", "accuracy"))
    handmade.set_language(language)
    try:
        type_into(p, "c_proj.w", 7, 6, "1.7e308")
        type_into(p, "c_proj.b", 0, 6, "1.7e308")
        said = _said(p.editors["c_proj.b"].message)
    finally:
        handmade.set_language("en")
    assert "…" not in said and "blocks[0].c_proj_output" in said, said  # where the pass first overflowed
    assert "1.7e+308" in said and "blocks[0].c_proj.w[V, Tb]" in said, said  # the largest weight
    assert said.startswith("c_proj.b[") and said.endswith(" 0"), said


LONG_SENTENCE = " ".join(f"word{k}" for k in range(80))  # 549 characters, more than a library's line (200)


@pytest.mark.parametrize("place", ["grid", "strength", "status", "softmax"])
def test_every_message_place_says_a_long_sentence_whole(place):
    """Whatever says a sentence beside an editor or in the status line says all of it (it wraps), never a start and an
    end around an ellipsis: the middle is where the reason is."""
    p, explorer = blog_playground(), SoftmaxExplorer()
    if place == "grid":
        p.editors["q"].show(LONG_SENTENCE)
        region = p.editors["q"].message
    elif place == "strength":
        p.strength.show(LONG_SENTENCE)
        region = p.strength.message
    elif place == "status":
        p.replace(p.params, note=LONG_SENTENCE)
        region = p.status
    else:
        explorer._refuse(LONG_SENTENCE)
        region = explorer.message
    assert _said(region) == LONG_SENTENCE, _said(region)


# ---- the status line says what the last action did, not one before it ------------------------------------------


ACTIONS = {  # an action that writes its note in the status line, and the words of it
    "reset": (lambda p: p.reset(), "reset to the starting weights"),
    "Lg": (lambda p: setattr(p.strength.box, "value", "2"), "Lg = 2"),
    "load": (lambda p: p.replace(p.params, note="loaded the weights from x.json"), "loaded the weights"),
}
LATER = {  # something else that happens after it
    "another context": lambda p: setattr(p.text_box, "value", "ab"),
    "a grid edit": lambda p: type_into(p, "c_proj.w", 0, 0, "0.5"),
}


@pytest.mark.parametrize("later", list(LATER))
@pytest.mark.parametrize("action", list(ACTIONS))
def test_a_note_of_an_action_goes_once_something_else_happens(action, later):
    """Reset, then another context: "reset to the starting weights" stayed under the score through every context after
    it, as if each were a reset. A note of an action (reset, Lg, a load) goes at the next change, a context or an edit."""
    p = blog_playground()
    do, words = ACTIONS[action]
    do(p)
    assert words in p.status.value, p.status.value
    LATER[later](p)
    assert p.status.value == "", p.status.value


AFTER_A_RESET = {  # every other change: what a reset or a load replaced is then no longer one step back
    **LATER,
    "Lg": lambda p: setattr(p.strength.box, "value", "2"),
    "a load": lambda p: p.replace(handmade.blog_model(), note="loaded"),
    "break it": lambda p: _find(p.widget, "hm-break-go").click(),
}


@pytest.mark.parametrize("later", list(AFTER_A_RESET))
@pytest.mark.parametrize("kind", list(UNDONE))
def test_an_undo_goes_at_the_next_change_and_then_undoes_nothing(tmp_path, kind, later):
    p = _with_a_file_to_load(tmp_path)
    button, undo, method, _context = UNDONE[kind]
    type_into(p, "q", 1, 0, "7")
    _find(p.widget, button).click()
    assert _find(p.widget, undo).layout.display is None
    AFTER_A_RESET[later](p)
    now = _weights(p)
    assert _find(p.widget, undo).layout.display == "none", later
    getattr(p, method)()
    assert _same(_weights(p), now) and p.params["blocks"][0]["attn"]["c_attn"]["w"][1, 0] != 7


# ---- a wide table scrolls by itself, and no number in it is broken ---------------------------------------------


def test_a_softmax_row_of_12_numbers_scrolls_in_a_region_of_its_own():
    """The explorer's table in a region named by its title that scrolls by itself (the Tab key reaches it while it is
    wider than its room), so that the row box and the slider above it stay put."""
    explorer = SoftmaxExplorer(list(range(1, 13)))
    view = explorer.view.value
    assert view.startswith(f'<div class="{views.SCROLLS}" role="region" tabindex="0" aria-label="softmax step by step"')
    assert explorer.view.layout.max_width == "100%"


@pytest.mark.parametrize(
    "matrix",
    [
        handmade.display.labelled.LabelledMatrix([[1.67e-05, -1.2345678901234567e-300]], ["exp"], ["x0", "x1"], "t"),
        SoftmaxExplorer(list(range(1, 13))),
    ],
    ids=["a table", "the softmax explorer's"],
)
def test_no_number_of_a_table_breaks_over_two_lines(matrix):
    """Every table keeps each number on one line (1.67e- over 05 reads as two numbers): it scrolls instead."""
    markup = matrix.view.value if isinstance(matrix, SoftmaxExplorer) else matrix.html()
    table = re.search(r"<table[^>]*>", markup).group()
    assert "white-space:nowrap" in table, table
