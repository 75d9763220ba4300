"""Characters to token ids and back: token i is the i-th character of the alphabet."""

from collections.abc import Iterable

from .arguments import brief, check_alphabet, is_whole, text_of
from .i18n import _

# characters one call may tokenize, or tokens untokenize (the longest text in the series is 165,000)
MAX_TEXT = 1_000_000


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


def fold(text, alphabet):
    """``text`` with each character that is not in ``alphabet`` but whose NFKC form is one that is (the full-width
    letters of a Chinese input method: ａａｂ) as that letter, as the number boxes read full-width digits; the
    others as typed, for the refusal to name. The playground's context box and ``example_batches`` read text so."""
    if alphabet is not None:
        check_alphabet(alphabet)
    text_of(text, "text", MAX_TEXT)
    if alphabet is None or set(text) <= set(alphabet):
        return text
    import unicodedata  # loaded here, for a text that needs it, not on every import

    folded = (unicodedata.normalize("NFKC", c) for c in text)
    return "".join(c if c in alphabet or not (len(f) == 1 and f in alphabet) else f for c, f in zip(text, folded))


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
        if len(chars) == MAX_TEXT:  # an endless iterator, or a list too long, stops here
            raise ValueError(_("at most {limit} tokens can be turned into text at once").format(limit=MAX_TEXT))
        if not is_whole(token) or not 0 <= token < len(alphabet):
            raise ValueError(
                _("token {token} is not an id of the alphabet {alphabet} (ids 0 to {top})").format(
                    token=brief(token), alphabet=brief(alphabet), top=len(alphabet) - 1
                )
            )
        chars.append(alphabet[int(token)])
    return "".join(chars)
