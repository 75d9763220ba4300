"""The playground for a keyboard and a screen reader, in JupyterLab in Chromium (WCAG 2.1 AA): axe-core
finds no serious or critical violation in any of its tabs, every control has a name (the grid's
boxes say which matrix, row and column), a refused edit is announced, focus stays where the learner
typed, a focused control shows a ring that stands out, the arrow keys move the break tab's menus
(not JupyterLab's cells), and nothing is cut short: the task's diagnosis is whole and every tab's
title too, on a 1280 x 800 screen. The widgets outside a
playground (notebook 01's and 05's explorers, a grid and a number box shown alone) too: every control
reached by the Tab key shows the same ring, axe finds nothing serious, every control has a name, and
the product explorer's choices are radio buttons in named groups that the arrow keys move.

axe-core is the copy bundled in the axe-playwright-python wheel (requirements-dev.txt), injected
from the installed file: nothing is fetched.
"""

import re
from pathlib import Path

import pytest
from lab import NotebookPage, new_page, settle
from playwright.sync_api import expect

PLAYGROUND, TASK = "09_playground.ipynb", "18_challenges_attention.ipynb"  # the blog's model, and a task's
AT_THE_FLOORS = pytest.param(PLAYGROUND, marks=pytest.mark.floors)  # also run at the lowest versions (-m floors)
SERIOUS = ("serious", "critical")

# axe over one element's subtree: (violations, incomplete) as [{id, impact, nodes: [target, summary]}].
# JupyterLab's <body> is 0 px tall with overflow: hidden, which axe takes for a clip of everything in
# it (its colour check then tests nothing): the body is given the window's height first. Short texts
# ("0", "1") are checked for contrast too (ignoreLength, added to the check's own options: configure
# replaces them all, and the check then fails on every node as "an error", testing nothing). Also
# returned: how many texts the colour check passed, to show that it ran.
JS_AXE = """async (element) => {
  document.body.style.height = '100vh';
  const check = axe._audit.checks['color-contrast'];
  axe.configure({checks: [{id: 'color-contrast', options: {...check.options, ignoreLength: true}}]});
  const result = await axe.run(element, {resultTypes: ['violations', 'incomplete', 'passes']});
  const brief = (rule) => ({id: rule.id, impact: rule.impact,
                            nodes: rule.nodes.map(n => [n.target.join(' '), n.failureSummary])});
  const contrasted = result.passes.filter(r => r.id === 'color-contrast').map(r => r.nodes.length);
  return [result.violations.map(brief), result.incomplete.map(brief), contrasted.reduce((a, b) => a + b, 0)];
}"""
# Every control a person can reach in the element's visible part, with the name a screen reader gives it.
JS_NAMES = """(element) => {
  axe.setup(element);
  const controls = [...element.querySelectorAll('input, select, button, textarea, [role=slider], [role=tab]')]
    .filter(e => e.getClientRects().length > 0);
  const named = controls.map(e => [e.outerHTML.slice(0, 120), axe.commons.text.accessibleTextVirtual(axe.utils.getNodeFromTree(e))]);
  axe.teardown();
  return named;
}"""


def axe_source():
    axe = pytest.importorskip("axe_playwright_python", reason="python3 -m pip install -r requirements-dev.txt")
    return Path(axe.__file__).parent / "axe.min.js"


def with_axe(nb):
    if not nb.page.evaluate("() => typeof axe !== 'undefined'"):
        nb.page.add_script_tag(path=str(axe_source()))
    return nb


def tabs(nb):
    return nb.page.locator(".hm-playground").first.locator(".hm-stages .lm-TabBar-tab")


def each_tab(nb):
    """Open each tab of the notebook's first playground in turn; yield its title."""
    found = tabs(nb)
    for k in range(found.count()):
        found.nth(k).click()
        nb.settle()
        yield found.nth(k).text_content()
    found.first.click()


def serious(results):
    return [(rule["id"], len(rule["nodes"]), rule["nodes"][:3]) for rule in results if rule["impact"] in SERIOUS]


@pytest.fixture
def tall(notebook):
    """A page tall enough to show the whole playground, so that axe sees all of it on screen."""
    pages = []

    def get(name):
        nb = with_axe(notebook(name))
        nb.page.set_viewport_size({"width": 1280, "height": 2400})
        nb.page.locator(".hm-playground").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        pages.append(nb.page)
        return nb

    yield get
    for page in pages:
        page.set_viewport_size({"width": 1400, "height": 1000})


@pytest.mark.parametrize("name", [AT_THE_FLOORS, TASK])
def test_axe_finds_no_serious_or_critical_violation_in_any_tab(tall, name):
    nb = tall(name)
    playground = nb.page.locator(".hm-playground").first
    found, contrasted = {}, 0
    for title in each_tab(nb):
        violations, _incomplete, passed = playground.evaluate(JS_AXE)
        found[title] = serious(violations)
        contrasted += passed
    assert len(found) >= 5 and contrasted > 500  # every tab, and the colour check read the tables' cells
    assert all(not v for v in found.values()), found


@pytest.mark.parametrize("name", [AT_THE_FLOORS, TASK])
def test_every_control_has_a_name_a_screen_reader_reads(tall, name):
    nb = tall(name)
    playground = nb.page.locator(".hm-playground").first
    controls = 0
    for title in each_tab(nb):
        named = playground.evaluate(JS_NAMES)
        controls += len(named)
        assert all(text.strip() for _html, text in named), (title, [h for h, text in named if not text.strip()])
    assert controls > 80  # the grids' boxes are among them


@pytest.mark.floors
def test_a_grid_box_says_which_matrix_row_and_column_and_the_other_controls_say_what_they_are(notebook):
    """By the accessible names Playwright computes (its own reading of the ARIA rules, not axe's)."""
    nb = notebook(PLAYGROUND)
    page = nb.page
    nb.tab("q")
    box = page.get_by_role("textbox", name="q, row P3, column P2", exact=True)
    assert box.count() == 1 and box.evaluate("e => e.closest('.hm-cell-q-3-2') !== null")
    nb.tab("c_proj")
    assert page.get_by_role("slider", name="c_proj Lg, on a log scale").count() == 1
    assert (
        page.get_by_role("textbox", name="c_proj Lg").count() == 1
    )  # a text box: what is typed is read, never dropped
    nb.tab("break")
    for name in ("break", "row", "column", "what to do to it"):
        assert page.get_by_role("combobox", name=name, exact=True).count() == 1, name
    for name in ("break it", "save weights", "load weights", "reset"):
        assert page.get_by_role("button", name=name, exact=True).count() == 1, name
    assert page.get_by_role("textbox", name="context", exact=True).count() == 1


@pytest.mark.floors
def test_a_refused_edit_is_announced_and_focus_stays_in_the_box(notebook):
    from handmade.display.colours import contrast

    nb = notebook(PLAYGROUND)
    page = nb.page
    nb.tab("c_proj")
    box = nb.cell_box("c-proj-w", 7, 6)
    nb.type_into(box, "lots")
    nb.wait_for_text("hm-message-c-proj-w", "'lots' is not a number")
    # read out by the grid's own alert region, on the page before it (a region put there with its words is not read
    # by every screen reader), and the message beside the box is no region of its own: said once
    alert = page.locator(".hm-editor-c-proj-w > .hm-speaker[role=alert][aria-live=assertive]")
    page.wait_for_function(JS_SPOKEN, arg=[".hm-editor-c-proj-w > .hm-speaker[role=alert]", "'lots' is not a number"])
    assert page.locator(".hm-message-c-proj-w [aria-live], .hm-message-c-proj-w [role]").count() == 0
    assert alert.count() == 1
    assert box.evaluate("e => e === document.activeElement")  # Enter left the learner where they were
    # the box keeps the text, to mend: its name says it is not used, after the alert, and a red edge shows it
    nb.wait_for_text("hm-cell-c-proj-w-7-6", "c_proj.w, row V, column Tb, not used")
    expect(box).to_have_accessible_name("c_proj.w, row V, column Tb, not used")
    edge = box.evaluate("e => getComputedStyle(e).borderTopColor")
    assert contrast(tuple(int(c) for c in edge[edge.index("(") + 1 : -1].split(",")[:3]), (255, 255, 255)) >= 3, edge
    before = nb.html("hm-view-accuracy")
    regions = page.locator(".hm-playground").first.locator(".hm-view-prediction, .hm-view-accuracy")
    regions.evaluate_all("rs => rs.forEach(r => { r.querySelector('[role=status]').hmKept = true; })")
    nb.type_into(box, "0")  # a good edit: the views change, and focus still stays in the box
    nb.wait_for_change("hm-view-accuracy", before)
    # the new score and prediction, read when the reader is free: written into the status regions that were on the
    # page before the edit (a region put on the page with its words is not read by every screen reader)
    kept = "rs => rs.map(r => [...r.querySelectorAll('[role=status]')].map(s => [s.hmKept === true, s.ariaLive]))"
    assert regions.evaluate_all(kept) == [[[True, "polite"]], [[True, "polite"]]]
    assert box.evaluate("e => e === document.activeElement")
    expect(box).to_have_accessible_name("c_proj.w, row V, column Tb")
    page.keyboard.press("Tab")  # and the keyboard goes on to the next box of the row
    assert page.evaluate("() => document.activeElement.closest('.hm-cell-c-proj-w-7-7') !== null")
    page.locator(".hm-reset").click()
    nb.wait_for_text("hm-view-accuracy", "(27 / 27)")


JS_SPOKEN = "([css, words]) => [...document.querySelectorAll(css)].some((r) => r.textContent.includes(words))"
JS_HEARD = """(css) => {  // every text the live region at css is given from now on, in order
  const region = document.querySelector(css);
  region.hmHeard = [];
  new MutationObserver(() => region.textContent && region.hmHeard.push(region.textContent))
    .observe(region, { childList: true, characterData: true, subtree: true });
}"""


@pytest.mark.floors
def test_the_playgrounds_news_is_read_out_by_a_region_kept_on_the_page_the_same_news_again_too(notebook):
    """Reset, and reset again: the status line's news is read out each time by the playground's polite region, which
    was on the page before the first, and which lets the words go a few seconds later."""
    nb = notebook(PLAYGROUND)
    page, speaker = nb.page, ".hm-playground > .hm-speaker[role=status][aria-live=polite]"
    assert page.locator(speaker).count() == 1  # there before the first news
    nb.tab("c_proj")
    nb.type_into(nb.cell_box("c-proj-w", 7, 6), "0")  # a change, for the reset to undo
    nb.settle()
    page.wait_for_timeout(500)  # what an earlier test on this page had said is written (50 ms after it came)
    page.evaluate(JS_HEARD, speaker)
    for times in (1, 2):  # the second once the first is heard, as a person clicks again (within 50 ms: said once)
        nb.page.locator(".hm-reset").click()
        nb.settle()
        page.wait_for_function(f"() => document.querySelector('{speaker}').hmHeard.length >= {times}")
    heard = page.evaluate(f"() => document.querySelector('{speaker}').hmHeard")
    assert len(heard) == 2 and heard[0] == heard[1] and heard[0].startswith("reset to the starting weights"), heard
    # and emptied once read out: browse mode would read it beside the status line, and after it no longer holds
    page.wait_for_function(f"() => document.querySelector('{speaker}').textContent === ''", timeout=10_000)
    assert page.locator(".hm-status [role], .hm-status [aria-live]").count() == 0


JS_FOCUSED = "(css) => document.activeElement !== null && document.activeElement.matches(css)"


def save_as(nb, name):
    """Save the first playground's weights as ``name``, from its tab of tools."""
    nb.type_into(nb.page.locator(".hm-file-path input"), name)
    nb.page.locator(".hm-file-save").click()
    nb.wait_for_text("hm-status", "wrote the weights to")


UNDONE = {
    "reset": (".hm-reset", ".hm-undo-reset", ".hm-bar"),
    "load": (".hm-file-load", ".hm-file-undo", ".hm-file-path"),
}


@pytest.mark.parametrize("kind", list(UNDONE))
def test_an_undo_is_the_next_stop_after_its_button_and_gives_the_keyboard_back_to_it(notebook, kind):
    """An edit, not saved, then reset or "load weights" (of the model as it was, saved) from the keyboard: "undo reset" or
    "undo load" appears as the next Tab stop (a named button with a ring that stands out, in a row where axe finds nothing
    serious), Enter on it brings the edit back, and it goes with the focus left on the button before it, not lost to the
    page."""
    nb = with_axe(notebook(PLAYGROUND))
    page = nb.page
    button, undo_class, row = UNDONE[kind]
    undo = page.get_by_role("button", name=f"undo {kind}", exact=True)
    path, box = page.locator(".hm-file-path input"), nb.cell_box("c-proj-w", 7, 6)
    nb.tab("break")
    start, before = path.input_value(), nb.html("hm-view-accuracy")
    try:
        if kind == "load":  # the model as it is, saved, to load back
            save_as(nb, "ui_test_undo_load.json")
        nb.tab("c_proj")
        nb.type_into(box, "0")
        nb.wait_for_change("hm-view-accuracy", before)
        designed = nb.html("hm-view-accuracy")
        nb.tab("break")  # reset is above the tabs; "load weights" in this one
        page.locator(button).focus()
        page.keyboard.press("Enter")
        undo.wait_for(state="visible")
        nb.wait_for_change("hm-view-accuracy", designed)
        assert f"“undo {kind}” brings back" in nb.text("hm-status") and box.input_value() == "1024"
        assert nb.html("hm-view-accuracy") == before
        violations, _incomplete, _passed = page.locator(row).first.evaluate(JS_AXE)
        assert not serious(violations), serious(violations)
        page.keyboard.press("Tab")
        assert page.evaluate(JS_FOCUSED, undo_class)
        assert_ringed(undo.evaluate(JS_RING), f"undo {kind}")
        page.keyboard.press("Enter")
        undo.wait_for(state="hidden")
        nb.wait_for_text("hm-status", f"from before the {kind} are back")
        assert box.input_value() == "0" and nb.html("hm-view-accuracy") == designed
        page.wait_for_function(JS_FOCUSED, arg=button)
    finally:
        nb.type_into(path, start)
        nb.tab("c_proj")
        nb.type_into(box, "1024")  # the blog's model again, by an edit: nothing left to undo for the tests after
        nb.wait_for_text("hm-view-accuracy", "(27 / 27)")
    assert undo.count() == 0


JS_FOCUSED_TAB = "() => [document.activeElement.textContent, document.activeElement.getAttribute('aria-selected')]"


@pytest.mark.floors
def test_the_tab_key_reaches_the_tab_chosen_with_the_mouse_and_the_arrows_still_move_among_the_tabs(notebook):
    """lumino keeps the tab bar's one Tab stop on the tab that had it: after a click on c_proj, the Tab key reached
    "wte · wpe", which a screen reader named "not selected" while c_proj's panel showed (marks.py moves it)."""
    nb = notebook(PLAYGROUND)
    page = nb.page
    try:
        nb.tab("c_proj")
        page.locator(".hm-bar button:visible").last.focus()  # reset, or "undo reset" after it when a reset left one
        page.keyboard.press("Tab")
        assert page.evaluate(JS_FOCUSED_TAB) == ["c_proj", "true"]
        page.keyboard.press("ArrowRight")  # the arrows move among the tabs, and Enter chooses
        assert page.evaluate(JS_FOCUSED_TAB) == ["break · save", "false"]
        page.keyboard.press("Tab")  # left unchosen: the keyboard comes back to the chosen tab, not to this one
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(JS_FOCUSED_TAB) == ["c_proj", "true"]
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        nb.settle()
        assert page.evaluate(JS_FOCUSED_TAB) == ["break · save", "true"]
    finally:
        nb.tab("wte")


JS_FOCUSED_CELL = "() => (document.activeElement.closest('[class*=hm-cell-]') || {className: ''}).className.match(/hm-cell-\\S+/)?.[0]"


@pytest.mark.floors
def test_in_a_grid_the_arrows_move_along_a_column_and_escape_takes_back_the_typing_and_leaves_for_the_cells(notebook):
    """A grid of 8 rows was 8 Tab stops from one box to the one below: the up and down arrows move there, into the
    bias's row under the weights too, and send what was typed (as leaving a box does); Escape takes back what was
    typed and not sent (it sent it) and leaves the grid for the notebook's cells. A box is named once: its hidden
    label was read again beside it in browse mode."""
    nb = notebook(PLAYGROUND)
    page = nb.page
    nb.tab("c_proj")
    box = nb.cell_box("c-proj-w", 7, 6)
    expect(box).to_have_accessible_name("c_proj.w, row V, column Tb")
    row = page.locator(".hm-editor-c-proj-w .hm-grid").first.aria_snapshot()
    assert row.count("row V, column Tb") == 1, row  # the box alone says it, no text beside it
    box.click()
    page.keyboard.press("Shift+ArrowUp")  # selects, as in any box
    assert page.evaluate(JS_FOCUSED_CELL) == "hm-cell-c-proj-w-7-6"
    page.keyboard.press("ArrowUp")
    assert page.evaluate(JS_FOCUSED_CELL) == "hm-cell-c-proj-w-6-6"
    page.keyboard.press("Control+a")
    page.keyboard.type("lots")
    page.keyboard.press("ArrowDown")  # the box left sends what was typed
    nb.wait_for_text("hm-message-c-proj-w", "c_proj.w[Tb, Tb]: 'lots' is not a number")
    assert page.evaluate(JS_FOCUSED_CELL) == "hm-cell-c-proj-w-7-6"
    page.keyboard.press("ArrowDown")  # the bias's row, under the weights
    assert page.evaluate(JS_FOCUSED_CELL) == "hm-cell-c-proj-b-0-6"
    page.keyboard.press("ArrowDown")  # the last row: nowhere further
    assert page.evaluate(JS_FOCUSED_CELL) == "hm-cell-c-proj-b-0-6"
    bias, said = nb.cell_box("c-proj-b", 0, 6), page.locator(".hm-message-c-proj-b")
    before, said_before = bias.input_value(), said.text_content()
    page.keyboard.press("Control+a")
    page.keyboard.type("lots")
    page.keyboard.press("Escape")  # taken back, not sent
    assert page.evaluate("() => document.activeElement.tagName") != "INPUT"
    assert page.evaluate("() => document.activeElement.closest('.jp-Notebook') !== null")
    nb.settle()
    page.wait_for_timeout(300)
    assert (bias.input_value(), said.text_content()) == (before, said_before)
    assert not bias.evaluate("e => e.closest('.hm-refused') !== null")
    refused = nb.cell_box("c-proj-w", 6, 6)  # the box refused above keeps what was typed and sent:
    refused.click()
    page.keyboard.press("End")
    page.keyboard.type("9")
    page.keyboard.press("Escape")  # Escape takes back only what was typed since
    assert refused.input_value() == "lots"
    context = page.locator(".hm-playground .hm-context input").first  # outside a grid, Escape sends as leaving does
    shorter = context.input_value()[:-1]
    context.click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.press("Escape")
    nb.wait_for_text("hm-view-prediction", f"after {shorter} ")  # the playground took it
    assert context.input_value() == shorter
    page.locator(".hm-reset").click()
    nb.settle()
    nb.type_into(context, shorter + "a")
    nb.wait_for_text("hm-view-prediction", f"after {shorter}a ")


def test_after_escape_a_grid_box_follows_the_numbers_the_kernel_sets(notebook):
    """What the kernel set while the box was typed in, shown by Escape, is what the box goes on from: it showed each
    later number the kernel set only if the box showed the one before as its own (the kernel's own code sets them
    here, which leaves the focus where it is)."""
    nb = notebook(PLAYGROUND)
    page, box = nb.page, nb.cell_box("c-proj-w", 7, 6)  # c_proj.w[V, Tb]
    set_in_kernel = 'playground.editors["c_proj.w"].boxes[7][6].value = "{value}"'
    nb.tab("c_proj")
    nb.type_into(box, "7")
    page.keyboard.press("Enter")
    nb.settle()
    page.keyboard.type("5")  # typed, not sent, while a reset puts 1024 back (the click leaves the focus in the box)
    page.locator(".hm-reset").dispatch_event("click")
    nb.settle()
    assert box.input_value() == "75"  # the typing is kept
    page.keyboard.press("Escape")
    assert box.input_value() == "1024"
    nb.run_quietly(set_in_kernel.format(value=3))
    page.wait_for_function("(e) => e.value === '3'", arg=box.element_handle(), timeout=10_000)
    page.locator(".hm-reset").click()
    nb.settle()


# Each tab of the first playground: [its name, whether chosen, the panel it says it shows: its role, the tab that
# names it (the same tab's, when tied), whether it is on screen].
JS_TIED = """() => [...document.querySelector('.hm-playground .hm-stages [role=tablist]').children].map(tab => {
  const panel = document.getElementById(tab.getAttribute('aria-controls'));
  return [tab.textContent, tab.getAttribute('aria-selected'), panel && panel.getAttribute('role'),
          panel && panel.getAttribute('aria-labelledby') === tab.id, panel && panel.getClientRects().length > 0];
})"""


@pytest.mark.floors
def test_each_tab_says_which_panel_it_shows_and_the_panel_is_named_by_its_tab(notebook):
    """A screen reader goes from a tab to its panel (aria-controls) and names the panel by its tab (a tabpanel,
    aria-labelledby): lumino gives the tabs their role and the panels nothing (marks.py ties them)."""
    nb = notebook(PLAYGROUND)
    try:
        for name in ("wte", "c_proj"):
            nb.tab(name)
            tied = nb.page.evaluate(JS_TIED)
            assert len(tied) == 6 and all(role == "tabpanel" and named for _t, _c, role, named, _s in tied), tied
            assert [shown for *_rest, shown in tied] == [chosen == "true" for _t, chosen, *_rest in tied], tied
    finally:
        nb.tab("wte")


def test_each_playground_of_a_page_is_found_by_a_heading_that_names_it_and_is_not_seen(notebook):
    """Notebook 18 has four playgrounds, whose boxes and buttons have the same names: a heading each, in the
    accessibility tree with its task's name, hidden on the page (1 px, clipped)."""
    page = notebook(TASK).page
    playgrounds = page.locator(".hm-playground").count()
    headings = page.get_by_role("heading", name=re.compile(r"^playground: "))
    names = [page.locator(".hm-playground-heading").nth(i).text_content() for i in range(playgrounds)]
    assert playgrounds == 4 and len(set(names)) == 4 and headings.count() == 4, names
    tab_lists = page.locator(".hm-playground .hm-stages [role=tablist]")  # each named after its playground
    assert [tab_lists.nth(i).get_attribute("aria-label") for i in range(playgrounds)] == names
    sizes = page.locator(".hm-playground-heading").evaluate_all("hs => hs.map(h => h.getBoundingClientRect().width)")
    assert all(size <= 1 for size in sizes), sizes


# Every text of the notebook's prose and of what the package shows (HTML outputs, widgets: not a print's
# stream or a plain-text repr, which no markup can mark) whose language is not the one its nearest lang names:
# [(where, lang, text)], and how many texts were looked at. A text is Chinese when it holds a Han character.
JS_LANGUAGES = """(edition) => {
  const panel = window.jupyterapp.shell.currentWidget.node;
  const walker = document.createTreeWalker(panel, NodeFilter.SHOW_TEXT);
  const wrong = [], looked = {prose: 0, shown: 0};
  while (walker.nextNode()) {
    const text = walker.currentNode, element = text.parentElement;
    if (!text.data.trim() || element.closest('style, script')) continue;
    const output = element.closest('.jp-OutputArea-output');
    const where = element.closest('.jp-MarkdownOutput') ? 'prose'
      : output && !/^(text\\/plain|application\\/vnd\\.jupyter\\.std(out|err))$/.test(output.dataset.mimeType || '') ? 'shown' : null;
    if (!where) continue;
    const lang = (element.closest('[lang]') || document.documentElement).getAttribute('lang');
    const chinese = /[\\u4e00-\\u9fff]/.test(text.data);
    looked[where]++;
    if (chinese ? !lang.startsWith('zh') : (edition === 'en' && lang !== 'en'))
      wrong.push([where, lang, text.data.slice(0, 40)]);
  }
  return [wrong, looked];
}"""


# Every picture of the notebook's outputs: [its alt, whether it is drawn (loaded, and wider than nothing), the
# language its nearest lang names]; and what axe's rules on pictures find wrong in the notebook.
JS_PICTURES = """async () => {
  const panel = window.jupyterapp.shell.currentWidget.node;
  const pictures = [...panel.querySelectorAll('.jp-OutputArea-output img, .jp-OutputArea-output svg')].map(e =>
    [e.getAttribute('alt'), e.tagName === 'IMG' && e.complete && e.naturalWidth > 0, e.closest('[lang]')?.lang]);
  const found = await axe.run(panel, {runOnly: ['image-alt', 'role-img-alt', 'svg-img-alt']});
  return [pictures, found.violations.map(v => v.id), panel.textContent.includes('Cannot display an untrusted SVG')];
}"""


@pytest.mark.parametrize("name", ["00_start_here.ipynb", "zh/04_queries_and_keys.ipynb"])
def test_every_picture_has_words_for_a_reader_who_cannot_see_it_run_or_not(lab, browser, notebook, name):
    """JupyterLab reads no alt text from an image output, and shows no SVG in a notebook not yet run (not trusted):
    the package's pictures come as an <img alt> of their words, drawn, in the edition's language, both as the
    notebook is stored (a learner's first look on Binder: the model's diagram was its words alone) and once run."""
    stored = NotebookPage(new_page(browser, viewport={"width": 1280, "height": 800}), lab, name).open()
    try:
        for nb in (stored, notebook(name)):
            with_axe(nb).page.wait_for_function("() => [...document.images].every(i => i.complete)")
            pictures, violations, untrusted = nb.page.evaluate(JS_PICTURES)
            assert pictures and violations == [] and not untrusted, (pictures, violations)
            for alt, drawn, lang in pictures:
                assert drawn and len(alt) > 40 and lang == ("zh-CN" if name.startswith("zh/") else "en"), alt
    finally:
        stored.page.close()


@pytest.mark.parametrize("name", ["zh/" + PLAYGROUND, "zh/05_softmax_and_mask.ipynb", AT_THE_FLOORS])
def test_every_word_of_the_prose_and_of_what_the_package_shows_is_marked_with_its_language(notebook, name):
    """JupyterLab's page is in JupyterLab's language (lang="en" here), and a screen reader reads a word in the
    language its nearest ``lang`` names: each markdown cell names its edition's (tools/cell_language.py), and
    every output and widget of the package the language it was made in (the widgets' once on the page)."""
    nb = notebook(name)
    nb.page.wait_for_function("() => [...document.querySelectorAll('.hm-ringed')].every(b => b.hasAttribute('lang'))")
    wrong, looked = nb.page.evaluate(JS_LANGUAGES, "zh" if name.startswith("zh/") else "en")
    assert looked["prose"] > 20 and looked["shown"] > 20, looked  # it looked at both
    assert wrong == [], (len(wrong), wrong[:8])
    assert nb.page.evaluate("() => document.documentElement.lang") == "en"  # the page is JupyterLab's, in English


JS_RING = "e => { const s = getComputedStyle(e); return [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor]; }"


def assert_ringed(ring, where=""):
    """A focused control's ring (``JS_RING``) is solid, 2 px wide or more, at 3:1 or more against the
    white around every control (WCAG 2.1's non-text contrast)."""
    from handmade.display.colours import contrast

    assert ring[0] == "solid" and ring[1] >= 2, (ring, where)
    colour = tuple(int(c) for c in ring[2][ring[2].index("(") + 1 : -1].split(",")[:3])
    assert contrast(colour, (255, 255, 255)) >= 3, (ring, where)


@pytest.mark.floors
def test_a_focused_control_shows_a_ring_that_stands_out(notebook):
    nb = notebook(PLAYGROUND)
    nb.tab("q")
    context, reset = nb.page.locator(".hm-context input"), nb.page.locator(".hm-reset")
    for control, reach in ((nb.cell_box("q", 2, 2), None), (context, None), (reset, "Tab")):
        if reach:  # a button shows its ring when the keyboard brings focus to it (as browsers do)
            nb.page.keyboard.press(reach)
            assert control.evaluate("e => e === document.activeElement")
        else:
            control.focus()
        assert_ringed(control.evaluate(JS_RING))


# ---- the widgets outside a playground: the explorers of 01 and 05, an editor and a number alone ----

SCRATCH = "hm_widgets_alone.ipynb"  # written by the test into the lab's copy of the notebooks
SCRATCH_CELLS = [
    "from handmade.display.labelled import LabelledMatrix\nfrom handmade.widgets import MatrixEditor, NumberControl",
    'grid = LabelledMatrix([[1.0, 0.0], [0.0, 1.0]], ("a", "b"), ("x", "y"), "w")\n'
    'MatrixEditor("w", grid, lambda name, values: "").widget',
    'NumberControl("lg", "Lg", 1024.0, lambda value: True).widget',
]
# The widget and how many stops the Tab key makes in it: the product's two groups of radio buttons
# (Tab stops on a group's chosen one), softmax's row and scale, the grid's four boxes, the number's
# box and slider.
ALONE = {"01_matrix_refresher.ipynb": 2, "05_softmax_and_mask.ipynb": 2, SCRATCH: 6}


@pytest.fixture(scope="module")
def scratch(lab):
    """A notebook that shows a grid and a number box alone, written into the lab's copy of the notebooks."""
    import nbformat

    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in SCRATCH_CELLS])
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(book, lab.root / SCRATCH)


@pytest.fixture
def alone(scratch, notebook):
    """``alone(name)``: the notebook open and run, and its widgets of the package (none in a playground)."""

    def get(name):
        nb = with_axe(notebook(name))
        widgets = nb.page.locator(".jp-OutputArea-output > .jupyter-widgets")  # each output's widget
        assert widgets.count() >= 1 and nb.page.locator(".hm-playground").count() == 0, name
        return nb, widgets

    return get


def tab_stops(nb, widget):
    """Every stop of the Tab key inside ``widget``, from its first control on: (the element, its ring
    while focused)."""
    first = widget.locator("input:not([type=radio]), input:checked, select, button, textarea").first  # Tab's first
    first.scroll_into_view_if_needed()
    nb.page.keyboard.press("Shift")  # the keyboard was used last: focus from here on is shown, as for Tab
    first.focus()
    stops = []
    while widget.evaluate("w => w.contains(document.activeElement)") and len(stops) < 50:
        stops.append(
            nb.page.evaluate(f"[document.activeElement.outerHTML.slice(0, 100), ({JS_RING})(document.activeElement)]")
        )
        nb.page.keyboard.press("Tab")
    return stops


@pytest.mark.parametrize("name", list(ALONE))
def test_every_control_of_a_widget_outside_a_playground_shows_the_ring_from_the_keyboard(alone, name):
    nb, widgets = alone(name)
    stops = [stop for k in range(widgets.count()) for stop in tab_stops(nb, widgets.nth(k))]
    assert len(stops) == ALONE[name], stops
    for element, ring in stops:
        assert_ringed(ring, element)


@pytest.mark.parametrize("name", list(ALONE))
def test_axe_finds_nothing_serious_in_a_widget_outside_a_playground_and_every_control_has_a_name(alone, name):
    nb, widgets = alone(name)
    for k in range(widgets.count()):
        widget = widgets.nth(k)
        widget.scroll_into_view_if_needed()
        violations, _incomplete, _passed = widget.evaluate(JS_AXE)
        assert not serious(violations), (name, serious(violations))
        named = widget.evaluate(JS_NAMES)
        assert named and all(text.strip() for _html, text in named), (name, named)


def test_the_product_explorer_is_two_named_groups_of_radio_buttons_the_arrow_keys_move(alone):
    """Which row and which column are chosen is said (checked), not only coloured; the arrow keys
    move the choice, and the view follows."""
    nb, _widgets = alone("01_matrix_refresher.ipynb")
    page = nb.page
    for group, count in (("row", 2), ("column", 3)):
        assert page.get_by_role("group", name=group, exact=True).get_by_role("radio").count() == count
        page.locator(f".hm-product-{group[:3]} label", has_text="0").click()  # where the notebook starts
    nb.wait_for_text("hm-product-view", "= 70")
    row = page.get_by_role("group", name="row", exact=True)
    chosen = row.get_by_role("radio", checked=True)
    assert chosen.count() == 1 and chosen.evaluate("e => e.parentElement.textContent") == "0"
    before = nb.html("hm-product-view")
    chosen.focus()
    page.keyboard.press("ArrowDown")
    nb.wait_for_change("hm-product-view", before)
    assert row.get_by_role("radio", name="1", exact=True).is_checked()
    assert row.get_by_role("radio", name="1", exact=True).evaluate("e => e === document.activeElement")
    page.keyboard.press("ArrowUp")  # back where the other tests expect it
    nb.wait_for_text("hm-product-view", "= 70")


ACTIVE_CELL = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
MENUS = ("break", "row", "column", "what to do to it")  # the break tab's, in the order they are set


@pytest.mark.parametrize(
    "name, control, view",
    [
        ("01_matrix_refresher.ipynb", ".hm-product-row input:checked", "hm-product-view"),
        ("05_softmax_and_mask.ipynb", ".hm-softmax-scale input[type=range]", "hm-softmax-view"),
    ],
)
def test_the_up_and_down_arrows_move_a_choice_or_a_slider_not_jupyterlabs_cells(alone, name, control, view):
    nb, _widgets = alone(name)
    page, control = nb.page, nb.page.locator(control)
    control.focus()
    cell, before = page.evaluate(ACTIVE_CELL), nb.html(view)
    lowest = control.evaluate("e => e.type === 'range' && e.value === e.min")  # a radio button goes round
    for key in ("ArrowUp", "ArrowDown") if lowest else ("ArrowDown", "ArrowUp"):
        page.keyboard.press(key)
        before = nb.wait_for_change(view, before)
        assert page.evaluate(ACTIVE_CELL) == cell and page.evaluate("() => document.activeElement.type") in (
            "radio",
            "range",
        )


@pytest.mark.floors
def test_the_up_and_down_arrows_move_a_playgrounds_menus_not_jupyterlabs_cells(notebook):
    """The break tab's menus (a part, its row and column, what to do) are moved by the arrow keys, as
    in any page: focus stays on the menu, the cell stays, and a part chosen from the keyboard gives
    the row menu that part's rows. Whatever other tests chose is put back at the end."""
    nb = notebook(PLAYGROUND)
    page = nb.page
    nb.tab("break")
    menus = {name: page.get_by_role("combobox", name=name, exact=True) for name in MENUS}
    rows = menus["row"]
    found, named = {name: menu.input_value() for name, menu in menus.items()}, _names(rows)  # put back at the end
    try:
        menus["break"].select_option("wte")  # whose rows (tokens) the next part's (positions) differ from
        _wait_for_names(page, rows, "a b", differ=False)
        for name, menu in menus.items():
            menu.focus()
            cell, before, shown = page.evaluate(ACTIVE_CELL), menu.input_value(), _names(rows)
            last = menu.evaluate("e => e.selectedIndex === e.options.length - 1")  # then up and back down
            for key, value in zip(("ArrowUp", "ArrowDown") if last else ("ArrowDown", "ArrowUp"), (None, before)):
                page.keyboard.press(key)
                assert menu.input_value() != before if value is None else menu.input_value() == value, name
                assert page.evaluate(ACTIVE_CELL) == cell and menu.evaluate("e => e === document.activeElement")
                if name == "break":  # another part: the kernel gives the row menu its rows
                    _wait_for_names(page, rows, shown, differ=value is None)
    finally:
        menus["break"].select_option(found["break"])
        _wait_for_names(page, rows, named, differ=False)
        for name, value in found.items():
            menus[name].select_option(value)
        settle(page)
        assert {name: menu.input_value() for name, menu in menus.items()} == found


JS_NAMES_OF = "e => [...e.options].map(o => o.value).join(' ')"


def _names(menu):
    return menu.evaluate(JS_NAMES_OF)


def _wait_for_names(page, menu, names, differ):
    """Until ``menu``'s names differ from ``names`` (or, ``differ`` False, are them), and the kernel is idle."""
    test = "!==" if differ else "==="
    page.wait_for_function(f"([e, names]) => ({JS_NAMES_OF})(e) {test} names", arg=[menu.element_handle(), names])
    settle(page)


WIDE = "19_challenges_mlp_heads_blocks.ipynb"  # two blocks and two heads: the series' longest names


def test_no_menu_cuts_a_name_short_and_no_grid_heading_runs_into_the_next(notebook):
    """In every playground of the notebook with the longest names (blocks[0].c_proj.w, h0·first), tab by
    tab: each menu of the break tab is as wide as its longest name, and each heading of a grid ends before
    the next one begins (a heading wider than its box widens its column)."""
    nb = notebook(WIDE)
    page = nb.page
    cut, crowded = [], []
    for playground in page.locator(".hm-playground").all():
        for tab in playground.locator(".hm-stages .lm-TabBar-tab").all():
            tab.click()
            settle(page)  # the tab's grids are built by the kernel the first time it is shown
            cut += playground.evaluate(JS_MENUS_CUT)
            crowded += playground.evaluate(JS_HEADINGS_CROWDED)
    assert cut == [] and crowded == [], (cut, crowded)


# The visible menus narrower than the same menu left to its own width: [its value, that width, its width].
JS_MENUS_CUT = """(root) => [...root.querySelectorAll('.hm-menu select')].filter(s => s.offsetParent !== null).map(s => {
  const free = s.cloneNode(true);
  free.style.cssText = 'position:absolute;visibility:hidden;width:auto;max-width:none;min-width:0;flex:none';
  s.parentElement.appendChild(free);
  const natural = free.getBoundingClientRect().width;
  free.remove();
  return [s.value, natural, s.getBoundingClientRect().width];
}).filter(([_value, natural, width]) => width + 1 < natural)"""

# The headings of visible grids whose text ends less than 2 px before the next heading's begins.
JS_HEADINGS_CROWDED = """(root) => {
  const found = [];
  const text = (e) => { const r = document.createRange(); r.selectNodeContents(e); return r.getBoundingClientRect(); };
  for (const grid of root.querySelectorAll('.hm-grid')) {
    if (grid.offsetParent === null) continue;
    const n = getComputedStyle(grid).gridTemplateColumns.split(' ').length;
    const headings = [...grid.children].slice(1, n).map(cell => cell.querySelector('div')).filter(Boolean);
    for (let j = 0; j + 1 < headings.length; j++) {
      if (text(headings[j]).right + 2 > text(headings[j + 1]).left) {
        found.push(headings[j].textContent + ' | ' + headings[j + 1].textContent);
      }
    }
  }
  return found;
}"""


def test_at_1280_by_800_the_diagnosis_is_whole_and_every_tab_title_too(notebook):
    nb = notebook(TASK)
    page = nb.page
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        diagnosis = page.locator(".hm-diagnosis").first
        assert "why, for" in diagnosis.text_content()
        # after every grid, under a heading of its own: a screen reader moves there by headings, past the boxes
        heading = page.locator(".hm-playground").first.get_by_role("heading", name="the grader's explanation", level=4)
        assert heading.evaluate(
            "(h, d) => !!(h.compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING)", diagnosis.element_handle()
        )
        clipped = diagnosis.evaluate(JS_CLIPPED)
        assert clipped == [], clipped
        assert diagnosis.bounding_box()["height"] > 10
        for label in page.locator(".hm-playground").first.locator(".hm-stages .lm-TabBar-tabLabel").all():
            whole = label.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
            assert whole, label.text_content()
        assert tabs(nb).last.text_content() == "break · save · answer"
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


# Each element from e up to its playground whose content does not fit in it (scrolled or cut off).
JS_CLIPPED = """(e) => {
  const found = [];
  for (; e && !e.classList.contains('hm-playground'); e = e.parentElement) {
    if (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1) found.push(e.className);
  }
  return found;
}"""


# ---- at 1280 x 800, JupyterLab's default layout: every view whole, or in a region the keyboard scrolls ----


def each_tab_of_each_playground(nb):
    """Open every tab of every playground of the page in turn; yield (the playground, the tab's title)."""
    for playground in nb.page.locator(".hm-playground").all():
        playground.evaluate("e => e.scrollIntoView({block: 'start'})")
        for tab in playground.locator(".hm-stages .lm-TabBar-tab").all():
            tab.click()
            nb.settle(timeout=60_000)  # a tab draws its views: slower under load
            nb.page.wait_for_timeout(100)  # the marks look at the shown tables' sizes as they are laid out
            yield playground, tab.text_content()


@pytest.mark.parametrize("name", [WIDE, TASK])
def test_at_1280_by_800_with_the_file_browser_open_no_view_is_cut_off_and_none_scrolls_unreachable(notebook, name):
    """A learner's laptop, JupyterLab as it opens (the file browser open): in every tab of every playground,
    each view's table is whole, its last column in sight (the views go below the grids when their widest
    table does not fit beside them: 19's first_not_last v showed 339 px of 453), and nothing scrolls that the
    Tab key cannot reach (axe's scrollable-region-focusable, serious, and the 11 px axe lets pass)."""
    nb = with_axe(notebook(name))
    page = nb.page
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        assert page.locator(".jp-FileBrowser").first.is_visible()
        cut, unreachable, flagged, tables = [], [], [], 0
        for playground, title in each_tab_of_each_playground(nb):
            shown, cut_here, unreachable_here = playground.evaluate(JS_CUT_OFF)
            tables += shown
            cut += [(title, *table) for table in cut_here]
            unreachable += [(title, *region) for region in unreachable_here]
            flagged += [(title, *rule) for rule in playground.evaluate(JS_AXE_SCROLLING)]
        assert tables > 30 and cut == [] and unreachable == [] and flagged == [], (cut, unreachable, flagged)
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


# The visible tables of the views in root: how many; those whose last column ends past what the boxes around them show
# ([title, its right edge, the shown part's]); and the elements that scroll sideways with no stop of the Tab key in or on
# them ([class, their content's width, their own]).
JS_CUT_OFF = """(root) => {
  const tables = [...root.querySelectorAll('table.handmade-matrix')].filter(t => t.getClientRects().length > 0);
  const cut = [];
  for (const table of tables) {
    const cells = table.tHead.rows[0].cells, last = cells[cells.length - 1].getBoundingClientRect().right;
    let shown = Infinity;
    for (let e = table.parentElement; e && e !== root.parentElement; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.overflowX !== 'visible') shown = Math.min(shown, e.getBoundingClientRect().left + e.clientLeft + e.clientWidth);
    }
    if (last > shown + 1) cut.push([table.closest('[data-label]')?.dataset.label, last, shown]);
  }
  const reachable = (e) => e.tabIndex >= 0 || e.querySelector('input, select, button, textarea, [tabindex="0"]');
  const unreachable = [...root.querySelectorAll('*')].filter(e => e.getClientRects().length > 0
      && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1 && !reachable(e))
    .map(e => [e.className.slice(0, 60), e.scrollWidth, e.clientWidth]);
  return [tables.length, cut, unreachable];
}"""
JS_AXE_SCROLLING = """async (root) => (await axe.run(root, {runOnly: ['scrollable-region-focusable']})).violations
  .map(v => [v.id, v.impact, v.nodes.map(n => n.target.join(' '))])"""


def test_a_table_wider_than_its_room_scrolls_in_a_named_region_the_tab_key_reaches_and_the_arrows_scroll(notebook):
    """In a window too narrow for 19's first_not_last v tables (800 px, the file browser open), each table that
    does not fit scrolls in a region that is a stop of the Tab key, named by its table, with the focus ring, and
    ArrowRight scrolls it; a table that fits is no stop (the marks follow the window's width)."""
    nb = notebook(WIDE)
    page = nb.page
    playground = page.locator(".hm-playground").nth(1)  # first_not_last
    try:
        playground.locator(".hm-stages .lm-TabBar-tab", has_text="v").first.click()
        settle(page)
        page.set_viewport_size({"width": 800, "height": 800})
        regions = playground.locator(".hm-view-v .hm-scroll")
        page.wait_for_function(JS_ALL_SCROLLING_REACHED, arg=regions.first.element_handle())
        region = regions.first
        title = region.locator("xpath=../div").first.text_content()  # the title shown above the table
        assert region.get_attribute("role") == "region" and region.get_attribute("aria-label") == title, title
        region.scroll_into_view_if_needed()
        page.keyboard.press("Shift")  # the keyboard was used last: focus from here on is shown, as for Tab
        region.focus()
        assert_ringed(region.evaluate(JS_RING), title)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("e => e.scrollLeft > 0", arg=region.element_handle())
        page.set_viewport_size({"width": 1400, "height": 1000})  # room again: no stop, no region
        page.wait_for_function(
            "e => !e.hasAttribute('tabindex') && !e.hasAttribute('role')", arg=region.element_handle()
        )
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
        playground.locator(".hm-stages .lm-TabBar-tab").first.click()


# The regions of the panel that holds the region e: some scroll, and each that scrolls is a stop of the Tab key.
JS_ALL_SCROLLING_REACHED = """(e) => {
  const regions = [...e.closest('.hm-view-v').querySelectorAll('.hm-scroll')];
  const scrolls = regions.filter(r => r.scrollWidth > r.clientWidth + 1);
  return scrolls.length > 0 && regions.every(r => (r.scrollWidth > r.clientWidth + 1) === (r.getAttribute('tabindex') === '0'));
}"""


def test_each_box_of_a_bias_sits_under_its_column_and_the_heads_line_runs_down_to_it(notebook):
    """19's first_not_last q: a heading wider than a box (h0·first) widened the matrix's column, not the bias's, so
    each bias box after the first sat between two columns, and the line between the heads stopped at the headings.
    In every tab of every playground: each box of a bias has its column's left and right edges (within 1 px), and
    in a column after the heads' line, that line (the heading's left edge) is drawn beside it too."""
    nb = notebook(WIDE)
    askew, found = [], 0
    for _playground, title in each_tab_of_each_playground(nb):
        here, askew_here = nb.page.evaluate(JS_BIAS_UNDER_ITS_COLUMN)
        found += here
        askew += [(title, *box) for box in askew_here]
    assert found > 100 and askew == [], (found, askew)


# Each visible box of a bias (hm-cell-X-b-0-j, of the weights X or X-w) beside its weights' box in the same column: how
# many; and those off their column ([its class, its input's left and right, the weights' box's]), or, after the heads'
# line (a heading with a left edge), without that line at the heading's place ([its class, its left, the heading's]).
JS_BIAS_UNDER_ITS_COLUMN = """() => {
  const boxes = {};
  for (const w of document.querySelectorAll('.hm-playground [class*="hm-cell-"]')) {
    const found = [...w.classList].map(c => c.match(/^hm-cell-(.+)-(\\d+)-(\\d+)$/)).find(Boolean);
    if (found && w.getClientRects().length > 0) boxes[found.slice(1).join('/')] = w;
  }
  const askew = [];
  let count = 0;
  for (const [key, bias] of Object.entries(boxes)) {
    const [name, i, j] = key.split('/');
    const weights = name.endsWith('-b') && [name.slice(0, -2), name.slice(0, -2) + '-w'].map(n => boxes[`${n}/0/${j}`]).find(Boolean);
    if (!weights || i !== '0') continue;
    count++;
    const [a, b] = [bias, weights].map(w => w.querySelector('input').getBoundingClientRect());
    if (Math.abs(a.left - b.left) > 1 || Math.abs(a.right - b.right) > 1) askew.push([bias.className.match(/hm-cell-\\S+/)[0], a.left, a.right, b.left, b.right]);
    const grid = weights.closest('.hm-grid');
    const heading = grid.children[1 + Number(j)].querySelector('.widget-html-content > div');
    if (heading && parseFloat(getComputedStyle(heading).borderLeftWidth) >= 2) {
      const edge = parseFloat(getComputedStyle(bias).borderLeftWidth), left = bias.getBoundingClientRect().left;
      const there = heading.getBoundingClientRect().left;
      if (edge < 2 || Math.abs(left - there) > 1) askew.push([bias.className.match(/hm-cell-\\S+/)[0], 'line', edge, left, there]);
    }
  }
  return [count, askew];
}"""
