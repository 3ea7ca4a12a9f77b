"""Op cases for family lod_rank: rnn_memory_helper (the rank-table ops take a rank table, a value no
case can feed: tests/layers/test_control_flow_lod_rank.py and test_lod_rank_levels.py check them)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(17)
X = rng.normal(size=(4, 3))

CASES = [
    OpCase("rnn_memory_helper", {"X": X}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
]
