"""What the playground shows of the blog's model: its options, kept out of the generic playground.

The blog's notebooks open ``blog_playground()``: the blog's model on the context ``aabaa``, scored
by the blog's accuracy test on (aab)*, with c_proj's strength Lg as a control (the blog's rule
for c_proj at any Lg), and "break it" starting on the Lg that writes b.
"""

from ..blog import LG, blog_model
from ..i18n import N_, _
from ..inference import accuracy
from ..parts import with_parts
from .playground import Playground, Strength


class BlogScore:
    """The blog's accuracy on (aab)*: the score the playground shows for the blog's model."""

    @property
    def label(self):
        """The score's label, ending with its own separator as a task's does ("aab:"), in the language of the moment."""
        # TRANSLATORS: the label before the blog's accuracy in the playground's bar, "(aab)*: ACCURACY: 100.0% (27 / 27)"
        return _("{pattern}:").format(pattern="(aab)*")

    def __call__(self, params):
        score = accuracy(params)
        misses = [
            _("missed: {context} → expected {expected}, got {got}").format(
                context=e.context, expected=e.expected, got=got
            )
            for e, got in score.failures[:4]
        ]
        return score.perfect, str(score), misses


def with_lg(params, lg):
    """``params`` with c_proj set by the blog's rule at strength ``lg``."""
    c_proj = blog_model(proj_lg=lg)["blocks"][0]["attn"]["c_proj"]
    return with_parts(params, {"c_proj.w": c_proj["w"], "c_proj.b": c_proj["b"]})


def lg_of(params):
    """The Lg whose rule ``params``'s c_proj may follow: its bias towards Ta (the playground checks that the
    rule at it gives these very weights back); None when it has no bias called Ta."""
    from ..display.trace import table

    try:
        return float(table(params, "c_proj.b")["Ta"][0])
    except ValueError:  # UnknownName too: weights of this shape whose labels name no Ta
        return None


def lg_strength():
    done = _(N_("c_proj set to the blog's rule with Lg = {value}"))
    return Strength("lg", _("c_proj Lg"), LG, with_lg, "c_proj", done, read=lg_of)


def blog_playground(params=None, **options):
    """A ``Playground`` of the blog's model (or ``params`` of its shape) with the blog's options;
    any option given here replaces the blog's. "break it" starts on c_proj.w[V, Tb] where the model
    has that weight and a grid for it."""
    params = blog_model() if params is None else params
    blog = dict(text="aabaa", score=BlogScore(), strength=None, break_at=None)
    if _has_blogs_c_proj(params):  # Lg sets it, and "break it" starts on its weight that writes b
        edit = options.get("edit")
        blog.update(strength=lg_strength(), break_at=("c_proj.w", "V", "Tb"))
        if isinstance(edit, (list, tuple)) and "c_proj.w" not in edit:
            blog["break_at"] = None
    blog["save_path"] = "blog_model.json"  # its own file: a task's playground saves to the task's
    return Playground(params, **{**blog, **options})


def _has_blogs_c_proj(params):
    """Whether ``params`` has a c_proj.w of the blog's shape and names (one block, a row V, a column Tb)."""
    from ..display.trace import table

    try:
        found = table(params, "c_proj.w")
    except ValueError:  # not a model with one c_proj (the Playground says what is wrong with it)
        return False
    return found.shape == (8, 8) and "V" in found.rows and "Tb" in found.cols
