"""Tokenizer, predict, complete and accuracy: the blog's printed results, through the API."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import handmade
from handmade import (
    Example,
    WeightsError,
    accuracy,
    complete,
    continuation,
    next_in_pattern,
    predict,
    prefix_examples,
    tokenize,
    unambiguous_examples,
    untokenize,
)

# What the seed notebook prints while scoring "aab" * 10: the tables of its first contexts.
SEED_PREDICT_OUTPUT = """\
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
b (1): next=a (0) probs=[1. 0.] logits=[1.024e+03 1.000e+00]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
b (1): next=a (0) probs=[1. 0.] logits=[1.024e+03 1.000e+00]
a (0): next=a (0) probs=[1. 0.] logits=[1025.    0.]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
b (1): next=a (0) probs=[1. 0.] logits=[1.024e+03 1.000e+00]
a (0): next=a (0) probs=[1. 0.] logits=[1025.    0.]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]
b (1): next=a (0) probs=[1. 0.] logits=[1.024e+03 1.000e+00]
a (0): next=a (0) probs=[1. 0.] logits=[1025.    0.]"""


# ---- tokenizer ----------------------------------------------------------------------------


def test_tokenize_and_back():
    assert tokenize("aabaa") == [0, 0, 1, 0, 0]
    assert untokenize([0, 1]) == "ab"
    assert tokenize("cab", alphabet="abc") == [2, 0, 1]


def test_unknown_character_names_it_its_position_and_the_alphabet():
    with pytest.raises(ValueError, match=r"cannot tokenize 'c' at position 2 of 'abc': the alphabet is 'ab'"):
        tokenize("abc")


def test_unknown_token_id_is_a_clear_error():
    with pytest.raises(ValueError, match=r"token 2 is not an id of the alphabet 'ab' \(ids 0 to 1\)"):
        untokenize([0, 2])


@pytest.mark.parametrize(
    "alphabet, message",
    [("", "a string of 1 to 1024 distinct characters"), ("aba", "repeats 'a'"), (["a"], "found \\['a'\\]")],
)
def test_bad_alphabets_are_refused(alphabet, message):
    with pytest.raises(ValueError if isinstance(alphabet, str) else TypeError, match=message):
        tokenize("a", alphabet)


def test_tokenize_refuses_a_non_string():
    with pytest.raises(TypeError, match="text must be a string of characters from 'ab'; found \\[0, 1\\]"):
        tokenize([0, 1])


# ---- predict ------------------------------------------------------------------------------


def test_predict_table_of_aabaa_is_the_blogs():
    assert predict("aabaa").lines() == [
        "a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]",
        "a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]",
        "b (1): next=a (0) probs=[1. 0.] logits=[1.024e+03 1.000e+00]",
        "a (0): next=a (0) probs=[1. 0.] logits=[1025.    0.]",
        "a (0): next=b (1) probs=[0. 1.] logits=[1.000e+00 1.024e+03]",
    ]
    assert predict("aabaa").next == "b"


def test_predict_tables_match_what_the_seed_printed():
    printed = [str(predict(example.context)) for example in prefix_examples()]
    assert "\n".join(printed).startswith(SEED_PREDICT_OUTPUT)


def test_predict_uses_the_last_n_ctx_tokens():
    long = predict("abaabaab")  # 8 characters: the model sees "abaab"
    assert long.tokens == tuple(tokenize("abaab"))
    assert np.array_equal(long.logits, predict("abaab").logits)


def test_predict_on_empty_context_is_a_clear_error():
    with pytest.raises(ValueError, match="cannot predict from an empty context: give at least one character from 'ab'"):
        predict("")


def test_weights_that_do_not_fit_the_alphabet_are_refused():
    with pytest.raises(WeightsError, match="the alphabet 'abc' has length 3, but n_vocab, the token rows of wte, is 2"):
        predict("abc", alphabet="abc")


def test_predict_checks_the_weights_it_is_given():
    m = handmade.blog_model()
    m["wte"][0, 0] = np.nan
    with pytest.raises(WeightsError, match=r"wte\[0, 0\] is nan"):
        predict("ab", m)


def test_predict_never_returns_nan_probabilities():
    m = handmade.blog_model()
    m["wte"][0, 5] = 1e200  # finite, but a logit is its square: 1e400 overflows
    with np.errstate(all="ignore"), pytest.raises(handmade.NonFiniteError, match=r"inf or nan \(first in logits\)"):
        predict("aab", m)


# ---- complete -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "a :: baabaabaab",
        "ba :: abaabaabaa",
        "abaab :: aabaabaaba",
        "ababa :: abaabaabaa",  # recovery from text the task never produces
        "bbbbb :: aabaabaaba",
    ],
)
def test_complete_gives_the_blogs_lines(line):
    assert complete(line.split(" :: ")[0]) == line


def test_complete_takes_a_length():
    assert complete("aa", 4) == "aa :: baab"
    assert continuation("aa", 0) == ""


@pytest.mark.parametrize("n", [-1, 2.5, True, "3"])
def test_complete_refuses_a_bad_length(n):
    kind = ValueError if n == -1 else TypeError  # a whole number out of range, or not a whole number
    with pytest.raises(kind, match="max_new_tokens must be a whole number from 0 to 10000; found"):
        complete("a", n)


def test_complete_refuses_bad_text_before_generating():
    with pytest.raises(ValueError, match="cannot tokenize 'x' at position 1"):
        complete("ax")
    with pytest.raises(ValueError, match="empty context"):
        complete("")


# ---- accuracy -----------------------------------------------------------------------------


def test_accuracy_on_aab_times_10_is_27_of_27():
    score = accuracy()
    assert (score.correct, score.total, score.failures) == (27, 27, ())
    assert str(score) == "ACCURACY: 100.0% (27 / 27)"


def test_accuracy_reports_the_misses():
    weak = handmade.blog_model(proj_lg=0.5)  # c_proj too weak: the residual's own token wins
    score = accuracy(weak)
    assert score.correct < 27 and not score.perfect
    example, got = score.failures[0]
    assert isinstance(example, Example) and got != example.expected
    assert str(score) == f"ACCURACY: {100 * score.correct / 27:.1f}% ({score.correct} / 27)"


@pytest.mark.parametrize("answer", ["bogus", "", "c"])
def test_accuracy_refuses_an_answer_no_model_could_give(answer):
    with pytest.raises(ValueError, match=f"the answer '{answer}' after 'aa' is not a character of the alphabet 'ab'"):
        accuracy(examples=[("aa", "b"), ("aa", answer)])


def test_untokenize_turns_at_most_max_text_tokens_into_text_and_stops_an_endless_iterator():
    import itertools

    from handmade.tokenizer import MAX_TEXT, untokenize

    assert len(untokenize([0] * MAX_TEXT)) == MAX_TEXT
    for endless in ([0] * (MAX_TEXT + 1), itertools.repeat(1)):
        with pytest.raises(ValueError, match=f"at most {MAX_TEXT} tokens can be turned into text at once"):
            untokenize(endless)


def test_accuracy_needs_examples():
    with pytest.raises(ValueError, match="at least one example"):
        accuracy(examples=[])


def test_prefix_examples_are_the_blogs_27():
    examples = prefix_examples()
    assert len(examples) == 27
    assert examples[0] == Example("aa", "b") and examples[-1] == Example("aab" * 9 + "a", "a")


def test_next_in_pattern():
    assert next_in_pattern("aa") == {"b"}
    assert next_in_pattern("ab") == {"a"}
    assert next_in_pattern("a") == {"a", "b"}  # ambiguous
    assert next_in_pattern("bb") == set()  # never happens in (aab)*
    assert next_in_pattern("b") == {"a"}


def test_unambiguous_examples_up_to_5():
    examples = unambiguous_examples(5)
    assert Example("b", "a") in examples and Example("aabaa", "b") in examples
    assert all(len(e.context) <= 5 for e in examples) and len(examples) == 13
    assert accuracy(examples=examples).perfect


@given(start=st.integers(0, 2), length=st.integers(1, 40))
def test_the_blog_model_predicts_every_unambiguous_context(start, length):
    text = ("aab" * 20)[start : start + length]
    following = next_in_pattern(text)
    if len(following) == 1:  # only "a" at the very start is ambiguous
        assert predict(text).next == following.pop()
