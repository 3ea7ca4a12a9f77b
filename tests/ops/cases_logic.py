"""Op cases for family logic: the comparisons (less_than, ..., not_equal, numpy's broadcasting, both
ways: a 0-D X against a [1] Y), logical_not/and/or/xor and bitwise_not/and/or/xor (integers and
bool), equal_reduce and allclose (tolerances, equal_nan), against numpy's operators and allclose."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(13)
X, Y = rng.integers(0, 3, (3, 4)).astype("float64"), rng.integers(0, 3, (3, 4)).astype("float64")
P, Q = rng.random((2, 5)) > 0.5, rng.random((2, 5)) > 0.5

CASES = [
    OpCase(t, {"X": X, "Y": Y}, (lambda f: lambda i, a: {"Out": f(i["X"], i["Y"])})(f))
    for t, f in (
        ("less_than", np.less),
        ("less_equal", np.less_equal),
        ("greater_than", np.greater),
        ("greater_equal", np.greater_equal),
        ("equal", np.equal),
        ("not_equal", np.not_equal),
    )
]
CASES += [
    OpCase("less_than", {"X": X, "Y": Y[0]}, lambda i, a: {"Out": i["X"] < i["Y"]}, name="less_than_broadcast"),
    OpCase("logical_not", {"X": P}, lambda i, a: {"Out": ~i["X"]}),
    OpCase("logical_and", {"X": P, "Y": Q}, lambda i, a: {"Out": i["X"] & i["Y"]}),
    OpCase("logical_or", {"X": P, "Y": Q}, lambda i, a: {"Out": i["X"] | i["Y"]}),
    OpCase("logical_xor", {"X": P, "Y": Q}, lambda i, a: {"Out": i["X"] ^ i["Y"]}),
]

IA, J = rng.integers(-100, 100, (2, 3, 5)).astype("int32"), rng.integers(-100, 100, (3, 5)).astype("int32")
CASES += [
    OpCase(
        "equal",
        {"X": np.array(2.0), "Y": np.array([2.0])},
        lambda i, a: {"Out": np.array([True])},
        name="equal_0d_against_1",
    ),
    OpCase("bitwise_not", {"X": IA}, lambda i, a: {"Out": ~i["X"]}),
    OpCase("bitwise_not", {"X": P}, lambda i, a: {"Out": ~i["X"]}, name="bitwise_not_bool"),
    OpCase("bitwise_and", {"X": IA, "Y": J}, lambda i, a: {"Out": i["X"] & i["Y"]}),
    OpCase("bitwise_or", {"X": IA, "Y": J}, lambda i, a: {"Out": i["X"] | i["Y"]}),
    OpCase("bitwise_xor", {"X": IA.astype("int64"), "Y": J.astype("int64")}, lambda i, a: {"Out": i["X"] ^ i["Y"]}),
]

# Fluid 1.8's EqualFunctor (paddle/fluid/operators/controlflow/compare_op.h): floats equal within 1e-8 of each
# other, |X - Y| (their difference in the values' dtype) taken in double, so an infinity equals nothing; Y broadcast
# along X's axis 1. (Paddle 2.6's rule, infinities equal to themselves: tests/data/paddle_oracle/edges26.json.)
_NEAR_X = np.array([[1e-9, 0.0, 1.0, np.inf, np.nan, 2e-7], [-np.inf, 3.0, 5e-9, 7.0, 0.0, 1.0]], "float32")
_NEAR_Y = np.array([0.0, -5e-9, 1.0, np.inf, np.nan, 0.0], "float32")


def _fluid_near(i, a):
    with np.errstate(invalid="ignore"):
        return np.abs((i["X"] - i["Y"]).astype(np.float64)) < 1e-8


CASES += [
    OpCase("equal", {"X": _NEAR_X, "Y": _NEAR_Y}, lambda i, a: {"Out": _fluid_near(i, a)}, name="equal_within_1e-8"),
    OpCase(
        "not_equal",
        {"X": _NEAR_X, "Y": _NEAR_Y[:2]},
        lambda i, a: {"Out": ~_fluid_near({"X": i["X"], "Y": i["Y"].reshape(2, 1)}, a)},
        attrs={"axis": 0},
        name="not_equal_within_1e-8_axis",
    ),
]

_A = np.arange(6, dtype=np.float64).reshape(2, 3)
CASES += [
    OpCase("equal_reduce", {"X": _A, "Y": _A + 1e-9}, lambda i, a: {"Out": np.array([True])}),
    OpCase(
        "equal_reduce",
        {"X": _A, "Y": np.array([0.0, 1.0, 2.0])},
        lambda i, a: {"Out": np.array([False])},
        name="equal_reduce_broadcast",
    ),
    OpCase(
        "equal_reduce",
        {"X": np.array([[1, 1], [2, 2]], np.int64), "Y": np.array([1, 2], np.int64)},
        lambda i, a: {"Out": np.array([True])},
        attrs={"axis": 0},
        name="equal_reduce_axis",
    ),
]


def _allclose(i, a):
    return {"Out": np.array([np.allclose(i["Input"], i["Other"], a["rtol"], a["atol"], a["equal_nan"])])}


_NEAR = X + 1e-6 * rng.normal(size=X.shape)
_NAN = np.array([1.0, np.nan, 3.0])
CASES += [
    OpCase("allclose", {"Input": X, "Other": _NEAR}, _allclose, name="allclose_within"),
    OpCase(
        "allclose", {"Input": X, "Other": _NEAR}, _allclose, attrs={"rtol": 1e-9, "atol": 1e-9}, name="allclose_outside"
    ),
    OpCase(
        "allclose",
        {"Input": _NAN, "Other": _NAN + 1e-9},
        _allclose,
        attrs={"equal_nan": True},
        name="allclose_equal_nan",
    ),
    OpCase("allclose", {"Input": _NAN, "Other": _NAN}, _allclose, name="allclose_nan_not_equal"),
]

# Paddle 2.x's isclose, isfinite_v2, isinf_v2, isnan_v2, equal_all: Paddle 2.6.2's recorded values
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("logic")
