"""The Sphinx configuration of one edition of the website, shared by both (see tools/site.py).

tools/site.py copies this file into each edition's source folder, beside ``site.json``, which holds
what differs between the editions: the language, the title, each page's header (the switch to its
twin, the Binder link and the commands that run it locally) and description, and the words of the
site's own controls; and, for the Chinese edition, ``locale/``: the theme's words Sphinx does not
translate.
"""

import html
import json
import logging
from pathlib import Path

import jieba
from myst_nb.sphinx_ import HideCodeCellNode

SITE = json.loads((Path(__file__).parent / "site.json").read_text(encoding="utf-8"))

project = "handmade"
author = "handmade"
language = SITE["language"]
locale_dirs = [
    str(Path(__file__).parent / "locale")
]  # Furo's words ("Skip to content", "Next", ...) and search's, where Sphinx lacks them
html_title = SITE["title"]
root_doc = "index"
extensions = ["myst_nb", "sphinx.ext.githubpages"]  # the latter writes .nojekyll: _static/ is served
exclude_patterns = ["site.json", "locale"]

# Furo ships its styles and scripts in its wheel and asks for no web font; tools/site/static adds
# the site's own CSS and script (keyboard access to the sidebars, scrolling boxes a keyboard can
# reach), tools/site/templates the header of every page and the footer's order.
html_theme = "furo"
html_static_path = [SITE["static"]]
templates_path = [SITE["templates"]]
html_css_files = ["site.css"]
html_js_files = [("site.js", {"defer": "defer"})]
html_favicon = str(Path(SITE["static"]) / "favicon.svg")  # else the browser asks for /favicon.ico: a 404
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False
html_show_copyright = False
html_theme_options = {"announcement": "header"}  # shown: templates/page.html puts each page's header there
html_use_index = False  # nothing is indexed: no empty index page
html_last_updated_fmt = None

# The committed outputs are the pages: nothing runs. tools/site.py has already left out what would
# load @jupyter-widgets or MathJax from a CDN (widget views, LaTeX); tests/test_site.py fails if a
# page asks for anything that is not on the site. A folded cell's toggle speaks the edition's language.
nb_execution_mode = "off"
nb_ipywidgets_js = {}
nb_code_prompt_show = SITE["labels"]["show_code"]
nb_code_prompt_hide = SITE["labels"]["hide_code"]

# Sphinx's Chinese search splits the text into words with jieba (tools/site.py requires it): quietly.
jieba.setLogLevel(logging.WARNING)


def add_page_settings(app, pagename, templatename, context, doctree):
    """Give the templates the page's header and the site's labels (from site.json), and the page its
    meta description."""
    context["hm_header"] = SITE["headers"].get(pagename, "")
    context["hm_labels"] = json.dumps(SITE["labels"], ensure_ascii=False).replace("</", "<\\/")
    description = SITE["descriptions"].get(pagename)
    if description:
        context["metatags"] = context.get("metatags", "") + (
            f'\n<meta name="description" content="{html.escape(description, quote=True)}">'
        )


def visit_folded_cell(self, node):
    """A folded cell's toggle as MyST-NB draws it, but named by the words it shows (MyST-NB's own
    aria-label, "Toggle hidden content", is English on both editions and says less)."""
    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{html.escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{html.escape(node["prompt_hide"])}</p>\n</summary>\n')


def depart_folded_cell(self, node):
    self.body.append("</details>\n")


def setup(app):
    """Register the page settings, and the folded cell's toggle."""
    app.connect("html-page-context", add_page_settings)
    app.add_node(HideCodeCellNode, override=True, html=(visit_folded_cell, depart_folded_cell))
    return {"parallel_read_safe": True}
