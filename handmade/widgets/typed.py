"""What a person types where a number goes, read as the number it spells, or refused with a clause that
says why (``Unusable``), for each control to put in a sentence of its own (where it is, what it keeps).
"""

import decimal
import math
import unicodedata

from ..arguments import brief, exact, text_of
from ..files import rounds_to_zero
from ..i18n import _


def typed_shown(text, limit=40):
    """What was typed, for a message: stripped, and cut to ``limit`` characters with an ellipsis that says so."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Unusable(ValueError):
    """Text typed where a number goes that cannot be used: its message is a clause that quotes the text
    (``typed_number``), which each control puts in a sentence of its own (where it is, what it keeps)."""


class NotANumber(Unusable):
    """Text that spells no number at all (a list of them says what a list is instead)."""


def typed_number(text):
    """The number ``text`` spells, as a person may type it: full-width digits and signs (－３, NFKC) and the
    minus sign − read as their plain forms; else Unusable saying why: it spells no number (0,5 is not 0.5,
    nor 1_5 15), or one float64 holds as 0 (1e-400), or one too large for it (1e400), inf or nan, or one
    with more digits than float64 keeps (1.00000000000000001 would be used as 1): never used otherwise than typed."""
    text = text_of(text, "text", math.inf)  # a box's value: a string, of any length (shown cut)
    plain, shown = unicodedata.normalize("NFKC", text).replace("−", "-").strip(), typed_shown(text)
    if rounds_to_zero(plain):
        raise Unusable(_("{text} is too close to 0 (float64 would hold it as 0)").format(text=shown))
    try:
        value = float(plain) if "_" not in plain else float("")  # 1_5: Python's digit separator, never a learner's
    except (ValueError, OverflowError):
        raise NotANumber(
            _("{text} is not a number (write one as 1.5, -2 or 3e-4)").format(text=brief(text, 40))
        ) from None
    if math.isinf(value) and "inf" not in plain.lower():
        raise Unusable(_("{text} is too large (float64 holds numbers up to about 1.8e308)").format(text=shown))
    if not math.isfinite(value):
        raise Unusable(_("{text} is not finite (write a finite number, such as 1.5)").format(text=shown))
    if decimal.Decimal(plain) != decimal.Decimal(repr(value)):  # digits float64 does not keep: 0.1 is kept, as 0.1
        sentence = _("{text} has more digits than float64 keeps (the nearest number it holds is {nearest})")
        raise Unusable(sentence.format(text=shown, nearest=exact(value)))
    return value
