"""A picture with the words that say what it shows, for a reader who cannot see it (WCAG 1.1.1).

``diagram`` draws the model as one, and ``plots.show_figure`` shows a matplotlib figure as one. Nothing here
needs matplotlib or IPython.
"""

import base64
import html
import re

from ..arguments import SURROGATE, brief, text_of, whole
from ..i18n import _, tag

MAX_PICTURE = 10_000_000  # characters of words, or of SVG: what a notebook can still open


class Figure:
    """A picture with its text alternative ``alt``: an SVG drawing (``str``) or a PNG image (``bytes``), drawn at
    most ``width`` pixels wide (None: the image's own size; an SVG drawn to fill its line has none).

    JupyterLab draws an image output as an ``<img>`` with no alt, and reads none from the output's
    metadata; so the picture comes as HTML too, ``<img alt>`` (JupyterLab prefers HTML, and shows it
    in a notebook not yet run, where it shows no SVG). Its image, with ``alt`` in the image's metadata
    (where the site and nbconvert read it), and ``alt`` as its text are there for everything else."""

    def __init__(self, picture, alt, width=None):
        self.picture, self.kind = _picture(picture), "image/svg+xml" if isinstance(picture, str) else "image/png"
        self.alt = checked_alt(alt)
        self.width = None if width is None else whole(width, "width", 1, MAX_PIXELS)
        self.lang = tag()  # the language of alt, which a page of another reads it in

    def _repr_mimebundle_(self, include=None, exclude=None):
        svg = isinstance(self.picture, str)
        encoded = base64.b64encode(self.picture.encode() if svg else self.picture).decode("ascii")
        alt = html.escape(" ".join(self.alt.split()), quote=True)
        width = "" if self.width is None else f' width="{self.width}"'  # at most: a narrower line shrinks it
        twin = f'<img class="{FIGURE_CLASS}" lang="{self.lang}" alt="{alt}"{width} src="data:{self.kind};base64,{encoded}">'
        data = {"text/html": twin, self.kind: self.picture if svg else encoded, "text/plain": self.alt}
        return data, {self.kind: {"alt": self.alt}}

    def __repr__(self):
        return self.alt


FIGURE_CLASS = "hm-figure"  # the <img> of a Figure: what the site replaces by the image it was made from
MAX_PIXELS = 10_000  # pixels
PNG = b"\x89PNG\r\n\x1a\n"  # how every PNG file begins


def checked_alt(alt):
    """``alt`` if it can be a picture's words: a string of at most MAX_PICTURE characters that a page can show, not
    blank; else TypeError or ValueError naming alt."""
    alt = _shown(text_of(alt, "alt", MAX_PICTURE), "alt")
    if not alt.strip():
        raise ValueError(_("alt is empty: say in words what the picture shows"))
    return alt


def _picture(picture):
    """``picture`` if it is SVG text (holding an <svg> element) or PNG bytes, of at most MAX_PICTURE."""
    if not isinstance(picture, (str, bytes)):
        raise TypeError(_("picture must be SVG text or PNG bytes; found {value}").format(value=brief(picture)))
    if len(picture) > MAX_PICTURE:
        raise ValueError(
            _("picture is {n} long; at most {limit} characters of SVG or bytes of PNG are allowed").format(
                n=len(picture), limit=MAX_PICTURE
            )
        )
    if not (re.search(r"<svg\b", _shown(picture, "picture")) if isinstance(picture, str) else picture.startswith(PNG)):
        raise ValueError(
            _("picture must be SVG text (with an <svg> element) or PNG bytes (a PNG file's); found {value}").format(
                value=brief(picture[:40])
            )
        )
    return picture


def _shown(text, name):
    """``text`` if a page can show every character of it: no control character (but tab, line feed and carriage
    return) and no lone half of a surrogate pair, which UTF-8 cannot write."""
    bad = UNSHOWABLE.search(text)
    if bad:
        raise ValueError(
            _("{name} has a character no page can show, {char}, at {index}").format(
                name=name, char=ascii(bad[0]), index=bad.start()
            )
        )
    return text


UNSHOWABLE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f]|{SURROGATE.pattern}")  # controls but \t \n \r; half a character
