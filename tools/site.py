"""Build the series as a static website, both editions, from the committed, executed notebooks:
nothing is run again (Sphinx with MyST-NB, execution off).

    python3 tools/site.py OUTDIR [--repository OWNER/NAME] [--force]

Every notebook becomes a page with its stored outputs (tables, heatmaps, diagrams, and the static
snapshot after each widget); a sidebar follows the series from 00 to 21; each edition has its own
search; every page links to its twin in the other edition, to Binder and to GitHub, and shows the
README's two commands. The English edition is OUTDIR/, the Chinese one OUTDIR/zh/. The Binder and
GitHub links name the repository given by --repository, else by $HANDMADE_SITE_REPOSITORY, else
handmade-course/handmade: a fork sets its own there. Nothing is fetched from the network when the
site is built or read (tests/test_site.py checks both).

What is wrong with the arguments is found before the build starts and said in one line, in the
learner's language (HANDMADE_LANG, LANGUAGE, LC_ALL, LC_MESSAGES, LANG, as the command line reads
them), with status 2. The builder lists the files it makes in OUTDIR/.handmade-site and, building
again, deletes only those: other files there are kept, and a folder that holds files it did not make
(and no list) is refused unless --force (which keeps them too, and replaces only those the new site
writes over, saying which).

    python3 tools/site.py --font /usr/share/fonts/truetype/wqy/wqy-microhei.ttc

rebuilds the site's Chinese master font (tools/site/handmade-site-cjk.woff): the characters the pages
use and the 3,500 most common Chinese characters, cut from WenQuanYi Micro Hei (Debian's
fonts-wqy-microhei, Apache-2.0; see tools/site/README.md). Each build cuts from it, for each edition,
a WOFF2 font of just the characters that edition shows. Run it when the Chinese prose gains a
character the font lacks (the build says so, and tests/test_site.py fails).
"""

import argparse
import errno
import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))  # the package, where it is not installed (requirements.txt installs it)
sys.path.insert(1, str(ROOT / "tools"))  # the marks of the cells' language, wherever this is run from

from cell_language import EDITIONS, unmarked  # noqa: E402

from handmade.arguments import brief, clip, file_name, shown_path  # noqa: E402
from handmade.cli import _argparse_speaks  # noqa: E402  (argparse's own sentences, through the catalogue)
from handmade.display.figure import FIGURE_CLASS  # noqa: E402
from handmade.i18n import _, from_environment, ngettext, set_language  # noqa: E402
from handmade.reasons import reason  # noqa: E402

PROG = "tools/site.py"
BAD_INPUT, CANNOT_WRITE, FAILED = 2, 3, 1
HERE = ROOT / "tools" / "site"
MASTER_FONT = HERE / "handmade-site-cjk.woff"  # the characters of the site and the 3,500 most common
SITE_FONT = "handmade-site-cjk.woff2"  # what each edition's _static gets: the characters it shows
WQY = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"  # Debian's fonts-wqy-microhei
DEFAULT_REPOSITORY = "handmade-course/handmade"
# GitHub's rules: an owner of letters, digits and single inner hyphens (at most 39), a name of
# letters, digits, '.', '_' and '-' (at most 100, not '.' or '..'). Nothing else reaches a page.
REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}")
BINDER = "https://mybinder.org/v2/gh/{repository}/main?urlpath=lab/tree/{path}"
MANIFEST = ".handmade-site"  # in OUTDIR: the files the builder made there, one a line
MANIFEST_HEAD = "# the files tools/site.py made in this folder; building again, it deletes only these"
# The blocks the site's font covers (its CSS says the same in unicode-range): CJK radicals, symbols,
# punctuation and ideographs, compatibility ideographs and forms, and full-width forms.
CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
LABELS = {
    "en": {
        "language": "en",
        "title": "handmade: a transformer built by hand",
        "twin": "中文",
        "binder": "Run this notebook on Binder",
        "github": "View it on GitHub",
        "local": "Run it on your own computer",
        "clone": "In a clone of {repository}, open this notebook in JupyterLab:",
        "tests": "and run the tests:",
        "navigation": "The notebooks",
        "contents": "Contents of this page",
        "scrolls": {
            "code": "Code, scrolls sideways",
            "output": "Output, scrolls sideways",
            "table": "Table, scrolls sideways",
            "diagram": "Diagram, scrolls sideways",
        },
        "snapshot": "The playground as it was saved with the notebook, on the context {context}. It needs Python "
        "to run: to use it, open this notebook on Binder or on your own computer (the links at the top of the page).",
        "show_code": "Show the cell's code",
        "hide_code": "Hide the cell's code",
        "description": "Notebook {number} of handmade, a transformer built by hand: {covers}.",
        "search": "Search the notebooks of handmade, a course in which you build a transformer by hand.",
    },
    "zh": {
        "language": "zh_CN",
        "title": "handmade：亲手搭建一个 transformer",
        "twin": "English",
        "binder": "在 Binder 上运行这个笔记本",
        "github": "在 GitHub 上查看",
        "local": "在自己的电脑上运行",
        "clone": "在 {repository} 的克隆里，用 JupyterLab 打开这个笔记本：",
        "tests": "运行测试：",
        "navigation": "笔记本列表",
        "contents": "本页目录",
        "scrolls": {
            "code": "代码，可横向滚动",
            "output": "输出，可横向滚动",
            "table": "表格，可横向滚动",
            "diagram": "示意图，可横向滚动",
        },
        "snapshot": "随笔记本保存下来的演练场，上下文是 {context}。它要有 Python 才能运行：想动手操作，"
        "请在 Binder 上或者在自己的电脑上打开这个笔记本（链接在页面顶部）。",
        "show_code": "显示这个单元格的代码",
        "hide_code": "隐藏这个单元格的代码",
        "description": "handmade（亲手搭建一个 transformer）的第 {number} 个笔记本：{covers}。",
        "search": "搜索 handmade 的笔记本：一门亲手搭建 transformer 的课程。",
    },
}


class SiteError(Exception):
    """What stops the build, in one line: bad input (status 2) unless another status is given."""

    def __init__(self, message, status=BAD_INPUT):
        super().__init__(message)
        self.status = status


def readme():
    """README.md, where the commands, the notebook tables and the introductions are read from."""
    return (ROOT / "README.md").read_text(encoding="utf-8")


def readme_commands():
    """The README's first two commands: install and open the series, install and run the tests."""
    return re.findall(r"```bash\n(.+?)\n```", readme())[:2]


def readme_section(title):
    """The text of the README's section ``## title``, up to the next section."""
    text = readme()
    start = text.index(f"\n## {title}\n") + len(title) + 5
    end = text.find("\n## ", start)
    return text[start : end if end >= 0 else len(text)].strip()


def notebooks(edition):
    """The edition's notebooks, in the order of the series."""
    return sorted((ROOT / EDITIONS[edition]).glob("[0-9][0-9]_*.ipynb"))


def site_path(notebook):
    """Where a notebook of either edition is on the site, relative to its root ('zh/05_x.html')."""
    folder = posixpath.relpath(notebook.parent.relative_to(ROOT).as_posix(), "notebooks")
    return posixpath.normpath(posixpath.join(folder, notebook.stem + ".html"))


def link_from(page, target):
    """The relative link from one page of the site to another (both as site paths)."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


LINK = re.compile(r"(`+).*?\1|\[([^\]]*)\]\(([^)\s]+)\)", re.S)  # a code span (left alone), or a link


def rewrite_links(source, folder, page, repository):
    """Markdown's links, for the site page ``page`` (its text written in the repository's ``folder``):
    a notebook of the page's edition stays a markdown link (Sphinx checks it); one of the other
    edition becomes a link to its page; any other file of the repository a link to it on GitHub.
    Code spans and links with a scheme or only an anchor are left alone."""

    def rewrite(match):
        text, target = match.group(2), match.group(3)
        if match.group(1) or re.match(r"[a-zA-Z][\w+.-]*:|#", target):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        file = (folder / path).resolve()
        if not file.is_relative_to(ROOT):
            return match.group(0)
        if file.suffix == ".ipynb" and file.parent.relative_to(ROOT).as_posix() in EDITIONS.values():
            if posixpath.dirname(site_path(file)) == posixpath.dirname(page):
                return f"[{text}]({file.name}{hash_}{anchor})"
            return f'<a href="{html.escape(link_from(page, site_path(file)) + hash_ + anchor)}">{text}</a>'
        where = f"{'tree' if file.is_dir() else 'blob'}/main/{file.relative_to(ROOT).as_posix()}"
        return f"[{text}](https://github.com/{repository}/{where}{hash_}{anchor})"

    return LINK.sub(rewrite, source)


# A notebook's text for one place only: ``<!-- jupyter -->...<!-- /jupyter -->`` is left out of the
# site (JupyterLab and GitHub show it: a comment around it is invisible there), and the site shows
# ``<!-- site: ... -->`` in its place (invisible in JupyterLab). For a sentence that tells the reader
# to click something of Jupyter's: the site says what to do on the site instead.
JUPYTER_ONLY = re.compile(r"<!--\s*jupyter\s*-->.*?<!--\s*/jupyter\s*-->", re.S)
SITE_ONLY = re.compile(r"<!--\s*site:\s*(.*?)\s*-->", re.S)


def for_the_site(markdown):
    """A markdown cell as the site shows it: the Jupyter-only text left out, the site-only text shown, and
    without the mark of its language (a page is in its edition's language: ``tools/cell_language.py``)."""
    return SITE_ONLY.sub(lambda m: m.group(1), JUPYTER_ONLY.sub("", unmarked(markdown)))


def has_title(cells):
    """Whether a markdown cell has a level-1 heading (outside fenced code), the page's title."""
    text = LINK.sub(
        lambda m: "" if m.group(1) else m.group(0), "\n".join(c.source for c in cells if c.cell_type == "markdown")
    )
    return re.search(r"^# \S", text, re.M) is not None


def plain(markdown):
    """A README table cell as plain text: code spans, emphasis and escapes taken out."""
    return re.sub(r"\\(.)", r"\1", re.sub(r"[`*]", "", markdown)).strip()


def notebook_table(edition):
    """{notebook name: what it covers (markdown)}, from the README's table of the edition's notebooks."""
    section = readme_section("The notebooks" if edition == "en" else "中文")
    return dict(re.findall(r"^\| \[(\d\d_\w+)\]\([^)]*\) \| (.+?) \|$", section, re.M))


def fallback_title(notebook, edition):
    """A title for a notebook that has none: its number and what the README's table calls it (the
    Chinese table's words before '：'), else its name."""
    words = notebook.stem[3:].replace("_", " ").capitalize()
    if edition == "zh":
        covers = plain(notebook_table(edition).get(notebook.stem, ""))
        words = covers.split("：")[0].strip() if "：" in covers else words
    return f"# {notebook.stem[:2]} · {words}"


# What a page leaves out of an output, for the text beside it: a widget's view, which would load
# @jupyter-widgets from a CDN (the notebooks store no widget state; the snapshot after each widget
# is its static view), and LaTeX, which would load MathJax from a CDN (each LaTeX table has a text one).
DROPPED = ("application/vnd.jupyter.widget-view+json", "text/latex")
# A widget's snapshot, folded away in the notebook (where the live widget is above it), and its
# caption, which speaks of Jupyter ("the live playground above"): open on the site, under a caption
# that says what the site can do. The context is the repr the package quotes in the caption.
SNAPSHOT = re.compile(r"<details class=(['\"])hm-snapshot\1>\s*<summary[^>]*>(.*?)</summary>", re.S)
QUOTED = re.compile(r"(&#x27;|&quot;)(.*?)\1")
# A snapshot's stage labels are <h4>s, which on a page of <h2> sections skip a level: labels there.
STAGE = re.compile(r"<h4(\s[^>]*)?>(.*?)</h4>", re.S)
SVG = re.compile(r"<svg\b([^>]*)>")


def snapshot_caption(match, edition):
    """A snapshot's opening tags for the site: open, captioned for a reader without a kernel."""
    context = QUOTED.search(match.group(2))
    caption = LABELS[edition]["snapshot"]
    if context is None:  # a caption without its context: the sentences without it
        caption = re.sub(r"[,，][^,，]*\{context\}[^.。]*", "", caption)
    caption = caption.replace("{context}", f"<code>{context.group(0)}</code>" if context else "")
    return f"<details class='hm-snapshot' open><summary>{caption}</summary>"


def described_svg(svg, description):
    """An SVG drawn inline, named for a screen reader by its text/plain (which describes it), in a
    box that keeps it at its own size (its labels readable on a phone) and scrolls sideways."""
    width = re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+) ', svg)
    if "role=" not in svg.split(">", 1)[0]:
        label = html.escape(" ".join(description.split()), quote=True)
        svg = SVG.sub(lambda m: f'<svg{m.group(1)} role="img" aria-label="{label}">', svg, count=1)
    size = f' style="--hm-width: {float(width.group(1)):g}px"' if width else ""
    return f'<div class="hm-diagram"{size}>{svg}</div>'


def site_output(output, edition):
    """An output as the site shows it: SVG drawn inline (so that its Chinese labels use the page's
    font) and named by its description, a PNG as an image file with its alt text (a ``Figure``'s
    ``<img>`` for JupyterLab set aside), widgets and LaTeX as their text, a widget's snapshot open."""
    data = output.get("data", {})
    twin = "".join(data.get("text/html", "")).startswith(f'<img class="{FIGURE_CLASS}"')  # a Figure's, image inside
    if twin:  # the image's own output is the site's: MyST-NB writes it to a file
        data.pop("text/html")
    if "image/svg+xml" in data and "text/html" not in data:
        data["text/html"] = described_svg("".join(data["image/svg+xml"]), "".join(data.get("text/plain", "")))
    for kind in DROPPED:
        data.pop(kind, None)
    if "text/html" in data:
        markup = SNAPSHOT.sub(lambda m: snapshot_caption(m, edition), "".join(data["text/html"]))
        data["text/html"] = STAGE.sub(r"<p class='hm-stage'\1>\2</p>", markup) if "hm-snapshot" in markup else markup


def image_alt(cell):
    """An image's alt text: the one its output states (``metadata["image/png"]["alt"]``, for a
    package that describes what it draws), else the cell's (``metadata["mystnb"]["image"]["alt"]``,
    MyST-NB's own place); put where MyST-NB reads it. None when neither says."""
    for output in cell.get("outputs", []):
        for kind in ("image/png", "image/jpeg", "image/svg+xml"):
            alt = output.get("metadata", {}).get(kind, {}).get("alt")
            if kind in output.get("data", {}) and isinstance(alt, str) and alt.strip():
                cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = alt
    return cell.metadata.get("mystnb", {}).get("image", {}).get("alt")


CHOOSES_CHINESE = re.compile(r"^handmade\.set_language\(['\"]zh['\"]\)[ \t]*(?:\n|$)", re.M)


def without_the_language_line(cells):
    """The Chinese notebook's cells without the line that chooses Chinese (the site is Chinese
    already): that line and its ``'zh'`` output go, and a cell left with only ``import handmade``."""
    kept = []
    for cell in cells:
        if cell.cell_type == "code" and CHOOSES_CHINESE.search(cell.source):
            cell.source = CHOOSES_CHINESE.sub("", cell.source).strip()
            cell.outputs = [o for o in cell.outputs if o.get("data", {}).get("text/plain") not in ("'zh'", ["'zh'"])]
            if cell.source in ("", "import handmade") and not cell.outputs:
                continue
        kept.append(cell)
    return kept


def images_without_alt(book):
    """The code cells (their ids, else their numbers) whose image outputs say nothing of what they show."""
    return [
        cell.get("id", number)
        for number, cell in enumerate(book.cells)
        if cell.cell_type == "code"
        and any(k.startswith("image/") and k != "image/svg+xml" for o in cell.outputs for k in o.get("data", {}))
        and not image_alt(cell)
    ]


def site_notebook(notebook, edition, repository):
    """The notebook as the site shows it: links rewritten, the text for Jupyter left out, outputs as
    ``site_output`` makes them, images with their alt text, the Chinese edition without the line that
    chooses Chinese, and a title where it has none. Its outputs are the stored ones: nothing runs."""
    import nbformat

    book = nbformat.read(notebook, as_version=4)
    if edition == "zh":
        book.cells = without_the_language_line(book.cells)
    for cell in book.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(for_the_site(cell.source), notebook.parent, site_path(notebook), repository)
        for output in cell.get("outputs", []):
            site_output(output, edition)
        image_alt(cell)
    if not has_title(book.cells):
        book.cells.insert(0, nbformat.v4.new_markdown_cell(fallback_title(notebook, edition)))
    return book


def unwrap(paragraph):
    """A README paragraph on one line: a line break beside Chinese goes, one between words is a space."""
    return re.sub(rf"(?<={CJK.pattern})\n|\n(?={CJK.pattern})", "", paragraph).replace("\n", " ")


def introduction(edition):
    """The paragraphs that introduce the course to a learner: the README's "What this is", and in
    Chinese the paragraphs of its section 中文 before its first command."""
    if edition == "en":
        return [unwrap(p) for p in readme_section("What this is").split("\n\n")]
    return [unwrap(p) for p in readme_section("中文").split("```")[0].strip().split("\n\n")]


def index_page(edition, repository):
    """The edition's first page, from the README: its introduction and its table of the notebooks
    (their names may break after each '_', so that the table reads on a phone), then the series as
    the sidebar's table of contents (hidden here)."""
    table = readme_section("The notebooks" if edition == "en" else "中文")
    rows = [line for line in table.splitlines() if line.startswith("|")]
    rows = [re.sub(r"^\| \[(\d\d_\w+)\]", lambda m: f"| [{m.group(1).replace('_', '_<wbr>')}]", r) for r in rows]
    toctree = ["```{toctree}", ":hidden:", ":maxdepth: 1", "", *(n.stem for n in notebooks(edition)), "```"]
    parts = [f"# {LABELS[edition]['title']}", *introduction(edition), "\n".join(rows), "\n".join(toctree)]
    text = "\n\n".join(parts) + "\n"
    return rewrite_links(text, ROOT, "index.html" if edition == "en" else "zh/index.html", repository)


def header(page, edition, repository, notebook=None):
    """A page's header: its twin in the other edition, and for a notebook (the first one on the
    first page) Binder, GitHub and the README's two commands with this notebook in the first.
    Everything put in it is escaped (and the repository checked: OWNER/NAME)."""
    labels, other = LABELS[edition], "zh" if edition == "en" else "en"
    twin = link_from(page, posixpath.join("zh" if other == "zh" else "", posixpath.basename(page)))
    e = html.escape
    parts = [f'<a class="hm-twin" href="{e(twin)}" hreflang="{other}" lang="{other}">{e(labels["twin"])}</a>']
    if notebook is not None:
        path = notebook.relative_to(ROOT).as_posix()
        launch, tests = readme_commands()
        launch = launch.replace("notebooks/00_start_here.ipynb", path)
        github = f'<a href="https://github.com/{e(repository)}">{e(repository)}</a>'
        binder = BINDER.format(repository=repository, path=path)
        parts += [
            f'<a class="hm-binder" href="{e(binder)}">{e(labels["binder"])}</a>',
            f'<a class="hm-github" href="{e(f"https://github.com/{repository}/blob/main/{path}")}">{e(labels["github"])}</a>',
            f'<details class="hm-local"><summary>{e(labels["local"])}</summary>'
            f"<p>{e(labels['clone']).format(repository=github)}</p><pre>{e(launch)}</pre>"
            f"<p>{e(labels['tests'])}</p><pre>{e(tests)}</pre></details>",
        ]
    return f'<div class="hm-header">{"".join(parts)}</div>'


def first_sentences(text, limit=160):
    """The first sentences of a paragraph, as plain text, up to ``limit`` characters' width (a
    Chinese character is two): what a search engine shows of a page."""
    text = plain(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text))
    shown = ""
    for sentence in re.findall(r".+?(?:[.。](?=\s|$)|。|$)", text):
        if shown and len(shown + sentence) + len(CJK.findall(shown + sentence)) > limit:
            break
        shown += sentence
    return shown.strip()


def descriptions(edition):
    """Every page's meta description, by page name: a notebook's from the README's table."""
    labels, table = LABELS[edition], notebook_table(edition)
    found = {"index": first_sentences(introduction(edition)[0]), "search": labels["search"]}
    for notebook in notebooks(edition):
        covers = plain(table.get(notebook.stem, notebook.stem[3:].replace("_", " "))).rstrip(".。")
        found[notebook.stem] = labels["description"].format(number=notebook.stem[:2], covers=covers)
    return found


def headers(edition, repository):
    """Every page's header, by page name: the notebooks', the first page's and search's."""
    folder = "" if edition == "en" else "zh"
    found = {n.stem: header(site_path(n), edition, repository, n) for n in notebooks(edition)}
    found["index"] = header(posixpath.join(folder, "index.html"), edition, repository, notebooks(edition)[0])
    found["search"] = header(posixpath.join(folder, "search.html"), edition, repository)
    return found


def write_sources(folder, edition, repository):
    """The edition's Sphinx project in ``folder``: conf.py, site.json, the theme's missing words in
    the edition's language, the first page, the notebooks. Returns the notebooks' images that have
    no alt text, as 'notebook: cell N'."""
    import nbformat

    folder.mkdir(parents=True)
    shutil.copy(HERE / "conf.py", folder / "conf.py")
    if (HERE / "locale" / LABELS[edition]["language"]).is_dir():
        shutil.copytree(HERE / "locale", folder / "locale")
        translate_search(folder / "locale", LABELS[edition]["language"])
    settings = {
        "language": LABELS[edition]["language"],
        "title": LABELS[edition]["title"],
        "static": str(HERE / "static"),
        "templates": str(HERE / "templates"),
        "headers": headers(edition, repository),
        "descriptions": descriptions(edition),
        "labels": {k: LABELS[edition][k] for k in ("navigation", "contents", "scrolls", "show_code", "hide_code")},
    }
    (folder / "site.json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    (folder / "index.md").write_text(index_page(edition, repository), encoding="utf-8")
    missing = []
    for notebook in notebooks(edition):
        book = site_notebook(notebook, edition, repository)
        missing += [f"{notebook.relative_to(ROOT).as_posix()}: cell {cell}" for cell in images_without_alt(book)]
        nbformat.write(book, folder / notebook.name)
    return missing


def translate_search(locale, language):
    """Search's sentences in the edition's language: Sphinx's translations.js for it, with the words
    of the site's own catalogue added (Sphinx copies a sphinx.js it finds in locale_dirs instead of
    its own, and never writes one from a catalogue)."""
    import sphinx
    from babel.messages.pofile import read_po

    text = (Path(sphinx.__file__).parent / "locale" / language / "LC_MESSAGES" / "sphinx.js").read_text(
        encoding="utf-8"
    )
    translations = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    with open(locale / language / "LC_MESSAGES" / "sphinx.po", "rb") as po:
        for message in read_po(po):
            if message.id:
                key = message.id if isinstance(message.id, str) else message.id[0]
                translations["messages"][key] = message.string if isinstance(message.string, str) else [*message.string]
    script = f"Documentation.addTranslations({json.dumps(translations, ensure_ascii=False, indent=1)});\n"
    (locale / language / "LC_MESSAGES" / "sphinx.js").write_text(script, encoding="utf-8")


def require(fonts=True):
    """Stop with the command that installs them if the site's packages are missing, or with the one
    that makes it if the master font is (``fonts``: the build cuts each edition's font from it)."""
    from importlib.util import find_spec

    needed = ("sphinx", "myst_nb", "furo", "jieba", "fontTools", "brotli")
    missing = [name for name in needed if find_spec(name) is None]
    if missing:
        raise SiteError(
            _("the site needs {names}: python3 -m pip install -r requirements-dev.txt").format(
                names=", ".join(missing)
            ),
            FAILED,
        )
    if fonts and not MASTER_FONT.is_file():
        raise SiteError(_("{path} is missing: {command}").format(path=MASTER_FONT, command=REBUILD_FONT), FAILED)


def sphinx(source, out, doctrees):
    """Start Sphinx on one edition (in a process of its own, so that both editions build at once)."""
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going", "-d", str(doctrees)]
    return subprocess.Popen([*command, str(source), str(out)])


def render(work, repository, fonts=True):
    """Both editions built in ``work``: the English one in work/out/en, with the Chinese one in its
    zh/, each with its own font (unless not ``fonts``). Returns that folder, and the images without
    alt text."""
    builds, missing = {}, []
    for edition in EDITIONS:
        missing += write_sources(work / "src" / edition, edition, repository)
        builds[edition] = sphinx(work / "src" / edition, work / "out" / edition, work / "doctrees" / edition)
    failed = [edition for edition, process in builds.items() if process.wait() != 0]
    if failed:
        editions = " + ".join(failed)
        raise SiteError(
            _("Sphinx failed on the {editions} edition (its messages are above)").format(editions=editions), FAILED
        )
    for edition in EDITIONS if fonts else ():
        cut_font(work / "out" / edition)
    shutil.move(str(work / "out" / "zh"), str(work / "out" / "en" / "zh"))
    return work / "out" / "en", missing


# ---- the output folder: checked before the build, and only what the builder made is replaced --------


def checked_repository(value, name="--repository"):
    """``value`` if it is OWNER/NAME as GitHub spells them; else one line that says what is allowed."""
    if isinstance(value, str) and REPOSITORY.fullmatch(value):
        return value
    raise SiteError(
        _(
            "{name} must be OWNER/NAME as on GitHub (OWNER: letters, digits, inner hyphens, at most 39; "
            "NAME: letters, digits, '.', '_', '-', at most 100); found {value}"
        ).format(name=name, value=brief(value, 24))
    )


def repository_of(value):
    """The repository the links name: --repository, else $HANDMADE_SITE_REPOSITORY, else the default."""
    if value is not None:
        return checked_repository(value)
    if os.environ.get("HANDMADE_SITE_REPOSITORY"):
        return checked_repository(os.environ["HANDMADE_SITE_REPOSITORY"], "HANDMADE_SITE_REPOSITORY")
    return DEFAULT_REPOSITORY


def can_write_in(folder):
    """None if a file can be made in the existing folder ``folder`` (tried: a temporary file, made and
    removed, which also answers on read-only mounts and for root), else the reason it cannot."""
    try:
        handle, name = tempfile.mkstemp(prefix=".handmade-site-", dir=folder)
        os.close(handle)
        os.unlink(name)
    except OSError as error:
        return reason(error)
    return None


def checked_outdir(value):
    """OUTDIR as a Path, if a site can be built there: a folder (or a link to one) that can be
    written, or a name whose nearest existing parent is one. Else one line, before any build."""
    try:
        outdir = file_name(value, "OUTDIR")
    except (TypeError, ValueError) as error:
        raise SiteError(str(error)) from None
    shown = shown_path(outdir)
    try:
        problem = outdir_problem(outdir)
    except OSError as error:  # a name too long, a folder that cannot be listed
        problem = _("OUTDIR '{path}' cannot be used ({reason})").format(path="{path}", reason=reason(error))
    if problem:
        raise SiteError(problem.replace("{path}", shown))
    return outdir


def outdir_problem(outdir):
    """What keeps a site from being built at ``outdir`` ('{path}' standing for it), or None."""
    if outdir.exists() and not outdir.is_dir():
        return _("OUTDIR '{path}' is a file, not a folder: give a folder to build the site into")
    existing, missing = outdir, []
    while not existing.exists() and not existing.is_symlink():
        existing, missing = existing.parent, [existing.name, *missing]
    if not existing.is_dir():  # a file, or a link to nowhere, on the way
        return _("OUTDIR '{path}' cannot be made: '{parent}' is not a folder").replace("{parent}", shown_path(existing))
    longest = os.pathconf(existing, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
    if any(len(os.fsencode(name)) > longest for name in missing):
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
    problem = can_write_in(existing)
    return _("OUTDIR '{path}' cannot be written ({reason})").replace("{reason}", problem) if problem else None


def files_in(folder):
    """Every file (or link, or other non-folder) under ``folder``, as relative POSIX paths; links to
    folders are not followed."""
    found = set()
    for top, folders, names in os.walk(folder):
        relative = PurePosixPath(Path(top).relative_to(folder).as_posix())
        found |= {str(relative / name) for name in names}
        found |= {str(relative / name) for name in folders if (Path(top) / name).is_symlink()}
    return {name.removeprefix("./") for name in found} - {MANIFEST}


def made_before(outdir):
    """The files the builder listed in OUTDIR's manifest (an empty set when there is none)."""
    path = outdir / MANIFEST
    if not path.is_file():
        return set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise SiteError(
            _("'{path}' cannot be read ({reason})").format(path=shown_path(path), reason=reason(error))
        ) from None
    listed = {line for line in lines[1:] if line}
    damaged = [n for n in listed if PurePosixPath(n).is_absolute() or ".." in PurePosixPath(n).parts or "\\" in n]
    if lines[:1] != [MANIFEST_HEAD] or damaged:
        raise SiteError(
            _("'{path}' is not a list the site builder wrote: remove it, or build into a new folder").format(
                path=shown_path(path)
            )
        )
    return listed


def survey(outdir, force):
    """What is in OUTDIR before the build: (the files the builder made, the files it did not). A
    folder that holds files and no manifest is refused, unless ``force``."""
    if not outdir.is_dir():
        return set(), set()
    ours = made_before(outdir)
    theirs = files_in(outdir) - ours
    if theirs and not (outdir / MANIFEST).is_file() and not force:
        raise SiteError(
            ngettext(
                "OUTDIR '{path}' holds {n} file the site builder did not make ('{file}'): give a new or empty "
                "folder, or --force to build beside it (it is kept)",
                "OUTDIR '{path}' holds {n} files the site builder did not make ('{file}', ...): give a new or "
                "empty folder, or --force to build beside them (they are kept)",
                len(theirs),
            ).format(path=shown_path(outdir), n=len(theirs), file=shown_path(sorted(theirs)[0]))
        )
    return ours, theirs


def write_manifest(outdir, files):
    """OUTDIR's list of the files the builder made, written whole (a temporary file, then renamed)."""
    temporary = outdir / (MANIFEST + ".tmp")
    temporary.write_text("\n".join([MANIFEST_HEAD, *sorted(files)]) + "\n", encoding="utf-8")
    os.replace(temporary, outdir / MANIFEST)


def through_no_link(outdir, name):
    """Whether ``name`` (relative) is reached from OUTDIR without passing a symbolic link."""
    folder = outdir
    for part in PurePosixPath(name).parent.parts:
        folder = folder / part
        if folder.is_symlink() or not folder.is_dir():
            return False
    return True


def place(built, outdir, force, ours, theirs):
    """Put the built site into OUTDIR: the files the builder made before are replaced or deleted, the
    others kept. A file of someone else's that the new site would write over is refused, unless
    ``force``: then it is replaced, and named in the returned list. Every moment, the manifest lists
    every file the builder has made there, so that an interruption leaves nothing unaccounted for."""
    new = files_in(built)
    clashes = in_the_way(new, theirs)
    if clashes and not force:
        raise SiteError(
            _(
                "OUTDIR '{path}' holds '{file}', which the site builder did not make and the new site would write "
                "over: move it away, or give --force to replace it"
            ).format(path=shown_path(outdir), file=shown_path(clashes[0]))
        )
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        write_manifest(outdir, ours | new)
        for name in sorted(ours - new):
            if through_no_link(outdir, name) and ((outdir / name).is_file() or (outdir / name).is_symlink()):
                (outdir / name).unlink()
        for name in clashes:  # shortest first: a link of theirs goes before anything seen through it
            target = outdir / name
            if not through_no_link(outdir, name) or not (target.exists() or target.is_symlink()):
                continue
            shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
        for name in sorted(new):
            (outdir / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(built / name), str(outdir / name))
        remove_empty_folders(outdir, ours - new)
        write_manifest(outdir, new)
    except OSError as error:
        raise SiteError(
            _("could not write the site into '{path}' ({reason})").format(
                path=shown_path(outdir), reason=reason(error)
            ),
            CANNOT_WRITE,
        ) from None
    return clashes


def in_the_way(new, theirs):
    """What of someone else's the new site's files would write over, shortest first: a file of the
    same name, a file or a link where the site has a folder, a folder where it has a file."""
    found = set()
    for name in new:
        found |= {str(up) for up in PurePosixPath(name).parents if str(up) in theirs}
        if name in theirs or any(other.startswith(name + "/") for other in theirs):
            found.add(name)
    return sorted(found, key=lambda name: (len(PurePosixPath(name).parts), name))


def remove_empty_folders(outdir, gone):
    """The folders of files the builder deleted, deepest first, where nothing is left in them."""
    folders = {up for name in gone for up in PurePosixPath(name).parents if str(up) != "."}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        path = outdir / folder
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()


def build(outdir, repository=None, force=False, fonts=True):
    """Build both editions into ``outdir`` (the English one at its root, the Chinese one in zh/);
    returns (outdir, the files of someone else's that --force replaced, images without alt text).

    Everything is checked before the build starts (the repository, OUTDIR, what is in it)."""
    outdir, repository = checked_outdir(outdir), repository_of(repository)
    ours, theirs = survey(outdir, force)
    require(fonts)
    with tempfile.TemporaryDirectory(prefix="handmade-site-") as work:
        built, missing = render(Path(work), repository, fonts)
        replaced = place(built, outdir, force, ours, theirs)
    return outdir, replaced, missing


# ---- the Chinese web font -----------------------------------------------------------------------

REBUILD_FONT = f"python3 tools/site.py --font {WQY}"


def characters(folder, skip=()):
    """The CJK characters of every page and script of a built site (scripts spell them \\uXXXX),
    but for the subfolders ``skip``."""
    found = set()
    for path in Path(folder).rglob("*"):
        if path.suffix in (".html", ".js") and path.relative_to(folder).parts[0] not in skip:
            text = path.read_text(encoding="utf-8")
            found |= set(CJK.findall(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)))
    return found


def font_gaps(folder, font=MASTER_FONT):
    """The CJK characters a built site shows that the site's master font lacks, sorted."""
    from fontTools.ttLib import TTFont

    drawn = TTFont(font, fontNumber=0).getBestCmap()
    return sorted(c for c in characters(folder) if ord(c) not in drawn)


def cut_font(edition):
    """The edition's own web font, in its _static: the master font cut to the characters the
    edition shows (WOFF2), so that a page downloads only those (English pages show three)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(MASTER_FONT)
    shown = [ord(c) for c in characters(edition, skip=("zh",)) if ord(c) in font.getBestCmap()]
    cutter = subset.Subsetter(subset.Options(name_IDs=["*"], drop_tables=["FFTM"]))  # keep names, licence
    cutter.populate(unicodes=shown or [ord("中")])
    cutter.subset(font)
    font.flavor = "woff2"
    font.save(edition / "_static" / SITE_FONT)


COMMON = 3500  # how many of the most frequent Chinese characters the font holds besides the site's


def common_characters(count=COMMON):
    """The ``count`` most frequent Chinese characters, by the frequencies of the words of jieba's
    dictionary (jieba splits the Chinese search's words; requirements-dev.txt pins it)."""
    import jieba

    frequency = Counter()
    with open(Path(jieba.__file__).parent / jieba.DEFAULT_DICT_NAME, encoding="utf-8") as dictionary:
        for word, number, *_rest in (line.split() for line in dictionary):
            frequency.update(dict.fromkeys((c for c in word if "\u4e00" <= c <= "\u9fff"), int(number)))
    return {c for c, _n in frequency.most_common(count)}


def font_source(value):
    """The font --font names, if it is a font with Chinese characters; else one line that says why."""
    try:
        path = file_name(value, "--font")
    except (TypeError, ValueError) as error:
        raise SiteError(str(error)) from None
    from fontTools.ttLib import TTFont

    shown, problem = shown_path(path), None
    if not path.exists():
        problem = _("--font '{path}' does not exist; give a font with Chinese characters, such as {example}")
    elif not path.is_file():
        problem = _("--font '{path}' is not a file; give a font with Chinese characters, such as {example}")
    else:
        try:  # a .ttc holds several faces; the first is the proportional one
            if ord("中") not in (TTFont(path, fontNumber=0, lazy=True).getBestCmap() or {}):
                problem = _("--font '{path}' has no Chinese characters; give one that has, such as {example}")
        except Exception as error:  # noqa: BLE001  (fontTools raises what the file's bytes make it raise)
            problem = _("--font '{path}' is not a font fontTools can read ({reason}); give one, such as {example}")
            problem = problem.replace("{reason}", reason(error).replace("{", "(").replace("}", ")"))
    if problem:
        raise SiteError(problem.format(path=shown, example=WQY))
    return path


def build_font(source):
    """Cut the site's master font from ``source``: the CJK characters of the built site (prose,
    outputs, the theme's and Sphinx's Chinese words) and the most common Chinese characters besides,
    so that new Chinese prose seldom needs a new font."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    source = font_source(source)
    require()
    with tempfile.TemporaryDirectory(prefix="handmade-font-") as work:
        shown = characters(build(Path(work) / "site", fonts=False)[0])
    font = TTFont(source, fontNumber=0)
    missing = sorted(c for c in shown if ord(c) not in font.getBestCmap())
    used = sorted((shown | common_characters()) - set(missing))
    cutter = subset.Subsetter(subset.Options(name_IDs=["*"], drop_tables=["FFTM"]))  # keep names, licence
    cutter.populate(unicodes=[ord(c) for c in used])
    cutter.subset(font)
    font.flavor = "woff"
    font.save(MASTER_FONT.with_suffix(".tmp"))
    MASTER_FONT.with_suffix(".tmp").replace(MASTER_FONT)
    note = f"; not in the source: {''.join(missing)}" if missing else ""
    return f"{MASTER_FONT.relative_to(ROOT)}: {len(used)} characters, {MASTER_FONT.stat().st_size // 1024} KB{note}"


# ---- the command line ---------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse, whose errors are one line (SiteError) rather than its usage and status 2."""

    def error(self, message):
        raise SiteError(_("{message} (see --help)").format(message=message))


def parser():
    found = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    what = found.add_mutually_exclusive_group(required=True)
    what.add_argument("outdir", nargs="?", help="the folder to build the site into")
    what.add_argument("--font", metavar="SOURCE", help="rebuild the master font from this font (wqy-microhei.ttc)")
    found.add_argument(
        "--repository", help=f"OWNER/NAME for the Binder and GitHub links (default {DEFAULT_REPOSITORY})"
    )
    found.add_argument(
        "--force", action="store_true", help="build into a folder that holds other files (they are kept)"
    )
    return found


def run(argv):
    """What the command does, as (the lines for stdout, status); SiteError for what stops it."""
    with _argparse_speaks():
        args = parser().parse_args(argv)
    if args.font is not None:
        if args.repository is not None or args.force:
            raise SiteError(_("--font rebuilds the font only: give it without --repository and --force"))
        return [build_font(args.font)], 0
    site, replaced, missing = build(args.outdir, args.repository, args.force)
    said = []
    if replaced:
        files = ", ".join(replaced[:5]) + (", ..." if len(replaced) > 5 else "")
        said.append(
            ngettext(
                "replaced {n} file that the site builder had not made: {files}",
                "replaced {n} files that the site builder had not made: {files}",
                len(replaced),
            ).format(n=len(replaced), files=files)
        )
    if missing:  # the pages read, but a screen reader hears a file name: tests/test_site.py fails
        cells = "; ".join(missing[:4]) + ("; ..." if len(missing) > 4 else "")
        said.append(f"{len(missing)} images have no alt text (tools/site/README.md says where it goes): {cells}")
    gaps = font_gaps(site)
    if gaps:  # the pages still read (the browser draws these with a font of its own); the test fails
        said.append(f"the site's Chinese font lacks {len(gaps)} characters ({''.join(gaps[:40])}): {REBUILD_FONT}")
    return [*said, str(site)], 0


def main(argv=None):
    """The command line; returns its status: 0 built, 1 the build failed, 2 bad input, 3 the site
    could not be written. Bad input is one line on stderr, in the learner's language."""
    set_language(from_environment() or "en")
    try:
        lines, status = run(sys.argv[1:] if argv is None else list(argv))
    except SiteError as error:
        print(_("{prog}: error: {error}").format(prog=PROG, error=clip(error)), file=sys.stderr)  # the line whole
        return error.status
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main())
