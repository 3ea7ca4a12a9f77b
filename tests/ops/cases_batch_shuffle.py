"""Op cases for shuffle_batch (ops/batch_shuffle.py): the rows in the order numpy's generator draws
from the seed, the order a permutation, and the gradient (the order undone) by finite differences."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(43)
_X = rng.normal(size=(2, 3, 4))


def _ref(i, a):
    seed = int(i["Seed"][0]) if "Seed" in i else a["startup_seed"]
    g = np.random.default_rng(seed)
    x = i["X"]
    rows = int(np.prod(x.shape[:-1]))
    idx = g.permutation(rows)
    assert sorted(idx) == list(range(rows))
    return {
        "Out": x.reshape(rows, x.shape[-1])[idx].reshape(x.shape),
        "ShuffleIdx": idx,
        "SeedOut": g.integers(0, 2**31 - 1, size=1, dtype=np.int64),
    }


CASES = [
    OpCase("shuffle_batch", {"X": _X, "Seed": np.array([7], dtype=np.int64)}, _ref, grad=("X",), loss_outputs=("Out",)),
    OpCase("shuffle_batch", {"X": _X}, _ref, attrs={"startup_seed": 3}, name="shuffle_batch_startup_seed"),
    OpCase(
        "shuffle_batch",
        {"X": rng.integers(-9, 9, (5, 2)), "Seed": np.array([11], dtype=np.int64)},
        _ref,
        name="shuffle_batch_int64_rows",
    ),
    OpCase(
        "shuffle_batch",
        {"X": rng.normal(size=(4, 1)), "Seed": np.array([2], dtype=np.int64)},
        _ref,
        grad=("X",),
        loss_outputs=("Out",),
        name="shuffle_batch_one_column",
    ),
]
