"""Named directions, and weight matrices built from rules over those names.

Instead of "put 1024 at row 2, column 9", a builder says "the query of position P2 looks for
keys at P1 and P2". A ``Basis`` keeps the order its names were declared in (never sorted), so
built matrices line up exactly with hand-written ones, and every table can carry labels.
"""

import numpy as np


class Basis:
    """An ordered list of direction names, grouped for display (``P0..P4 | Ta Tb | V``)."""

    def __init__(self, groups):
        if not isinstance(groups, dict):  # a plain list of names is one group
            groups = {"": list(groups)}
        self.groups = {group: tuple(names) for group, names in groups.items()}
        self.names = tuple(name for names in self.groups.values() for name in names)
        self._index = {name: i for i, name in enumerate(self.names)}
        if len(self._index) != len(self.names):
            repeated = sorted({n for n in self.names if self.names.count(n) > 1})
            raise ValueError(f"a basis needs distinct names; repeated: {', '.join(repeated)}")

    @classmethod
    def numbered(cls, n, prefix="e"):
        """``e0 .. e{n-1}``: labels for a space nobody has named."""
        return cls([f"{prefix}{i}" for i in range(n)])

    def __len__(self):
        return len(self.names)

    def __iter__(self):
        return iter(self.names)

    def __repr__(self):
        return "Basis(" + " | ".join(" ".join(names) for names in self.groups.values()) + ")"

    def index(self, name):
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"unknown direction {name!r}; this basis has {' '.join(self.names)}") from None

    def group_starts(self):
        """Indices where a new group begins (after the first): where tables draw a split line."""
        starts, at = [], 0
        for names in list(self.groups.values())[:-1]:
            at += len(names)
            starts.append(at)
        return starts

    def vector(self, entries):  # {name: value} -> [n]
        out = np.zeros(len(self))
        for name, value in entries.items():
            out[self.index(name)] = value
        return out

    def matrix(self, entries, cols=None):  # {(row name, col name): value} -> [n, n_cols]
        cols = self if cols is None else cols
        out = np.zeros((len(self), len(cols)))
        for (row, col), value in entries.items():
            out[self.index(row), cols.index(col)] = value
        return out

    def one_hot_rows(self, names):  # [name, ...] -> [len(names), n], row i is 1 at names[i]
        return self.matrix({(name, name): 1.0 for name in names})[[self.index(n) for n in names]]


def qkv_weights(q, k, v):
    """``c_attn`` from its three blocks: ``w`` is [q | k | v] side by side, ``b`` is zero."""
    w = np.hstack([q, k, v])  # 3 of [n_embd, n_embd] -> [n_embd, 3*n_embd]
    return {"w": w, "b": np.zeros(w.shape[1])}


def split_qkv(c_attn_w):
    """The q, k and v blocks of a ``c_attn`` weight matrix: 3 of [n_embd, n_embd]."""
    return np.split(np.asarray(c_attn_w), 3, axis=-1)
