"""Op cases for family reduction (ops whose kernel_module is reduction): mean, reduce_sum/mean/max/min/prod/
all/any, cumsum, squared_l2_norm. References are numpy's reductions (cumsum with exclusive / reverse
written out as Fluid 1.8's op docs define them)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(29)


def r(*shape):
    return rng.normal(size=shape)


def _cumsum_ref(axis, exclusive=False, reverse=False):
    def ref(i, a):
        x = i["X"]
        if reverse:
            x = np.flip(x, axis)
        out = np.cumsum(x, axis=axis)
        if exclusive:
            out = out - x
        return {"Out": np.flip(out, axis) if reverse else out}

    return ref


def _prod_ref(axes, keep=False):
    return lambda i, a: {
        "Out": np.prod(i["X"], axis=axes, keepdims=keep).reshape(
            np.prod(i["X"], axis=axes, keepdims=keep).shape or (1,)
        )
    }


_with_zero = r(3, 4)
_with_zero[1, 2] = 0.0
_bools = np.array([[True, False, True], [True, True, True]])

_TIED = (np.arange(24).reshape(2, 3, 4) * 7 % 5 - 2).astype("float32")  # each value 4 or 5 times

CASES = [
    OpCase("mean", {"X": r(3, 4)}, lambda i, a: {"Out": np.array([i["X"].mean()])}, grad=("X",)),
    OpCase("reduce_sum", {"X": r(2, 3, 4)}, lambda i, a: {"Out": i["X"].sum(axis=1)}, attrs={"dim": [1]}, grad=("X",)),
    OpCase(
        "reduce_mean",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": i["X"].mean(axis=(0, 2), keepdims=True)},
        attrs={"dim": [0, 2], "keep_dim": True},
        grad=("X",),
    ),
    # one axis with values after it: the "mean_axis" variant (its loop, numpy's order of adds), and its gradient's
    OpCase(
        "reduce_mean",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": i["X"].mean(axis=1)},
        attrs={"dim": [1]},
        grad=("X",),
        name="reduce_mean_middle_axis",
    ),
    OpCase(
        "reduce_mean",
        {"X": r(5, 3).astype("float32")},
        lambda i, a: {"Out": i["X"].mean(axis=0, keepdims=True)},
        attrs={"dim": [-2], "keep_dim": True},
        name="reduce_mean_first_axis_float32",
        rtol=1e-6,
    ),
    OpCase("reduce_max", {"X": r(3, 5)}, lambda i, a: {"Out": i["X"].max(axis=-1)}, attrs={"dim": [-1]}, grad=("X",)),
    OpCase(
        "reduce_min",
        {"X": r(3, 5)},
        lambda i, a: {"Out": np.array([i["X"].min()])},
        attrs={"reduce_all": True},
        grad=("X",),
    ),
    # ties: Out@GRAD goes to every element equal to the extreme (Paddle's MaxOrMinGradFunctor, 1.8 and 2.6);
    # pe gave it to the first alone, which one depending on the order of `dim`
    OpCase(
        "reduce_max_grad",
        {"X": _TIED, "Out": _TIED.max(axis=(0, 2)), "Out@GRAD": np.array([2.0, -1.0, 0.5], "float32")},
        lambda i, a: {"X@GRAD": (_TIED == _TIED.max(axis=(0, 2), keepdims=True)) * i["Out@GRAD"][None, :, None]},
        attrs={"dim": [2, 0]},
        name="reduce_max_grad_ties",
    ),
    OpCase(
        "reduce_min_grad",
        {"X": _TIED, "Out": _TIED.min(keepdims=True).reshape(1), "Out@GRAD": np.array([3.0], "float32")},
        lambda i, a: {"X@GRAD": (_TIED == _TIED.min()) * np.float32(3.0)},
        attrs={"reduce_all": True},
        name="reduce_min_grad_ties",
    ),
    OpCase("cumsum", {"X": r(3, 4)}, _cumsum_ref(1), grad=("X",)),
    OpCase("cumsum", {"X": r(3, 4, 2)}, _cumsum_ref(0), attrs={"axis": 0}, grad=("X",), name="cumsum_axis0"),
    OpCase(  # Paddle 2.x's axis given as a Tensor: AxisTensor, read when the op runs (and by its gradient op)
        "cumsum",
        {"X": r(3, 4, 2), "AxisTensor": np.array([1], np.int64)},
        lambda i, a: {"Out": np.cumsum(i["X"], axis=1)},
        grad=("X",),
        name="cumsum_axis_tensor",
    ),
    # Paddle 2.x's paddle.cumsum(x) (axis=None): over X flattened, Out 1-D (forward only in pe)
    OpCase(
        "cumsum",
        {"X": r(3, 4)},
        lambda i, a: {"Out": np.cumsum(i["X"].reshape(-1))},
        attrs={"flatten": True},
        name="cumsum_flatten",
    ),
    OpCase(
        "cumsum",
        {"X": r(2, 5, 3)},
        _cumsum_ref(1, exclusive=True),
        attrs={"axis": -2, "exclusive": True},
        grad=("X",),
        name="cumsum_exclusive",
    ),
    OpCase(
        "cumsum",
        {"X": r(2, 5)},
        _cumsum_ref(1, reverse=True),
        attrs={"reverse": True},
        grad=("X",),
        name="cumsum_reverse",
    ),
    OpCase(
        "cumsum",
        {"X": r(4, 3)},
        _cumsum_ref(0, True, True),
        attrs={"axis": 0, "exclusive": True, "reverse": True},
        grad=("X",),
        name="cumsum_exclusive_reverse",
    ),
    OpCase(
        "cumsum",
        {"X": np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[1, 3, 6], [4, 9, 15]])},
        name="cumsum_int64",
    ),
    OpCase("reduce_prod", {"X": r(3, 4)}, _prod_ref((1,)), attrs={"dim": [1]}, grad=("X",)),
    OpCase(
        "reduce_prod",
        {"X": r(2, 3, 2)},
        _prod_ref((0, 2), True),
        attrs={"dim": [0, -1], "keep_dim": True},
        grad=("X",),
        name="reduce_prod_two_dims",
    ),
    OpCase(
        "reduce_prod",
        {"X": _with_zero},
        _prod_ref(None),
        attrs={"reduce_all": True},
        grad=("X",),
        name="reduce_prod_all_with_zero",
    ),
    OpCase(
        "reduce_prod",
        {"X": np.array([[1, 2], [3, 4]], dtype=np.int64)},
        lambda i, a: {"Out": np.array([3, 8])},
        attrs={"dim": [0]},
        name="reduce_prod_int64",
    ),
    OpCase("reduce_all", {"X": _bools}, lambda i, a: {"Out": np.array([False, True])}, attrs={"dim": [1]}),
    OpCase(
        "reduce_all",
        {"X": _bools},
        lambda i, a: {"Out": np.array([False])},
        attrs={"reduce_all": True},
        name="reduce_all_all",
    ),
    OpCase(
        "reduce_any",
        {"X": _bools},
        lambda i, a: {"Out": np.array([[True, True, True]])},
        attrs={"dim": [0], "keep_dim": True},
    ),
    OpCase(
        "reduce_any",
        {"X": np.zeros((2, 2), dtype=bool)},
        lambda i, a: {"Out": np.array([False])},
        attrs={"reduce_all": True},
        name="reduce_any_none",
    ),
    OpCase("squared_l2_norm", {"X": r(3, 4)}, lambda i, a: {"Out": np.array([(i["X"] ** 2).sum()])}, grad=("X",)),
]

# Fluid 1.8's out_dtype (a VarType code): X cast to it, then reduced
CASES.append(
    OpCase(
        "reduce_sum",
        {"X": np.array([[1.5, 2.5], [3.0, -1.0]], np.float32)},
        lambda i, a: {"Out": np.array([4.0, 2.0])},
        attrs={"dim": [1], "out_dtype": 6},
        name="reduce_sum_out_dtype_float64",
    )
)

# Paddle 2.x's reductions (reduce_amax, reduce_amin, logsumexp): Paddle 2.6.2's recorded values
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("reduction")
