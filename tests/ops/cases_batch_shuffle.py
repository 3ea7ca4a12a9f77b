"""Op cases for shuffle_batch (ops/batch_shuffle.py): the rows in the order numpy's generator draws
from the seed, the order a permutation, and the gradient (the order undone) by finite differences."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(43)
_X = rng.normal(size=(2, 3, 4))


def _ref(i, a):
    seed = int(i["Seed"][0]) if "Seed" in i else a["startup_seed"]
    g = np.random.default_rng(seed)
    idx = g.permutation(6)
    assert sorted(idx) == list(range(6))
    return {
        "Out": i["X"].reshape(6, 4)[idx].reshape(2, 3, 4),
        "ShuffleIdx": idx,
        "SeedOut": g.integers(0, 2**31 - 1, size=1, dtype=np.int64),
    }


CASES = [
    OpCase("shuffle_batch", {"X": _X, "Seed": np.array([7], dtype=np.int64)}, _ref, grad=("X",), loss_outputs=("Out",)),
    OpCase("shuffle_batch", {"X": _X}, _ref, attrs={"startup_seed": 3}, name="shuffle_batch_startup_seed"),
]
