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

rebuilds the site's Chinese web font (tools/site/static/handmade-site-cjk.woff), the characters the
pages use and no others, cut from WenQuanYi Micro Hei (Debian's fonts-wqy-microhei, Apache-2.0; see
tools/site/README.md). Run it after the Chinese prose gains characters (tests/test_site.py says when).
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tools" / "site"
FONT = HERE / "static" / "handmade-site-cjk.woff"
DEFAULT_REPOSITORY = "handmade-course/handmade"
BINDER = "https://mybinder.org/v2/gh/{repository}/main?urlpath=lab/tree/{path}"
EDITIONS = {"en": "notebooks", "zh": "notebooks/zh"}  # the site puts each at the same place under OUTDIR
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


def rewrite_links(source, notebook, repository):
    """A markdown cell's links, for the site: a notebook of the same edition stays a link between
    pages; one of the other edition becomes a link to its page; any other file of the repository a
    link to it on GitHub. Code spans and links with a scheme or only an anchor are left alone."""
    here = notebook.parent.relative_to(ROOT).as_posix()

    def rewrite(match):
        text, target = match.group(2), match.group(3)
        if match.group(1) or re.match(r"[a-zA-Z][\w+.-]*:|#", target):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        file = ROOT / posixpath.normpath(posixpath.join(here, path))
        if file.suffix == ".ipynb" and file.parent == notebook.parent:
            return match.group(0)
        if file.suffix == ".ipynb" and file.parent.relative_to(ROOT).as_posix() in EDITIONS.values():
            href = link_from(site_path(notebook), site_path(file)) + hash_ + anchor
            return f'<a href="{html.escape(href)}">{text}</a>'
        kind = "tree" if file.is_dir() else "blob"
        return (
            f"[{text}](https://github.com/{repository}/{kind}/main/{file.relative_to(ROOT).as_posix()}{hash_}{anchor})"
        )

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


def site_notebook(notebook, edition, repository):
    """The notebook as the site shows it: links rewritten, SVG drawn inline (so that its Chinese
    labels use the page's font), widgets and LaTeX as their text, and a title where it has none.
    Its outputs are the stored ones: nothing runs."""
    import nbformat

    book = nbformat.read(notebook, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(cell.source, notebook, repository)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/svg+xml" in data and "text/html" not in data:
                data["text/html"] = data["image/svg+xml"]
            for kind in DROPPED:
                data.pop(kind, None)
    if not has_title(book.cells):
        book.cells.insert(0, nbformat.v4.new_markdown_cell(fallback_title(notebook, edition)))
    return book


def index_page(edition):
    """The edition's first page, from the README: its introduction and its table of the notebooks
    (linking to the pages), then the series as the sidebar's table of contents (hidden here)."""
    section = readme_section("What this is") if edition == "en" else readme_section("中文")
    prose = [p for p in section.split("\n\n") if not p.startswith(("```", "|"))]
    table = readme_section("The notebooks" if edition == "en" else "中文")
    rows = [line for line in table.splitlines() if line.startswith("|")]
    rows = [re.sub(r"\(notebooks/(?:zh/)?(\d\d_\w+\.ipynb)\)", r"(\1)", row) for row in rows]
    toctree = ["```{toctree}", ":hidden:", ":maxdepth: 1", "", *(n.stem for n in notebooks(edition)), "```"]
    return "\n\n".join([f"# {LABELS[edition]['title']}", *prose, "\n".join(rows), "\n".join(toctree)]) + "\n"


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
    """Every page's header, by page name: the notebooks', the first page's, search's and the index's."""
    folder = "" if edition == "en" else "zh"
    found = {n.stem: header(site_path(n), edition, repository, n) for n in notebooks(edition)}
    found["index"] = header(posixpath.join(folder, "index.html"), edition, repository, notebooks(edition)[0])
    for page in ("search", "genindex"):
        found[page] = header(posixpath.join(folder, page + ".html"), edition, repository)
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
        "headers": headers(edition, repository),
    }
    (folder / "site.json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    (folder / "index.md").write_text(index_page(edition), encoding="utf-8")
    for notebook in notebooks(edition):
        nbformat.write(site_notebook(notebook, edition, repository), folder / notebook.name)


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


# The blocks the site's font covers (its CSS says the same in unicode-range): CJK radicals, symbols,
# punctuation and ideographs, compatibility ideographs and forms, and full-width forms.
CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def cjk(text):
    """The CJK characters of a text, as a set."""
    return set(CJK.findall(text))


def shown_text(notebook):
    """What of a notebook is shown as text on its page: its markdown and its text outputs (stream,
    plain text, HTML, SVG), but not what the page leaves out (DROPPED)."""
    import nbformat

    for cell in nbformat.read(notebook, as_version=4).cells:
        yield cell.source if cell.cell_type == "markdown" else ""
        for output in cell.get("outputs", []):
            yield output.get("text", "")
            yield from (
                v
                for k, v in output.get("data", {}).items()
                if k not in DROPPED and isinstance(v, str) and k != "image/png"
            )


def characters(folder):
    """The CJK characters of every page and script under ``folder`` (a built site)."""
    return {
        c
        for path in Path(folder).rglob("*")
        if path.suffix in (".html", ".js")
        for c in cjk(path.read_text(encoding="utf-8"))
    }


def build_font(source):
    """Cut the site's web font from ``source``: the CJK characters of the built site (prose, outputs,
    the theme's and Sphinx's Chinese words) and of the Chinese notebooks, and no others."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    with tempfile.TemporaryDirectory(prefix="handmade-font-") as work:
        used = characters(build(Path(work) / "site"))
    used |= {c for notebook in notebooks("zh") for text in shown_text(notebook) for c in cjk(text)}
    font = TTFont(source, fontNumber=0)  # a .ttc holds several faces; the first is the proportional one
    missing = sorted(c for c in used if ord(c) not in font.getBestCmap())
    options = subset.Options(name_IDs=["*"], flavor="woff")  # keep the names and licence notice
    cutter = subset.Subsetter(options)
    cutter.populate(unicodes=[ord(c) for c in used])
    cutter.subset(font)
    font.flavor = "woff"
    font.save(FONT.with_suffix(".tmp"))
    FONT.with_suffix(".tmp").replace(FONT)
    note = f"; not in the source: {''.join(missing)}" if missing else ""
    return f"{FONT.relative_to(ROOT)}: {len(used) - len(missing)} characters, {FONT.stat().st_size // 1024} KB{note}"


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
    print(build(args.outdir, args.repository))


if __name__ == "__main__":
    main()
