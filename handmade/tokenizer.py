"""Characters to token ids and back: token i is the i-th character of the alphabet."""

from collections.abc import Iterable

import numpy as np

from .arguments import (  # writable: a lone surrogate cannot be shown, refused where text comes in
    brief,
    is_whole,
    writable,
)
from .i18n import _, listed, ngettext

MAX_TEXT = 1_000_000  # characters one call may tokenize (the longest text in the series is 165,000)
MAX_ALPHABET = 1024


def check_alphabet(alphabet):
    if not isinstance(alphabet, str) or not 0 < len(alphabet) <= MAX_ALPHABET:
        raise (ValueError if isinstance(alphabet, str) else TypeError)(
            _("an alphabet is a string of 1 to {limit} distinct characters; found {value}").format(
                limit=MAX_ALPHABET, value=brief(alphabet)
            )
        )
    writable(alphabet, _("the alphabet"))
    if len(set(alphabet)) != len(alphabet):
        repeated = sorted({c for c in alphabet if alphabet.count(c) > 1})
        raise ValueError(
            _("the alphabet {alphabet} repeats {chars}; each character must appear once").format(
                alphabet=brief(alphabet), chars=listed(map(repr, repeated))
            )
        )
    return alphabet


def tokenize(text, alphabet="ab"):  # "aabaa" -> [0, 0, 1, 0, 0]
    check_alphabet(alphabet)
    if not isinstance(text, str):
        raise TypeError(
            _("text must be a string of characters from {alphabet}; found {value}").format(
                alphabet=brief(alphabet), value=brief(text)
            )
        )
    if len(text) > MAX_TEXT:
        raise ValueError(
            _("the text has {n} characters; at most {limit} can be tokenized at once").format(
                n=len(text), limit=MAX_TEXT
            )
        )
    ids = {char: i for i, char in enumerate(alphabet)}
    try:
        return [ids[char] for char in text]
    except KeyError:
        position = next(i for i, char in enumerate(text) if char not in ids)
        raise ValueError(
            _("cannot tokenize {char} at position {position} of {where}: the alphabet is {alphabet}").format(
                char=repr(text[position]), position=position, where=_around(text, position), alphabet=brief(alphabet)
            )
        ) from None


def _around(text, position, width=12):
    """``text`` itself when short; else the characters around ``position``, with … for the rest."""
    if len(text) <= 2 * width:
        return repr(text)
    start, end = max(0, position - width), position + width + 1
    return ("…" if start else "") + repr(text[start:end]) + ("…" if end < len(text) else "")


def untokenize(tokens, alphabet="ab"):  # [0, 0, 1] -> "aab"
    check_alphabet(alphabet)
    if isinstance(tokens, (str, bytes, dict)) or not isinstance(tokens, Iterable):
        raise TypeError(_("tokens must be a list of token ids; found {value}").format(value=brief(tokens)))
    chars = []
    for token in tokens:
        if not is_whole(token) or not 0 <= token < len(alphabet):
            raise ValueError(
                _("token {token} is not an id of the alphabet {alphabet} (ids 0 to {top})").format(
                    token=brief(token), alphabet=brief(alphabet), top=len(alphabet) - 1
                )
            )
        chars.append(alphabet[int(token)])
    return "".join(chars)


# ---- token ids, as a model runs them ------------------------------------------------------


def check_tokens(inputs, n_vocab, n_ctx, cached=0):
    """``inputs`` as an array of token ids in range 0..n_vocab-1, room for them after ``cached`` ones."""
    if isinstance(inputs, (str, bytes, dict, set)) or not _is_flat(inputs):
        raise ValueError(_("token ids are a flat list of whole numbers; found {value}").format(value=brief(inputs)))
    n = len(inputs)
    if n == 0:
        raise ValueError(_("cannot run an empty context: give at least one token"))
    if cached and cached + n > n_ctx:
        raise ValueError(
            ngettext(
                "cannot run {n} more token after {cached} cached: this model has room for {limit} (its n_ctx)",
                "cannot run {n} more tokens after {cached} cached: this model has room for {limit} (its n_ctx)",
                n,
            ).format(n=n, cached=cached, limit=n_ctx)
        )
    if n > n_ctx:
        raise ValueError(
            _("cannot run a context of {n} tokens: this model has room for {limit} (its n_ctx)").format(
                n=n, limit=n_ctx
            )
        )
    for position, token in enumerate(inputs):
        whole = is_whole(token)
        if not whole or not 0 <= token < n_vocab:
            found = (
                brief(token) if whole else _("{value} (a {kind})").format(value=brief(token), kind=type(token).__name__)
            )
            raise ValueError(
                _(
                    "token ids are whole numbers from 0 to {top} (n_vocab = {n}); found {found} at position {position}"
                ).format(top=n_vocab - 1, n=n_vocab, found=found, position=position)
            )
    return np.array(inputs, dtype=np.int64)


def _is_flat(inputs):
    try:
        return np.ndim(inputs) == 1
    except ValueError:  # rows of different lengths
        return False
