"""The language of every message the package shows a learner, through the standard ``gettext``.

Code marks a learner-facing sentence with ``_("...")`` and fills it with ``str.format``, so each
sentence is translated whole. The catalogues live in ``handmade/locale/<language>/LC_MESSAGES``.
English is the default; ``set_language("zh")`` or the environment variable ``HANDMADE_LANG=zh``
chooses Chinese.
"""

import contextlib
import gettext
import os
import threading
from pathlib import Path

LOCALES = Path(__file__).resolve().parent / "locale"
DOMAIN = "handmade"
LANGUAGES = ("en", "zh")
TAGS = {"en": "en", "zh": "zh-CN"}  # each language as a page's lang attribute names it (BCP 47)

_current = {"language": "en", "translation": gettext.NullTranslations(), "held": set()}  # held: threads' idents


def set_language(language):
    """Show every later message in ``language``: "en" or "zh", or a locale's name for one of them
    ("zh_CN.UTF-8", "en_GB"; every Chinese one is "zh"); returns the language chosen."""
    if threading.get_ident() in _current["held"]:
        raise ValueError(
            _(
                "a tasks file cannot set the language: it is the learner's to choose (--lang zh or HANDMADE_LANG=zh on the command line, handmade.set_language in a notebook)"
            )
        )
    chosen = known(language)
    if chosen is None:
        shown = repr(language) if len(repr(language)) <= 40 else repr(language)[:39] + "…"
        raise (ValueError if isinstance(language, str) else TypeError)(
            _("unknown language {language}; choose from {languages}").format(
                language=shown, languages=listed(LANGUAGES)
            )
        )
    language = chosen
    if language == "en":
        translation = gettext.NullTranslations()
    else:
        translation = gettext.translation(DOMAIN, LOCALES, languages=[language])
    _current.update(language=language, translation=translation)
    return language


@contextlib.contextmanager
def held():
    """The language stays as it is in this thread (a teacher's code runs: ``course.user_code``): set_language raises."""
    _current["held"].add(threading.get_ident())  # each thread its own: runs in two threads may overlap
    try:
        yield
    finally:
        _current["held"].discard(threading.get_ident())


def language():
    return _current["language"]


def tag():
    """The current language as a page's ``lang`` attribute names it: "en", "zh-CN". Markup the package
    makes carries it, so that a screen reader reads it in its own language on a page of another."""
    return TAGS[_current["language"]]


def _(message):
    """``message`` in the current language."""
    return _current["translation"].gettext(message)


translated = _  # the same, under a name the catalogue's extractor does not read (for a sentence marked elsewhere)


def listed(items, clauses=False):
    """The items of a list, in the current language: "a, b, c" in English, "a、b、c" in Chinese; items
    that hold commas themselves (``clauses``): "a; b" and "a；b"."""
    # TRANSLATORS: what goes between two items of a list (in Chinese, 、), and between two clauses (；)
    return (_("; ") if clauses else _(", ")).join(map(str, items))


def then(previous, sentence):
    """``sentence`` after ``previous`` (a sentence, or "" to begin with): after a space in English,
    straight after 。 in Chinese."""
    return _("{previous} {sentence}").format(previous=previous, sentence=sentence)


def ngettext(singular, plural, n):
    return _current["translation"].ngettext(singular, plural, n)


def N_(message):
    """Mark ``message`` for translation without translating it yet (for tables of sentences)."""
    return message


def known(name):
    """The language of ``name`` ("zh", "zh_CN", "zh_TW.UTF-8", "en_US", "C", ...): "zh" for any Chinese,
    "en" for English or the C locale, None for anything else."""
    if not isinstance(name, str):
        return None
    base = name.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return {"zh": "zh", "en": "en", "c": "en", "posix": "en"}.get(base)


def from_environment(variables=("HANDMADE_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")):
    """The language the environment asks for: the first of ``variables`` that is set decides, as
    gettext reads them (LANGUAGE may list several, "zh_CN:en"; the first known one counts). None
    when none is set, or none names a language of the catalogue."""
    for variable in variables:
        value = os.environ.get(variable)
        if value:
            return next((known(part) for part in value.split(":") if known(part)), None)
    return None


# A notebook or a script speaks the language HANDMADE_LANG asks for (any locale form); the command
# line also follows the system's locale (``handmade.cli``). The English notebooks stay English on a
# Chinese system, so that what they store is the same on every machine.
if from_environment(("HANDMADE_LANG",)) == "zh":
    set_language("zh")
