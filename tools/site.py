"""Build the series as a static website, both editions, from the committed, executed notebooks:
nothing is run again (Sphinx with MyST-NB, execution off).

    python3 tools/site.py OUTDIR [--repository OWNER/NAME]

Every notebook becomes a page with its stored outputs (tables, heatmaps, diagrams, and the static
snapshot after each widget); a sidebar follows the series from 00 to 21; each edition has its own
search; every page links to its twin in the other edition, to Binder and to GitHub, and shows the
README's two commands. The English edition is OUTDIR/, the Chinese one OUTDIR/zh/. The Binder and
GitHub links name the repository given by --repository, else by $HANDMADE_SITE_REPOSITORY, else
handmade-course/handmade: a fork sets its own there. Nothing is fetched from the network when the
site is built or read (tests/test_site.py checks both).

    python3 tools/site.py --font /usr/share/fonts/truetype/wqy/wqy-microhei.ttc

rebuilds the site's Chinese web font (tools/site/static/handmade-site-cjk.woff): the characters the
pages use and the 3,500 most common Chinese characters, cut from WenQuanYi Micro Hei (Debian's
fonts-wqy-microhei, Apache-2.0; see tools/site/README.md). Run it when the Chinese prose gains a
character the font lacks (the build says so, and tests/test_site.py fails).
"""

import argparse
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tools" / "site"
FONT = HERE / "static" / "handmade-site-cjk.woff"
WQY = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"  # Debian's fonts-wqy-microhei
DEFAULT_REPOSITORY = "handmade-course/handmade"
BINDER = "https://mybinder.org/v2/gh/{repository}/main?urlpath=lab/tree/{path}"
EDITIONS = {"en": "notebooks", "zh": "notebooks/zh"}  # the site puts each at the same place under OUTDIR
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
    },
}


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


def has_title(cells):
    """Whether a markdown cell has a level-1 heading (outside fenced code), the page's title."""
    text = LINK.sub(
        lambda m: "" if m.group(1) else m.group(0), "\n".join(c.source for c in cells if c.cell_type == "markdown")
    )
    return re.search(r"^# \S", text, re.M) is not None


def fallback_title(notebook, edition):
    """A title for a notebook that has none: its number and what the README's table calls it (the
    Chinese table's words before '：'), else its name."""
    words = notebook.stem[3:].replace("_", " ").capitalize()
    if edition == "zh":
        row = re.search(rf"^\| \[{notebook.stem}\]\(.+?\) \| ([^|：]+)：", readme_section("中文"), re.M)
        words = row.group(1).strip() if row else words
    return f"# {notebook.stem[:2]} · {words}"


# What a page leaves out of an output, for the text beside it: a widget's view, which would load
# @jupyter-widgets from a CDN (the notebooks store no widget state; the snapshot after each widget
# is its static view), and LaTeX, which would load MathJax from a CDN (each LaTeX table has a text one).
DROPPED = ("application/vnd.jupyter.widget-view+json", "text/latex")
# A widget's snapshot, folded away in the notebook (where the live widget is above it): open on the site.
SNAPSHOT = re.compile(r"<details class=(['\"])hm-snapshot\1")


def site_output(output):
    """An output as the site shows it: SVG drawn inline (so that its Chinese labels use the page's
    font), widgets and LaTeX as their text, a widget's snapshot open."""
    data = output.get("data", {})
    if "image/svg+xml" in data and "text/html" not in data:
        data["text/html"] = data["image/svg+xml"]
    for kind in DROPPED:
        data.pop(kind, None)
    if "text/html" in data:
        data["text/html"] = SNAPSHOT.sub(r"\g<0> open", "".join(data["text/html"]))


def site_notebook(notebook, edition, repository):
    """The notebook as the site shows it: links rewritten, outputs as ``site_output`` makes them, and
    a title where it has none. Its outputs are the stored ones: nothing runs."""
    import nbformat

    book = nbformat.read(notebook, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(cell.source, notebook.parent, site_path(notebook), repository)
        for output in cell.get("outputs", []):
            site_output(output)
    if not has_title(book.cells):
        book.cells.insert(0, nbformat.v4.new_markdown_cell(fallback_title(notebook, edition)))
    return book


def unwrap(paragraph):
    """A README paragraph on one line: a line break beside Chinese goes, one between words is a space."""
    return re.sub(rf"(?<={CJK.pattern})\n|\n(?={CJK.pattern})", "", paragraph).replace("\n", " ")


def index_page(edition, repository):
    """The edition's first page, from the README: its introduction (the first paragraph of the
    Chinese section, which then speaks to translators and teachers) and its table of the notebooks,
    then the series as the sidebar's table of contents (hidden here)."""
    section = readme_section("What this is" if edition == "en" else "中文")
    prose = [unwrap(p) for p in section.split("\n\n") if not p.startswith(("```", "|"))]
    prose = prose if edition == "en" else prose[:1]
    table = readme_section("The notebooks" if edition == "en" else "中文")
    rows = "\n".join(line for line in table.splitlines() if line.startswith("|"))
    toctree = ["```{toctree}", ":hidden:", ":maxdepth: 1", "", *(n.stem for n in notebooks(edition)), "```"]
    text = "\n\n".join([f"# {LABELS[edition]['title']}", *prose, rows, "\n".join(toctree)]) + "\n"
    return rewrite_links(text, ROOT, "index.html" if edition == "en" else "zh/index.html", repository)


def header(page, edition, repository, notebook=None):
    """A page's header: its twin in the other edition, and for a notebook (the first one on the
    first page) Binder, GitHub and the README's two commands with this notebook in the first."""
    labels, other = LABELS[edition], "zh" if edition == "en" else "en"
    twin = link_from(page, posixpath.join("zh" if other == "zh" else "", posixpath.basename(page)))
    parts = [f'<a class="hm-twin" href="{twin}" hreflang="{other}" lang="{other}">{labels["twin"]}</a>']
    if notebook is not None:
        path = notebook.relative_to(ROOT).as_posix()
        launch, tests = readme_commands()
        launch = launch.replace("notebooks/00_start_here.ipynb", path)
        github = f'<a href="https://github.com/{repository}">{repository}</a>'
        parts += [
            f'<a class="hm-binder" href="{html.escape(BINDER.format(repository=repository, path=path))}">{labels["binder"]}</a>',
            f'<a class="hm-github" href="https://github.com/{repository}/blob/main/{path}">{labels["github"]}</a>',
            f'<details class="hm-local"><summary>{labels["local"]}</summary>'
            f"<p>{labels['clone'].format(repository=github)}</p><pre>{html.escape(launch)}</pre>"
            f"<p>{labels['tests']}</p><pre>{html.escape(tests)}</pre></details>",
        ]
    return f'<div class="hm-header">{"".join(parts)}</div>'


def headers(edition, repository):
    """Every page's header, by page name: the notebooks', the first page's and search's."""
    folder = "" if edition == "en" else "zh"
    found = {n.stem: header(site_path(n), edition, repository, n) for n in notebooks(edition)}
    found["index"] = header(posixpath.join(folder, "index.html"), edition, repository, notebooks(edition)[0])
    found["search"] = header(posixpath.join(folder, "search.html"), edition, repository)
    return found


def write_sources(folder, edition, repository):
    """The edition's Sphinx project in ``folder``: conf.py, site.json, the first page, the notebooks."""
    import nbformat

    folder.mkdir(parents=True)
    shutil.copy(HERE / "conf.py", folder / "conf.py")
    settings = {
        "language": LABELS[edition]["language"],
        "title": LABELS[edition]["title"],
        "static": str(HERE / "static"),
        "templates": str(HERE / "templates"),
        "headers": headers(edition, repository),
    }
    (folder / "site.json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    (folder / "index.md").write_text(index_page(edition, repository), encoding="utf-8")
    for notebook in notebooks(edition):
        nbformat.write(site_notebook(notebook, edition, repository), folder / notebook.name)


def require():
    """Stop with the command that installs them if the site's packages are missing."""
    from importlib.util import find_spec

    missing = [name for name in ("sphinx", "myst_nb", "furo", "jieba", "fontTools") if find_spec(name) is None]
    if missing:
        sys.exit(f"the site needs {', '.join(missing)}: python3 -m pip install -r requirements-dev.txt")


def sphinx(source, out, doctrees):
    """Start Sphinx on one edition (in a process of its own, so that both editions build at once)."""
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going", "-d", str(doctrees)]
    return subprocess.Popen([*command, str(source), str(out)])


def build(outdir, repository=None):
    """Build both editions into ``outdir`` (the English one at its root, the Chinese one in zh/).

    ``outdir`` may exist only as a site built before (it holds Sphinx's .buildinfo): it is replaced."""
    outdir, repository = Path(outdir), repository or os.environ.get("HANDMADE_SITE_REPOSITORY") or DEFAULT_REPOSITORY
    if outdir.exists() and any(outdir.iterdir()) and not (outdir / ".buildinfo").exists():
        sys.exit(f"{outdir} is not empty and is not a site built before: give a new or empty folder")
    require()
    with tempfile.TemporaryDirectory(prefix="handmade-site-") as work:
        work = Path(work)
        builds = {}
        for edition in EDITIONS:
            write_sources(work / "src" / edition, edition, repository)
            builds[edition] = sphinx(work / "src" / edition, work / "out" / edition, work / "doctrees" / edition)
        failed = [edition for edition, process in builds.items() if process.wait() != 0]
        if failed:
            sys.exit(f"Sphinx failed on the {' and '.join(failed)} edition (its messages are above)")
        shutil.rmtree(outdir, ignore_errors=True)
        shutil.move(str(work / "out" / "en"), str(outdir))
        shutil.move(str(work / "out" / "zh"), str(outdir / "zh"))
    return outdir


# ---- the Chinese web font -----------------------------------------------------------------------

REBUILD_FONT = f"python3 tools/site.py --font {WQY}"


def characters(folder):
    """The CJK characters of every page and script of a built site (scripts spell them \\uXXXX)."""
    found = set()
    for path in Path(folder).rglob("*"):
        if path.suffix in (".html", ".js"):
            text = path.read_text(encoding="utf-8")
            found |= set(CJK.findall(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)))
    return found


def font_gaps(folder, font=FONT):
    """The CJK characters a built site shows that the site's web font lacks, sorted."""
    from fontTools.ttLib import TTFont

    drawn = TTFont(font, fontNumber=0).getBestCmap()
    return sorted(c for c in characters(folder) if ord(c) not in drawn)


COMMON = 3500  # how many of the most frequent Chinese characters the font holds besides the site's


def common_characters(count=COMMON):
    """The ``count`` most frequent Chinese characters, by the frequencies of the words of jieba's
    dictionary (jieba splits the Chinese search's words; requirements-dev.txt pins it)."""
    import jieba

    frequency = Counter()
    with open(Path(jieba.__file__).parent / jieba.DEFAULT_DICT_NAME, encoding="utf-8") as dictionary:
        for word, number, *_ in (line.split() for line in dictionary):
            frequency.update(dict.fromkeys((c for c in word if "\u4e00" <= c <= "\u9fff"), int(number)))
    return {c for c, _ in frequency.most_common(count)}


def build_font(source):
    """Cut the site's web font from ``source``: the CJK characters of the built site (prose, outputs,
    the theme's and Sphinx's Chinese words) and the most common Chinese characters besides, so that
    new Chinese prose seldom needs a new font."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    with tempfile.TemporaryDirectory(prefix="handmade-font-") as work:
        shown = characters(build(Path(work) / "site"))
    font = TTFont(source, fontNumber=0)  # a .ttc holds several faces; the first is the proportional one
    missing = sorted(c for c in shown if ord(c) not in font.getBestCmap())
    used = sorted((shown | common_characters()) - set(missing))
    cutter = subset.Subsetter(subset.Options(name_IDs=["*"], drop_tables=["FFTM"]))  # keep names, licence
    cutter.populate(unicodes=[ord(c) for c in used])
    cutter.subset(font)
    font.flavor = "woff"
    font.save(FONT.with_suffix(".tmp"))
    FONT.with_suffix(".tmp").replace(FONT)
    note = f"; not in the source: {''.join(missing)}" if missing else ""
    return f"{FONT.relative_to(ROOT)}: {len(used)} characters, {FONT.stat().st_size // 1024} KB{note}"


def main(argv=None):
    """The command line: build the site, or (--font) its Chinese web font."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", nargs="?", help="the folder to build the site into")
    parser.add_argument(
        "--repository", help=f"OWNER/NAME for the Binder and GitHub links (default {DEFAULT_REPOSITORY})"
    )
    parser.add_argument("--font", metavar="SOURCE", help="rebuild the web font from this font (wqy-microhei.ttc)")
    args = parser.parse_args(argv)
    if args.font:
        return print(build_font(args.font))
    if not args.outdir:
        parser.error("give OUTDIR (or --font SOURCE)")
    site = build(args.outdir, args.repository)
    gaps = font_gaps(site)
    if gaps:  # the pages still read (the browser draws these with a font of its own); the test fails
        print(f"the site's Chinese font lacks {len(gaps)} characters ({''.join(gaps[:40])}): {REBUILD_FONT}")
    print(site)


if __name__ == "__main__":
    main()
