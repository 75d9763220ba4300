"""Using a model: predict the next token, complete a text, score a task.

Each function takes text, optional ``params`` (the blog's model when None) and the alphabet.
The weights are checked once on the way in (``prepare``); the loops then run them through
``forward``, which takes checked weights as they are and checks only the new tokens.
"""

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .arguments import check_alphabet, function, is_real, is_whole, seeded, text_of, whole
from .basis import brief, text_shown, token_shown
from .blog import ALPHABET, TASK_TEXT, blog_model
from .cost import generation_flops
from .i18n import _, ngettext
from .model import KVCache, softmax
from .tokenizer import tokenize, untokenize
from .weights import check_weights, forward, with_alphabet

MAX_NEW_TOKENS = 10_000  # tokens one completion may write
MAX_GENERATION_FLOPS = 10**11  # operations one completion may cost: a few seconds to a minute, never an hour
MAX_PREFIX_TEXT = 10_000  # characters of a text cut into prefixes: 10,000 examples, 50 million characters
MAX_PATTERN = 64  # characters of a repeating pattern, and of the contexts read from it
MAX_EXAMPLES = 100_000  # examples one accuracy may score


def prepare(params=None, alphabet=None):
    """Checked, labelled weights (the blog's when None); ``alphabet`` replaces the one they carry."""
    params = check_weights(blog_model() if params is None else params)
    if alphabet is None or alphabet == params.labels.alphabet:
        return params
    return with_alphabet(params, check_alphabet(alphabet))  # one that does not fit n_vocab: said by check_labels


def context_tokens(text, params):
    """The ids the model sees for ``text``: its last n_ctx tokens. Empty text is an error."""
    params = prepare(params)
    alphabet = params.labels.alphabet
    if alphabet is None:
        n = len(params["wte"])
        raise ValueError(
            ngettext(
                "this model's {n} token is numbered t{last}, not a character: give an alphabet of {n} character to read text",
                "this model's {n} tokens are numbered t0 to t{last}, not characters: give an alphabet of {n} characters to read text",
                n,
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
        """One line per position, as the blog prints them; a letter as every table names it (a tab is ⇥)."""
        lines = []
        for i, tok in enumerate(self.tokens):
            pred = np.argmax(self.probs[i])
            lines.append(
                f"{token_shown(self.alphabet[tok])} ({tok}): next={token_shown(self.alphabet[pred])} ({pred}) "
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
    params = prepare(params, alphabet)
    tokens = context_tokens(text, params)  # refuses empty or foreign text before generating
    choose = check_request(max_new_tokens, len(tokens), params, choose)  # refuses too long a request, saying why
    for logits in next_logits(tokens, params, max_new_tokens):  # [n_vocab]: the scores after the last token
        tokens.append(int(np.argmax(softmax(logits))) if choose is None else choose(logits))
    return untokenize(tokens[len(tokens) - max_new_tokens :], params.labels.alphabet)


def next_logits(tokens, params, steps):  # yields [n_vocab], ``steps`` times
    """The logits after the last of ``tokens`` (a list of at most n_ctx ids), ``steps`` times; between
    two, the caller appends the token it chose. A key/value cache keeps the keys and values of the
    positions already run, so each step runs the new token alone. Positions are absolute (wpe): once
    the window of n_ctx tokens is full and slides on, every cached key is at the wrong position, so
    the cache is rebuilt from the window, and that step costs as much as a full pass."""
    n_ctx = len(params["wpe"])
    cache, new = KVCache(), tokens[-n_ctx:]
    for _step in range(steps):
        yield forward(new, params, cache=cache)[-1]
        if len(cache) == n_ctx:  # the window slides: positions change, so start a new cache
            cache, new = KVCache(), tokens[-n_ctx:]
        else:
            new = tokens[-1:]


def check_request(max_new_tokens, n_context, params, choose=None):
    """``choose``, wrapped so that what it returns is checked, if writing ``max_new_tokens`` after
    ``n_context`` tokens is allowed; else a one-line error saying what the request would cost."""
    whole(max_new_tokens, "max_new_tokens", 0, MAX_NEW_TOKENS)
    params = check_weights(params)
    whole(n_context, "n_context", 1, params.structure.n_ctx)
    cost = generation_flops(params.structure, n_context, max_new_tokens)
    if cost > MAX_GENERATION_FLOPS:
        raise ValueError(
            _(
                "writing {n} tokens with this model would take about {cost:.1e} operations (a pass over up to {n_ctx} positions each), more than the {limit:.0e} allowed: ask for fewer"
            ).format(n=max_new_tokens, cost=cost, n_ctx=params.structure.n_ctx, limit=MAX_GENERATION_FLOPS)
        )
    if choose is None:
        return None
    function(choose, _("choose must be a function from the logits to a token id; found {value}"))
    n_vocab = params.structure.n_vocab

    def checked(logits):
        token = choose(logits)
        if not is_whole(token) or not 0 <= token < n_vocab:
            raise ValueError(
                _("choose(logits) must return a token id from 0 to {top}; it returned {value}").format(
                    top=n_vocab - 1, value=brief(token)
                )
            )
        return int(token)

    return checked


def sample(text, max_new_tokens=100, params=None, *, temperature=1.0, rng=0, alphabet=None):
    """``max_new_tokens`` characters drawn one at a time from the model's probabilities after ``text``.

    Each next token is drawn from softmax(logits / temperature): 1 samples the model as it is,
    smaller is bolder (0 would be greedy), larger flatter. ``rng`` is a seed or a numpy Generator,
    so the same call writes the same text.
    """
    if not is_real(temperature) or not 1e-3 <= temperature <= 100:
        raise (ValueError if is_real(temperature) else TypeError)(
            _("the temperature must be a number from 0.001 to 100; found {value}").format(value=brief(temperature))
        )
    rng = seeded(rng)

    def draw(logits):  # [n_vocab] -> a token id, drawn with the tempered probabilities
        with np.errstate(over="ignore"):  # far below the best, a logit / temperature may reach -inf: probability 0
            probs = softmax((logits - logits.max()) / temperature)
        return int(rng.choice(len(logits), p=probs))

    return continuation(text, max_new_tokens, params, alphabet=alphabet, choose=draw)


def complete(text, max_new_tokens=10, params=None, *, alphabet=None):
    """The blog's line ``TEXT :: CONTINUATION``: one line, a character that cannot show written as its escape
    (a tab as \\t), as every message shows a context; ``continuation`` gives the characters themselves."""
    continued = continuation(text, max_new_tokens, params, alphabet=alphabet)  # which checks the text first
    return f"{text_shown(text)} :: {text_shown(continued)}"


@dataclass(frozen=True)
class Example:
    context: str
    expected: str  # the character that should come next


def prefix_examples(text=TASK_TEXT, start=2):
    """Every prefix of ``text`` from length ``start``, with the character that follows it.

    Like the blog's loop, it stops one short of the end: "aab" * 10 gives 27 examples.
    """
    text = text_of(text, "text", MAX_PREFIX_TEXT)
    if not text:
        raise ValueError(_("text is empty: it has no prefix, nor a character after one"))
    if not is_whole(start) or not 1 <= start <= len(text):
        raise (ValueError if is_whole(start) else TypeError)(
            _("start must be a whole number from 1 to the length of the text, {high}; found {value}").format(
                high=len(text), value=brief(start)
            )
        )
    return [Example(text[:i], text[i]) for i in range(start, len(text) - 1)]


def next_in_pattern(context, pattern="aab"):
    """The characters that can follow ``context`` inside ``pattern`` repeated forever.

    One character: the next token is determined. Two or more: the context is ambiguous
    (``"a"`` can be followed by ``a`` or ``b``). None: the context never occurs (``"bb"``).
    """
    context = text_of(context, "context", MAX_PREFIX_TEXT)
    pattern = _pattern(pattern)
    reps = len(context) // len(pattern) + 3
    stream = pattern * reps
    return {stream[i + len(context)] for i in range(len(pattern)) if stream.startswith(context, i)}


def _pattern(pattern):
    if not text_of(pattern, "pattern", MAX_PATTERN):
        raise ValueError(_("pattern must be 1 to {limit} characters; found ''").format(limit=MAX_PATTERN))
    return pattern


def unambiguous_examples(max_len=5, pattern="aab"):
    """Every context of length 1 to ``max_len`` that occurs in the pattern with one possible next."""
    max_len, pattern, examples = whole(max_len, "max_len", 1, MAX_PATTERN), _pattern(pattern), []
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
    ours = params.labels.alphabet
    if examples is None and ours is not None and not set(ALPHABET) <= set(ours):  # the blog's contexts: a and b
        raise ValueError(
            _(
                "accuracy scores the blog's (aab)* contexts, over {blog}, unless given examples; these weights' alphabet is {alphabet}: give examples over it, or grade the weights on their task"
            ).format(blog=repr(ALPHABET), alphabet=brief(ours))
        )
    examples = prefix_examples() if examples is None else _scored_examples(examples)
    if not examples:
        raise ValueError(_("accuracy needs at least one example to score"))
    answers, failures = {}, []
    for example in examples:
        tokens = tuple(context_tokens(example.context, params))
        if len(example.expected) != 1 or example.expected not in params.labels.alphabet:  # never right: said
            raise ValueError(
                _("the answer {answer} after {context} is not a character of the alphabet {alphabet}").format(
                    answer=brief(example.expected),
                    context=brief(example.context),
                    alphabet=brief(params.labels.alphabet),
                )
            )
        if tokens not in answers:
            answers[tokens] = _predict(tokens, params).next
        if answers[tokens] != example.expected:
            failures.append((example, answers[tokens]))
    return Score(len(examples) - len(failures), len(examples), tuple(failures))


def _scored_examples(examples):
    """At most MAX_EXAMPLES of ``examples`` (Examples, or (context, next character) pairs), never more read."""
    wrong = _("examples must be a list of Examples or (context, next character) pairs; found {value}")
    if isinstance(examples, (str, bytes, dict)) or not isinstance(examples, Iterable):
        raise TypeError(wrong.format(value=brief(examples)))
    found = list(itertools.islice(examples, MAX_EXAMPLES + 1))
    if len(found) > MAX_EXAMPLES:
        raise ValueError(
            _("examples has more than {limit}; at most {limit} can be scored at once").format(limit=MAX_EXAMPLES)
        )
    pairs = []
    for example in found:
        pair = (example.context, example.expected) if isinstance(example, Example) else example
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            raise TypeError(wrong.format(value=brief(example)))
        pairs.append(Example(*pair))
    return pairs
