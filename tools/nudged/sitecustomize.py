"""For ``tools/conditions.py nudged`` only: Python imports this module at start-up when its folder is
on PYTHONPATH. It replaces ``handmade.training.train`` with one that first multiplies every array of
the starting weights by 1 + 1e-9 x noise (seeded), then trains as usual; a notebook that imports
``train`` afterwards gets this one, and so does ``train_task``.
"""

import numpy as np

import handmade.training
from handmade.training import map_arrays
from handmade.weights import check_weights

NUDGE = 1e-9  # relative: about ten million times the rounding of one float64 operation
_train = handmade.training.train


def nudged_train(params, *args, **kwargs):
    rng = np.random.default_rng(2026)
    nudged = map_arrays(lambda w: w * (1 + NUDGE * rng.standard_normal(w.shape)), params)
    return _train(check_weights(nudged, getattr(params, "labels", None)), *args, **kwargs)  # labels kept


handmade.training.train = nudged_train
