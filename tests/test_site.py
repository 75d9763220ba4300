"""The website (tools/site.py): built once from the committed notebooks, then read as files and in
Chromium, served from 127.0.0.1 as GitHub Pages would serve it, with every request that leaves the
site blocked and reported.

Accessibility (WCAG 2.1 AA, issue 30) is measured on every page of both editions at two widths,
1280 px and a phone's 390 px: axe-core (the copy the axe-playwright-python wheel carries, injected
from disk: nothing is fetched) finds no serious or critical violation (its colour-contrast rule on the
page's own controls: see AXE_START); the contrast of every text the notebooks' content shows, code
tokens and one-character cells too, is computed from the built pages' styles;
every box that scrolls is reachable from the keyboard and named; and a keyboard walks the pages:
every stop is on screen and visibly focused, the sidebars open and close from the keyboard, Previous
comes before Next.

The build needs Sphinx, MyST-NB, Furo, jieba and brotli (requirements-dev.txt): without them these
tests fail. The browser tests (marked ui) are skipped, like tests/ui's, where no Chromium is found.
"""

import functools
import html
import http.server
import importlib.util
import json
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


def test_a_notebooks_text_for_one_place_only_is_shown_there_only():
    """``<!-- jupyter -->`` text is left out of the site, ``<!-- site: -->`` text shown in its place;
    both span lines, and what is around them is kept as it is."""
    text = "Try it,\n<!-- jupyter -->then click the cell's `⋯`\nto open it.<!-- /jupyter --><!-- site: open it with\n**Show the cell's code**. --> Done."
    assert site_tool.for_the_site(text) == "Try it,\nopen it with\n**Show the cell's code**. Done."
    assert site_tool.for_the_site("no marks: <!-- a comment --> stays") == "no marks: <!-- a comment --> stays"


def test_the_line_that_chooses_chinese_goes_and_the_rest_of_its_cell_stays():
    import nbformat

    alone = nbformat.v4.new_code_cell('import handmade\n\nhandmade.set_language("zh")')
    alone.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "'zh'"}, execution_count=1)]
    shared = nbformat.v4.new_code_cell('import handmade\nhandmade.set_language("zh")\nprint(1)')
    kept = site_tool.without_the_language_line([alone, shared])
    assert [c.source for c in kept] == ["import handmade\nprint(1)"]


def test_each_edition_downloads_a_font_of_only_the_chinese_characters_it_shows(site):
    """English pages show three Chinese characters (the switch's 中文 and 中文版): their font holds
    those, a few KB, not the Chinese edition's; each edition's font draws every character it shows."""
    from fontTools.ttLib import TTFont

    for folder, skip in ((site, ("zh",)), (site / "zh", ())):
        font = folder / "_static" / site_tool.SITE_FONT
        drawn = {chr(c) for c in TTFont(font).getBestCmap()}
        shown = site_tool.characters(folder, skip=skip)
        assert shown and shown <= drawn, sorted(shown - drawn)[:20]
        assert len(drawn - shown) <= 1, sorted(drawn - shown)[:20]  # .notdef's cmap aside, nothing more
    assert (site / "_static" / site_tool.SITE_FONT).stat().st_size < 10_000
    assert not list(site.rglob("*.woff")), "the master font is the build's, not the site's"


def test_every_page_has_a_description_in_its_own_language(site, parsed):
    for page in pages(site):
        found = re.findall(r'<meta name="description" content="([^"]*)"', (site / page).read_text(encoding="utf-8"))
        assert len(found) == 1 and 40 <= len(html.unescape(found[0])) <= 300, (page, found)
        assert bool(re.search(r"[\u4e00-\u9fff]", found[0])) == page.startswith("zh/"), (page, found)


def test_every_image_says_what_it_shows(site, parsed):
    """An <img>'s alt text describes it (not its file name); an inline diagram is named by its
    description. The package's pictures carry it in their outputs (tools/site/README.md)."""
    unsaid = []
    for page in pages(site):
        text = (site / page).read_text(encoding="utf-8")
        for tag in re.findall(r"<img\b[^>]*>", text):
            alt = html.unescape((re.findall(r'\balt="([^"]*)"', tag) or [""])[0])
            if len(alt) < 15 or re.search(r"\.(png|jpe?g|svg|gif)$", alt):
                unsaid.append(f"{page}: {tag[:120]}")
        for tag in re.findall(r"<svg\b[^>]*>", text.split('<article role="main"', 1)[-1]):
            if 'aria-hidden="true"' not in tag and not re.search(r'role="img" aria-label="[^"]{15,}"', tag):
                unsaid.append(f"{page}: {tag[:120]}")
    assert not unsaid, f"{len(unsaid)} images say nothing of what they show:\n" + "\n".join(unsaid[:20])


# What only Jupyter can do, told to the reader, in either language: run a cell (or Run All, Shift+Enter,
# restart the kernel), type into a widget, press a key or a button, click, drag a slider, edit or write
# in a cell, a live widget said to be above or below, a change seen after an edit. A sentence that says
# where to do it (on Binder, on your own computer, in JupyterLab, in a terminal) tells the truth on the
# site too. The notebooks mark the others Jupyter-only, with the site's own words (tools/site.py).
JUPYTER_ACTIONS = re.compile(
    "|".join(
        [
            r"\b(?:re-?)?run(?:ning)? (?:it|them|this|that|the (?:cells?|checker|command|notebook)|each|every|all|"
            r"again|a cell|your)\b",
            r"\bshift\s*\+\s*enter\b|\brun all\b|\brestart(?:ing)? the kernel\b|\bpress(?:ing)?\b|\bclick|\bdrag",
            r"\bslider?\b|\bbuttons?\b|\bas you type\b|\blive session\b|\bthe widget\b|\bin a new cell\b|\bput your\b",
            r"\btyp(?:e|ing) (?:a|an|any|another|your|it|in|into|1|contexts?|numbers?|the|something)\b",
            r"\b(?:playground|widget|grid|explorer|box)(?:e?s)? (?:above|below)\b",
            r"\b(?:write|build|put|type)\b[^.]*\bin the cell below\b|\bput (?:it|them) in with\b|\band watch the\b",
            r"\bedit (?:the|a|your|its|this) (?:weights?|cells?|grids?|entry|entries|code)\b",
            r"\b(?:after|with) (?:every|each|your) edits?\b|\b(?:using|into) the (?:strength |lg )?box\b",
            r"\buse (?:it|the playground|the tabs)\b",
            r"运行(?:这个|此|下面的|该|新建的)?单元格|(?:先|然后|再|请)运行(?:它|这个|一下|检查器|下面)|运行一下|运行检查器",
            r"再运行一次|运行它|重启内核|按\s*\**\s*(?:Enter|回车|Tab)|回车|点击|单击|拖动|滑块|用[^。，]*按钮|按下(?![面方])|按“",
            r"(?:上面|上方|下面|下方)(?:的|那个)(?:控件|(?:实时)?(?:演练场|网格))|控件(?:（widget）)?会|控件刚开始",
            r"输入(?:一个(?:数|由)|你自己|新的|任意|几个|数)|输入\s*\d|输入框里|用[^。，]*输入框|网格里输入",
            r"(?:新建的|下面的)单元格里|编辑单元格|里编辑权重|填进|每次修改后|改完|实时运行|会怎么变",
            r"用(?:它|演练场|标签页)(?:来)?(?:检验|看)|用演练场[^。]*观察|用各个标签页查看|放进去，看看",
        ]
    ),
    re.I,
)
WHERE = re.compile(r"Binder|your own computer|Jupyter|terminal|自己的电脑|终端", re.I)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`(\"'])|(?<=[。！？])")


class Prose(HTMLParser):
    """What a page's content says in words: the text of its <article> (outputs too) but its code (the
    cells' sources and code blocks), scripts, styles and drawings, as blocks (paragraphs, list items,
    cells, headings, summaries)."""

    BLOCKS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "summary", "dt", "dd", "div", "blockquote", "pre"}
    EMPTY = {"br", "img", "hr", "input", "meta", "link", "wbr", "col", "source"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.open, self.blocks, self.words, self.inside = [], [], [], False
        self.feed(text)
        self.cut()

    def handle_starttag(self, tag, attrs):
        if tag in self.EMPTY:
            return
        classes = (dict(attrs).get("class") or "").split()
        self.inside |= tag == "article"
        output = "cell_output" in classes or any(o for _, _, o in self.open)
        code = tag in ("script", "style", "svg") or "cell_input" in classes or (tag == "pre" and not output)
        self.cut() if tag in self.BLOCKS else None
        self.open.append((tag, code, output))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass
        self.cut() if tag in self.BLOCKS else None
        self.inside &= tag != "article"

    def handle_data(self, data):
        if self.inside and not any(code for _, code, _ in self.open):
            self.words.append(data)

    def cut(self):
        block = " ".join("".join(self.words).split())
        self.blocks += [block] if block else []
        self.words = []


def jupyter_only(page):
    """The sentences of a page that tell the reader to do what only Jupyter can, without saying where."""
    sentences = (s for block in Prose(page).blocks for s in SENTENCE.split(block))
    return [s for s in sentences if JUPYTER_ACTIONS.search(s) and not WHERE.search(s)]


def test_the_check_for_jupyter_only_sentences_finds_each_kind_in_either_language():
    """jupyter_only itself, on a page planted with each kind of sentence it must find, beside sentences
    that say where, descriptions, code, and text outside the content."""
    told = [
        "Run the cell again after your edits.",
        "Type a number into any grid and press Enter.",
        "In a live session, ignore it: the playground above is the one that runs.",
        "Click the cell's ⋯ to open it.",
        "Restart the kernel, then use Run All.",
        "Drag the slider beside it.",
        "Build my_xor in the cell below.",
        "改完权重后，再运行一次这个单元格。",
        "在任意网格里输入一个数，按 Enter 即可生效。",
        "真正能操作的是上面那个演练场。",
        "把你的猜测填进 answer。",
    ]
    fine = [
        "On Binder or on your own computer, run the cell again after your edits.",
        "A class's grader runs the notebook afresh.",
        "In a terminal, type the command as it is.",
        "在 Binder 上或者在自己的电脑上，改完权重后再运行一次这个单元格。",
        "我们固定按下面的顺序排列。",
    ]
    code = "<div class='cell_input'><pre>run the cell # press Enter</pre></div>"
    output = "<div class='cell_output'><pre>run it on Binder</pre><p>Press reset.</p></div>"
    page = (
        "<p>Click here.</p><article><h2>Try it</h2><p>"
        + " ".join(told[:4])
        + "</p><ul><li>"
        + told[4]
        + "</li><li>"
        + " ".join(fine[:3])
        + "</li></ul>"
        + code
        + output
        + "<p>"
        + " ".join(told[5:7])
        + "</p><p>"
        + "".join(told[7:] + fine[3:])
        + "</p></article>"
    )
    assert jupyter_only(page) == [*told[:4], told[4], "Press reset.", *told[5:]]


def test_no_page_tells_the_reader_to_do_what_only_jupyter_can(site):
    """Every page of both editions: what the notebooks say of Jupyter (run a cell, type into the
    playground above, press Enter...) is left out of the site or said where it can be done."""
    found = [f"{page}: {s}" for page in pages(site) for s in jupyter_only((site / page).read_text(encoding="utf-8"))]
    assert not found, f"{len(found)} sentences tell the reader to do what only Jupyter can:\n" + "\n".join(found)


# The theme's, Sphinx's and MyST-NB's words that a Chinese page must not show in English.
INTERFACE = [
    "Skip to content",
    "Back to top",
    "Next",
    "Previous",
    "On this page",
    "Made with",
    "Show code cell",
    "Hide code cell",
    "Toggle hidden content",
    "Link to this heading",
    "Home",
]
# Furo's icons' titles, which a screen reader says (tools/site/templates/partials/icons.html)
ICON_TITLES = ["Contents", "Menu", "Expand", "Light mode", "Dark mode", "Auto light/dark"]


def test_the_chinese_edition_speaks_chinese_in_its_interface(site):
    """Outside the notebooks' own content (code and its English names stay), a Chinese page's words
    are Chinese: Furo's (its icons' titles too), Sphinx's, MyST-NB's; and what search says (its
    translations.js)."""
    for page in (p for p in pages(site) if p.startswith("zh/")):
        text = (site / page).read_text(encoding="utf-8")
        shown = re.sub(r"<(script|style)\b.*?</\1>|<svg\b.*?</svg>|<pre\b.*?</pre>", "", text, flags=re.S)
        words = set(re.findall(r">\s*([^<>]*?)\s*<|(?:aria-label|title)=\"([^\"]*)\"", shown))
        english = [w for pair in words for w in pair if w in INTERFACE or w.startswith(tuple(INTERFACE[6:9]))]
        english += [w for w in re.findall(r"<title>([^<]*)</title>", text) if w.startswith(tuple(ICON_TITLES))]
        assert not english, (page, sorted(set(english)))
    translations = (site / "zh" / "_static" / "translations.js").read_text(encoding="utf-8")
    messages = json.loads(translations[translations.index("(") + 1 : translations.rindex(")")])["messages"]
    searching = ["Search finished, found one page matching the search query.", "Searching", "Preparing search..."]
    assert all(re.search(r"[\u4e00-\u9fff]", str(messages.get(m, ""))) for m in searching), searching


def test_the_chinese_edition_has_no_language_cell_and_no_italic_chinese(site):
    """The site is Chinese already: no ``set_language("zh")`` cell nor its 'zh'; and Chinese is
    never slanted (the edition's rule: bold or 「」)."""
    for page in (p for p in pages(site) if p.startswith("zh/")):
        text = (site / page).read_text(encoding="utf-8")
        code = " ".join(re.findall(r"<pre\b.*?</pre>", text, re.S))
        assert "set_language" not in code and "&#x27;zh&#x27;" not in code, page
        slanted = re.findall(r"<(em|i)\b[^>]*>((?:(?!</\1>).)*?[\u4e00-\u9fff].*?)</\1>", text, re.S)
        assert not slanted, (page, slanted[:3])


def test_each_index_introduces_the_course_to_a_learner(site):
    """The index opens with what the course is (the README's "What this is", and the paragraphs that
    open its section 中文), not with the note for translators."""
    for edition, page in (("en", "index.html"), ("zh", "zh/index.html")):
        article = (site / page).read_text(encoding="utf-8").split('<article role="main"', 1)[1]
        paragraphs = [html.unescape(re.sub(r"<[^>]+>", "", p)) for p in re.findall(r"<p>(.*?)</p>", article, re.S)]
        assert paragraphs[0].startswith(site_tool.plain(site_tool.introduction(edition)[0])[:30]), (page, paragraphs[0])
    assert "亲手" in site_tool.introduction("zh")[0] and "整套课程也有中文版" not in site_tool.introduction("zh")[0]


# ---- in the browser -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(site):
    """The site at http://127.0.0.1:PORT/, as GitHub Pages serves it (search fetches its pages)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):  # a page left while a file of it was on its way: no trace
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
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
        from lab import new_page  # tests/ui, put on the path by the browser fixture

        self.page = new_page(self.context)
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


# ---- accessibility in the browser: every page, both editions, two widths -------------------------

WIDE, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
IMPACTS = ("serious", "critical")


def axe_script():
    """axe-core as the axe-playwright-python wheel ships it (requirements-dev.txt): a file on disk."""
    try:
        import axe_playwright_python
    except ImportError:
        pytest.fail(
            "the accessibility tests need axe-playwright-python: python3 -m pip install -r requirements-dev.txt"
        )
    return Path(axe_playwright_python.__file__).parent / "axe.min.js"


# Started without waiting, so that the pages of several tabs are audited at once (each tab's page
# runs in a renderer process of its own); its answer is read later with AXE_RESULT. Every rule runs on
# the whole page at both widths, but for axe's colour-contrast rule inside the notebooks' content
# (article), which costs four fifths of the time (about 1 ms a text: 30,000 code tokens and table
# cells, 7.8 s of page 19's 9.3 s): there, every text's contrast is computed from the page's styles
# by CONTRAST below (0.1 s a page), as WCAG defines it; the page's own controls (the phone's header,
# the sidebars) get axe's rule at both widths. HANDMADE_SITE_AXE=full runs axe's rule everywhere too.
AXE_START = """(full) => {
  const run = (context, options) => axe.run(context, {...options, resultTypes: ['violations']});
  window.hmAxe = full ? run(document, {}) : run(document, {rules: {'color-contrast': {enabled: false}}})
    .then(all => run({exclude: [['article']]}, {runOnly: ['color-contrast']})  // one run at a time
      .then(chrome => ({violations: [...all.violations, ...chrome.violations]})));
  return true;
}"""
AXE_RESULT = """async (impacts) => (await window.hmAxe).violations
    .filter(v => impacts.includes(v.impact))
    .map(v => ({rule: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => [n.target.join(' '),
        (n.any[0] || n.all[0] || n.none[0] || {}).message || ''])}))"""

# The contrast of every text the notebooks' content shows (prose, code tokens, numbers, one-character
# cells too; folded ones as well; not the diagrams' SVG, whose ink is a fill), from the computed
# styles: its colour, faded by any opacity on the way up, over the backgrounds behind it (composited,
# up to the first opaque one, else the page's white). WCAG's AA: 4.5:1, or 3:1 for large text (24 px,
# or 18.66 px bold).
CONTRAST = """() => {
  const rgba = (css) => { const p = (css.match(/rgba?\\(([^)]*)\\)/) || [, ''])[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return p.length >= 3 ? [p[0], p[1], p[2], p.length > 3 ? p[3] : 1] : [0, 0, 0, 0]; };
  const over = (top, below) => [0, 1, 2].map(i => top[i] * top[3] + below[i] * (1 - top[3])).concat(1);
  const behind = (element) => { const layers = [];
    for (let e = element; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c); if (c[3] >= 1) break; }
    return layers.reverse().reduce((below, top) => over(top, below), [255, 255, 255, 1]); };
  const luminance = (c) => c.slice(0, 3).map(v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const hex = (c) => '#' + c.slice(0, 3).map(v => Math.round(v).toString(16).padStart(2, '0')).join('');
  const faded = (element) => { let o = 1; for (let e = element; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
  const low = {}; let checked = 0;
  for (const content of document.querySelectorAll('article')) {
    const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest('svg, script, style')) continue;
      const element = node.parentElement, style = getComputedStyle(element), ink = rgba(style.color);
      const back = behind(element), fore = over([...ink.slice(0, 3), ink[3] * faded(element)], back);
      const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight) >= 700;
      const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5, found = ratio(fore, back);
      checked += 1;
      if (found < needed) { const key = `${hex(fore)} on ${hex(back)}: ${found.toFixed(2)}:1 (needs ${needed})`;
        (low[key] ||= []).push(node.textContent.trim().slice(0, 12)); }
    }
  }
  return {checked, low};
}"""

# Every box that scrolls, and whether a keyboard can reach it and what it is called.
SCROLLERS = """() => [...document.querySelectorAll('body *')].filter(e => {
    const s = getComputedStyle(e);
    return (/auto|scroll/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1)
      || (/auto|scroll/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1 && e.tagName !== 'HTML');
  }).filter(e => e.checkVisibility({visibilityProperty: true, checkVisibilityCSS: true}) && e.getClientRects().length)
  .filter(e => !(e.tabIndex >= 0 && (e.getAttribute('aria-label') || '').trim()) && !e.querySelector('a[href], input'))
  .map(e => e.tagName.toLowerCase() + '.' + [...e.classList].join('.'))"""

SHOWN = "a.checkVisibility({visibilityProperty: true, checkVisibilityCSS: true})"
SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
SLID_OUT = (  # ([drawer, ms]): waits until none of the drawer's links shows, or ms have gone by (the test says which)
    "([drawer, ms]) => new Promise(done => { const start = performance.now(); const poll = () => {"
    f" const shown = [...document.querySelectorAll(drawer + ' a[href]')].filter(a => {SHOWN}).length;"
    " if (!shown || performance.now() - start > ms) done(shown); else setTimeout(poll, 50); }; poll(); })"
)
SLID_IN = (  # ([drawer, ms]): waits until the drawer stands inside the window, or ms have gone by
    "([drawer, ms]) => new Promise(done => { const start = performance.now(); const poll = () => {"
    " const box = document.querySelector(drawer).getBoundingClientRect();"
    " const inside = box.left >= -1 && box.right <= innerWidth + 1;"
    " if (inside || performance.now() - start > ms) done(inside); else setTimeout(poll, 50); }; poll(); })"
)


@pytest.mark.ui
def test_the_contrast_check_finds_faint_faded_and_shaded_text_and_passes_the_rest(browser):
    """CONTRAST itself, on a page planted with each kind of fault it must find, beside text that passes."""
    from lab import new_page

    page = new_page(browser)
    page.set_content(
        "<article><p>dark enough</p><p style='color:#999'>grey</p><p style='opacity:.4'>faded</p>"
        "<div style='background:rgba(0,0,0,.6)'><code>shaded</code></div><span style='color:#767676'>4.5:1</span>"
        "<p style='color:#aaa;font-size:24px'>large</p><svg><text fill='#eee'>ink</text></svg></article>"
    )
    found = page.evaluate(CONTRAST)
    page.close()
    low = sorted(text for texts in found["low"].values() for text in texts)
    assert (found["checked"], low) == (6, ["faded", "grey", "large", "shaded"])


@pytest.fixture(scope="module")
def audit(site, browser, served):
    """Every page of both editions, audited at 1280 px and then, resized, at 390 px, a tab a processor
    at a time (two to four): axe's serious and critical violations, the contrast of the content's text,
    the boxes that scroll without being reachable or named. Each page is loaded once."""
    lanes = [Reader(browser, served) for _ in range(min(4, max(2, os.cpu_count() or 2)))]
    axe = axe_script()
    found = {"axe": [], "contrast": {}, "checked": 0, "scrollers": []}
    every = pages(site)
    for batch in (every[i : i + len(lanes)] for i in range(0, len(every), len(lanes))):
        for size in (WIDE, PHONE):
            for reader, page in zip(lanes, batch):
                reader.page.set_viewport_size(size)
                if size is WIDE:
                    reader.visit(page).add_script_tag(path=str(axe))
                reader.page.evaluate(SETTLED)
                reader.page.evaluate(AXE_START, os.environ.get("HANDMADE_SITE_AXE") == "full")
            for reader, page in zip(lanes, batch):
                where = f"{page} at {size['width']} px"
                found["axe"] += [{**v, "where": where} for v in reader.page.evaluate(AXE_RESULT, list(IMPACTS))]
                found["scrollers"] += [f"{where}: {box}" for box in reader.page.evaluate(SCROLLERS)]
                if size is WIDE:  # colours do not change with the width
                    contrast = reader.page.evaluate(CONTRAST)
                    found["checked"] += contrast["checked"]
                    for key, texts in contrast["low"].items():
                        found["contrast"].setdefault(key, []).extend(f"{page}: {t!r}" for t in texts)
    for reader in lanes:
        reader.assert_clean()
        reader.context.close()
    return found


@pytest.mark.ui
def test_axe_finds_no_serious_or_critical_violation_on_any_page_at_either_width(audit):
    rules = {}
    for violation in audit["axe"]:
        rule = rules.setdefault(f"{violation['rule']} ({violation['impact']}: {violation['help']})", [])
        rule += [f"{violation['where']}: {target} — {why}" for target, why in violation["nodes"]]
    said = [f"{rule}: {len(nodes)} nodes, e.g.\n  " + "\n  ".join(nodes[:4]) for rule, nodes in rules.items()]
    total = sum(len(nodes) for nodes in rules.values())
    assert not rules, f"axe-core: {total} nodes in serious or critical violations\n" + "\n".join(said)


@pytest.mark.ui
def test_every_text_the_content_shows_has_the_contrast_wcag_asks_for(audit):
    """Every word, code token and number in the notebooks' content of every page, table cells too,
    against its own background."""
    assert audit["checked"] > 50_000  # the content is there: tens of thousands of texts across the site
    said = [f"{key}: {len(texts)} texts, e.g. {', '.join(texts[:3])}" for key, texts in audit["contrast"].items()]
    total = sum(len(texts) for texts in audit["contrast"].values())
    assert not said, f"{total} of {audit['checked']} texts lack contrast:\n" + "\n".join(sorted(said)[:30])


@pytest.mark.ui
def test_every_box_that_scrolls_is_reachable_from_the_keyboard_and_named(audit):
    assert not audit["scrollers"], "\n".join(audit["scrollers"][:30])


FOCUSED = """() => { const e = document.activeElement;
  if (!e || e === document.body) return null;
  const r = e.getBoundingClientRect(), ring = (x) => x && getComputedStyle(x).outlineStyle !== 'none'
    && parseFloat(getComputedStyle(x).outlineWidth) >= 2;
  return {name: `${e.tagName.toLowerCase()}.${e.className} "${(e.getAttribute('aria-label') || e.textContent).trim().slice(0, 30)}"`,
    key: e.outerHTML.slice(0, 200) + r.top, left: r.left, right: r.right, area: r.width * r.height,
    seen: e.checkVisibility({visibilityProperty: true, checkVisibilityCSS: true}), ring: ring(e) || ring(e.closest('.sidebar-search-container'))}; }"""


def tab_through(view, most=400):
    """Every stop of the Tab key on the page, from its top, once round."""
    stops, seen = [], set()
    view.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    for _ in range(most):
        view.keyboard.press("Tab")
        stop = view.evaluate(FOCUSED)
        if stop is None or stop["key"] in seen:
            break
        seen.add(stop["key"])
        stops.append(stop)
    return stops


@pytest.mark.ui
@pytest.mark.parametrize("page", ["05_softmax_and_mask.html", "zh/17_challenges_tokens_and_positions.html"])
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1280", "390"])
def test_every_tab_stop_is_on_screen_and_visibly_focused_and_previous_comes_first(reader, page, size):
    """No stop is a link of a closed sidebar off the screen; every stop shows a focus ring of 2 px
    or more; the footer's Previous comes before Next."""
    reader.page.set_viewport_size(size)
    view = reader.visit(page)
    stops = tab_through(view)
    width = size["width"]
    hidden = [s["name"] for s in stops if not s["seen"] or s["area"] == 0 or s["right"] <= 0 or s["left"] >= width]
    assert len(stops) > 10 and not hidden, hidden[:10]
    unringed = [s["name"] for s in stops if not s["ring"]]
    assert not unringed, unringed[:10]
    names = [s["name"] for s in stops]
    previous, after = (
        next(i for i, n in enumerate(names) if n.startswith(f"a.{c}")) for c in ("prev-page", "next-page")
    )
    assert previous < after
    reader.assert_clean()


@pytest.mark.ui
@pytest.mark.parametrize("page", ["05_softmax_and_mask.html", "zh/05_softmax_and_mask.html"])
@pytest.mark.parametrize(
    "button, drawer", [(".nav-overlay-icon", ".sidebar-drawer"), (".toc-header-icon", ".toc-drawer")]
)
def test_a_phone_opens_and_closes_the_sidebars_from_the_keyboard(reader, page, button, drawer):
    reader.page.set_viewport_size(PHONE)
    view = reader.visit(page)
    opener = view.locator(f"{button} > button")  # site.js puts a button in Furo's label
    label = opener.get_attribute("aria-label")
    assert label and re.search(r"[\u4e00-\u9fff]", label) if page.startswith("zh/") else label, label
    names = [s["name"] for s in tab_through(view)]
    assert any(n.startswith("button.hm-sidebar-button") and label in n for n in names), names[:12]
    assert opener.get_attribute("aria-expanded") == "false" and not view.locator(drawer).is_visible()
    opener.focus()
    view.keyboard.press("Enter")
    view.evaluate(SLID_IN, [drawer, 5000])  # the drawer slides in: as long as it takes, on a busy machine too
    assert opener.get_attribute("aria-expanded") == "true"
    assert view.evaluate(f"document.querySelector('{drawer}').contains(document.activeElement)")
    box = view.locator(drawer).bounding_box()
    assert box["x"] >= -1 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    view.keyboard.press("Tab")
    assert view.evaluate(f"document.querySelector('{drawer}').contains(document.activeElement)")
    view.keyboard.press("Escape")
    view.evaluate(SLID_OUT, [drawer, 5000])  # the drawer slides out: as long as it takes, on a busy machine too
    assert opener.get_attribute("aria-expanded") == "false"
    assert view.evaluate("document.activeElement.getAttribute('aria-label')") == label
    links = view.locator(f"{drawer} a[href]").evaluate_all(f"links => links.filter(a => {SHOWN}).length")
    assert links == 0  # closed: its links are hidden, and take no focus
    reader.assert_clean()


@pytest.mark.ui
def test_a_phone_reads_the_diagrams_labels_the_index_and_the_challenge_statements(reader):
    """At 390 px: the diagram keeps its own size (its smallest label 10.5 px, not 4) in a box that
    scrolls; what each notebook covers keeps most of the index table; a task's statement wraps."""
    reader.page.set_viewport_size(PHONE)
    view = reader.visit("00_start_here.html")
    svg = view.locator(".hm-diagram > svg").first
    assert svg.bounding_box()["width"] >= float(svg.get_attribute("viewBox").split()[2]) - 1
    for page in ("index.html", "zh/index.html"):
        view = reader.visit(page)
        cells = view.locator("article table tbody tr").first.locator("td")
        covers, table = cells.nth(1).bounding_box()["width"], view.locator("article table").bounding_box()["width"]
        assert covers >= 0.55 * table, (page, covers, table)
    view = reader.visit("17_challenges_tokens_and_positions.html")
    wide = view.evaluate(
        "[...document.querySelectorAll('.output.stream pre')].filter(p => p.scrollWidth > p.clientWidth + 1).length"
    )
    assert wide == 0
    reader.assert_clean()
