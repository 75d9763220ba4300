"""Fixtures for the browser tests: one JupyterLab server and one Chromium for the session, and
each notebook opened and run once, shared by the tests that use it.

Without Chromium (or Playwright) every UI test is skipped with a one-line reason. On a failure
the page's screenshot and browser console are written to tests/ui/artifacts/.
"""

import re
from pathlib import Path

import pytest
from lab import Lab, NotebookPage, bounded, find_chromium, new_page, open_browser, out_of_order

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
# a test's setting up (a notebook opened and run), its run and its tearing down (the last test's closes the pages, the
# browser and JupyterLab) each stop with their name after this: some of Playwright's calls (page.evaluate, page.close)
# wait as long as the page does not answer, which would hold the whole run
PHASE_SECONDS = 300


def pytest_collection_modifyitems(items):
    """Every test in this folder drives a browser: mark it, so that -m "not ui" skips them all."""
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.ui)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    with bounded(PHASE_SECONDS, f"setting up {item.name}"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with bounded(PHASE_SECONDS, item.name):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    with bounded(PHASE_SECONDS, f"tearing down {item.name}"):
        yield


@pytest.fixture(scope="session")
def chromium():
    path = find_chromium()
    if path is None:
        pytest.skip("UI tests need Chromium: install it (Debian: apt-get install chromium) or set HANDMADE_CHROMIUM")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("UI tests need Playwright: python3 -m pip install playwright")
    return path


@pytest.fixture(scope="session")
def lab(chromium):
    if out_of_order():
        pytest.fail(out_of_order())
    with Lab() as server:
        yield server


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = open_browser(playwright, chromium)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def opened(lab, browser):
    """``opened(name)``: the notebook open in its own page, all cells run (once per session)."""
    pages = {}

    def get(name):
        if name not in pages:
            page = new_page(browser, viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(20_000)
            pages[name] = NotebookPage(page, lab, name).open().run_all()
        return pages[name]

    yield get
    for notebook in pages.values():
        notebook.page.close()


@pytest.fixture
def notebook(request, opened):
    """Like ``opened``, and remembers the pages this test used, for the failure report."""

    def get(name):
        page = opened(name)
        request.node.notebook_pages = [*getattr(request.node, "notebook_pages", []), page]
        return page

    return get


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    for notebook in _notebook_pages(item):
        ARTIFACTS.mkdir(exist_ok=True)
        stem = re.sub(r"[^\w.-]+", "_", item.nodeid.split("::")[-1])
        try:
            notebook.page.screenshot(path=str(ARTIFACTS / f"{stem}.png"))
        except Exception as error:  # the page may be gone; keep the console anyway
            notebook.console.append(f"(no screenshot: {error})")
        (ARTIFACTS / f"{stem}.console.txt").write_text("\n".join(notebook.console), encoding="utf-8")
        report.sections.append(("browser", f"screenshot and console kept in {ARTIFACTS}/{stem}.*"))


def _notebook_pages(item):
    found = getattr(item, "notebook_pages", [])
    return [page for page in found if isinstance(page, NotebookPage)]
