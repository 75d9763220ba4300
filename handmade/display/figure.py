"""A picture with the words that say what it shows, for a reader who cannot see it (WCAG 1.1.1).

``diagram`` draws the model as one, and ``plots.show_figure`` shows a matplotlib figure as one. Nothing here
needs matplotlib or IPython.
"""

import base64
import html

from ..arguments import brief, text_of
from ..i18n import _, tag

MAX_PICTURE = 10_000_000  # characters of words, or of SVG: what a notebook can still open


class Figure:
    """A picture with its text alternative ``alt``: an SVG drawing (``str``) or a PNG image (``bytes``).

    JupyterLab draws an image output as an ``<img>`` with no alt, and reads none from the output's
    metadata; so the picture comes as HTML too, ``<img alt>`` (JupyterLab prefers HTML, and shows it
    in a notebook not yet run, where it shows no SVG). Its image, with ``alt`` in the image's metadata
    (where the site and nbconvert read it), and ``alt`` as its text are there for everything else."""

    def __init__(self, picture, alt):
        if not isinstance(picture, (str, bytes)):
            raise TypeError(_("picture must be SVG text or PNG bytes; found {value}").format(value=brief(picture)))
        if len(picture) > MAX_PICTURE:
            raise ValueError(
                _("picture is {n} long; at most {limit} characters of SVG or bytes of PNG are allowed").format(
                    n=len(picture), limit=MAX_PICTURE
                )
            )
        self.picture, self.alt = picture, text_of(alt, "alt", MAX_PICTURE)
        if not self.alt.strip():
            raise ValueError(_("alt is empty: say in words what the picture shows"))
        self.kind = "image/svg+xml" if isinstance(picture, str) else "image/png"
        self.lang = tag()  # the language of alt, which a page of another reads it in

    def _repr_mimebundle_(self, include=None, exclude=None):
        raw = self.picture.encode() if isinstance(self.picture, str) else self.picture
        source = f"data:{self.kind};base64,{base64.b64encode(raw).decode('ascii')}"
        alt = html.escape(" ".join(self.alt.split()), quote=True)
        twin = f'<img class="{FIGURE_CLASS}" lang="{self.lang}" alt="{alt}" src="{source}">'
        image = self.picture if isinstance(self.picture, str) else base64.b64encode(self.picture).decode("ascii")
        data = {"text/html": twin, self.kind: image, "text/plain": self.alt}
        return data, {self.kind: {"alt": self.alt}}

    def __repr__(self):
        return self.alt


FIGURE_CLASS = "hm-figure"  # the <img> of a Figure: what the site replaces by the image it was made from
