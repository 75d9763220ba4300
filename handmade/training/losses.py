"""The loss: one number for how wrong the predictions are, and where its gradient starts.

``cross_entropy`` is the mean of -log(probability of the right token); ``cross_entropy_backward``
is its gradient with respect to the logits, the ``d_logits`` that the backward pass begins with,
and the loss again: both come from one ``log_softmax`` of the logits.
"""

import numpy as np

IGNORE = -1  # a target that does not count: the position has nothing to predict (padding)


def log_softmax(x):  # [..., n] -> [..., n]: log(softmax(x)), finite even where softmax rounds to 0
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def cross_entropy(logits, targets):  # [B, n_seq, n_vocab], [B, n_seq] -> a number
    """The mean of -log(probability of the target) over every position that has a target."""
    counted = targets != IGNORE  # [B, n_seq]
    picked = log_softmax(logits)[counted, targets[counted]]  # [positions counted]: log(probability of the target)
    return float(-np.mean(picked))


def cross_entropy_backward(logits, targets):  # [B, n_seq, n_vocab], [B, n_seq] -> a number, [B, n_seq, n_vocab]
    """Undoes ``cross_entropy(logits, targets)``: softmax and -log together give probs - one_hot(target).

    The loss comes with it, from the same log-probabilities, so that a step takes the softmax once.
    """
    counted = targets != IGNORE  # [B, n_seq]
    at = (*np.nonzero(counted), targets[counted])  # where each counted target is in [B, n_seq, n_vocab]
    log_probs = log_softmax(logits)  # [B, n_seq, n_vocab]
    value = -np.mean(log_probs[at])  # cross_entropy(logits, targets)
    d_logits = np.exp(log_probs)  # the probabilities ...
    d_logits[at] -= 1  # ... minus 1 at the target
    d_logits[~counted] = 0  # only counted positions ...
    d_logits /= len(at[0])  # ... averaged
    return float(value), d_logits
