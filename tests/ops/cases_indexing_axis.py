"""Op cases for family indexing_axis: take_along_axis, put_along_axis (every Reduce, with and without
Include_self), index_add, fill_diagonal_tensor. References are plain loops over the index's elements,
written here from Paddle 2.6.2's docs (put_along_axis's ties among amin/amax values: Paddle's rule, in
tests/paddle/test_paddle_function_oracle.py)."""

import itertools

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(763)
_X = rng.permutation(12).reshape(3, 4) / 4.0 + 0.5  # distinct, positive: mul's gradient divides by it
_INDEX = np.array([[0, 3], [1, 1], [2, 0]])
_VALUE = np.array([[2.0, 3.5], [1.25, 0.75], [4.0, 2.5]])


def _take_ref(i, a):
    x, idx, axis = i["Input"], i["Index"], a["Axis"]
    out = np.empty(idx.shape)
    for pos in itertools.product(*map(range, idx.shape)):
        src = list(pos)
        src[axis] = idx[pos]
        out[pos] = x[tuple(src)]
    return {"Result": out}


def _put_ref(reduce, include_self):
    def ref(i, a):
        x, idx, v, axis = i["Input"], i["Index"], i["Value"], a["Axis"]
        writes = {}
        for pos in itertools.product(*map(range, idx.shape)):
            dst = list(pos)
            dst[axis] = idx[pos]
            writes.setdefault(tuple(dst), []).append(v[pos])
        out = np.array(x, dtype=np.float64)
        for dst, vals in writes.items():
            vals = ([x[dst]] if include_self else []) + vals
            out[dst] = {
                "assign": lambda: vals[-1],
                "add": lambda: sum(vals),
                "mul": lambda: np.prod(vals),
                "mean": lambda: np.mean(vals),
                "amin": lambda: min(vals),
                "amax": lambda: max(vals),
            }[reduce]()
        return {"Result": out.astype(x.dtype)}

    return ref


def _put(reduce, include_self, **kw):
    return OpCase(
        "put_along_axis",
        {"Input": _X, "Index": _INDEX, "Value": _VALUE},
        _put_ref(reduce, include_self),
        attrs={"Axis": 1, "Reduce": reduce, "Include_self": include_self},
        grad=("Input", "Value"),
        name=f"put_along_axis_{reduce}_{'with' if include_self else 'without'}_self",
        **kw,
    )


def _index_add_ref(i, a):
    out = np.array(i["X"])
    moved, vals = np.moveaxis(out, a["axis"], 0), np.moveaxis(i["AddValue"], a["axis"], 0)
    for k, j in enumerate(i["Index"]):
        moved[j] += vals[k]
    return {"Out": out}


def _diag_ref(offset, dim1, dim2):
    def ref(i, a):
        out = np.array(i["X"])
        view = np.moveaxis(out, (dim1, dim2), (-2, -1))
        y = i["Y"].reshape(view.shape[:-2] + (-1,))
        for t in range(y.shape[-1]):
            view[..., t + max(-offset, 0), t + max(offset, 0)] = y[..., t]
        return {"Out": out}

    return ref


CASES = [
    OpCase("take_along_axis", {"Input": _X, "Index": _INDEX}, _take_ref, attrs={"Axis": 1}, grad=("Input",)),
    OpCase(
        "take_along_axis",
        {"Input": rng.normal(size=(3, 2, 4)), "Index": np.array([[[2, 0, 1, 1]], [[0, 0, 2, 1]]], np.int32)},
        _take_ref,
        attrs={"Axis": 0},
        grad=("Input",),
        name="take_along_axis_smaller_index_int32",
    ),
    _put("assign", True),
    _put("add", True),
    _put("add", False),
    _put("mul", True),
    _put("mul", False),
    _put("mean", True),
    _put("mean", False),
    _put("amin", True),
    _put("amax", False),
    OpCase(
        "put_along_axis",
        {"Input": np.array([[1, 2, 3]]), "Index": np.array([[0, 0]]), "Value": np.array([[5, 7]])},
        _put_ref("mean", True),
        attrs={"Axis": 1, "Reduce": "mean"},
        name="put_along_axis_mean_int64",
    ),
    OpCase(
        "index_add",
        {"X": rng.normal(size=(3, 4)), "Index": np.array([0, 3, 0]), "AddValue": rng.normal(size=(3, 3))},
        _index_add_ref,
        attrs={"axis": 1},
        grad=("X", "AddValue"),
    ),
    OpCase(
        "index_add",
        {"X": rng.normal(size=(2, 3, 2)), "Index": np.array([2, 2], np.int32), "AddValue": rng.normal(size=(2, 2, 2))},
        _index_add_ref,
        attrs={"axis": -2},
        grad=("AddValue",),
        name="index_add_negative_axis_int32",
    ),
    OpCase(
        "fill_diagonal_tensor",
        {"X": rng.normal(size=(3, 4)), "Y": np.array([[7.0, 8.0, 9.0]])},
        _diag_ref(1, 0, 1),
        attrs={"offset": 1},
        grad=("X",),
    ),
    OpCase(
        "fill_diagonal_tensor",
        {"X": rng.normal(size=(3, 4)), "Y": np.array([[7.0, 8.0, 9.0]])},
        _diag_ref(-1, 1, 0),
        attrs={"offset": -1, "dim1": 1, "dim2": 0},
        name="fill_diagonal_tensor_dims_swapped",
    ),
    OpCase(
        "fill_diagonal_tensor",
        {"X": rng.normal(size=(2, 3, 2)), "Y": rng.normal(size=(3, 2))},
        _diag_ref(0, 0, 2),
        attrs={"dim1": 0, "dim2": 2},
        grad=("X",),
        name="fill_diagonal_tensor_3d",
    ),
]
