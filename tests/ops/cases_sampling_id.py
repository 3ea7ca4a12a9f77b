"""Op cases for sampling_id (a random op, no gradient): rows with all mass on one id always give it,
and over many identical rows the ids' frequencies follow the probabilities."""
import numpy as np

from op_test import OpCase

PROBS = np.array([0.1, 0.2, 0.3, 0.4])


def _check_frequencies(outs, inputs):
    ids = np.asarray(outs["Out"])
    assert ids.dtype == np.int64 and ids.shape == (20000,)
    freq = np.bincount(ids, minlength=4) / len(ids)
    assert np.abs(freq - PROBS).max() < 0.015, freq


def _check_certain(outs, inputs):
    np.testing.assert_array_equal(np.asarray(outs["Out"]), [2, 0, 3, 1])


CASES = [
    OpCase("sampling_id", {"X": np.tile(PROBS, (20000, 1))}, attrs={"seed": 7}, outputs=("Out",),
           check=_check_frequencies, name="sampling_id_frequencies"),
    OpCase("sampling_id", {"X": np.eye(4)[[2, 0, 3, 1]]}, attrs={"seed": 3}, outputs=("Out",),
           check=_check_certain, name="sampling_id_one_hot_rows"),
]
