"""Op cases for family statistics: kthvalue, mode, nanmedian, bincount. References are numpy's (a stable
argsort, np.nanmedian, np.bincount) or written out per line (mode: the smallest of the most frequent
values, the index of its last occurrence)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(762)
_DISTINCT = rng.permutation(24).reshape(2, 3, 4) / 5.0 - 2.0
_WITH_NAN = np.array(
    [
        [1.0, 3.0, 2.0, 3.0, np.nan, 0.5],
        [-1.0, np.nan, 4.0, -2.0, 0.0, 4.5],
        [np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
    ]
)


def _kth(k, axis, keepdim=False):
    def ref(i, a):
        x = i["X"]
        idx = np.take(np.argsort(x, axis=axis, kind="stable"), [k - 1], axis=axis)
        val = np.take_along_axis(x, idx, axis=axis)
        if not keepdim:
            idx, val = np.squeeze(idx, axis), np.squeeze(val, axis)
        return {"Out": val, "Indices": idx}

    return ref


def _mode_line(v):
    values, counts = np.unique(v, return_counts=True)
    best = values[np.argmax(counts)]
    return best, np.flatnonzero(v == best).max()


def _mode(i, a):
    x = i["X"]
    found = [_mode_line(line) for line in x.reshape(-1, x.shape[-1])]
    return {
        "Out": np.array([f[0] for f in found]).reshape(x.shape[:-1]),
        "Indices": np.array([f[1] for f in found]).reshape(x.shape[:-1]),
    }


CASES = [
    OpCase("kthvalue", {"X": _DISTINCT}, _kth(2, 2), attrs={"k": 2}, grad=("X",)),
    OpCase(
        "kthvalue",
        {"X": _DISTINCT},
        _kth(3, 1, True),
        attrs={"k": 3, "axis": 1, "keepdim": True},
        grad=("X",),
        name="kthvalue_axis1_keepdim",
    ),
    # (row 0's 5th smallest, 3.0, lies at 1 and 3: Paddle 2.6.2's kthvalue gives 1, where std::nth_element leaves
    # it, not the stable sort's 3; recorded by tools/paddle26_edges_oracle.py's way, run on Paddle 2.6.2)
    OpCase(
        "kthvalue",
        {"X": _WITH_NAN[:2]},
        lambda i, a: {"Out": np.array([3.0, 4.5]), "Indices": np.array([1, 5])},
        attrs={"k": 5, "axis": 1},
        name="kthvalue_nan_last",
    ),
    OpCase(
        "kthvalue",
        {"X": np.array([[3, 1], [2, 5], [1, 1]], np.int64)},
        _kth(2, 0),
        attrs={"k": 2, "axis": 0},
        name="kthvalue_int64",
    ),
    OpCase(
        "mode",
        {"X": np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 4.0, 3.0, 2.0, 1.0], [0.5, 2.5, 2.5, 0.5, 2.5]])},
        _mode,
        name="mode_ties",
    ),
    OpCase("mode", {"X": _DISTINCT}, _mode, grad=("X",)),
    OpCase(
        "mode",
        {"X": np.array([[1, 2], [1, 3], [2, 3]], np.int64)},
        lambda i, a: {"Out": np.array([[1, 3]]), "Indices": np.array([[1, 2]])},
        attrs={"axis": 0, "keepdim": True},
        name="mode_axis0_keepdim_int64",
    ),
    OpCase(
        "nanmedian",
        {"X": _WITH_NAN},
        lambda i, a: {"Out": np.array([np.nanmedian(i["X"])])},
        outputs=("Out",),
        name="nanmedian_all",
    ),
    OpCase(
        "nanmedian",
        {"X": _DISTINCT[:, :, :3]},
        lambda i, a: {"Out": np.median(i["X"], axis=(0, 2), keepdims=True)},
        outputs=("Out", "MedianIndex"),
        loss_outputs=("Out",),
        attrs={"axis": [0, 2], "keepdim": True},
        grad=("X",),
        name="nanmedian_two_axes",
    ),
    OpCase(
        "nanmedian",
        {"X": _DISTINCT.reshape(4, 6)},
        lambda i, a: {"Out": np.median(i["X"], axis=1)},
        outputs=("Out", "MedianIndex"),
        loss_outputs=("Out",),
        attrs={"axis": [1]},
        grad=("X",),
        name="nanmedian_even",
    ),
    OpCase(
        "nanmedian",
        {"X": np.array([[1, 2, 4, 3], [-1, -2, 0, 5]], np.int64)},
        lambda i, a: {"Out": np.array([2, 0])},
        outputs=("Out",),
        attrs={"axis": [1]},
        name="nanmedian_int64",
    ),
    OpCase("bincount", {"X": np.array([1, 1, 3, 0, 6])}, lambda i, a: {"Out": np.bincount(i["X"])}),
    OpCase(
        "bincount",
        {"X": np.array([1, 1, 3], np.int32), "Weights": np.array([0.5, 1.0, 2.0], np.float32)},
        lambda i, a: {"Out": np.array([0, 1.5, 0, 2.0, 0, 0], np.float32)},
        attrs={"minlength": 6},
        name="bincount_weights_minlength",
    ),
    OpCase(
        "bincount",
        {"X": np.array([1, 1, 3]), "Weights": np.array([1, 2, 3], np.int64)},
        lambda i, a: {"Out": np.array([0, 3.0, 0, 3.0])},
        name="bincount_int_weights_give_float64",
    ),
]
