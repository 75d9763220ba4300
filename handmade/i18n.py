"""The language of every message the package shows a learner, through the standard ``gettext``.

Code marks a learner-facing sentence with ``_("...")`` and fills it with ``str.format``, so each
sentence is translated whole. The catalogues live in ``handmade/locale/<language>/LC_MESSAGES``.
English is the default; ``set_language("zh")`` or the environment variable ``HANDMADE_LANG=zh``
chooses Chinese.
"""

import gettext
import os
from pathlib import Path

LOCALES = Path(__file__).resolve().parent / "locale"
DOMAIN = "handmade"
LANGUAGES = ("en", "zh")

_current = {"language": "en", "translation": gettext.NullTranslations()}


def set_language(language):
    """Show every later message in ``language`` ("en" or "zh"); returns the language chosen."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose from {', '.join(LANGUAGES)}")
    if language == "en":
        translation = gettext.NullTranslations()
    else:
        translation = gettext.translation(DOMAIN, LOCALES, languages=[language])
    _current.update(language=language, translation=translation)
    return language


def language():
    return _current["language"]


def _(message):
    """``message`` in the current language."""
    return _current["translation"].gettext(message)


def ngettext(singular, plural, n):
    return _current["translation"].ngettext(singular, plural, n)


def N_(message):
    """Mark ``message`` for translation without translating it yet (for tables of sentences)."""
    return message


if os.environ.get("HANDMADE_LANG", "en") in LANGUAGES[1:]:
    set_language(os.environ["HANDMADE_LANG"])
