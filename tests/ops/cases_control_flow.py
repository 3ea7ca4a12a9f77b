"""Op cases for the comparisons, logic and fill_constant_batch_size_like of control flow (the
block ops and tensor arrays are checked in tests/test_control_flow_*.py)."""
import numpy as np

from tests.ops.cases_core import _check_random
from op_test import OpCase

rng = np.random.default_rng(13)
X, Y = rng.integers(0, 3, (3, 4)).astype("float64"), rng.integers(0, 3, (3, 4)).astype("float64")
P, Q = rng.random((2, 5)) > 0.5, rng.random((2, 5)) > 0.5

CASES = [OpCase(t, {"X": X, "Y": Y}, (lambda f: lambda i, a: {"Out": f(i["X"], i["Y"])})(f))
         for t, f in (("less_than", np.less), ("less_equal", np.less_equal), ("greater_than", np.greater),
                      ("greater_equal", np.greater_equal), ("equal", np.equal), ("not_equal", np.not_equal))]
CASES += [
    OpCase("less_than", {"X": X, "Y": Y[0]}, lambda i, a: {"Out": i["X"] < i["Y"]}, name="less_than_broadcast"),
    OpCase("logical_not", {"X": P}, lambda i, a: {"Out": ~i["X"]}),
    OpCase("logical_and", {"X": P, "Y": Q}, lambda i, a: {"Out": i["X"] & i["Y"]}),
    OpCase("logical_or", {"X": P, "Y": Q}, lambda i, a: {"Out": i["X"] | i["Y"]}),
    OpCase("logical_xor", {"X": P, "Y": Q}, lambda i, a: {"Out": i["X"] ^ i["Y"]}),
    OpCase("fill_constant_batch_size_like", {"Input": rng.normal(size=(4, 7, 2))},
           lambda i, a: {"Out": np.full((2, 7), 1.5, dtype="float32")},
           attrs={"shape": [2, -1], "value": 1.5, "input_dim_idx": 1, "output_dim_idx": 1}),
]
# the rows come from Input's dim 0 (100), the rest from shape: the [100, 200] draws _check_random checks
_LIKE = {"Input": rng.normal(size=(100, 3))}
_LIKE_ATTRS = {"shape": [-1, 200], "dtype": "float32", "seed": 5}
CASES += [
    OpCase("uniform_random_batch_size_like", _LIKE, attrs=dict(_LIKE_ATTRS, min=-2.0, max=3.0), outputs=("Out",),
           check=_check_random(low=-2.0, high=3.0, mean=0.5, std=5 / 12 ** 0.5)),
    OpCase("gaussian_random_batch_size_like", _LIKE, attrs=dict(_LIKE_ATTRS, mean=1.0, std=2.0), outputs=("Out",),
           check=_check_random(mean=1.0, std=2.0)),
]

M = np.array([[True], [False], [True], [True], [False]])
R = rng.normal(size=(5, 3))
CASES += [
    OpCase("split_lod_tensor", {"X": R, "Mask": M}, lambda i, a: {"OutTrue": i["X"][i["Mask"][:, 0]],
                                                                 "OutFalse": i["X"][~i["Mask"][:, 0]]}, grad=("X",)),
    OpCase("merge_lod_tensor", {"Mask": M, "InTrue": R[:3], "InFalse": R[3:]},
           lambda i, a: {"Out": np.stack([R[0], R[3], R[1], R[2], R[4]])}, grad=("InTrue", "InFalse")),
]
CASES += [
    OpCase("lod_reset", {"X": R}, lambda i, a: {"Out": i["X"]}, attrs={"target_lod": [0, 2, 5]}, grad=("X",)),
]
CASES += [
    OpCase("is_empty", {"X": R}, lambda i, a: {"Out": np.array([False])}),
    OpCase("is_empty", {"X": np.zeros((0, 3))}, lambda i, a: {"Out": np.array([True])}, name="is_empty_true"),
]
