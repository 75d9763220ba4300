"""Using a model: predict the next token, complete a text, score a task.

Each function takes text, optional ``params`` (the blog's model when None) and the alphabet.
The weights are checked once on the way in; the loops then call ``gpt()`` directly.
"""

from dataclasses import dataclass

import numpy as np

from .blog import ALPHABET, TASK_TEXT, blog_model
from .model import forward, softmax
from .tokenizer import check_alphabet, tokenize, untokenize
from .weights import WeightsError, check_weights


def prepare(params=None, alphabet=ALPHABET):
    """Checked weights (the blog's when None) that fit ``alphabet``."""
    check_alphabet(alphabet)
    params = blog_model() if params is None else check_weights(params)
    n_vocab = len(params["wte"])
    if n_vocab != len(alphabet):
        raise WeightsError(
            f"wte has {n_vocab} token rows (n_vocab = {n_vocab}) but the alphabet {alphabet!r} "
            f"has {len(alphabet)} characters; they must match"
        )
    return params


def context_tokens(text, params, alphabet):
    """The ids the model sees for ``text``: its last n_ctx tokens. Empty text is an error."""
    tokens = tokenize(text, alphabet)
    if not tokens:
        raise ValueError(f"cannot predict from an empty context: give at least one character from {alphabet!r}")
    return tokens[-len(params["wpe"]) :]


@dataclass(frozen=True)
class Prediction:
    """What the model says at every position of a context."""

    tokens: tuple  # the ids the model saw: the last n_ctx of the context
    logits: np.ndarray  # [n_seq, n_vocab]
    probs: np.ndarray  # [n_seq, n_vocab], softmax of the logits
    alphabet: str

    @property
    def next_token(self):  # the id predicted after the last position
        return int(np.argmax(self.probs[-1]))

    @property
    def next(self):  # the character predicted after the last position
        return self.alphabet[self.next_token]

    def lines(self):
        """One line per position, as the blog prints them."""
        lines = []
        for i, tok in enumerate(self.tokens):
            pred = np.argmax(self.probs[i])
            lines.append(
                f"{self.alphabet[tok]} ({tok}): next={self.alphabet[pred]} ({pred}) "
                f"probs={self.probs[i]} logits={self.logits[i]}"
            )
        return lines

    def __str__(self):
        return "\n".join(self.lines())


def _predict(tokens, params, alphabet):
    logits = forward(np.array(tokens), params)
    return Prediction(tuple(tokens), logits, softmax(logits), alphabet)


def predict(text, params=None, *, alphabet=ALPHABET):
    """The model's prediction at every position of ``text`` (its last n_ctx characters)."""
    params = prepare(params, alphabet)
    return _predict(context_tokens(text, params, alphabet), params, alphabet)


def continuation(text, max_new_tokens=10, params=None, *, alphabet=ALPHABET):
    """The ``max_new_tokens`` characters the model writes after ``text``, greedily."""
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, (int, np.integer)) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be a whole number, 0 or more; found {max_new_tokens!r}")
    params = prepare(params, alphabet)
    context_tokens(text, params, alphabet)  # reject empty or foreign text before generating
    tokens = tokenize(text, alphabet)
    for _ in range(max_new_tokens):
        tokens.append(_predict(tokens[-len(params["wpe"]) :], params, alphabet).next_token)
    return untokenize(tokens[len(text) :], alphabet)


def complete(text, max_new_tokens=10, params=None, *, alphabet=ALPHABET):
    """The blog's line ``TEXT :: CONTINUATION``."""
    return f"{text} :: {continuation(text, max_new_tokens, params, alphabet=alphabet)}"


@dataclass(frozen=True)
class Example:
    context: str
    expected: str  # the character that should come next


def prefix_examples(text=TASK_TEXT, start=2):
    """Every prefix of ``text`` from length ``start``, with the character that follows it.

    Like the blog's loop, it stops one short of the end: "aab" * 10 gives 27 examples.
    """
    return [Example(text[:i], text[i]) for i in range(start, len(text) - 1)]


def next_in_pattern(context, pattern="aab"):
    """The characters that can follow ``context`` inside ``pattern`` repeated forever.

    One character: the next token is determined. Two or more: the context is ambiguous
    (``"a"`` can be followed by ``a`` or ``b``). None: the context never occurs (``"bb"``).
    """
    reps = len(context) // len(pattern) + 3
    stream = pattern * reps
    return {stream[i + len(context)] for i in range(len(pattern)) if stream.startswith(context, i)}


def unambiguous_examples(max_len=5, pattern="aab"):
    """Every context of length 1 to ``max_len`` that occurs in the pattern with one possible next."""
    examples = []
    for start in range(len(pattern)):
        for length in range(1, max_len + 1):
            context = (pattern * (max_len // len(pattern) + 2))[start : start + length]
            following = next_in_pattern(context, pattern)
            if len(following) == 1 and Example(context, *following) not in examples:
                examples.append(Example(context, *following))
    return sorted(examples, key=lambda e: (len(e.context), e.context))


@dataclass(frozen=True)
class Score:
    correct: int
    total: int
    failures: tuple  # (Example, predicted character) for every miss, in order

    def __str__(self):
        return f"ACCURACY: {100 * self.correct / self.total:.1f}% ({self.correct} / {self.total})"

    @property
    def perfect(self):
        return self.correct == self.total


def accuracy(params=None, *, examples=None, alphabet=ALPHABET):
    """How many ``examples`` (the blog's 27 by default) the model predicts correctly."""
    params = prepare(params, alphabet)
    examples = prefix_examples() if examples is None else list(examples)
    if not examples:
        raise ValueError("accuracy needs at least one example to score")
    failures = []
    for example in examples:
        got = _predict(context_tokens(example.context, params, alphabet), params, alphabet).next
        if got != example.expected:
            failures.append((example, got))
    return Score(len(examples) - len(failures), len(examples), tuple(failures))
