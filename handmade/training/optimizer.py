"""The optimiser: AdamW, which moves every weight a little down its gradient, in place.

It works on a flat list of arrays, ``leaves(params)``, and their gradients, ``leaves(grads)``,
which line up one for one. It changes the arrays themselves, so the weights they belong to change
with them, and keeps its running means in one long vector, every array's weights end to end.
"""

from dataclasses import dataclass

import numpy as np

from ..arguments import is_real
from ..basis import brief
from ..i18n import _
from ..weights import arrays_of
from .limits import MAX_LR, check_number

MIN_EPS = 1e-30  # below this, m / (sqrt(v) + eps) can overflow where a tiny gradient's square rounds to 0


def leaves(params):  # -> [array]: the arrays themselves, not copies
    """Every array of a weights (or gradients) dict as a flat list, in the order of their paths sorted
    (``handmade.weights.arrays_of``), so that the weights and their gradients line up whatever order
    each was built in. ``n_head``, a count, is left out."""
    found = arrays_of(params)
    return [found[path] for path in sorted(found)]


@dataclass
class AdamState:
    """What AdamW remembers between steps; ``AdamW.step`` changes it in place."""

    step: int  # updates made so far
    m: np.ndarray  # [every weight]: the running mean of each one's gradient, the arrays end to end
    v: np.ndarray  # [every weight]: the running mean of each gradient's square
    decay: np.ndarray  # [every weight]: weight_decay for the weights of matrices, 0 for the others


@dataclass(frozen=True)
class AdamW:
    """Adam with decoupled weight decay (Loshchilov and Hutter), as in PyTorch and optax.

    Each weight moves by lr * m / (sqrt(v) + eps), where m and v are running means of its gradient
    and of its square (corrected for starting at 0), and matrices shrink by lr * weight_decay of
    themselves. Following GPT-2 and nanoGPT, only matrices decay (wte, wpe, every w); biases and the
    layer norms' gains and shifts do not, since pulling a gain towards 0 would switch its layer off.
    (optax.adamw decays every array, with 1e-4 by default; PyTorch's default is 0.01.)
    """

    lr: float = 1e-3
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.01

    def __post_init__(self):
        check_number(self.lr, "lr", 0, MAX_LR, low_allowed=False)
        if not isinstance(self.betas, (tuple, list)) or len(self.betas) != 2 or not all(map(is_real, self.betas)):
            raise TypeError(
                _("betas must be a pair (b1, b2) of numbers in [0, 1); found {value}").format(value=brief(self.betas))
            )
        for beta in self.betas:
            check_number(beta, "betas", 0, 1, high_allowed=False)
        object.__setattr__(self, "betas", tuple(self.betas))
        check_number(self.eps, "eps", MIN_EPS, 1)
        check_number(self.weight_decay, "weight_decay", 0, 1)

    def init(self, arrays):
        """The state before the first step over ``arrays`` (a flat list): m and v are 0 for every weight."""
        _weights(arrays)
        n = sum(w.size for w in arrays)
        decay = np.concatenate([np.full(w.size, self.weight_decay if w.ndim == 2 else 0.0) for w in arrays])
        return AdamState(0, np.zeros(n), np.zeros(n), decay)  # matrices only decay

    def step(self, arrays, grads, state):
        """One step down ``grads``: every array of ``arrays``, and ``state``, changed in place.

        Returns True; or False, changing nothing, when a gradient or the move is not finite: there is
        no way down.
        """
        _line_up(arrays, grads, state)
        (b1, b2), t = self.betas, state.step + 1
        g = np.concatenate([np.ravel(g) for g in grads])  # [every weight]: the gradients end to end
        if not np.isfinite(g).all():
            return False
        w = np.concatenate([w.ravel() for w in arrays])  # [every weight]: the weights, in the same order
        m = b1 * state.m + (1 - b1) * g  # the running mean of the gradient
        v = b2 * state.v + (1 - b2) * g**2  # ... and of its square
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)  # the means, corrected for starting at 0
        move = self.lr * (m_hat / (np.sqrt(v_hat) + self.eps) + state.decay * w)
        if not np.isfinite(move).all():
            return False
        state.m, state.v = m, v
        start = 0
        for array in arrays:  # each array takes its own stretch of move
            array -= move[start : start + array.size].reshape(array.shape)
            start += array.size
        state.step = t
        return True


def _weights(arrays):
    """``arrays`` if it is a list of float64 arrays, which a step changes in place; TypeError otherwise."""
    kinds = isinstance(arrays, (list, tuple)) and len(arrays) > 0 and all(isinstance(w, np.ndarray) for w in arrays)
    if not kinds or not all(w.dtype == np.float64 for w in arrays):
        raise TypeError(
            _("arrays must be a list of one or more float64 arrays, such as leaves(params); found {value}").format(
                value=brief(arrays)
            )
        )


def _line_up(arrays, grads, state):
    """ValueError unless ``grads`` has an array of the same shape for each of ``arrays``, and ``state``
    was made for them."""
    _weights(arrays)
    if not isinstance(grads, (list, tuple)) or len(grads) != len(arrays):
        raise ValueError(
            _("grads must be a list of {n} arrays, one per array of the weights (leaves(grads)); found {value}").format(
                n=len(arrays), value=brief(grads)
            )
        )
    for i, (w, g) in enumerate(zip(arrays, grads)):
        if not isinstance(g, np.ndarray) or g.dtype.kind not in "iuf" or g.shape != w.shape:
            raise ValueError(
                _("grads[{i}] must be an array of numbers of shape {shape}, as arrays[{i}]; found {value}").format(
                    i=i, shape=w.shape, value=brief(g)
                )
            )
    if not isinstance(state, AdamState) or state.m.shape != (sum(w.size for w in arrays),):
        raise ValueError(
            _("state must be what init(arrays) returned for these arrays; found {value}").format(value=brief(state))
        )
