"""Op cases for family beam_search (beam_search and beam_search_decode are checked in
tests/test_control_flow_beam_search.py): gather_tree (no gradient), whose numpy reference back-traces
each (batch, beam) path one entry at a time as Fluid's gather_tree kernel does; sampling_id (a random op,
no gradient): rows with all mass on one id always give it, and over many identical rows the ids'
frequencies follow the probabilities."""
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


PROBS = np.array([0.1, 0.2, 0.3, 0.4])


def _check_frequencies(outs, inputs):
    ids = np.asarray(outs["Out"])
    assert ids.dtype == np.int64 and ids.shape == (20000,)
    freq = np.bincount(ids, minlength=4) / len(ids)
    assert np.abs(freq - PROBS).max() < 0.015, freq


def _check_certain(outs, inputs):
    np.testing.assert_array_equal(np.asarray(outs["Out"]), [2, 0, 3, 1])


CASES += [
    OpCase("sampling_id", {"X": np.tile(PROBS, (20000, 1))}, attrs={"seed": 7}, outputs=("Out",),
           check=_check_frequencies, name="sampling_id_frequencies"),
    OpCase("sampling_id", {"X": np.eye(4)[[2, 0, 3, 1]]}, attrs={"seed": 3}, outputs=("Out",),
           check=_check_certain, name="sampling_id_one_hot_rows"),
]
