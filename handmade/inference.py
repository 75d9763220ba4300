"""Using a model: predict the next token, complete a text, score a task.

Each function takes text, optional ``params`` (the blog's model when None) and the alphabet.
The weights are checked once on the way in; the loops then call ``gpt()`` directly.
"""

from dataclasses import dataclass

import numpy as np

from .basis import brief
from .blog import TASK_TEXT, blog_model
from .i18n import _
from .model import softmax
from .tokenizer import check_alphabet, tokenize, untokenize
from .weights import WeightsError, check_weights, forward, with_alphabet

MAX_NEW_TOKENS = 10_000  # tokens one completion may write


def prepare(params=None, alphabet=None):
    """Checked, labelled weights (the blog's when None); ``alphabet`` replaces the one they carry."""
    params = check_weights(blog_model() if params is None else params)
    if alphabet is None or alphabet == params.labels.alphabet:
        return params
    check_alphabet(alphabet)
    n_vocab = len(params["wte"])
    if n_vocab != len(alphabet):
        raise WeightsError(
            _(
                "wte has {n} token rows (n_vocab = {n}) but the alphabet {alphabet} has {chars} characters; they must match"
            ).format(n=n_vocab, alphabet=brief(alphabet), chars=len(alphabet))
        )
    return with_alphabet(params, alphabet)


def context_tokens(text, params):
    """The ids the model sees for ``text``: its last n_ctx tokens. Empty text is an error."""
    alphabet = params.labels.alphabet
    if alphabet is None:
        n = len(params["wte"])
        raise ValueError(
            _(
                "this model's {n} tokens are numbered t0 to t{last}, not characters: give an alphabet of {n} characters to read text"
            ).format(n=n, last=n - 1)
        )
    tokens = tokenize(text, alphabet)
    if not tokens:
        raise ValueError(
            _("cannot predict from an empty context: give at least one character from {alphabet}").format(
                alphabet=brief(alphabet)
            )
        )
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


def _predict(tokens, params):
    logits = forward(tokens, params)
    return Prediction(tuple(tokens), logits, softmax(logits), params.labels.alphabet)


def predict(text, params=None, *, alphabet=None):
    """The model's prediction at every position of ``text`` (its last n_ctx characters)."""
    params = prepare(params, alphabet)
    return _predict(context_tokens(text, params), params)


def continuation(text, max_new_tokens=10, params=None, *, alphabet=None, choose=None):
    """The ``max_new_tokens`` characters the model writes after ``text``: greedily, the most likely
    token each time, or ``choose(logits)`` of the last position when given (``sample`` draws one)."""
    whole = isinstance(max_new_tokens, (int, np.integer)) and not isinstance(max_new_tokens, bool)
    if not whole or not 0 <= max_new_tokens <= MAX_NEW_TOKENS:
        raise ValueError(
            _("the number of new tokens must be a whole number from 0 to {limit}; found {value}").format(
                limit=MAX_NEW_TOKENS, value=brief(max_new_tokens)
            )
        )
    params = prepare(params, alphabet)
    tokens = context_tokens(text, params)  # refuses empty or foreign text before generating
    for _step in range(max_new_tokens):
        logits = forward(tokens[-len(params["wpe"]) :], params)[-1]  # [n_vocab]: the scores after the last token
        tokens.append(int(np.argmax(softmax(logits))) if choose is None else choose(logits))
    return untokenize(tokens[len(tokens) - max_new_tokens :], params.labels.alphabet)


def sample(text, max_new_tokens=100, params=None, *, temperature=1.0, rng=0, alphabet=None):
    """``max_new_tokens`` characters drawn one at a time from the model's probabilities after ``text``.

    Each next token is drawn from softmax(logits / temperature): 1 samples the model as it is,
    smaller is bolder (0 would be greedy), larger flatter. ``rng`` is a seed or a numpy Generator,
    so the same call writes the same text.
    """
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 1e-3 <= temperature <= 100:
        raise ValueError(
            _("the temperature must be a number from 0.001 to 100; found {value}").format(value=brief(temperature))
        )
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def draw(logits):  # [n_vocab] -> a token id, drawn with the tempered probabilities
        return int(rng.choice(len(logits), p=softmax(logits / temperature)))

    return continuation(text, max_new_tokens, params, alphabet=alphabet, choose=draw)


def complete(text, max_new_tokens=10, params=None, *, alphabet=None):
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
        # the blog's line in English ("ACCURACY: 100.0% (27 / 27)"), the learner's language otherwise
        return _("ACCURACY: {percent:.1f}% ({correct} / {total})").format(
            percent=100 * self.correct / self.total, correct=self.correct, total=self.total
        )

    @property
    def perfect(self):
        return self.correct == self.total


def accuracy(params=None, *, examples=None, alphabet=None):
    """How many ``examples`` (the blog's 27 by default) the model predicts correctly.

    Examples whose last n_ctx tokens are the same are one question: each is asked once.
    """
    params = prepare(params, alphabet)
    examples = prefix_examples() if examples is None else list(examples)
    if not examples:
        raise ValueError(_("accuracy needs at least one example to score"))
    answers, failures = {}, []
    for example in examples:
        tokens = tuple(context_tokens(example.context, params))
        if tokens not in answers:
            answers[tokens] = _predict(tokens, params).next
        if answers[tokens] != example.expected:
            failures.append((example, answers[tokens]))
    return Score(len(examples) - len(failures), len(examples), tuple(failures))


# ---- the key/value cache ------------------------------------------------------------------


class KVCache:
    """The keys and values of the positions processed so far, one pair of arrays per block.

    Pass it to ``gpt(..., cache=...)``: the new tokens get the next positions, attend to the
    cached keys and values and to each other, and their own keys and values are appended.
    """

    def __init__(self):
        self.layers = []

    def __len__(self):  # how many positions are cached
        return len(self.layers[0].k) if self.layers else 0

    def layer(self, i):
        while len(self.layers) <= i:
            self.layers.append(_LayerCache())
        return self.layers[i]


class _LayerCache:
    def __init__(self):
        self.k = self.v = None

    def extend(self, k, v):  # append this pass's keys and values; return all of them
        self.k = k if self.k is None else np.vstack([self.k, k])
        self.v = v if self.v is None else np.vstack([self.v, v])
        return self.k, self.v
