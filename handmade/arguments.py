"""What a public function is given, checked where it comes in: one rule for every error it raises.

A ``TypeError`` when an argument is of the wrong kind (None or text where a number is wanted, a
float where a whole number is, something that cannot be called where a function is); a
``ValueError`` when it is of the right kind but not allowed (a negative count, an unknown name;
weights that do not fit are a ``WeightsError``, a ValueError too). Each message is one line of at
most ``MAX_MESSAGE`` characters that names the argument, what is allowed and what was found, and
only what was found is cut short (``brief``, ``shown_path``), so that the reason and the allowed
values always fit.

The maths (``gpt()`` and its parts, their backward twins, the loss) trusts its arrays, as picoGPT
does: the functions that take things from people check them first.
"""

import math
import numbers
import os
import re
import sys
from pathlib import Path

import numpy as np

from .i18n import _, listed, ngettext

NUMBER_KINDS = "iuf"  # numpy's kinds for integers and floats: not booleans, complex numbers or text
MAX_MESSAGE = 200  # characters of an error message: enough to name the problem, never a wall of text
SHOWN_PATH = 40  # characters of a file name quoted in a message: its start and its end
SHORT_DIGITS = 7  # significant digits of a number written in full (fmt_short): 1.0001, 1024.001 as typed
# How near (relative) a float is to the decimal it is written as: far above the rounding of sums, which differs
# between machines (1024 + 1.0001 - 1024 is 1.0001 to within 2.5e-14), and so far below the gaps between
# decimals of SHORT_DIGITS digits that a computed number (1/3, a softmax) is taken for one about once in 3,000
SAME = 1e-11


class UnknownName(ValueError, KeyError):
    """A name that names nothing here, or more than one thing: a ValueError like every wrong value,
    and a KeyError too, so that mappings keyed by names (a trace) keep Python's ``in`` and ``.get``."""

    def __str__(self):  # KeyError would quote the sentence
        return str(self.args[0]) if self.args else ""


def brief(value, limit=60):
    """``repr(value)`` cut to ``limit`` characters, for messages (numpy numbers shown plainly; a string cut
    inside its quotes, which still close: ``'1, 2, 3, …'``), on one line (an array's rows side by side)."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    text = re.sub(r"\n\s*", " ", text)  # a string's repr has none: its new lines are escaped
    closing = text[-1] if isinstance(value, str) else ""
    return text if len(text) <= limit else text[: limit - 1 - len(closing)] + "…" + closing


def fmt(x, digits=4):
    """A number as people write it: 1024, 0.5, -1, 0.3333, -1e+10 (and 0 for -0.0)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    if abs(x) < 1e-9:
        return "≈0"  # not exactly zero, but too small to matter (e^-362 in the blog's attention)
    if x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.{digits}g}"


def fmt_apart(x, other, digits=4):
    """``x`` as ``fmt`` writes it, with as many more digits as it takes to tell it from ``other`` (a threshold,
    a rival's probability): a margin of 1.00001 is not "1" beside "more than 1", nor p = 0.50002 "0.5" beside 0.49998."""
    said = fmt(x, digits)
    if said != fmt(other, digits):  # apart already, as most are
        return said
    return fmt(x, digits_apart([x, other], digits).get(float(x), digits))


def digits_apart(values, digits=4, within=0.0, write=fmt):
    """{value: the significant digits it is written with} for the finite ``values``: ``digits``, and more for
    those that ``write(x, n)`` would write as it writes another one further than ``within`` from them, until
    every text stands for values within ``within`` of each other, and equal values share one (but "≈0",
    which says too small to matter, may stand for more)."""
    values = sorted({float(x) for x in values if math.isfinite(x)})  # sorted, so each text's values are too
    given = dict.fromkeys(values, digits)
    said = {x: write(x, digits) for x in given}
    while True:
        texts = {}  # text -> the values written so, smallest first
        for x, text in said.items():
            texts.setdefault(text, []).append(x)
        crowded = [xs for text, xs in texts.items() if text != "≈0" and xs[-1] - xs[0] > within]
        crowded = [xs for xs in crowded if any(given[x] < 17 for x in xs)]  # 17 digits tell any two floats apart
        if not crowded:
            return given
        for x in (x for xs in crowded for x in xs):
            given[x] = min(given[x] + 1, 17)
            said[x] = write(x, given[x])


def fmt_short(x, most=SHORT_DIGITS):
    """``x`` with every digit when it is a decimal of at most ``most`` significant digits, to within SAME of
    itself, as a typed number is (1.0001, 1024.001, 1e-12; 0.30000000000000004 is 0.3); None for one that
    is not (1/3, e^-362), or that is 0, not finite, or subnormal (no digit of it is sure)."""
    x = float(x)
    if not math.isfinite(x) or abs(x) < sys.float_info.min:
        return None
    for k in range(1, most + 1):
        said = f"{x:.{k}g}"
        if abs(float(said) - x) <= SAME * abs(x):
            return said if abs(x) < 1e-9 else fmt(x, k)  # fmt: 1024 not 1e+03; but 1e-12 written, not "≈0"
    return None


def exact(x):
    """A number with every digit kept, as a box that edits it shows it: 1024, 1.0001, 1e-20 (repr, no needless .0)."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def few(names, between=None, limit=80):
    """``names`` joined for a message (by ``between``, else as the language lists), as many whole
    names as fit in ``limit`` characters, then how many more there are (never "and 1 more" after others: that
    name would say as much): never a name cut in two."""
    every = [str(n) for n in names]
    names = [n for n in every if len(n) <= limit]  # a name longer than the line is counted, not shown
    for count in range(len(names), 0, -1):
        shown, more = (listed if between is None else between.join)(names[:count]), len(every) - count
        if more == 1 and count > 1 and len(names) == len(every):  # never "and 1 more" for a name that could show
            continue
        if more:
            shown = ngettext("{names} and {n} more", "{names} and {n} more", more).format(names=shown, n=more)
        if len(shown) <= limit:
            return shown
    return ngettext("{n} name", "{n} names", len(every)).format(n=len(every)) if every else ""


def with_names(sentence, names, **fields):
    """``sentence`` filled with ``fields``, and its ``{names}`` with as many whole ``names`` as fit in a
    message of MAX_MESSAGE characters, then how many more there are (``few``)."""
    room = MAX_MESSAGE - len(sentence.format(**fields, names=""))
    return sentence.format(**fields, names=few(names, limit=room))


def is_whole(value, floats=False):
    """An int or numpy integer, never a boolean; with ``floats``, also a float of a whole value (3.0,
    as a learner may type a count). The one test of a whole number, for every check below and beyond."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, np.integer)) or (floats and isinstance(value, float) and value.is_integer())


def yes_or_no(value, name):
    """TypeError unless ``value`` is True or False (a truthy 1 or "no" is not a switch's answer)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(_("{name} must be True or False; found {value}").format(name=name, value=brief(value)))
    return bool(value)


def is_real(value):
    """A real number (an int, a float, a Fraction, a numpy number), never a boolean (it may be nan or infinite)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def whole(value, name, low, high):
    """``value`` as an int: TypeError unless a whole number, ValueError unless from ``low`` to ``high``."""
    if not is_whole(value) or not low <= value <= high:
        kind = ValueError if is_whole(value) else TypeError
        raise kind(
            _("{name} must be a whole number from {low} to {high}; found {value}").format(
                name=name, low=low, high=high, value=brief(value)
            )
        )
    return int(value)


def number(value, name, low, high, low_allowed=True, high_allowed=True):
    """``value`` as a float in the interval from ``low`` to ``high`` (each end in it or not);
    TypeError unless a real number, ValueError outside the interval (nan is outside every one)."""
    plain = float(value) if isinstance(value, np.floating) else value  # float32 beside -1e300 would overflow
    inside = is_real(value) and (low <= plain if low_allowed else low < plain)
    if not (inside and (plain <= high if high_allowed else plain < high)):
        interval = ("[" if low_allowed else "(") + f"{low}, {high}" + ("]" if high_allowed else ")")
        raise (ValueError if is_real(value) else TypeError)(
            _("{name} must be a number in {interval}; found {value}").format(
                name=name, interval=interval, value=brief(value)
            )
        )
    return float(value)


def seeded(rng):
    """A ``np.random.Generator`` from a seed or a generator; never an unseeded one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if not is_whole(rng) or not 0 <= rng < 2**63:
        raise (ValueError if is_whole(rng) else TypeError)(
            _("rng must be a seed (a whole number from 0) or a np.random.Generator; found {value}").format(
                value=brief(rng)
            )
        )
    return np.random.default_rng(int(rng))


def function(value, sentence):
    """``value`` if it can be called; else a TypeError of ``sentence`` (translated, with ``{value}``)."""
    if not callable(value):
        raise TypeError(sentence.format(value=brief(value)))
    return value


def text_of(value, name, limit):
    """``value`` if it is a string of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise TypeError(_("{name} must be a string; found {value}").format(name=name, value=brief(value)))
    if len(value) > limit:
        raise ValueError(
            _("{name} has {n} characters; at most {limit} are allowed").format(name=name, n=len(value), limit=limit)
        )
    return value


def strings(value, name):
    """``value`` as a list of strings: TypeError unless a list, tuple or set of them."""
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise TypeError(_("{name} must be a list of strings; found {value}").format(name=name, value=brief(value)))
    return list(value)


def chosen(value, name, allowed, sentence):
    """``value`` as a list of names, each one of ``allowed``: TypeError unless a list, tuple or set of
    strings; UnknownName for the first that is not allowed, in ``sentence`` (with ``{name}`` and
    ``{allowed}``), the allowed ones cut short however many there are."""
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise TypeError(_("{name} must be a list of names; found {value}").format(name=name, value=brief(value)))
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise UnknownName(sentence.format(name=brief(unknown[0], 40), allowed=few(allowed, limit=100)))
    return list(value)


def real_array(value, name, ndim, limit):
    """``value`` (nested lists or an array of real numbers) as a float64 array of ``ndim`` dimensions
    (1: a row, 2: a matrix), each 1 to ``limit`` long, every number finite: TypeError unless real
    numbers, ValueError for another shape, an empty one, one too large, or inf and nan."""
    what = (
        _("a list of 1 to {limit} real numbers")
        if ndim == 1
        else _("a matrix (rows of real numbers), 1 to {limit} a side")
    ).format(limit=limit)
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(
            _("{name} must be {what}; found rows of different lengths").format(name=name, what=what)
        ) from None
    if array.dtype.kind not in NUMBER_KINDS:
        raise TypeError(_("{name} must be {what}; found {value}").format(name=name, what=what, value=brief(value)))
    if array.ndim != ndim or not all(1 <= n <= limit for n in array.shape):
        raise ValueError(
            _("{name} must be {what}; found one of shape {shape}").format(name=name, what=what, shape=array.shape)
        )
    if not np.isfinite(array).all():
        index = [int(i) for i in np.argwhere(~np.isfinite(array))[0]]
        raise ValueError(
            _("{name}{index} is {value}; every number must be finite").format(
                name=name, index=index, value=array[tuple(index)]
            )
        )
    return array.astype(np.float64)


# ---- what a model reads: an alphabet, token ids, arrays of weights ---------------------------

MAX_ALPHABET = 1024  # characters of an alphabet: a model has at most as many tokens
TOKEN_SHOWN = {" ": "␣", "\n": "⏎", "\t": "⇥"}  # characters that would vanish in a table (basis.token_shown)


def check_alphabet(alphabet):
    """``alphabet`` if it is a string of 1 to MAX_ALPHABET distinct characters, each one that can be shown."""
    if not isinstance(alphabet, str) or not 0 < len(alphabet) <= MAX_ALPHABET:
        raise (ValueError if isinstance(alphabet, str) else TypeError)(
            _("an alphabet is a string of 1 to {limit} distinct characters; found {value}").format(
                limit=MAX_ALPHABET, value=brief(alphabet)
            )
        )
    writable(alphabet, _("the alphabet"))
    joined = [] if alphabet.isascii() else _combining(alphabet)
    if joined:  # e + U+0301 shows as é: two tokens a learner could not tell from one
        raise ValueError(
            _(
                "the alphabet {alphabet} has {char} (U+{code:04X}), a combining mark, which shows joined to the character before it; each character must show on its own"
            ).format(alphabet=brief(alphabet), char=repr(joined[0]), code=ord(joined[0]))
        )
    if len(set(alphabet)) != len(alphabet):
        repeated = sorted({c for c in alphabet if alphabet.count(c) > 1})
        raise ValueError(
            _("the alphabet {alphabet} repeats {chars}; each character must appear once").format(
                alphabet=brief(alphabet), chars=listed(map(repr, repeated))
            )
        )
    alike = [c for c, shown in TOKEN_SHOWN.items() if c in alphabet and shown in alphabet]
    if alike:  # a space shows as ␣ wherever a letter is named: two tokens a learner could not tell apart
        sentence = _(
            "the alphabet {alphabet} has both {char} and {shown}, which a table shows alike ({shown}); keep one"
        )
        raise ValueError(sentence.format(alphabet=brief(alphabet), char=repr(alike[0]), shown=TOKEN_SHOWN[alike[0]]))
    return alphabet


def _combining(text):
    """The combining marks of ``text``, which show joined to the character before them (unicodedata: loaded here,
    for an alphabet beyond ASCII, not on every import)."""
    import unicodedata

    return [c for c in text if unicodedata.combining(c) or unicodedata.category(c) == "Me"]


def token_ids(ids, what):  # -> int64 [n_seq] or [B, n_seq], the shape given; or None
    """``ids`` (a list, or an array, of whole numbers: never bools, which numpy would take for 1 and 0) as
    an int64 array of the shape given, a sequence [n_seq] or a batch [B, n_seq]; None when they are not
    whole numbers (rows of different lengths, text, floats), for the caller to say what it expected.
    ValueError naming ``what`` for an id too large for int64, which would wrap round to -1 ("no target")."""
    if isinstance(ids, (str, bytes, dict, set)):
        return None
    try:
        array = np.asarray(ids)
    except ValueError:  # rows of different lengths
        return None
    given = () if isinstance(ids, np.ndarray) else ids if array.ndim == 1 else np.asarray(ids, dtype=object).flat
    if array.dtype.kind not in "iu" or not all(map(is_whole, given)):
        return None
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(
            _("{what} hold the token id {value}, too large for any model (they have at most {limit} tokens)").format(
                what=what, value=int(array.max()), limit=MAX_ALPHABET
            )
        )
    return array.astype(np.int64, copy=False)


def tokens_for(inputs, n_vocab, n_ctx, cached=0):  # -> [n_seq] int64
    """``inputs`` as the token ids one pass of a model of ``n_vocab`` tokens and ``n_ctx`` positions runs,
    after ``cached`` ones: a flat list of whole numbers from 0 to n_vocab - 1, with room for them all."""
    ids = token_ids(inputs, _("token ids"))  # None: not whole numbers, all of them
    if ids is None or ids.ndim != 1:
        try:
            flat = ids is None and not isinstance(inputs, (str, bytes, dict, set)) and np.ndim(inputs) == 1
        except ValueError:  # rows of different lengths
            flat = False
        if not flat:
            raise _not_flat(inputs)
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
    if ids is None or ids.min() < 0 or ids.max() >= n_vocab:
        raise _not_an_id(inputs, n_vocab)
    return ids


def _not_flat(inputs):
    return ValueError(_("token ids are a flat list of whole numbers; found {value}").format(value=brief(inputs)))


def _not_an_id(inputs, n_vocab):
    """The error that names the first of ``inputs`` (a flat sequence) that is not a token id of ``n_vocab``."""
    position = next((i for i, t in enumerate(inputs) if not is_whole(t) or not 0 <= t < n_vocab), None)
    if position is None:  # whole numbers, all of them, in an array numpy holds as objects
        return _not_flat(inputs)
    token = inputs[position]
    kind = _("{value} (a {kind})").format(value=brief(token), kind=type(token).__name__)
    return ValueError(
        _("token ids are whole numbers from 0 to {top} (n_vocab = {n}); found {found} at position {position}").format(
            top=n_vocab - 1, n=n_vocab, found=brief(token) if is_whole(token) else kind, position=position
        )
    )


def number_array(value, path, ndim, meaning, error=ValueError):  # -> float64 array
    """``value`` (an array, or nested lists of plain numbers or arrays: never bools, text or complex ones)
    as a float64 array of at most ``ndim`` dimensions, for weights and the parts of them (``path`` names
    where they go, ``meaning`` what is expected there); else ``error`` naming the first entry that is
    not a number, by its index. Nested lists are walked without recursion: no nesting exhausts the stack."""
    stack = [(value.item() if isinstance(value, (np.number, np.bool_)) else value, [])]
    while stack:
        item, index = stack.pop()
        said = {"path": path, "index": index or "", "meaning": meaning}
        if (
            isinstance(item, np.ndarray)
            and item.dtype.kind in NUMBER_KINDS
            and (not index or len(index) + item.ndim <= ndim)
        ):
            continue  # numbers already (a row made with Basis.vector): np.array below takes them, the caller their shape
        if isinstance(item, np.ndarray) and item.dtype.kind not in NUMBER_KINDS:
            sentence = _("{path}{index} holds {kind} values; weights are real numbers (expected {meaning})")
            raise error(sentence.format(kind=item.dtype.name, **said))
        if isinstance(item, (list, tuple, np.ndarray)):
            if len(index) >= ndim:
                raise error(_("{path}{index} is a list where a number should be (expected {meaning})").format(**said))
            stack.extend(reversed([(x, [*index, i]) for i, x in enumerate(item)]))  # the first comes out first
        elif isinstance(item, bool) or not isinstance(item, (int, float, np.integer, np.floating)):
            sentence = _("{path}{index} is {value}, not a number (expected {meaning})")
            raise error(sentence.format(value=brief(item), **said))
        elif isinstance(item, int) and abs(item) > 1e308:
            sentence = _(
                "{path}{index} is a whole number of {digits} digits, too large for a float; every weight must be a finite number"
            )
            raise error(sentence.format(digits=len(str(abs(item))), **said))
    try:
        return np.array(value, dtype=np.float64)
    except ValueError:
        raise error(
            _("{path} is not a table of numbers: its rows have different lengths (expected {meaning})").format(
                path=path, meaning=meaning
            )
        ) from None


SURROGATE = re.compile("[\ud800-\udfff]")  # half of a character: UTF-8 cannot write one alone


def writable(text, what):
    """``text`` (a string) unless it holds a lone surrogate, which no file or screen can show (a JSON
    file's ``"\\ud800"`` or an undecodable file name may bring one); ValueError naming ``what`` then."""
    if not isinstance(text, str):
        raise TypeError(_("{name} must be a string; found {value}").format(name=what, value=brief(text)))
    found = SURROGATE.search(text)
    if found:
        raise ValueError(
            _(
                "{what} holds {char} at position {position}: a lone surrogate, half of a character, which cannot be shown"
            ).format(what=what, char=repr(found.group()), position=found.start())
        )
    return text


def file_name(value, name="path"):
    """``value`` as a ``Path``: a non-empty string or path without a null character."""
    if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes):
        raise TypeError(
            _("{name} must be a file name (a string or a path); found {value}").format(name=name, value=brief(value))
        )
    shown = os.fspath(value)
    if not isinstance(shown, str) or shown == "" or "\0" in shown:
        raise ValueError(
            _("{name} must be a file name: some characters, none of them a null character; found {value}").format(
                name=name, value=brief(shown)
            )
        )
    try:
        os.fsencode(shown)  # a lone surrogate that no undecodable byte stands for: no system can name it
    except UnicodeEncodeError:
        writable(shown, name)
    return Path(shown)


def shown_path(path, limit=SHOWN_PATH):
    """A file name for a message, on one line: as it is when short, else its start and its end around
    an ellipsis; a character that cannot be shown (a new line, a null, a lone surrogate) as its escape."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(path))
    if len(shown) <= limit:
        return shown
    head = (limit - 1) * 2 // 5  # more of the end, where the file's own name is
    return shown[:head] + "…" + shown[len(shown) - (limit - head - 1) :]


def clip(message, limit=MAX_MESSAGE):
    """``message`` on one line of at most ``limit`` characters: its start and its end, where reasons
    and allowed values are, around an ellipsis, cut between words where a word is not too long
    (a long file name is cut inside). A message built by the rule above needs no clip."""
    message = " ".join(str(message).split())
    if len(message) <= limit:
        return message
    head = (limit - 1) // 2
    start, end = message[:head], message[len(message) - (limit - head - 1) :]
    if " " in start[head // 2 :]:  # back to the end of the last whole word
        start = start[: start.rfind(" ") + 1]
    if " " in end[: len(end) // 2]:  # on from the start of the first whole word
        end = end[end.find(" ") :]
    return start + "…" + end
