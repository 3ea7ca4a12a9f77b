"""Op cases for family dependencies: depend, share_data and nop pass X on (no oracle: Paddle's kernels copy or
share X, as these do)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(85)
_X = rng.uniform(-1, 1, (3, 4))

CASES = [
    OpCase("depend", {"X": _X, "Dep": [rng.uniform(size=2)]}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
    OpCase("share_data", {"X": _X}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
    OpCase("nop", {"X": [_X, _X[:1]]}, lambda i, a: {"Out": i["X"]}, num_outputs={"Out": 2}),
]
