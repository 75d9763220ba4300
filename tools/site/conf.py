"""The Sphinx configuration of one edition of the website, shared by both (see tools/site.py).

tools/site.py copies this file into each edition's source folder, beside ``site.json``, which holds
what differs between the editions: the language, the title, and each page's header (the switch to
its twin, the Binder link and the commands that run it locally).
"""

import json
import logging
from pathlib import Path

import jieba

SITE = json.loads((Path(__file__).parent / "site.json").read_text(encoding="utf-8"))

project = "handmade"
author = "handmade"
language = SITE["language"]
html_title = SITE["title"]
root_doc = "index"
extensions = ["myst_nb", "sphinx.ext.githubpages"]  # the latter writes .nojekyll: _static/ is served
exclude_patterns = ["site.json"]

# Furo ships its styles and scripts in its wheel and asks for no web font; tools/site/static adds
# the site's own CSS and Chinese font, tools/site/templates the header of every page.
html_theme = "furo"
html_static_path = [SITE["static"]]
templates_path = [SITE["templates"]]
html_css_files = ["site.css"]
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
# page asks for anything that is not on the site.
nb_execution_mode = "off"
nb_ipywidgets_js = {}

# Sphinx's Chinese search splits the text into words with jieba (tools/site.py requires it): quietly.
jieba.setLogLevel(logging.WARNING)


def add_header(app, pagename, templatename, context, doctree):
    """Give the templates the page's header (from site.json): the twin, Binder, the local commands."""
    context["hm_header"] = SITE["headers"].get(pagename, "")


def setup(app):
    """Register the header."""
    app.connect("html-page-context", add_header)
    return {"parallel_read_safe": True}
