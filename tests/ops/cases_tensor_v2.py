"""Op cases for ops/tensor_v2.py (where, tril_triu, shape, inverse, cholesky): Paddle 2.0's where_op,
tril_triu_op, shape_op, inverse_op and cholesky_op unit tests' numpy references (np.where, np.tril /
np.triu, the shape as int32, np.linalg.inv, np.linalg.cholesky)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(41)


def r(*shape):
    return rng.normal(size=shape)


_cond = rng.random((3, 4)) > 0.5
_well = r(3, 3) + 3 * np.eye(3)
_batch = r(2, 4, 4) + 4 * np.eye(4)
_root = r(2, 3, 3)
_spd = _root @ np.swapaxes(_root, 1, 2) + 2 * np.eye(3)
_pivot = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 3.0]])     # needs a row swap
_tri = r(2, 3, 4)

CASES = [
    OpCase("where", {"Condition": _cond, "X": r(3, 4), "Y": r(3, 4)},
           lambda i, a: {"Out": np.where(i["Condition"], i["X"], i["Y"])}, grad=("X", "Y")),
    OpCase("where", {"Condition": np.array([True, False, True]), "X": np.array([1, 2, 3], dtype=np.int64),
                     "Y": np.array([-1, -2, -3], dtype=np.int64)},
           lambda i, a: {"Out": np.array([1, -2, 3], dtype=np.int64)}, name="where_int64"),
    OpCase("where", {"Condition": np.array([[True, False]]), "X": np.array([[np.inf, 1.0]]),
                     "Y": np.array([[0.0, np.nan]])},
           lambda i, a: {"Out": np.array([[np.inf, np.nan]])}, name="where_keeps_nonfinite"),
    OpCase("tril_triu", {"X": r(4, 5)}, lambda i, a: {"Out": np.tril(i["X"])}, grad=("X",)),
    OpCase("tril_triu", {"X": _tri}, lambda i, a: {"Out": np.triu(i["X"], 1)}, attrs={"diagonal": 1, "lower": False},
           grad=("X",), name="triu_batched"),
    OpCase("tril_triu", {"X": r(5, 3)}, lambda i, a: {"Out": np.tril(i["X"], -2)}, attrs={"diagonal": -2},
           name="tril_below"),
    OpCase("tril_triu", {"X": np.arange(12, dtype=np.int32).reshape(3, 4)},
           lambda i, a: {"Out": np.triu(i["X"], -1)}, attrs={"diagonal": -1, "lower": False}, name="triu_int32"),
    OpCase("inverse", {"Input": _well}, lambda i, a: {"Output": np.linalg.inv(i["Input"])}, grad=("Input",)),
    OpCase("inverse", {"Input": _batch}, lambda i, a: {"Output": np.linalg.inv(i["Input"])}, grad=("Input",),
           name="inverse_batched"),
    OpCase("inverse", {"Input": _pivot}, lambda i, a: {"Output": np.linalg.inv(i["Input"])}, rtol=1e-9,
           name="inverse_pivoting"),
    OpCase("cholesky", {"X": _spd[0]}, lambda i, a: {"Out": np.linalg.cholesky(i["X"])}, grad=("X",)),
    OpCase("cholesky", {"X": _spd}, lambda i, a: {"Out": np.swapaxes(np.linalg.cholesky(i["X"]), 1, 2)},
           attrs={"upper": True}, grad=("X",), name="cholesky_upper_batched"),
    OpCase("shape", {"Input": r(2, 3, 5)}, lambda i, a: {"Out": np.array([2, 3, 5], dtype=np.int32)}),
    OpCase("shape", {"Input": np.zeros((0, 4), dtype=np.int64)},
           lambda i, a: {"Out": np.array([0, 4], dtype=np.int32)}, name="shape_empty"),
]
