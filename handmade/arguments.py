"""What a public function is given, checked where it comes in: one rule for every error it raises.

A ``TypeError`` when an argument is of the wrong kind (None or text where a number is wanted, a
float where a whole number is, something that cannot be called where a function is); a
``ValueError`` when it is of the right kind but not allowed (a negative count, an unknown name;
weights that do not fit are a ``WeightsError``, a ValueError too). Each message is one line of at
most ``MAX_MESSAGE`` characters that names the argument, what is allowed and what was found, and
only what was found is cut short (``brief``, ``shown_path``), so that the reason and the allowed
values always fit.

The maths (``gpt()`` and its parts, their backward twins, the loss) trusts its arrays, as picoGPT
does: the functions that take things from people check them first.
"""

import numbers
import os
import re
from pathlib import Path

import numpy as np

from .i18n import _, listed, ngettext

NUMBER_KINDS = "iuf"  # numpy's kinds for integers and floats: not booleans, complex numbers or text
MAX_MESSAGE = 200  # characters of an error message: enough to name the problem, never a wall of text
SHOWN_PATH = 40  # characters of a file name quoted in a message: its start and its end


class UnknownName(ValueError, KeyError):
    """A name that names nothing here, or more than one thing: a ValueError like every wrong value,
    and a KeyError too, so that mappings keyed by names (a trace) keep Python's ``in`` and ``.get``."""

    def __str__(self):  # KeyError would quote the sentence
        return str(self.args[0]) if self.args else ""


def brief(value, limit=60):
    """``repr(value)`` cut to ``limit`` characters, for messages (numpy numbers shown plainly)."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fmt(x, digits=4):
    """A number as people write it: 1024, 0.5, -1, 0.3333, -1e+10 (and 0 for -0.0)."""
    x = float(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    if abs(x) < 1e-9:
        return "≈0"  # not exactly zero, but too small to matter (e^-362 in the blog's attention)
    if x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.{digits}g}"


def few(names, between=None, limit=80):
    """``names`` joined for a message (by ``between``, else as the language lists), as many whole
    names as fit in ``limit`` characters, then how many more there are: never a name cut in two."""
    names = [str(n) for n in names]
    for count in range(len(names), 0, -1):
        shown, more = (listed if between is None else between.join)(names[:count]), len(names) - count
        if more:
            shown = ngettext("{names} and {n} more", "{names} and {n} more", more).format(names=shown, n=more)
        if len(shown) <= limit:
            return shown
    return ngettext("{n} name", "{n} names", len(names)).format(n=len(names)) if names else ""


def is_whole(value):
    """An int or numpy integer, never a boolean."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def yes_or_no(value, name):
    """TypeError unless ``value`` is True or False (a truthy 1 or "no" is not a switch's answer)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(_("{name} must be True or False; found {value}").format(name=name, value=brief(value)))
    return bool(value)


def is_real(value):
    """A real number (an int, a float, a Fraction, a numpy number), never a boolean (it may be nan or infinite)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def whole(value, name, low, high):
    """``value`` as an int: TypeError unless a whole number, ValueError unless from ``low`` to ``high``."""
    if not is_whole(value) or not low <= value <= high:
        kind = ValueError if is_whole(value) else TypeError
        raise kind(
            _("{name} must be a whole number from {low} to {high}; found {value}").format(
                name=name, low=low, high=high, value=brief(value)
            )
        )
    return int(value)


def number(value, name, low, high, low_allowed=True, high_allowed=True):
    """``value`` as a float in the interval from ``low`` to ``high`` (each end in it or not);
    TypeError unless a real number, ValueError outside the interval (nan is outside every one)."""
    plain = float(value) if isinstance(value, np.floating) else value  # float32 beside -1e300 would overflow
    inside = is_real(value) and (low <= plain if low_allowed else low < plain)
    if not (inside and (plain <= high if high_allowed else plain < high)):
        interval = ("[" if low_allowed else "(") + f"{low}, {high}" + ("]" if high_allowed else ")")
        raise (ValueError if is_real(value) else TypeError)(
            _("{name} must be a number in {interval}; found {value}").format(
                name=name, interval=interval, value=brief(value)
            )
        )
    return float(value)


def seeded(rng):
    """A ``np.random.Generator`` from a seed or a generator; never an unseeded one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if not is_whole(rng) or not 0 <= rng < 2**63:
        raise (ValueError if is_whole(rng) else TypeError)(
            _("rng must be a seed (a whole number from 0) or a np.random.Generator; found {value}").format(
                value=brief(rng)
            )
        )
    return np.random.default_rng(int(rng))


def function(value, sentence):
    """``value`` if it can be called; else a TypeError of ``sentence`` (translated, with ``{value}``)."""
    if not callable(value):
        raise TypeError(sentence.format(value=brief(value)))
    return value


def text_of(value, name, limit):
    """``value`` if it is a string of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise TypeError(_("{name} must be a string; found {value}").format(name=name, value=brief(value)))
    if len(value) > limit:
        raise ValueError(
            _("{name} has {n} characters; at most {limit} are allowed").format(name=name, n=len(value), limit=limit)
        )
    return value


def strings(value, name):
    """``value`` as a list of strings: TypeError unless a list, tuple or set of them."""
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise TypeError(_("{name} must be a list of strings; found {value}").format(name=name, value=brief(value)))
    return list(value)


def chosen(value, name, allowed, sentence):
    """``value`` as a list of names, each one of ``allowed``: TypeError unless a list, tuple or set of
    strings; UnknownName for the first that is not allowed, in ``sentence`` (with ``{name}`` and
    ``{allowed}``), the allowed ones cut short however many there are."""
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise TypeError(_("{name} must be a list of names; found {value}").format(name=name, value=brief(value)))
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise UnknownName(sentence.format(name=brief(unknown[0], 40), allowed=few(allowed, limit=100)))
    return list(value)


def real_array(value, name, ndim, limit):
    """``value`` (nested lists or an array of real numbers) as a float64 array of ``ndim`` dimensions
    (1: a row, 2: a matrix), each 1 to ``limit`` long, every number finite: TypeError unless real
    numbers, ValueError for another shape, an empty one, one too large, or inf and nan."""
    what = (
        _("a list of 1 to {limit} real numbers")
        if ndim == 1
        else _("a matrix (rows of real numbers), 1 to {limit} a side")
    ).format(limit=limit)
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(
            _("{name} must be {what}; found rows of different lengths").format(name=name, what=what)
        ) from None
    if array.dtype.kind not in NUMBER_KINDS:
        raise TypeError(_("{name} must be {what}; found {value}").format(name=name, what=what, value=brief(value)))
    if array.ndim != ndim or not all(1 <= n <= limit for n in array.shape):
        raise ValueError(
            _("{name} must be {what}; found one of shape {shape}").format(name=name, what=what, shape=array.shape)
        )
    if not np.isfinite(array).all():
        index = [int(i) for i in np.argwhere(~np.isfinite(array))[0]]
        raise ValueError(
            _("{name}{index} is {value}; every number must be finite").format(
                name=name, index=index, value=array[tuple(index)]
            )
        )
    return array.astype(np.float64)


def css_class(value, name):
    """``value`` if it can name a CSS class: letters, digits, - and _, from a letter, at most 40."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,39}", text_of(value, name, 1000)):
        raise ValueError(
            _("{name} must be a name of letters, digits, - and _, from a letter, at most 40; found {value}").format(
                name=name, value=brief(value)
            )
        )
    return value


SURROGATE = re.compile("[\ud800-\udfff]")  # half of a character: UTF-8 cannot write one alone


def writable(text, what):
    """``text`` (a string) unless it holds a lone surrogate, which no file or screen can show (a JSON
    file's ``"\\ud800"`` or an undecodable file name may bring one); ValueError naming ``what`` then."""
    if not isinstance(text, str):
        raise TypeError(_("{name} must be a string; found {value}").format(name=what, value=brief(text)))
    found = SURROGATE.search(text)
    if found:
        raise ValueError(
            _(
                "{what} holds {char} at position {position}: a lone surrogate, half of a character, which cannot be shown"
            ).format(what=what, char=repr(found.group()), position=found.start())
        )
    return text


def file_name(value, name="path"):
    """``value`` as a ``Path``: a non-empty string or path without a null character."""
    if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes):
        raise TypeError(
            _("{name} must be a file name (a string or a path); found {value}").format(name=name, value=brief(value))
        )
    shown = os.fspath(value)
    if not isinstance(shown, str) or shown == "" or "\0" in shown:
        raise ValueError(
            _("{name} must be a file name: some characters, none of them a null character; found {value}").format(
                name=name, value=brief(shown)
            )
        )
    try:
        os.fsencode(shown)  # a lone surrogate that no undecodable byte stands for: no system can name it
    except UnicodeEncodeError:
        writable(shown, name)
    return Path(shown)


def shown_path(path, limit=SHOWN_PATH):
    """A file name for a message, on one line: as it is when short, else its start and its end around
    an ellipsis; a character that cannot be shown (a new line, a null, a lone surrogate) as its escape."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(path))
    if len(shown) <= limit:
        return shown
    head = (limit - 1) * 2 // 5  # more of the end, where the file's own name is
    return shown[:head] + "…" + shown[len(shown) - (limit - head - 1) :]


def clip(message, limit=MAX_MESSAGE):
    """``message`` on one line of at most ``limit`` characters: its start and its end, where reasons
    and allowed values are, around an ellipsis. A message built by the rule above needs no clip."""
    message = " ".join(str(message).split())
    if len(message) <= limit:
        return message
    head = (limit - 1) // 2
    return message[:head] + "…" + message[len(message) - (limit - head - 1) :]
