"""The widgets in JupyterLab, in headless Chromium: every widget notebook runs without an error
and renders its widgets, and each widget reacts to a learner's typing, sliding and clicking."""

import json
from pathlib import Path

import pytest
from lab import settle
from playwright.sync_api import expect

from handmade.display.colours import CHANGED

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PLAYGROUND = "09_playground.ipynb"  # the blog's model: its tests run at the lowest versions too (-m floors)
AT_THE_FLOORS = pytest.param(PLAYGROUND, marks=pytest.mark.floors)


def widget_notebooks():
    names = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        sources = "".join("".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"])
        if "handmade.widgets import" in sources:
            names.append(path.name)
    return names


def test_the_series_has_widget_notebooks():
    assert {"01_matrix_refresher.ipynb", "04_queries_and_keys.ipynb", "09_playground.ipynb"} <= set(widget_notebooks())


@pytest.mark.parametrize("name", [AT_THE_FLOORS if n == PLAYGROUND else n for n in widget_notebooks()])
def test_notebook_runs_without_errors_and_its_widgets_render(notebook, name):
    nb = notebook(name)
    assert nb.errors() == []
    page = nb.page
    assert page.locator(".jupyter-widgets").count() > 0
    assert "Error displaying widget" not in page.locator(".jp-NotebookPanel").text_content()
    # a rendered widget replaces the plain-text stand-in that viewers without widgets show
    assert page.get_by_text("an interactive widget; run this cell in Jupyter").count() == 0
    for view in page.locator("[class*='hm-view-'], [class*='hm-product-view'], [class*='hm-softmax-view']").all():
        assert view.text_content().strip(), "a widget view rendered empty"


# ---- 01: pick a cell of the product -------------------------------------------------------


def test_product_explorer_writes_the_chosen_dot_product(notebook):
    nb = notebook("01_matrix_refresher.ipynb")
    assert "= 70" in nb.text("hm-product-view")
    nb.page.locator(".hm-product-row label", has_text="1").click()  # a radio button's label chooses it
    nb.page.locator(".hm-product-col label", has_text="2").click()
    nb.wait_for_text("hm-product-view", "5*3 + 6*6 + 7*9 + 8*12 = 210")


# ---- 03: the embedding of any context -----------------------------------------------------


def test_embedding_follows_the_typed_context_and_refuses_other_letters(notebook):
    nb = notebook("03_embeddings.ipynb")
    before = nb.html("hm-view-embedding")
    nb.type_into(nb.page.locator(".hm-context input"), "ba")
    after = nb.wait_for_change("hm-view-embedding", before)
    assert "pos 1 · a" in after and "pos 2" not in after
    nb.type_into(nb.page.locator(".hm-context input"), "abx")
    nb.page.locator(".hm-text-message", has_text="cannot tokenize 'x' at position 2").wait_for()
    assert nb.html("hm-view-embedding") == after  # still the last good context
    nb.type_into(nb.page.locator(".hm-context input"), "a  c")  # two spaces: the message quotes both, as shown
    message = nb.page.locator(".hm-text-message [data-hm-says=alert]", has_text="cannot tokenize ' ' at position 1")
    message.wait_for()
    assert "of 'a  c'" in message.inner_text()  # innerText: the text as the page lays it out, spaces merged or not


# ---- 04: edit q, watch the scores ---------------------------------------------------------


def test_editing_q_changes_the_scores_and_attention(notebook):
    nb = notebook("04_queries_and_keys.ipynb")
    scores, attention = nb.html("hm-view-scores"), nb.html("hm-view-attention")
    nb.type_into(nb.cell_box("q", 4, 3), "0")  # position 4 stops looking at position 3
    nb.wait_for_change("hm-view-scores", scores)
    nb.wait_for_change("hm-view-attention", attention)
    last_row = nb.page.locator(".hm-view-attention tr").last.locator("td").all_text_contents()
    assert last_row == ["≈0", "≈0", "≈0", "≈0", "1"]


# ---- 05: softmax and its scale ------------------------------------------------------------


def test_softmax_scale_slider_and_bad_rows(notebook):
    nb = notebook("05_softmax_and_mask.ipynb")
    before = nb.html("hm-softmax-view")
    handle = nb.page.locator(".hm-softmax-scale input[type=range]")
    handle.focus()
    handle.press("End")  # the largest scale: softmax becomes argmax
    after = nb.wait_for_change("hm-softmax-view", before)
    assert nb.page.locator(".hm-softmax-view tr").last.locator("td").all_text_contents() == ["1", "0", "0"]
    nb.type_into(nb.page.locator(".hm-softmax-row input"), "1, two, 3")
    nb.wait_for_text("hm-softmax-message", "is not a list of 1 to 12 numbers")
    assert nb.html("hm-softmax-view") == after


JS_SOFTMAX_LAYOUT = """() => {
  const view = document.querySelector('.hm-softmax-view'), box = view.closest('.hm-ringed');
  const region = view.querySelector('.hm-scroll'), range = document.createRange();
  const broken = [...view.querySelectorAll('td, th')].filter(cell => {
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;  // its text on two lines
  }).map(cell => cell.textContent);
  const right = e => e.getBoundingClientRect().right;
  return {broken, widget: box.scrollWidth - box.clientWidth, output: right(box) <= window.innerWidth,
          controls: [...box.querySelectorAll('.hm-softmax-row, .hm-softmax-scale')].every(e => right(e) <= window.innerWidth),
          region: region && [region.scrollWidth > region.clientWidth, region.getAttribute('tabindex'),
                             region.getAttribute('role'), region.getAttribute('aria-label')]};
}"""


def test_at_1280_by_800_a_row_of_12_numbers_scrolls_in_its_table_and_breaks_no_number(notebook):
    """12 numbers, the most a row takes, at 1280 x 800 with the file browser open: no number is broken over two lines
    (1.67e- over 05 read as two numbers), the row box and the slider stay on the screen, and only the table scrolls
    sideways, in a region the Tab key reaches, whose arrow keys bring its last column into view."""
    nb = notebook("05_softmax_and_mask.ipynb")
    page, row = nb.page, nb.page.locator(".hm-softmax-row input")
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        assert page.locator(".jp-FileBrowser").first.is_visible()
        before = nb.html("hm-softmax-view")
        nb.type_into(row, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12")
        nb.wait_for_change("hm-softmax-view", before)
        page.wait_for_timeout(500)  # the table laid out, and its region looked at (marks: a stop while it scrolls)
        laid = page.evaluate(JS_SOFTMAX_LAYOUT)
        assert laid["broken"] == [] and laid["widget"] <= 1 and laid["output"] and laid["controls"], laid
        assert laid["region"] == [True, "0", "region", "softmax step by step"], laid
        region = page.locator(".hm-softmax-view .hm-scroll")
        region.focus()
        for _ in range(40):  # the arrow keys scroll it (End goes down, not across)
            page.keyboard.press("ArrowRight")
        last = page.locator(".hm-softmax-view th", has_text="x11").first
        page.wait_for_function(
            "([r, c]) => c.getBoundingClientRect().right <= r.getBoundingClientRect().right + 1",
            arg=[region.element_handle(), last.element_handle()],
        )
    finally:
        nb.type_into(row, "1, 0, 0")
        settle(page)
        page.set_viewport_size({"width": 1400, "height": 1000})


# ---- 06: values ---------------------------------------------------------------------------


def test_giving_b_the_value_of_a_breaks_the_model(notebook):
    nb = notebook("06_values.ipynb")
    assert "(27 / 27)" in nb.text("hm-view-accuracy")
    before = nb.html("hm-view-accuracy")
    nb.type_into(nb.cell_box("v", 6, 7), "1")  # b now looks like a
    assert "(27 / 27)" not in nb.wait_for_change("hm-view-accuracy", before)
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


# ---- 07: the strength of c_proj -----------------------------------------------------------


def test_lg_slider_breaks_predictions_when_small(notebook):
    nb = notebook("07_projection_and_residual.ipynb")
    before = nb.html("hm-view-accuracy")
    handle = nb.page.locator(".hm-lg input[type=range]")
    handle.focus()
    handle.press("Home")  # Lg = 1/16: the residual's 1 wins
    assert "(27 / 27)" not in nb.wait_for_change("hm-view-accuracy", before)
    assert nb.cell_box("c-proj-b", 0, 5).input_value() == "0.0625"
    assert nb.page.locator(".hm-lg-box input").input_value() == "0.0625"  # the box follows the slider
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert nb.page.locator(".hm-lg-box input").input_value() == "1024"


def test_lg_refuses_a_comma_the_browser_would_drop_and_takes_its_old_value_again_after_an_edit(notebook):
    """A number input drops what it cannot read (0,5 became 5): the Lg box reads what was typed, refuses it
    beside itself, and is emptied when a grid edit leaves the rule, so that 1024 puts the rule back."""
    nb = notebook("07_projection_and_residual.ipynb")
    box = nb.page.locator(".hm-lg-box input")
    nb.type_into(box, "0,5")
    nb.wait_for_text("hm-lg-message", "'0,5' is not a number (write one as 1.5, -2 or 3e-4); keeping 1024")
    assert box.input_value() == "0,5" and "(27 / 27)" in nb.text("hm-view-accuracy")
    before = nb.html("hm-view-accuracy")
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "0")  # what "break it" does
    assert "(27 / 27)" not in nb.wait_for_change("hm-view-accuracy", before)
    nb.page.wait_for_function("() => document.querySelector('.hm-lg-box input').value === ''")
    nb.type_into(box, "1024")
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert nb.cell_box("c-proj-w", 7, 6).input_value() == "1024"


def test_a_message_beside_the_lg_box_never_moves_the_views_beside_the_grids(notebook):
    """At 1280 x 800, the series' screen: a refusal in the Lg box, or the note that a grid edit left the rule,
    appears under the box; the views beside the grids stay where they were."""
    nb = notebook("07_projection_and_residual.ipynb")
    page, box = nb.page, nb.page.locator(".hm-lg-box input")
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        view = page.locator(".hm-view-residual").first
        view.scroll_into_view_if_needed()
        before = view.bounding_box()
        nb.type_into(box, "abc")
        nb.wait_for_text("hm-lg-message", "'abc' is not a number")
        after = view.bounding_box()
        assert (after["x"], after["y"]) == (before["x"], before["y"]), (before, after)
        nb.type_into(box, "1.00001")  # every digit the model runs shows in the grids, none cut by the box's edge
        cell = nb.cell_box("c-proj-w", 7, 5)  # c_proj.w[V, Ta] = -Lg
        # its value and its width are two widget models, which may arrive one after the other: both awaited
        page.wait_for_function(
            "e => e.value === '-1.00001' && e.scrollWidth <= e.clientWidth", arg=cell.element_handle()
        )
        nb.type_into(box, "1024")
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


@pytest.mark.floors  # the box whose value the browser may round: ipywidgets' floor too
def test_lg_takes_exactly_1_then_1_01_and_reset_puts_every_control_back(notebook):
    nb = notebook("07_projection_and_residual.ipynb")
    box = nb.page.locator(".hm-lg-box input")
    nb.type_into(box, "1")
    nb.wait_for_text("hm-view-accuracy", "(18 / 27)")  # a tie, which argmax breaks towards a
    nb.type_into(box, "1.01")
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert box.input_value() == "1.01" and nb.cell_box("c-proj-b", 0, 5).input_value() == "1.01"
    nb.type_into(nb.page.locator(".hm-context input"), "ab")
    nb.wait_for_text("hm-view-prediction", "after ab ")
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-prediction", "after aabaa ")
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert box.input_value() == "1024" and nb.cell_box("c-proj-b", 0, 5).input_value() == "1024"
    assert nb.page.locator(".hm-context input").input_value() == "aabaa"


@pytest.mark.floors
def test_a_box_being_typed_in_keeps_the_typing_when_the_kernel_changes_its_value_and_sends_it_when_left(notebook):
    """A reset that waited behind a running cell, or any change the kernel makes to a box while a person types in it,
    put the kernel's value in the box and the next key went after it (1024 then 6 used 10246): what is typed and not
    yet sent stays, and is sent when the box is left; a box only looked into shows the kernel's value."""
    nb = notebook(PLAYGROUND)
    tab(nb, "c_proj")
    box, other = nb.cell_box("c-proj-w", 7, 6), nb.cell_box("c-proj-w", 7, 5)
    box.click()
    box.press("Control+a")
    box.press_sequentially("55")  # not sent: the box is not left
    set_in_kernel = "playground.editors['c_proj.w'].boxes[7][{j}].value = '{value}'"
    nb.run_quietly(set_in_kernel.format(j=6, value=3) + "\n" + set_in_kernel.format(j=5, value=-3))
    nb.page.wait_for_function("e => e.value === '-3'", arg=other.element_handle())  # only looked at: it follows
    nb.settle()
    assert box.input_value() == "55"
    box.press("Tab")
    nb.settle()
    kernel = "playground.editors['c_proj.w'].values[7, 6]"
    nb.run_quietly(f"playground.status.value = str({kernel})")
    nb.wait_for_text("hm-status", "55.0")
    assert box.input_value() == "55"
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


@pytest.mark.floors
def test_a_refusal_left_behind_by_a_click_on_another_tab_is_said_in_the_status_line(notebook):
    """Typed into a grid, not sent, then another tab clicked: the box is left (its text sent) before the tab changes,
    and the refusal, hidden with its tab, is said in the status line above the tabs, with the tab's name; so is, as
    news, the refused box put back when another box of its grid is typed into and left the same way."""
    nb = notebook(PLAYGROUND)
    tab(nb, "c_proj")
    _type_and_leave_by_a_tab(nb, nb.cell_box("c-proj-b", 0, 6), "x")  # c_proj.b[bias, Tb]
    nb.wait_for_text("hm-status", "in the tab “c_proj”: c_proj.b[bias, Tb]: 'x' is not a number")
    tab(nb, "c_proj")
    _type_and_leave_by_a_tab(nb, nb.cell_box("c-proj-b", 0, 5), "0.5")  # the refused box is put back, as news
    nb.wait_for_text("hm-status", "in the tab “c_proj”: back to the numbers the model uses: c_proj.b[bias, Tb] = ")
    assert nb.page.locator(".hm-status [data-hm-says]").first.get_attribute("data-hm-says") == "status"
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


def _type_and_leave_by_a_tab(nb, box, text):
    """``text`` typed into ``box``, not sent, and the break tab clicked: the box sends it as it is left."""
    box.click()
    box.press("Control+a")
    box.press_sequentially(text)
    nb.page.locator(".hm-stages .lm-TabBar-tab", has_text="break").first.click()


JS_PROMPTS = "() => [...document.querySelectorAll('.jp-InputPrompt')].map(e => e.textContent).join(' ')"


@pytest.mark.floors
def test_keys_typed_in_a_box_are_the_boxs_shift_enter_sends_it_and_runs_no_cell_tab_leaves_it_and_sends_it(notebook):
    """In a notebook, Shift+Enter runs the cell and Ctrl+Z undoes a cell's change: typed in a box, they are the box's.
    Shift+Enter sends what was typed, as Enter does, and the playground's cell is not run again (its edits kept);
    Ctrl+Z undoes the typing; leaving the box with Tab sends it too, and the keyboard goes on to the slider."""
    nb = notebook("07_projection_and_residual.ipynb")
    box, prompts = nb.page.locator(".hm-lg-box input"), nb.page.evaluate(JS_PROMPTS)
    box.scroll_into_view_if_needed()
    box.click()
    box.fill("1")
    box.press("Shift+Enter")
    nb.wait_for_text("hm-view-accuracy", "(18 / 27)")  # used: a tie, which argmax breaks towards a
    box.press_sequentially("5")
    box.press("Control+z")  # the box's own undo: the 5 goes, and the notebook's cells stay as they are
    assert box.input_value() == "1"
    nb.settle()
    assert nb.page.evaluate(JS_PROMPTS) == prompts and box.is_visible()
    box.fill("1.01")
    box.press("Tab")
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert nb.page.evaluate("() => document.activeElement.type") == "range"  # the Lg slider, next
    assert nb.cell_box("c-proj-b", 0, 5).input_value() == "1.01" and nb.page.evaluate(JS_PROMPTS) == prompts
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


JS_CUT_BOXES = """() => [...document.querySelectorAll("[class*='hm-cell-c-proj'] input, .hm-lg-box input")]
  .filter(e => e.scrollWidth > e.clientWidth).map(e => e.value)"""


def no_box_cut(nb):
    """Wait until every c_proj grid box and the Lg box shows all of its text; else fail naming the texts cut."""
    try:
        nb.page.wait_for_function(f"() => ({JS_CUT_BOXES})().length === 0", timeout=5_000)
    except Exception:
        pytest.fail(f"boxes that cut their text: {nb.page.evaluate(JS_CUT_BOXES)}")


def test_at_1280_by_800_every_box_shows_every_character_of_its_value_however_it_got_there(notebook):
    """A weight typed (taken, or refused and kept to mend), written by the Lg rule, or put back by a reset: every box
    shows all of its characters, none cut by the box's edge, at the learner's 1280 x 800."""
    nb = notebook("07_projection_and_residual.ipynb")
    page, lg = nb.page, nb.page.locator(".hm-lg-box input")
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        cell = nb.cell_box("c-proj-w", 7, 6)  # c_proj.w[V, Tb], 1024
        for text in ("-0.00123", "-1024.75", "1.7e308", "1e400", "-1.2345678901234567e-300"):
            nb.type_into(cell, text)
            settle(page)
            no_box_cut(nb)
        nb.type_into(lg, "-1.23456789012345e-300")  # written into the grids by the rule
        page.wait_for_function("() => document.querySelector('.hm-cell-c-proj-b-0-5 input').value.length === 22")
        no_box_cut(nb)
        page.locator(".hm-reset").click()
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
        no_box_cut(nb)
    finally:
        page.locator(".hm-reset").click()
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
        page.set_viewport_size({"width": 1400, "height": 1000})


# ---- 08: ask the model --------------------------------------------------------------------


def test_completion_follows_the_context(notebook):
    nb = notebook("08_predict_and_complete.ipynb")
    nb.type_into(nb.page.locator(".hm-context input"), "bbbbb")
    nb.wait_for_text("hm-view-completion", "bbbbb :: aabaabaaba")


# ---- 09: the playground -------------------------------------------------------------------


def accuracy(nb):
    return nb.text("hm-view-accuracy")


def tab(nb, title):
    """Open the playground's tab called ``title`` (its grids are hidden until then)."""
    nb.tab(title)


@pytest.mark.floors
def test_zeroing_lg_in_c_proj_drops_accuracy_and_reset_restores_it(notebook):
    nb = notebook(PLAYGROUND)
    assert "(27 / 27)" in accuracy(nb)
    before = nb.html("hm-view-accuracy")
    tab(nb, "c_proj")
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "0")
    assert "(27 / 27)" not in nb.wait_for_change("hm-view-accuracy", before)
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert nb.cell_box("c-proj-w", 7, 6).input_value() == "1024"


@pytest.mark.floors
def test_editing_a_q_entry_changes_the_attention_heatmap(notebook):
    nb = notebook(PLAYGROUND)
    before = nb.html("hm-view-q-attention")
    tab(nb, "q")
    nb.type_into(nb.cell_box("q", 2, 2), "0")  # position 2 no longer looks at itself
    changed = nb.wait_for_change("hm-view-q-attention", before)
    assert CHANGED in changed  # the cells that changed are marked
    nb.page.locator(".hm-reset").click()
    nb.page.wait_for_function("() => document.querySelector('.hm-cell-q-2-2 input').value === '1024'")
    assert nb.html("hm-view-q-attention") == before  # views back as they started (reset compares with nothing)


@pytest.mark.floors
def test_an_entry_that_is_not_a_number_shows_a_message_and_keeps_the_model(notebook):
    nb = notebook(PLAYGROUND)
    attention, score = nb.html("hm-view-q-attention"), accuracy(nb)
    tab(nb, "c_proj")
    view = nb.page.locator(".hm-view-prediction").first
    nb.cell_box("c-proj-w", 7, 6).scroll_into_view_if_needed()  # as typing will: the page does not scroll in between
    place = view.bounding_box()
    assert place is not None
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "lots")
    nb.wait_for_text(
        "hm-message-c-proj-w", "'lots' is not a number (write one as 1.5, -2 or 3e-4); the model keeps 1024"
    )
    assert view.bounding_box() == place  # the message appears where it does not move the views
    assert nb.html("hm-view-q-attention") == attention and accuracy(nb) == score
    assert refused_edge(nb, "c-proj-w", 7, 6) == ("rgb(179, 38, 30)", "2px")  # the box keeps a red edge till mended
    assert nb.cell_box("c-proj-w", 7, 6).get_attribute("aria-invalid") == "true"  # and a screen reader hears it,
    said = nb.text("hm-message-c-proj-w").strip()  # and why, with the box, after the alert has been read
    expect(nb.cell_box("c-proj-w", 7, 6)).to_have_accessible_description(said)
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "1024")
    nb.page.wait_for_function("() => document.querySelector('.hm-message-c-proj-w').textContent.trim() === ''")
    assert refused_edge(nb, "c-proj-w", 7, 6) != ("rgb(179, 38, 30)", "2px")
    assert nb.cell_box("c-proj-w", 7, 6).get_attribute("aria-invalid") == "false"
    expect(nb.cell_box("c-proj-w", 7, 6)).to_have_accessible_description("")


def refused_edge(nb, matrix, i, j):
    """The colour and width of the box's left edge, as drawn (a class set in the kernel after the box was drawn)."""
    script = "(e) => [getComputedStyle(e).borderLeftColor, getComputedStyle(e).borderLeftWidth]"
    return tuple(nb.cell_box(matrix, i, j).evaluate(script))


@pytest.mark.floors
def test_break_it_then_reset(notebook):
    nb = notebook(PLAYGROUND)
    before = nb.html("hm-view-accuracy")
    tab(nb, "break")
    nb.page.locator(".hm-break-go").click()  # defaults: c_proj.w [V, Tb] set to 0
    assert "(27 / 27)" not in nb.wait_for_change("hm-view-accuracy", before)
    nb.page.locator(".hm-status", has_text="c_proj.w[V, Tb] is now 0").wait_for()
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


@pytest.mark.floors
def test_saving_then_loading_restores_the_weights(notebook):
    nb = notebook(PLAYGROUND)
    tab(nb, "break")
    nb.type_into(nb.page.locator(".hm-file-path input"), "ui_test_weights.json")
    tab(nb, "q")
    box = nb.cell_box("q", 2, 1)
    before = nb.text("hm-view-q-attention")
    nb.type_into(box, "2048")  # position 2 now looks only at position 1
    nb.page.wait_for_function("b => document.querySelector('.hm-view-q-attention').textContent !== b", arg=before)
    saved = nb.text("hm-view-q-attention")
    tab(nb, "break")
    nb.page.locator(".hm-file-save").click()
    nb.wait_for_text("hm-status", "wrote the weights to")
    tab(nb, "q")
    nb.type_into(box, "0")  # and now only at itself
    nb.page.wait_for_function("b => document.querySelector('.hm-view-q-attention').textContent !== b", arg=saved)
    tab(nb, "break")
    nb.page.locator(".hm-file-load").click()
    nb.wait_for_text("hm-status", "loaded the weights from ui_test_weights.json")
    assert box.input_value() == "2048"
    assert nb.text("hm-view-q-attention") == saved  # the same numbers (only the change marks differ)
    nb.page.locator(".hm-reset").click()


@pytest.mark.floors
def test_a_file_name_typed_key_by_key_and_saved_at_once_is_the_name_saved_to(lab, notebook):
    """A name typed and "save weights" clicked while the kernel is still busy: the weights go to the whole name typed.
    ipywidgets holds back a box's later keys while its first is on the way, but not a button's click, so a box that
    sent each key had the button read the name's first letters (or none)."""
    nb = notebook(PLAYGROUND)
    tab(nb, "break")
    path = nb.page.locator(".hm-file-path input")
    start, name = path.input_value(), "ui_test_typed_key_by_key_and_saved_at_once.json"
    files = set(lab.root.iterdir())
    try:
        nb.keep_kernel_busy(3)
        path.fill("")
        path.press_sequentially(name)  # no delay between the keys
        before = nb.html("hm-status")
        assert nb.kernel_busy()  # what the test is about: typed and clicked while the kernel is at other work
        nb.page.locator(".hm-file-save").click()
        nb.wait_for_change("hm-status", before)
        said = nb.text("hm-status")
        assert "wrote the weights to" in said and f"{name}'" in said, said
        assert set(lab.root.iterdir()) - files == {lab.root / name}  # that file, and no other
    finally:
        nb.type_into(path, start)


# In the kernel: each change of the value of the first playground's control of that class takes that long (as a large
# model's would), or no longer: a slow change holds ipywidgets' next change of the same model back, as a running cell
# (keep_kernel_busy) does too now that every control is handled in the main thread (choice.in_order).
SLOW = """import time
def _hm_walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _hm_walk(child)
_hm_slowed = next(w for w in _hm_walk(playground.widget) if {css_class!r} in w._dom_classes)
def _hm_slow(change):
    time.sleep({seconds})
_hm_slowed.observe(_hm_slow, names="value")"""
NOT_SLOW = '_hm_slowed.unobserve(_hm_slow, names="value")'
# What a control shows, every 10 ms for 6 s, into window.hmSeen.
JS_WATCH_VALUE = """(control) => {
  window.hmSeen = [];
  const watch = setInterval(() => window.hmSeen.push(control.value), 10);
  setTimeout(() => clearInterval(watch), 6000);
}"""


@pytest.mark.floors
def test_a_menu_changed_twice_while_the_kernel_is_busy_and_break_it_clicked_breaks_the_weight_the_menu_shows(notebook):
    """ipywidgets holds back a model's second change while its first is on the way to the kernel, but not a button's
    click: "break it" broke the row chosen first while the menu showed the second. A choice is a message of its own
    now (choice.Chosen), which keeps its place among the clicks."""
    nb = notebook(PLAYGROUND)
    tab(nb, "break")
    rows = nb.page.locator(".hm-break-row select")
    nb.run_quietly(SLOW.format(css_class="hm-break-row", seconds=0.4))
    try:
        nb.keep_kernel_busy(3)
        rows.select_option(index=1)
        rows.select_option(index=2)  # each a choice, as each arrow key on a closed menu is on Chrome for Linux
        shown = rows.input_value()
        assert nb.kernel_busy()  # what the test is about: chosen twice and clicked while the kernel is at other work
        rows.evaluate(JS_WATCH_VALUE)  # and the menu never shows the first again while the kernel takes it
        before = nb.html("hm-status")
        nb.page.locator(".hm-break-go").click()
        nb.wait_for_change("hm-status", before)
        said = nb.text("hm-status")
        assert f"[{shown}, " in said and rows.input_value() == shown, said
        assert nb.page.evaluate("() => [...new Set(window.hmSeen)]") == [shown]
    finally:
        nb.run_quietly(NOT_SLOW)
        nb.page.locator(".hm-reset").click()  # the blog's model back for the tests after
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


@pytest.mark.floors
def test_a_box_typed_in_twice_while_the_kernel_is_busy_and_save_clicked_saves_what_the_box_shows(lab, notebook):
    """ipywidgets held a box's second edit back while its first was on the way to the kernel, but not the click:
    "save weights" saved the first edit while the box showed the second. What is typed is a message of its own now
    (TextBox), which keeps its place among the clicks."""
    from handmade import load_weights

    nb = notebook(PLAYGROUND)
    tab(nb, "break")
    box, name = nb.cell_box("c-proj-w", 7, 6), "ui_test_typed_twice.json"
    path = nb.page.locator(".hm-file-path input")
    start = path.input_value()
    nb.type_into(path, name)
    tab(nb, "c_proj")
    nb.run_quietly(SLOW.format(css_class="hm-cell-c-proj-w-7-6", seconds=1.5))
    nb.settle()
    try:
        nb.type_into(box, "5")
        nb.type_into(box, "7")
        nb.page.locator(".hm-stages .lm-TabBar-tab", has_text="break").first.click()  # not waiting for the kernel
        before = nb.html("hm-status")
        assert nb.kernel_busy()  # what the test is about: typed twice and clicked while the kernel is at the first
        nb.page.locator(".hm-file-save").click()
        nb.wait_for_change("hm-status", before, timeout=20_000)
        said = nb.text("hm-status")
        assert "wrote the weights to" in said and f"{name}'" in said, said
        saved = load_weights(lab.root / name)["blocks"][0]["attn"]["c_proj"]["w"]
        assert saved[7, 6] == 7 and box.input_value() == "7"
    finally:
        nb.run_quietly(NOT_SLOW)
        (lab.root / name).unlink(missing_ok=True)
        tab(nb, "break")
        nb.type_into(path, start)
        nb.page.locator(".hm-reset").click()  # the blog's model back for the tests after
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
        nb.settle()


@pytest.mark.floors
def test_a_typed_lg_shows_in_the_logits_and_comes_back_in_the_box_with_the_weights_loaded(notebook):
    """Lg = 1.0001 scores 27 / 27 where Lg = 1 scores 18 / 27: its logits do not read 1 | 1; and weights saved
    at that Lg, loaded after another was typed, bring their Lg back into the box (notebook 09: "save, change
    something, load: the weights come back exactly")."""
    nb = notebook(PLAYGROUND)
    tab(nb, "c_proj")
    box = nb.page.locator(".hm-lg-box input")
    nb.type_into(box, "1.0001")
    nb.wait_for_text("hm-view-c-proj-logits", "1.0001")
    tab(nb, "break")
    nb.type_into(nb.page.locator(".hm-file-path input"), "ui_test_lg.json")
    nb.page.locator(".hm-file-save").click()
    nb.wait_for_text("hm-status", "wrote the weights to")
    tab(nb, "c_proj")
    nb.type_into(box, "5")
    nb.page.wait_for_function("() => !document.querySelector('.hm-view-c-proj-logits').textContent.includes('1.0001')")
    tab(nb, "break")
    nb.page.locator(".hm-file-load").click()
    nb.wait_for_text("hm-status", "loaded the weights from ui_test_lg.json")
    tab(nb, "c_proj")
    nb.wait_for_text("hm-lg-message", "these weights follow this rule at 1.0001")
    assert box.input_value() == "1.0001"
    nb.page.locator(".hm-reset").click()
    nb.page.wait_for_function("() => document.querySelector('.hm-lg-box input').value === '1024'")


@pytest.mark.floors
def test_at_1280_by_800_an_edit_of_q_and_its_effect_are_on_one_screen(notebook):
    """A learner's laptop: 1280 x 800, the file browser open, the playground scrolled into view."""
    nb = notebook(PLAYGROUND)
    page = nb.page
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        assert page.locator(".jp-FileBrowser").first.is_visible()
        page.locator(".hm-reset").first.click()
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
        page.locator(".hm-playground").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        tab(nb, "q")
        before = nb.html("hm-view-accuracy")
        nb.type_into(nb.cell_box("q", 4, 3), "0")  # position 4 stops looking back
        nb.wait_for_change("hm-view-accuracy", before)
        for selector in (".hm-cell-q-4-3 input", ".hm-view-q-attention", ".hm-view-accuracy", ".hm-view-prediction"):
            box = page.locator(selector).first.bounding_box()
            inside = box and box["y"] >= 0 and box["y"] + box["height"] <= 800 and box["x"] + box["width"] <= 1280
            assert inside, (selector, box)
        assert "(19 / 27)" in accuracy(nb)
    finally:
        page.locator(".hm-reset").first.click()
        page.set_viewport_size({"width": 1400, "height": 1000})


# ---- the Chinese edition ----------------------------------------------------------------


def test_the_chinese_playground_runs_and_speaks_chinese(notebook):
    nb = notebook("zh/09_playground.ipynb")
    assert nb.errors() == []
    assert "准确率" in accuracy(nb) and "(27 / 27)" not in accuracy(nb)  # the blog's line, in Chinese: （27 / 27）
    assert "重置" in nb.page.locator(".hm-reset").first.text_content()
    assert "上下文" in nb.page.locator(".hm-bar").first.text_content()
    tab(nb, "c_proj")
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "很多")
    nb.wait_for_text("hm-message-c-proj-w", "不是一个数")
    before = nb.html("hm-view-accuracy")
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "0")
    assert "（27 / 27）" not in nb.wait_for_change("hm-view-accuracy", before)
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "（27 / 27）")


# ---- what a learner types is what is used ---------------------------------------------------


def test_lg_keeps_what_is_typed_from_any_state_with_outlines_and_the_right_accuracy(notebook):
    import handmade
    from handmade.widgets.blog import with_lg

    nb = notebook("07_projection_and_residual.ipynb")
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    box = nb.page.locator(".hm-lg-box input")
    for typed in ("1.01", "500", "3"):  # straight from 1024, in an order no notebook suggests
        before = nb.html("hm-view-residual")
        nb.type_into(box, typed)
        nb.wait_for_change("hm-view-residual", before)
        nb.page.wait_for_timeout(400)  # the slider settles on its step and says so: it must not move the box
        right = handmade.accuracy(with_lg(handmade.blog_model(), float(typed))).correct
        assert box.input_value() == typed and nb.cell_box("c-proj-b", 0, 5).input_value() == typed
        assert f"({right} / 27)" in nb.text("hm-view-accuracy")
        assert CHANGED in nb.html("hm-view-residual")  # what the change changed is outlined
    nb.page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


def test_break_it_works_in_a_task_playground(notebook):
    nb = notebook("17_challenges_tokens_and_positions.ipynb")
    assert nb.page.locator(".hm-break-row select").first.input_value()  # a choice is made from the start
    nb.page.locator(".hm-break-action select").first.select_option(index=2)  # add 1
    nb.page.locator(".hm-break-go").first.click()
    nb.wait_for_text("hm-status", "is now 1")
    assert "wte[a, " in nb.text("hm-status")


def test_the_question_before_saving_over_another_model_is_the_next_stop_of_the_tab_key(lab, notebook):
    """17's first playground (one stage: its tools above the grids, no tabs): saving over a file that holds another model asks "replace it" or "keep
    it"; the question's buttons came after "load weights", two presses of Tab away from "save weights", where focus
    stays. Now the Tab key goes from "save weights" to "replace it", then "keep it"; keeping leaves the file as it was
    and focus back on "save weights"."""
    import handmade

    other = lab.root / "hm_ui_another_model.json"
    handmade.save_weights(handmade.blog_model(), other)
    before = other.read_bytes()
    nb = notebook("17_challenges_tokens_and_positions.ipynb")
    page = nb.page
    playground = page.locator(".hm-playground").first
    path, save = playground.locator(".hm-file-path input"), playground.locator(".hm-file-save")
    start = path.input_value()
    try:
        nb.type_into(path, other.name)
        save.focus()
        page.keyboard.press("Enter")
        nb.wait_for_text("hm-status", "holds another model: replace it with this playground's weights?")
        for answer in ("hm-file-replace", "hm-file-keep"):
            page.keyboard.press("Tab")
            assert page.evaluate(f"() => !!document.activeElement.closest('.{answer}')"), answer
        page.keyboard.press("Enter")
        nb.wait_for_text("hm-status", "nothing saved")
        assert other.read_bytes() == before
        page.wait_for_function("() => !!document.activeElement.closest('.hm-file-save')")
    finally:
        nb.type_into(path, start)
