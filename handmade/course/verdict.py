"""A checker's verdict, and the one way each kind of answer is read.

Every checker in ``checks`` is written in the same three steps: read the learner's answer with a
reader below, compute the right answer from the package, then try the known mistakes in order
(``Mistake``, through ``diagnose``). A reader returns the answer as the checker needs it (a float,
a whole number, an array of a shape, a dict of named values, a text of letters, what the
learner's function returned) or raises ``Unreadable`` with a sentence that says what it expected
and what it found. ``@checker`` turns that sentence into the verdict, so that every answer a
learner can type gets a verdict and never a traceback.
"""

import functools
import html
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arguments import NUMBER_KINDS, brief, fmt, fmt_apart, is_whole
from ..arguments import exact as typed  # a number as the learner typed it, never rounded: 1, 0.99
from ..i18n import _, listed, ngettext, tag
from ..reasons import reason as said


@dataclass(frozen=True)
class Verdict:
    passed: bool
    message: str

    def __bool__(self):
        return self.passed

    def __str__(self):
        return ("✓ " if self.passed else "✗ ") + self.message

    def __repr__(self):
        return str(self)

    def _repr_html_(self):
        colour, mark = ("#1a7f37", "✓") if self.passed else ("#b3261e", "✗")
        return f'<div lang="{tag()}" style="border-left:4px solid {colour};padding:4px 8px"><b>{mark}</b> {html.escape(self.message)}</div>'


def ok(message):
    return Verdict(True, message)


def hint(message):
    return Verdict(False, message)


class Unreadable(Exception):
    """An answer a checker cannot read; the message says what was expected and what was found."""


@dataclass(frozen=True)
class Mistake:
    """A known mistake: ``test(found)`` recognises it in what the checker found, ``hint(found)``
    explains it with the learner's own numbers (``found`` is the checker's record of them)."""

    test: Callable[[Any], bool]
    hint: Callable[[Any], str]


def diagnose(found, mistakes, otherwise):
    """The verdict on a wrong answer: the hint of the first mistake whose test holds, else ``otherwise(found)``."""
    for mistake in mistakes:
        if mistake.test(found):
            return hint(mistake.hint(found))
    return hint(otherwise(found))


def checker(fn):
    """Wrap a checker: an Unreadable answer gets its sentence as the verdict, and an answer nobody
    foresaw still gets a verdict, never a traceback."""

    @functools.wraps(fn)
    def safe(*args, **kwargs):
        try:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        except Unreadable as unreadable:
            return hint(str(unreadable))
        except Exception as error:  # noqa: BLE001 (a learner's answer may fail in any way)
            return hint(
                _("this answer could not be checked ({kind}: {reason})").format(
                    kind=type(error).__name__, reason=brief(said(error), 160)
                )
            )

    return safe


# ---- showing a learner's numbers ------------------------------------------------------------


def describe(value):
    """What a learner gave, briefly: its value and type, or an array's shape."""
    if isinstance(value, np.ndarray):
        return _("an array of shape {shape}").format(shape=value.shape)
    return _("{value} (a {kind})").format(value=brief(value), kind=type(value).__name__)


def row(values, digits=4):
    """Numbers for a sentence, in their shape: a row [1, 0.5, -0.25], a matrix as its rows [[1, 0], [0, 1]]."""
    values = np.asarray(values)
    inner = [row(v, digits) for v in values] if values.ndim > 1 else [fmt(v, digits) for v in np.ravel(values)]
    return "[" + ", ".join(inner) + "]"


def right(score):
    """A Score as the numbers a sentence inserts, "26 / 27", without the label ACCURACY."""
    return f"{score.correct} / {score.total}"


def close(got, want, atol=1e-9):
    """Same shape, and every entry within ``atol``: how a checker compares exact answers."""
    return np.shape(got) == np.shape(want) and np.allclose(got, want, rtol=0, atol=atol)


def apart(want, got, digits=4):
    """Two numbers written with just enough digits to show that they differ."""
    return fmt_apart(want, got, digits), fmt_apart(got, want, digits)


def rows_apart(want, got, digits=4):
    """Two rows of numbers written with just enough digits to show that they differ."""
    while digits < 17 and row(want, digits) == row(got, digits):
        digits += 1
    return row(want, digits), row(got, digits)


# ---- the readers ----------------------------------------------------------------------------


def one_number(answer, what):
    """``answer`` as a float: one finite real number (not a bool, not text, not a list)."""
    if isinstance(answer, np.ndarray) and answer.shape == () and answer.dtype.kind in NUMBER_KINDS:
        answer = answer.item()
    if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
        raise Unreadable(_("{what} should be one number; yours is {found}").format(what=what, found=describe(answer)))
    try:
        value = float(answer)
    except OverflowError:  # a whole number of more than 308 digits
        value = float("inf")
    if not np.isfinite(value):
        raise Unreadable(_("{what} is {value}; it should be a finite number").format(what=what, value=brief(answer)))
    return value


def whole_number(answer, what, low, high):
    """``answer`` as an int from ``low`` to ``high``."""
    value = one_number(answer, what)
    if not is_whole(value, floats=True) or not low <= value <= high:
        raise Unreadable(
            _("{what} should be a whole number from {low} to {high}; yours is {found}").format(
                what=what, low=low, high=high, found=typed(value)
            )
        )
    return int(value)


def shaped(shape):
    """What an answer of ``shape``, a row or a matrix, is in words: "a list of 3 numbers", "a matrix of shape
    (4, 4), a list of rows of numbers"."""
    if len(shape) == 1:
        return ngettext("a list of {n} number", "a list of {n} numbers", shape[0]).format(n=shape[0])
    return _("a matrix of shape {shape}, a list of rows of numbers").format(shape=shape)


def array(answer, what, shape=None, *, allowed=None, finite=True, wrong_shape=None):
    """``answer`` (an array, or nested lists of real numbers) as a float array of ``shape`` if given;
    ``allowed`` says what the answer may be where ``shape`` does not ("one number, or 8"), and
    ``wrong_shape(found_shape)`` what a wrong shape means, where a plain sentence would not."""
    allowed = shaped(shape) if allowed is None else allowed
    not_numbers = _("{what} should be {allowed}; yours is {found}")
    if answer is None or isinstance(answer, (str, bytes, Mapping)) or callable(answer):
        raise Unreadable(not_numbers.format(what=what, allowed=allowed, found=describe(answer)))
    try:
        values = np.asarray(answer)
        if values.dtype.kind not in NUMBER_KINDS:
            raise TypeError(values.dtype)
        values = values.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise Unreadable(not_numbers.format(what=what, allowed=allowed, found=describe(answer))) from None
    if shape is not None and values.shape != shape:
        if wrong_shape is not None:
            raise Unreadable(wrong_shape(values.shape))
        raise Unreadable(
            _("{what} should have shape {want}; yours has shape {found}").format(
                what=what, want=shape, found=values.shape
            )
        )
    if finite and not np.isfinite(values).all():
        found = values[~np.isfinite(values)][0]  # nan, inf or -inf: a sentence that fits "the weights" and "gamma"
        raise Unreadable(
            _("there is {value} in {what}; every entry must be a finite number").format(value=brief(found), what=what)
        )
    return values


def named(answer, what, keys, values):
    """``answer`` as a dict with exactly the names ``keys``, each mapped to one of the names ``values``."""
    if not isinstance(answer, Mapping):
        raise Unreadable(
            _("{what} should be a dict with the keys {keys}; yours is {found}").format(
                what=what, keys=listed(keys), found=describe(answer)
            )
        )
    if sorted(map(str, answer)) != sorted(keys) or not all(isinstance(key, str) for key in answer):
        raise Unreadable(
            _("{what} should have the keys {keys}; yours has {found}").format(
                what=what, keys=listed(keys), found=listed(brief(key, 20) for key in answer) or "{}"
            )
        )
    for key in keys:
        if not (isinstance(answer[key], str) and answer[key] in values):
            raise Unreadable(
                _("{what} maps {key} to {value}; each value should be one of {values}").format(
                    what=what, key=key, value=brief(answer[key], 40), values=listed(values)
                )
            )
    return {key: answer[key] for key in keys}


def letters(answer, what, low, high):
    """``answer`` as a text of ``low`` to ``high`` letters a and b."""
    if not isinstance(answer, str) or not low <= len(answer) <= high or set(answer) - set("ab"):
        raise Unreadable(
            _("{what} should be {low} to {high} letters a and b; yours is {found}").format(
                what=what, low=low, high=high, found=describe(answer)
            )
        )
    return answer


def call(fn, *args, on, index_advice=None):
    """What the learner's function ``fn`` returns for ``args`` (``on`` names them in a sentence), or
    Unreadable saying how it failed; ``index_advice(reason)`` explains an IndexError where it can."""
    if not callable(fn):
        raise Unreadable(
            _(
                "pass your function itself, without calling it (for example check(matmul), not check(matmul())); got {found}"
            ).format(found=describe(fn))
        )
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 (the learner's code: any failure becomes a verdict)
        if isinstance(error, IndexError) and index_advice is not None:
            raise Unreadable(index_advice(brief(str(error), 100))) from None  # the advice says it in words
        reason = brief(said(error), 100)
        raise Unreadable(
            _("your function raised {kind} on {input}: {reason}").format(
                kind=type(error).__name__, input=on, reason=reason
            )
        ) from None


def returned(value, what, shape=None, *, allowed=None, finite=True, wrong_shape=None):
    """What a learner's function returned, read as ``array`` reads an answer; None gets its own sentence."""
    if value is None:
        raise Unreadable(_("your function returned None: does it end with return and its result?"))
    return array(value, what, shape, allowed=allowed, finite=finite, wrong_shape=wrong_shape)
