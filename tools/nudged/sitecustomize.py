"""For ``tools/conditions.py nudged`` only: Python imports this module at start-up when its folder is
on PYTHONPATH. It replaces ``train`` with one that first multiplies every array of the starting
weights by 1 + 1e-9 x noise (seeded), then trains as usual. It replaces it both where the package
offers it (``handmade.training.train``: a notebook that imports ``train`` afterwards gets this one)
and in the module that defines it (``handmade.training.loop``), where ``train_task`` looks it up.
"""

import numpy as np

import handmade.training
import handmade.training.loop
from handmade.training import map_arrays
from handmade.weights import check_weights

NUDGE = 1e-9  # relative: about ten million times the rounding of one float64 operation
_train = handmade.training.loop.train


def nudged_train(params, *args, **kwargs):
    rng = np.random.default_rng(2026)
    nudged = map_arrays(lambda w: w * (1 + NUDGE * rng.standard_normal(w.shape)), params)
    return _train(check_weights(nudged, getattr(params, "labels", None)), *args, **kwargs)  # labels kept


handmade.training.train = handmade.training.loop.train = nudged_train
