"""Every sentence the package shows a learner has a Chinese translation, and choosing the language works."""

import re
import subprocess
import sys
from pathlib import Path

import hypothesis
import hypothesis.strategies as st
import pytest

import handmade
from handmade.arguments import few
from handmade.i18n import language, ngettext, set_language

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
messages = pytest.importorskip("messages", reason="the catalogue tools need Babel: pip install babel")


def test_every_message_of_the_code_is_translated_with_the_same_placeholders_and_compiled():
    assert messages.problems("zh") == []


def test_a_compiled_catalogue_is_judged_by_its_messages_not_by_the_babel_that_wrote_it(monkeypatch):
    import babel.messages.catalog

    catalog = messages.read("zh")
    compiled = messages.mo_messages(messages.mo_bytes(catalog))
    monkeypatch.setattr(babel.messages.catalog, "VERSION", "9.99.0")  # another babel's header
    assert messages.mo_messages(messages.mo_bytes(messages.read("zh"))) == compiled
    changed = next(m for m in catalog if m.id and isinstance(m.id, str))
    changed.string += "!"
    assert messages.mo_messages(messages.mo_bytes(catalog)) != compiled


def test_the_catalogue_holds_the_sentences_the_code_uses():
    ids = {m.id for m in messages.extract() if m.id}
    assert "cannot tokenize {char} at position {position} of {where}: the alphabet is {alphabet}" in ids
    assert len(ids) > 400


@pytest.fixture
def chinese():
    set_language("zh")
    yield
    set_language("en")


def test_errors_verdicts_captions_and_reports_are_chinese(chinese):
    with pytest.raises(ValueError, match="字母表是 'ab'"):
        handmade.tokenize("abc")
    from handmade.course import checks, grader, tasks
    from handmade.display.trace import trace

    assert "注意力" in checks.check_completion("ba", "aaaaaa").message
    assert trace("ab")["attention_weights"].title.startswith("注意力权重")
    assert str(grader.grade(tasks.TASKS["abc"], tasks.blank(tasks.TASKS["abc"]))).startswith("任务 abc：未通过")


def test_english_stays_the_default_and_comes_back():
    assert language() == "en"
    set_language("zh")
    set_language("en")
    with pytest.raises(ValueError, match="the alphabet is 'ab'"):
        handmade.tokenize("abc")


def test_an_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown language 'fr'; choose from en, zh"):
        set_language("fr")


@pytest.mark.parametrize("how", [["--lang", "zh"], ["--lang=zh"], "env"])
def test_the_command_line_speaks_chinese_when_asked(how):
    env = None
    args = ["complete", "abc"]
    if how == "env":
        import os

        env = {**os.environ, "HANDMADE_LANG": "zh"}
    else:
        args = [*how, *args]
    result = subprocess.run(
        [sys.executable, "-m", "handmade", *args], capture_output=True, text=True, env=env, encoding="utf-8"
    )
    assert result.returncode == 2 and "无法对" in result.stderr and "字母表是 'ab'" in result.stderr


def test_the_packaged_font_draws_every_chinese_character_of_the_catalogue():
    import cjk_font
    from matplotlib.ft2font import FT2Font

    from handmade.display.plots import CJK_FONT

    missing = set(cjk_font.wide_characters()) - {chr(code) for code in FT2Font(str(CJK_FONT)).get_charmap()}
    assert not missing, f"run tools/cjk_font.py again: the font lacks {''.join(sorted(missing))}"


def test_a_chinese_heatmap_draws_its_labels_without_a_missing_glyph(chinese):
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from handmade.display.trace import trace

    weights = trace("aabaa")["attention_weights"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        weights.heatmap(xlabel="key").figure.canvas.draw()
    plt.close("all")


@hypothesis.given(
    names=st.lists(st.text("abcdefgh_", min_size=1, max_size=30), max_size=40),
    limit=st.integers(10, 200),
    language=st.sampled_from(["en", "zh"]),
)
def test_a_list_in_a_message_names_whole_names_and_how_many_more(names, limit, language):
    """``few``, which every message that lists names uses: never a name cut in two, within its limit."""
    set_language(language)
    try:
        shown = few(names, limit=limit)
        rest = len(names) - 1  # how many more there are, were the first name alone to fit
        tail = ngettext("{names} and {n} more", "{names} and {n} more", rest).format(names="", n=rest)
    finally:
        set_language("en")
    separator, more = (", ", " and ") if language == "en" else ("、", " 以及另外 ")
    if not names:
        assert shown == ""
        return
    if re.fullmatch(r"\d+ (names?|个名字)", shown):  # not one name fits
        assert len(names[0]) + (len(names) > 1) * len(tail) > limit, (names, shown)
        return
    assert len(shown) <= limit and "…" not in shown
    whole = shown.split(more)[0] if more in shown else shown
    assert all(n in names for n in whole.split(separator)), (names, shown)
    counted = int(re.search(r"\d+", shown.split(more)[1]).group()) if more in shown else 0
    assert counted == len(names) - len(whole.split(separator)), (names, shown)  # the rest, counted
