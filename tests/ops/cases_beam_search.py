"""Op cases for gather_tree (no gradient): the numpy reference back-traces each (batch, beam) path
one entry at a time, as Fluid's gather_tree kernel does."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(11)


def gather_tree_ref(i, a):
    ids, parents = i["Ids"], i["Parents"]
    steps, batch, beam = ids.shape
    out = np.zeros_like(ids)
    for b in range(batch):
        for k in range(beam):
            out[steps - 1, b, k] = ids[steps - 1, b, k]
            p = parents[steps - 1, b, k]
            for t in range(steps - 2, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return {"Out": out}


# Fluid's test_gather_tree_op.py example: 3 steps, batch 2, beam 2
IDS = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], dtype=np.int64)
PARENTS = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], dtype=np.int64)

CASES = [
    OpCase("gather_tree", {"Ids": IDS, "Parents": PARENTS},
           lambda i, a: {"Out": np.array([[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]], dtype=np.int64)},
           name="gather_tree_fluid_example"),
    OpCase("gather_tree", {"Ids": rng.integers(0, 50, size=(6, 3, 4)),
                           "Parents": rng.integers(0, 4, size=(6, 3, 4))}, gather_tree_ref, name="gather_tree_random"),
    OpCase("gather_tree", {"Ids": rng.integers(0, 9, size=(5, 2, 3)).astype(np.int32),
                           "Parents": rng.integers(0, 3, size=(5, 2, 3)).astype(np.int32)}, gather_tree_ref,
           name="gather_tree_int32"),
    OpCase("gather_tree", {"Ids": rng.integers(0, 9, size=(1, 2, 3)), "Parents": rng.integers(0, 3, size=(1, 2, 3))},
           gather_tree_ref, name="gather_tree_one_step"),
]
