"""Named directions, weight matrices built from rules over those names, and a model's labels.

Instead of "put 1024 at row 2, column 9", a builder says "the query of position P2 looks for
keys at P1 and P2". A ``Basis`` keeps the order its names were declared in (never sorted), so
built matrices line up exactly with hand-written ones, and every table can carry labels.
``Labels`` gathers the names one model is read with (its alphabet, the directions of its residual
stream, of each block's attention and of each MLP); they travel with the weights.
"""

import dataclasses
import sys
from dataclasses import dataclass

import numpy as np

from .arguments import (
    TOKEN_SHOWN,
    UnknownName,
    brief,
    check_alphabet,
    few,
    is_real,
    number_array,
    text_of,
    whole,
    writable,
)
from .i18n import _, listed

MAX_DIRECTION_NAME = 40  # characters in one direction's name
MAX_NAMES = 4096  # names in one basis


class Basis:
    """An ordered list of direction names, grouped for display (``P0..P4 | Ta Tb | V``)."""

    # groups: a dict of lists of names, or one list of names (one group, ""); longest: for names made of others
    def __init__(self, groups, longest=MAX_DIRECTION_NAME):
        groups = {"": groups} if isinstance(groups, (list, tuple)) else groups
        if longest != MAX_DIRECTION_NAME:  # longer, as for "q·Ta"
            longest = whole(longest, "longest", 1, 2 * MAX_DIRECTION_NAME)
        if not isinstance(groups, dict) or not all(isinstance(names, (list, tuple)) for names in groups.values()):
            raise TypeError(
                _("a basis is a list of names, or a dict of groups of names; found {value}").format(value=brief(groups))
            )
        self.groups = {str(group): tuple(names) for group, names in groups.items()}
        if len(self.groups) != len(groups):
            raise ValueError(
                _("a basis's groups need distinct names; found {groups}").format(groups=brief(list(groups)))
            )
        self.names = tuple(name for names in self.groups.values() for name in names)
        bad = [name for name in self.names if not isinstance(name, str) or not 0 < len(name) <= longest]
        if bad:
            raise ValueError(
                _("a direction's name is a string of 1 to {limit} characters; found {name}").format(
                    limit=longest, name=brief(bad[0])
                )
            )
        if len(self.names) > MAX_NAMES:
            raise ValueError(
                _("a basis has at most {limit} names; this one has {n}").format(limit=MAX_NAMES, n=len(self.names))
            )
        for name in self.names:
            writable(name, _("a direction's name"))
        self._index = {name: i for i, name in enumerate(self.names)}
        if len(self._index) != len(self.names):
            repeated = sorted({n for n in self.names if self.names.count(n) > 1})
            raise ValueError(_("a basis needs distinct names; repeated: {names}").format(names=few(repeated)))

    @classmethod
    def numbered(cls, n, prefix="e"):
        """``e0 .. e{n-1}``: labels for a space nobody has named."""
        return cls([f"{prefix}{i}" for i in range(whole(n, "n", 0, MAX_NAMES))])

    def __len__(self):
        return len(self.names)

    def __iter__(self):
        return iter(self.names)

    def __eq__(self, other):
        return isinstance(other, Basis) and self.groups == other.groups

    def __hash__(self):
        return hash(tuple(self.groups.items()))

    def __repr__(self):
        return "Basis(" + " | ".join(" ".join(names) for names in self.groups.values()) + ")"

    def index(self, name):
        if not isinstance(name, str):
            raise TypeError(_("a direction's name is a string; found {value}").format(value=brief(name)))
        try:
            return self._index[name]
        except KeyError:
            raise UnknownName(
                _("unknown direction {name}; this basis has {names}").format(name=brief(name), names=few(self, " "))
            ) from None

    def group_starts(self):
        """Indices where a new group begins (after the first): where tables draw a split line."""
        starts, at = [], 0
        for names in list(self.groups.values())[:-1]:
            at += len(names)
            starts.append(at)
        return starts

    def vector(self, entries):  # {name: value} -> [n]
        out = np.zeros(len(self))
        for name, value in _entries(entries, _("a dict of numbers by direction name")).items():
            out[self.index(name)] = value
        return out

    def matrix(self, entries, cols=None):  # {(row name, col name): value} -> [n, n_cols]
        cols = self if cols is None else cols
        if not isinstance(cols, Basis):
            raise TypeError(
                _("cols must be a Basis, the names of the columns; found {value}").format(value=brief(cols))
            )
        out = np.zeros((len(self), len(cols)))
        shape = _("a dict of numbers by (row name, column name)")
        for key, value in _entries(entries, shape).items():
            if not isinstance(key, tuple) or len(key) != 2:
                raise TypeError(
                    _("entries must be {shape}; found the key {value}").format(shape=shape, value=brief(key))
                )
            out[self.index(key[0]), cols.index(key[1])] = value
        return out

    def one_hot_rows(self, names):  # [name, ...] -> [len(names), n], row i is 1 at names[i]
        if not isinstance(names, (list, tuple)):
            raise TypeError(_("names must be a list of direction names; found {value}").format(value=brief(names)))
        return np.array([self.vector({name: 1.0}) for name in names]).reshape(len(names), len(self))

    def to_json(self):
        return {group: list(names) for group, names in self.groups.items()}


def _of_block(bases, block):
    """The Basis of ``bases`` (a Basis or None per block) for ``block``, or None: a block's index, never counted from the end."""
    block = whole(block, "block", 0, MAX_NAMES)
    return bases[block] if block < len(bases) else None


def _entries(entries, shape):
    """``entries`` if it is a dict of finite real numbers (a weight each); TypeError naming the shape expected,
    ValueError naming the entry that is nan, infinite or too large for float64."""
    if not isinstance(entries, dict) or not all(is_real(value) for value in entries.values()):
        raise TypeError(_("entries must be {shape}; found {value}").format(shape=shape, value=brief(entries)))
    for key, value in entries.items():
        if not abs(value) <= sys.float_info.max:  # nan, inf, or a whole number too large for a float
            said = _("{entry} is {value}; every weight must be a finite number")
            raise ValueError(said.format(entry=f"entries[{brief(key)}]", value=brief(value)))
    return entries


# ---- q, k and v inside c_attn -------------------------------------------------------------
# c_attn.w is [q | k | v] side by side, each [n_embd, n_attn]: these two build and split it from its blocks.


def qkv_weights(q, k, v):
    """``c_attn`` from its three blocks, each [n_embd, n_attn]: ``w`` is [q | k | v] side by side, ``b`` is zero."""
    blocks = [number_array(x, name, 2, "[n_embd, n_attn]", TypeError) for x, name in ((q, "q"), (k, "k"), (v, "v"))]
    if any(x.ndim != 2 for x in blocks) or len({x.shape for x in blocks}) > 1:
        shapes = listed(f"{name} {x.shape}" for x, name in zip(blocks, "qkv"))
        raise ValueError(
            _("q, k and v must be matrices of one shape, [n_embd, n_attn]; found {shapes}").format(shapes=shapes)
        )
    w = np.hstack(blocks)  # 3 of [n_embd, n_attn] -> [n_embd, 3*n_attn]
    return {"w": w, "b": np.zeros(w.shape[1])}


def split_qkv(c_attn_w):
    """The q, k and v blocks of a ``c_attn`` weight matrix [n_embd, 3*n_attn]: 3 of [n_embd, n_attn]."""
    w = number_array(c_attn_w, "c_attn_w", 2, "[n_embd, 3*n_attn]", TypeError)
    if w.ndim != 2 or w.shape[1] % 3:
        said = _("c_attn_w must be a matrix of 3*n_attn columns, [n_embd, 3*n_attn]; found the shape {shape}")
        raise ValueError(said.format(shape=w.shape))
    return np.split(w, 3, axis=-1)


# ---- the names a model is read with ---------------------------------------------------------


def token_shown(char):
    """A token's character as every table, sentence and report names it: ␣ ⏎ ⇥, else its escape ('\\x00') if it
    cannot show, else itself: the one rule, so that a letter has one name wherever it is said."""
    if not isinstance(char, str):
        text_of(char, "char", 1)  # its one line: a string is wanted
    return TOKEN_SHOWN.get(char, char) if char.isprintable() or char in TOKEN_SHOWN else repr(char)


CONTEXT_SAID = 40  # characters: the longest context a report or a message quotes whole (the built-in tasks' are 30)


def context_said(context, limit=CONTEXT_SAID):
    """A context quoted as every report and message quotes it, 'aab'; one longer than ``limit`` characters quoted by
    its end, the letters read last, which the prediction follows: '…babab' (a teacher's extra example may be 1,024)."""
    said = repr(context)
    if len(said) <= limit:
        return said
    end = context[-(limit - 3) :]
    while len(repr(end)) > limit - 1:  # escapes (\x00) take more room than their letters
        end = end[1:]
    return repr(end)[0] + "…" + repr(end)[1:]


def text_shown(text):
    """``text`` (a context, a message) with each character that cannot show written as its escape (``a\\t\\x00``), as
    ``repr`` writes it between its quotes: a tab is no gap, a null character does not vanish."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


@dataclass(frozen=True)
class Labels:
    """What a model's numbers mean: its tokens and the names of the directions of its spaces.

    Every field but ``residual`` may be left out: tokens without an alphabet are called t0, t1, ...
    (and text cannot be tokenized for them), attention directions default to the residual's names
    (or a0, a1, ...), hidden units to h0, h1, ...
    """

    alphabet: str | None  # token i is the character alphabet[i]; None: the tokens are only numbers
    residual: Basis  # the n_embd directions of the residual stream: columns of wte, wpe, c_proj
    attention: tuple = ()  # per block: a Basis for the n_attn directions of q, k, v (None: residual's)
    hidden: tuple = ()  # per block: a Basis for the MLP's hidden units (None: h0, h1, ...)
    # made by default_labels, for a model whose tokens nobody named: its alphabet states nothing (a file keeps none)
    defaulted: bool = dataclasses.field(default=False, init=False, compare=False, repr=False)

    def __post_init__(self):
        if self.alphabet is not None:
            check_alphabet(self.alphabet)
        if not isinstance(self.residual, Basis):
            raise TypeError(
                _("labels.residual must be a Basis, the names of the residual directions; found {value}").format(
                    value=brief(self.residual)
                )
            )
        for field in ("attention", "hidden"):
            per_block = getattr(self, field)
            if not isinstance(per_block, (tuple, list)) or not all(
                b is None or isinstance(b, Basis) for b in per_block
            ):
                raise TypeError(
                    _("labels.{field} must be a list with a Basis (or None) per block; found {value}").format(
                        field=field, value=brief(per_block)
                    )
                )
            object.__setattr__(self, field, tuple(per_block))

    def token_names(self, n_vocab):
        """The names of ``n_vocab`` tokens: the alphabet's characters as ``token_shown`` shows them (a space is ␣, a
        new line ⏎, a control character its escape, '\\x00'; no two alike: ``check_alphabet``), or t0 .. t{n_vocab-1}
        without an alphabet."""
        return [f"t{i}" for i in range(n_vocab)] if self.alphabet is None else [token_shown(c) for c in self.alphabet]

    def attention_basis(self, block, n_attn):
        """The names of the n_attn directions of q, k and v in ``block``: as labelled, else the stream's (as wide), else a0, a1, ..."""
        named = _of_block(self.attention, block)
        if named is not None:
            return named
        return self.residual if n_attn == len(self.residual) else Basis.numbered(n_attn, "a")

    def hidden_basis(self, block, n_hidden):
        """The names of the n_hidden units of the MLP in ``block``: as labelled (as many), else h0, h1, ..."""
        named = _of_block(self.hidden, block)
        return named if named is not None and len(named) == n_hidden else Basis.numbered(n_hidden, "h")

    def to_json(self):
        out = {"alphabet": self.alphabet, "residual": self.residual.to_json()}
        if any(b is not None for b in self.attention):
            out["attention"] = [None if b is None else b.to_json() for b in self.attention]
        if any(b is not None for b in self.hidden):
            out["hidden"] = [None if b is None else b.to_json() for b in self.hidden]
        return out


LETTERS = "abcdefghijklmnopqrstuvwxyz"


def default_alphabet(n_vocab):
    """a, b, c, ... for a model that did not say what its tokens are; None beyond 26 tokens (t0, t1, ...)."""
    return LETTERS[:n_vocab] if n_vocab <= len(LETTERS) else None


def default_labels(structure):
    """Labels for a model of ``structure`` that nobody named: tokens a, b, c, ... (t0, t1, ... beyond
    26) and directions e0, e1, ..."""
    labels = Labels(default_alphabet(structure.n_vocab), Basis.numbered(structure.n_embd))
    object.__setattr__(labels, "defaulted", True)  # a change (dataclasses.replace) makes labels a person states
    return labels
