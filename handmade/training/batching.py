"""Batches: what each training step learns from, drawn at random from a text or a list of examples.

Both return a function that makes a new batch at each call, ``(inputs, targets)``, the way
``train`` asks for them: ``targets[i, j]`` is the token that should follow ``inputs[i, :j + 1]``.
"""

import itertools
from collections.abc import Iterable

import numpy as np

from ..arguments import brief, check_alphabet, is_whole, token_ids
from ..i18n import _
from ..tokenizer import fold, tokenize
from ..weights import MAX_N_CTX
from .limits import MAX_BATCH_TOKENS, check_batch_size, check_whole, generator, token_array
from .losses import IGNORE


def batches(tokens, batch_size, n_ctx, rng):
    """A function that returns a new batch at each call: (inputs, targets), both [batch_size, n_ctx].

    Each row of ``inputs`` is a window of ``n_ctx`` tokens starting at a random place in
    ``tokens`` (a 1-D sequence of ids); its row of ``targets`` is the same window one token later,
    so ``targets[i, j]`` is the token that follows ``inputs[i, :j + 1]``. ``rng`` is a seed or a
    ``np.random.Generator``: the same seed gives the same batches.
    """
    tokens = token_array(tokens, _("tokens"))
    if tokens.shape[0] != 1:
        raise ValueError(
            _("tokens must be one sequence of ids (a 1-D array); found shape {shape}").format(shape=tokens.shape)
        )
    tokens = tokens[0]
    check_whole(n_ctx, "n_ctx", 1, MAX_N_CTX)
    check_batch_size(batch_size, n_ctx)
    if len(tokens) <= n_ctx:
        raise ValueError(
            _(
                "{n} tokens cannot make windows of n_ctx = {n_ctx} with a target after each: give at least {least}"
            ).format(n=len(tokens), n_ctx=n_ctx, least=n_ctx + 1)
        )
    rng = generator(rng)
    offsets = np.arange(n_ctx)  # [n_ctx]

    def next_batch():  # -> [batch_size, n_ctx], [batch_size, n_ctx]
        starts = rng.integers(0, len(tokens) - n_ctx, size=batch_size)  # [batch_size]
        windows = starts[:, None] + offsets  # [batch_size, n_ctx]: the positions of each window
        return tokens[windows], tokens[windows + 1]

    return next_batch


def example_batches(examples, batch_size, n_ctx, rng, alphabet=None):
    """A function that returns a batch of (context, next token) examples at each call.

    ``examples`` are pairs ``(context, next)`` (or ``handmade.Example``s): strings when
    ``alphabet`` is given (a full-width ａ read as a, as the playground reads it), else token ids. Each context is cut to its last ``n_ctx`` tokens, as
    ``predict`` does, and only its last position has a target; shorter contexts are padded after
    their end, where the causal mask keeps the padding from changing the counted position.
    ``batch_size=None`` gives every example at every call; else ``batch_size`` drawn at random.
    """
    check_whole(n_ctx, "n_ctx", 1, MAX_N_CTX)
    pairs = [_example(example, alphabet, n_ctx) for example in _bounded(examples)]
    if not pairs:
        raise ValueError(_("there are no examples to learn from: give at least one (context, next token) pair"))
    n_seq = max(len(context) for context, _next in pairs)
    inputs = np.zeros((len(pairs), n_seq), dtype=np.int64)  # padding: token 0, never counted
    targets = np.full((len(pairs), n_seq), IGNORE, dtype=np.int64)
    for row, (context, following) in enumerate(pairs):
        inputs[row, : len(context)] = context
        targets[row, len(context) - 1] = following  # what should follow the whole context
    if batch_size is None:
        check_batch_size(len(pairs), n_seq)
        return lambda: (inputs, targets)
    check_batch_size(batch_size, n_seq)
    rng = generator(rng)

    def next_batch():  # -> [batch_size, n_seq], [batch_size, n_seq]
        rows = rng.integers(0, len(pairs), size=batch_size)
        return inputs[rows], targets[rows]

    return next_batch


def _bounded(examples):
    """At most MAX_BATCH_TOKENS + 1 of ``examples`` (an endless iterator is never read to its end)."""
    if isinstance(examples, (str, bytes, dict)) or not isinstance(examples, Iterable):
        raise TypeError(
            _("examples must be a list of (context, next token) pairs; found {value}").format(value=brief(examples))
        )
    examples = list(itertools.islice(examples, MAX_BATCH_TOKENS + 1))
    if len(examples) > MAX_BATCH_TOKENS:
        raise ValueError(
            _("there are more than {limit} examples; at most {limit} can be learned from at once").format(
                limit=MAX_BATCH_TOKENS
            )
        )
    return examples


def _example(example, alphabet, n_ctx):  # -> (context ids, next id), the context cut to its last n_ctx
    pair = (example.context, example.expected) if hasattr(example, "expected") else example
    if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not _sized(pair[0]) or not _sized(pair[1]):
        raise ValueError(
            _("an example is a pair (context, next token) of {kind}; found {value}").format(
                kind=_("characters") if alphabet is not None else _("token ids"), value=brief(example)
            )
        )
    context, following = pair if alphabet is None else _characters(pair, check_alphabet(alphabet))
    context, following = _context_ids(context), token_ids(following, _("next tokens"))
    if following is None or following.size != 1 or following.ravel()[0] < 0:
        raise _not_one_token(pair)
    return context[-n_ctx:], int(following.ravel()[0])


def _characters(pair, alphabet):  # ("aab", "a") -> ([0, 0, 1], [0])
    """A pair of characters as token ids, each character read as the playground's context box reads it (ａ as a);
    a refusal says which of the two, the context or the next token, it cannot read."""
    context, following = (fold(part, alphabet) if isinstance(part, str) else part for part in pair)
    if context == "":
        raise ValueError(
            _(
                "the example {example} has an empty context: a context needs at least one character, which the next token follows"
            ).format(example=brief(pair))
        )
    if isinstance(following, str) and len(following) != 1:
        raise _not_one_token(pair)
    if isinstance(following, str) and following not in alphabet:
        raise ValueError(
            _("the next token of the example {example} is {char}, which is not in the alphabet {alphabet}").format(
                example=brief(pair), char=repr(following), alphabet=brief(alphabet)
            )
        )
    try:
        return tokenize(context, alphabet), tokenize(following, alphabet)
    except ValueError as error:  # a character of the context, with its place
        raise ValueError(
            _("the context of the example {example} cannot be read: {reason}").format(example=brief(pair), reason=error)
        ) from None


def _context_ids(context):  # -> [n_seq] int64
    ids = token_ids(context, _("contexts"))
    if ids is None or ids.ndim != 1 or ids.size == 0:
        raise ValueError(
            _("a context must be token ids, a list of at least one whole number; found {value}").format(
                value=brief(context)
            )
        )
    return ids


def _not_one_token(pair):
    return ValueError(_("the next token of an example is one token; found {value}").format(value=brief(pair[1])))


def _sized(part):  # a context or next token as given: text, a list or array of ids, or one id
    return isinstance(part, (str, list, tuple, np.ndarray)) or is_whole(part)
