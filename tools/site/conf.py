"""The Sphinx configuration of one edition of the website, shared by both (see tools/site.py).

tools/site.py copies this file into each edition's source folder, beside ``site.json``, which holds
what differs between the editions: the language, the title, and each page's header (the switch to
its twin, the Binder link and the commands that run it locally).
"""

import json
import logging
from pathlib import Path

SITE = json.loads((Path(__file__).parent / "site.json").read_text(encoding="utf-8"))

project = "handmade"
author = "handmade"
language = SITE["language"]
html_title = SITE["title"]
root_doc = "index"
extensions = ["myst_nb"]
exclude_patterns = ["site.json"]

html_theme = "furo"
html_static_path = [SITE["static"]]
html_css_files = ["site.css"]
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False
html_last_updated_fmt = None

# The committed outputs are the pages: nothing runs. tools/site.py has already left out what would
# load @jupyter-widgets or MathJax from a CDN (widget views, LaTeX); tests/test_site.py fails if a
# page asks for anything that is not on the site.
nb_execution_mode = "off"
nb_ipywidgets_js = {}

try:  # Sphinx's Chinese search splits the text into words with jieba: quietly
    import jieba

    jieba.setLogLevel(logging.WARNING)
except ImportError:  # then the Chinese edition's search finds only words in Latin letters
    pass


def add_header(app, pagename, templatename, context, doctree):
    """Put the page's header (from site.json) above its body: the twin, Binder, the local commands."""
    header = SITE["headers"].get(pagename)
    if header and "body" in context:
        context["body"] = header + context["body"]


def setup(app):
    """Register the header."""
    app.connect("html-page-context", add_header)
    return {"parallel_read_safe": True}
