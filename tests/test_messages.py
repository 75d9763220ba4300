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


# every form argparse takes for --lang, its short ones too: the language read is the one the parser reads
@pytest.mark.parametrize(
    "how", [["--lang", "zh"], ["--lang=zh"], ["--la", "zh"], ["--l=zh"], ["--lang", "en", "--lang", "zh"], "env"]
)
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
@hypothesis.example(names=["a", "b", "c" * 12], limit=15, language="en")  # "a, b and 1 more" fitted exactly
def test_a_list_in_a_message_names_whole_names_and_how_many_more(names, limit, language):
    """``few``, which every message that lists names uses: never a name cut in two, within its limit; a name longer
    than the limit is counted among the rest, and the others are still shown; never "and 1 more" after other
    names, the one name left being as short to say."""
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
    if re.fullmatch(r"\d+ (names?|个名字)", shown):  # not one name fits (one longer than the line is never shown)
        fitting = [name for name in names if len(name) <= limit]
        assert not fitting or len(fitting[0]) + (len(names) > 1) * len(tail) > limit, (names, shown)
        return
    assert len(shown) <= limit and "…" not in shown
    whole = shown.split(more)[0] if more in shown else shown
    assert all(n in names for n in whole.split(separator)), (names, shown)
    counted = int(re.search(r"\d+", shown.split(more)[1]).group()) if more in shown else 0
    assert counted == len(names) - len(whole.split(separator)), (names, shown)  # the rest, counted
    fit = [name for name in names if len(name) <= limit]  # "and 1 more" only for a name too long to show, or alone
    assert counted != 1 or len(whole.split(separator)) == 1 or len(fit) < len(names), (names, shown)


# ---- a count of one is said in the singular ------------------------------------------------------

COUNTED = re.compile(r"(?<![\d.,])1 ([a-z]+s)\b")  # "1 steps", "1 other positions": a noun counted as many
NOT_NOUNS = {"is", "was", "has", "does", "says", "reads", "writes", "pushes", "holds", "makes", "needs"}


def said_in_the_singular(text):
    plural = [noun for noun in COUNTED.findall(text) if noun not in NOT_NOUNS and not noun.endswith("ss")]
    return not plural


def test_a_count_of_one_is_said_in_the_singular_in_the_report_its_path_training_and_progress(tmp_path, monkeypatch):
    """The sentences whose count may be 1 (one failing context, one more step back, one other position read,
    one step of training, a teacher's file of one task, a model's width of one) say it in the
    singular, through ngettext, in English; and every other sentence that counts says its count without a
    plural noun after it when the count may be 1 (a width, a length)."""
    from types import SimpleNamespace

    import numpy as np

    from handmade.course import explain, progress
    from handmade.course.path.values import places_said
    from handmade.training.loop import History

    data = {"right": 14, "graded": 15, "passed": False, "task": "abc", "margin": -1.0, "threshold": 1.0,
            "smallest_at": {"context": "ab", "expected": "c"}, "nonzero": 3, "wrong": 1, "diagnosed": 0, "right_below_margin": 1,
            "first_wrong": [{"context": "ab", "expected": "c", "predicted": "a", "margin": -1.0, "tie": False}],
            "failing": [{"context": "ab", "expected": "c", "against": "a", "margin": -1.0, "contributions": {},
                         "sentence": "…", "window": "ab", "path": [{"text": f"step {i}"} for i in range(explain.SHOWN_STEPS + 1)]}],
            "revealed": None, "reference_problem": None, "progress_note": None}  # fmt: skip
    model = SimpleNamespace(tokens="ab", reading=SimpleNamespace(tokens=(0, 1, 0, 1)))
    view = SimpleNamespace(weights=np.array([[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 1, 0], [0.3, 0.3, 0.3, 0.1]]))
    one_column = {"wte": np.ones((2, 2)), "wpe": np.ones((3, 2)), "blocks": [{"attn": {"c_attn": {"w": np.ones((2, 1)), "b": np.ones(1)},
                                                   "c_proj": {"w": np.ones((1, 2)), "b": np.ones(2)}}}]}  # fmt: skip
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path))

    @handmade.task(alphabet="ab", n_ctx=2, n_embd=2)
    def only(context):
        """Say a."""
        return "a"

    said = [
        *explain.report_lines(data),
        places_said(model, view, 3, limit=3),
        str(History(np.array([0.5]))),
        str(progress.shown({"only": only})),
    ]
    with pytest.raises(ValueError) as error:
        handmade.check_weights(one_column)
    said.append(str(error.value))
    assert "1 more step back" in "\n".join(said) and "the wrong prediction (1 in all)" in "\n".join(said)
    assert "but by a margin of 1 or less: 1 context" in "\n".join(said)
    assert "and 1 other position with weight 0.1" in said[-4] and "0 of 1 task passed" in said[-2]
    assert [line for line in said if not said_in_the_singular(line)] == []


def test_the_language_of_a_command_line_that_ends_in_a_bare_lang_is_the_one_before_it():
    from handmade import cli

    assert cli._language(["--lang", "zh", "--lang"]) == "zh"  # the parser's error about the last, in Chinese
    assert cli._language(["--lang"]) is None and cli._language(["tasks", "--lang", "zh", "--lang="]) == "zh"
