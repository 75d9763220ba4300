"""The website (tools/site.py): built once from the committed notebooks, then read as files and in
Chromium, served from 127.0.0.1 as GitHub Pages would serve it, with every request that leaves the
site blocked and reported.

The build needs Sphinx, MyST-NB, Furo and jieba (requirements-dev.txt): without them these tests
fail. The browser tests (marked ui) are skipped, like tests/ui's, where no Chromium is found.
"""

import functools
import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("handmade_site", ROOT / "tools" / "site.py")
site_tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(site_tool)

REPOSITORY = "a-fork/handmade"  # the site is built for a fork: its links must name it
# The only places a page may point outside the site, and only as links a reader follows (<a href>).
LINKS_OUT = ("https://github.com/", "https://mybinder.org/")
NETWORK = re.compile(r"^(?:[a-zA-Z][\w+.-]*:)?//")  # http://, https://, or protocol-relative //
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


# Loaded by every Python process of the build (as sitecustomize, through PYTHONPATH): a connection
# to the network, or a name looked up, is written down and refused.
NO_NETWORK = """
import os, socket

def refuse(*args, **kwargs):
    with open(os.environ["HANDMADE_NETWORK_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {args[:2]!r}\\n")
    raise OSError("the site's build may not use the network (tests/test_site.py)")

def guarded(method):
    def call(self, address, *rest):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            refuse(address)
        return method(self, address, *rest)
    return call

socket.socket.connect = guarded(socket.socket.connect)
socket.socket.connect_ex = guarded(socket.socket.connect_ex)
socket.getaddrinfo = socket.gethostbyname = refuse
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once for this file by the command line, in processes that may not use the network."""
    work = tmp_path_factory.mktemp("site")
    (work / "sitecustomize.py").write_text(NO_NETWORK, encoding="utf-8")
    log = work / "network.log"
    environment = {**os.environ, "PYTHONPATH": str(work), "HANDMADE_NETWORK_LOG": str(log)}
    command = [sys.executable, str(ROOT / "tools" / "site.py"), str(work / "site"), "--repository", REPOSITORY]
    built = subprocess.run(command, env=environment, capture_output=True, text=True, encoding="utf-8", errors="replace")
    assert built.returncode == 0, built.stdout + built.stderr
    assert not log.exists(), "the build tried the network:\n" + log.read_text(encoding="utf-8")
    return work / "site"


def pages(site):
    """Every page of the site, as paths relative to its root ('zh/05_softmax_and_mask.html')."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def twin(page):
    """The same page in the other edition."""
    return page[3:] if page.startswith("zh/") else "zh/" + page


class Parsed(HTMLParser):
    """A page's references (tag, attribute, value), the ids it defines and the CSS written in it."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.refs, self.ids, self.css, self._in_style = [], set(), [], False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in ("src", "href", "xlink:href", "data", "poster", "action"):
                self.refs.append((tag, name, value or ""))
            elif name == "srcset":
                self.refs += [(tag, name, part.split()[0]) for part in (value or "").split(",") if part.strip()]
            elif name == "style":
                self.css.append(value or "")
        self._in_style = tag == "style"

    def handle_data(self, data):
        if self._in_style:
            self.css.append(data)

    def handle_endtag(self, tag):
        self._in_style = False


@pytest.fixture(scope="module")
def parsed(site):
    """Every page, parsed, by its path."""
    return {page: Parsed((site / page).read_text(encoding="utf-8")) for page in pages(site)}


# ---- the files ----------------------------------------------------------------------------------


def test_every_notebook_of_both_editions_is_a_page_and_has_a_twin(site):
    for edition in site_tool.EDITIONS:
        prefix = "" if edition == "en" else "zh/"
        names = [n.stem for n in site_tool.notebooks(edition)]
        assert len(names) == 22 and names[0].startswith("00") and names[-1].startswith("21")
        for page in [*(f"{prefix}{name}.html" for name in names), f"{prefix}index.html", f"{prefix}search.html"]:
            assert (site / page).is_file() and (site / twin(page)).is_file(), page


def test_every_internal_link_and_image_resolves(site, parsed):
    broken = []
    for page, found in parsed.items():
        for tag, attribute, value in found.refs:
            target = urlsplit(value)
            if target.scheme or NETWORK.match(value):
                continue  # links out are the next test's
            file = (site / page).parent / unquote(target.path) if target.path else site / page
            file = file.resolve()
            fragment = unquote(target.fragment)
            if not file.is_file() or (fragment and file.suffix == ".html" and fragment not in ids(site, file, parsed)):
                broken.append(f"{page}: <{tag} {attribute}={value!r}>")
    assert not broken, "\n".join(broken[:30])


def ids(site, file, parsed):
    """The ids of a page of the site."""
    return parsed[file.relative_to(site.resolve()).as_posix()].ids


def test_no_built_file_asks_the_network_for_anything(site, parsed):
    """Scripts, styles, images, fonts and frames all come from the site: only <a href> links go out,
    and only to GitHub and Binder. (Scripts are read in the browser test, which blocks the network.)"""
    found = []
    for page, content in parsed.items():
        for tag, attribute, value in content.refs:
            if NETWORK.match(value.strip()) and not (tag == "a" and value.startswith(LINKS_OUT)):
                found.append(f"{page}: <{tag} {attribute}={value!r}>")
        found += [f"{page}: CSS {url}" for css in content.css for url in css_urls(css) if NETWORK.match(url)]
    for sheet in site.rglob("*.css"):
        urls = css_urls(sheet.read_text(encoding="utf-8"))
        found += [f"{sheet.relative_to(site)}: {url}" for url in urls if NETWORK.match(url)]
    assert not found, "\n".join(found[:30])


def css_urls(css):
    """The URLs a piece of CSS loads (url() and @import), data: URLs left out."""
    return [a or b for a, b in CSS_URL.findall(css) if not (a or b).startswith("data:")]


def test_every_page_has_its_header_in_its_own_language(site, parsed):
    """The switch to its twin, and on a notebook's page Binder, GitHub and the README's two commands
    with this notebook in the first."""
    launch, tests = site_tool.readme_commands()
    for edition, labels in site_tool.LABELS.items():
        for notebook in site_tool.notebooks(edition):
            page = site_tool.site_path(notebook)
            text = (site / page).read_text(encoding="utf-8")
            path = notebook.relative_to(ROOT).as_posix()
            assert f">{labels['twin']}</a>" in text and f">{labels['binder']}</a>" in text, page
            assert f"mybinder.org/v2/gh/{REPOSITORY}/main?urlpath=lab/tree/{path}" in text, page
            assert f"github.com/{REPOSITORY}/blob/main/{path}" in text, page
            for command in (launch.replace("notebooks/00_start_here.ipynb", path), tests):
                assert site_tool.html.escape(command) in text, page


def test_the_chinese_font_has_every_chinese_character_the_site_shows(site):
    gaps = site_tool.font_gaps(site)
    assert not gaps, (
        f"tools/site/static/handmade-site-cjk.woff lacks {len(gaps)} characters the site shows "
        f"({''.join(gaps[:60])}): rebuild it with  {site_tool.REBUILD_FONT}"
    )


# ---- in the browser -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(site):
    """The site at http://127.0.0.1:PORT/, as GitHub Pages serves it (search fetches its pages)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    sys.path.insert(0, str(ROOT / "tests" / "ui"))
    from lab import find_chromium, open_browser

    chromium = find_chromium()
    if chromium is None:
        pytest.skip("the site's browser tests need Chromium (Debian: apt-get install chromium) or HANDMADE_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = open_browser(playwright, chromium)
        yield browser
        browser.close()


class Reader:
    """A browser page that reads the site: what it said on its console, and what it asked for that
    is not on the site (blocked: nothing reaches the network)."""

    def __init__(self, browser, served):
        self.context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
        self.errors, self.off_site = [], []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"{self.page.url}: {m.text}"))
        self.page.on("pageerror", lambda error: self.errors.append(f"{self.page.url}: {error}"))
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append(f"{r.status}: {r.url}"))
        self.served = served

    def _route(self, route):
        url = route.request.url
        if url.startswith((self.served, "data:")):
            return route.continue_()
        self.off_site.append(url)
        return route.abort()

    def visit(self, page):
        self.page.goto(self.served + page, wait_until="load")
        self.page.evaluate("document.fonts.ready.then(() => true)")
        return self.page

    def assert_clean(self):
        assert not self.errors, "\n".join(self.errors[:20])
        assert not self.off_site, "asked the network for:\n" + "\n".join(self.off_site[:20])


@pytest.fixture
def reader(browser, served):
    opened = Reader(browser, served)
    yield opened
    opened.context.close()


BROKEN_IMAGES = "[...document.images].filter(i => i.complete && i.naturalWidth === 0).map(i => i.src)"


@pytest.mark.ui
def test_every_page_loads_without_an_error_and_switches_to_its_twin(site, reader):
    broken = []
    for page in pages(site):
        view = reader.visit(page)
        broken += view.evaluate(BROKEN_IMAGES)
        assert view.evaluate("document.body.dataset.theme") == "light", page  # asked for dark: outputs are light
        switch = view.locator(".hm-header .hm-twin")
        assert switch.count() == 1, page
        assert urljoin(view.url, switch.get_attribute("href")) == reader.served + twin(page), page
    assert not broken, broken
    reader.assert_clean()


@pytest.mark.ui
def test_the_language_switch_goes_to_the_twin_page(reader):
    view = reader.visit("05_softmax_and_mask.html")
    view.click(".hm-twin")
    view.wait_for_url("**/zh/05_softmax_and_mask.html")
    assert view.locator("html").get_attribute("lang") == "zh-CN"
    view.click(".hm-twin")
    view.wait_for_url(reader.served + "05_softmax_and_mask.html")
    reader.assert_clean()


@pytest.mark.ui
def test_chinese_is_drawn_with_the_sites_font(reader):
    view = reader.visit("zh/05_softmax_and_mask.html")
    faces = view.evaluate("[...document.fonts].map(f => [f.family.replace(/\"/g, ''), f.status])")
    assert ["Handmade CJK", "loaded"] in faces, faces
    assert view.evaluate("document.fonts.check('16px \"Handmade CJK\"', '注意力权重')")
    for selector in ("article h1", "article p", ".sidebar-tree a"):
        family = view.locator(selector).first.evaluate("e => getComputedStyle(e).fontFamily")
        assert family.startswith('"Handmade CJK"'), (selector, family)
    reader.assert_clean()


@pytest.mark.ui
@pytest.mark.parametrize("page", ["09_playground.html", "zh/09_playground.html"])
def test_the_playground_page_shows_the_snapshots_27_of_27(reader, page):
    view = reader.visit(page)
    snapshot = view.locator("details.hm-snapshot").first
    assert snapshot.get_attribute("open") is not None  # no live widget on the site: the snapshot is open
    assert snapshot.get_by_text("27 / 27").first.is_visible()
    reader.assert_clean()


@pytest.mark.ui
@pytest.mark.parametrize(
    "start, query, found",
    [("index.html", "softmax", "05_softmax_and_mask.html"), ("zh/index.html", "注意力", "zh/05_softmax_and_mask.html")],
)
def test_search_returns_a_page_of_results(reader, start, query, found):
    view = reader.visit(start)
    view.fill(".sidebar-search", query)
    view.press(".sidebar-search", "Enter")
    view.wait_for_url("**/search.html?q=*")
    results = view.locator("#search-results ul.search li a")
    results.first.wait_for()
    hrefs = [
        urljoin(view.url, href) for href in results.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    ]
    assert any(href.split("#")[0].startswith(reader.served + found) for href in hrefs), hrefs
    view.locator("#search-results ul.search li p.context").first.wait_for()  # fetched from the page
    reader.assert_clean()
