"""Op cases for the norms of family reduction: frobenius_norm (over dims, every dim, keep_dim, out_dtype),
p_norm (along an axis, keepdim, a fractional porder) and l1_norm."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(76)


def r(*shape):
    return rng.normal(size=shape)


def _frobenius(i, a):
    x = i["X"].astype(np.float64 if a["out_dtype"] < 0 else np.float32)
    axes = tuple(range(x.ndim)) if a["reduce_all"] else tuple(a["dim"])
    out = np.sqrt((x * x).sum(axis=axes, keepdims=a["keep_dim"]))
    return {"Out": out.reshape(out.shape or (1,))}


def _p_norm(i, a):
    out = (np.abs(i["X"]) ** a["porder"]).sum(axis=a["axis"], keepdims=a["keepdim"]) ** (1 / a["porder"])
    return {"Out": out}


CASES = [
    OpCase("frobenius_norm", {"X": r(2, 3, 4)}, _frobenius, attrs={"dim": [1, -1]}, grad=("X",)),
    OpCase(
        "frobenius_norm",
        {"X": r(3, 4)},
        _frobenius,
        attrs={"reduce_all": True, "keep_dim": True},
        grad=("X",),
        name="frobenius_norm_all_keep_dim",
    ),
    OpCase(
        "frobenius_norm",
        {"X": r(2, 3)},
        _frobenius,
        attrs={"dim": [0], "out_dtype": 5},
        rtol=1e-6,
        name="frobenius_norm_out_float32",
    ),
    OpCase("p_norm", {"X": r(3, 4)}, _p_norm, grad=("X",)),
    OpCase(
        "p_norm",
        {"X": r(2, 3, 2)},
        _p_norm,
        attrs={"porder": 3.5, "axis": 1, "keepdim": True},
        grad=("X",),
        name="p_norm_fractional_keepdim",
    ),
    OpCase("l1_norm", {"X": r(3, 4)}, lambda i, a: {"Out": np.array([np.abs(i["X"]).sum()])}, grad=("X",)),
]
