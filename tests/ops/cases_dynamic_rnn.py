"""Op cases for family dynamic_rnn: lod_reset (the data passes through, only the LoD changes).
dynamic_recurrent itself is checked in tests/test_control_flow_dynamic_rnn.py."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(13)
R = rng.normal(size=(5, 3))

CASES = [
    OpCase("lod_reset", {"X": R}, lambda i, a: {"Out": i["X"]}, attrs={"target_lod": [0, 2, 5]}, grad=("X",)),
]
