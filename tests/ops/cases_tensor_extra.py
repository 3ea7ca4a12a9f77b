"""Op cases for ops/tensor_extra.py (cumsum, range, fill_any_like, eye, diag, reverse, where_index,
expand_as, size, isfinite/isinf/isnan, reduce_prod/all/any) and elementwise_floordiv / _mod.
References follow Fluid 1.8's op docs and unit tests."""
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


def _scalar(v, dtype):
    return np.array([v], dtype=dtype)


def _prod_ref(axes, keep=False):
    return lambda i, a: {"Out": np.prod(i["X"], axis=axes, keepdims=keep).reshape(
        np.prod(i["X"], axis=axes, keepdims=keep).shape or (1,))}


_with_zero = r(3, 4)
_with_zero[1, 2] = 0.0
_bools = np.array([[True, False, True], [True, True, True]])
_special = np.array([[1.0, np.inf], [np.nan, -2.0]])

CASES = [
    OpCase("cumsum", {"X": r(3, 4)}, _cumsum_ref(1), grad=("X",)),
    OpCase("cumsum", {"X": r(3, 4, 2)}, _cumsum_ref(0), attrs={"axis": 0}, grad=("X",), name="cumsum_axis0"),
    OpCase("cumsum", {"X": r(2, 5, 3)}, _cumsum_ref(1, exclusive=True), attrs={"axis": -2, "exclusive": True},
           grad=("X",), name="cumsum_exclusive"),
    OpCase("cumsum", {"X": r(2, 5)}, _cumsum_ref(1, reverse=True), attrs={"reverse": True}, grad=("X",),
           name="cumsum_reverse"),
    OpCase("cumsum", {"X": r(4, 3)}, _cumsum_ref(0, True, True), attrs={"axis": 0, "exclusive": True, "reverse": True},
           grad=("X",), name="cumsum_exclusive_reverse"),
    OpCase("cumsum", {"X": np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)},
           lambda i, a: {"Out": np.array([[1, 3, 6], [4, 9, 15]])}, name="cumsum_int64"),
    OpCase("range", {"Start": _scalar(1, np.int64), "End": _scalar(10, np.int64), "Step": _scalar(3, np.int64)},
           lambda i, a: {"Out": np.array([1, 4, 7], dtype=np.int64)}),
    OpCase("range", {"Start": _scalar(2.0, np.float32), "End": _scalar(-1.0, np.float32),
                     "Step": _scalar(-0.5, np.float32)},
           lambda i, a: {"Out": np.arange(2.0, -1.0, -0.5, dtype=np.float32)}, name="range_float_down"),
    OpCase("range", {"Start": _scalar(0.0, np.float64), "End": _scalar(1.0, np.float64),
                     "Step": _scalar(0.3, np.float64)},
           lambda i, a: {"Out": np.array([0.0, 0.3, 0.6, 0.9])}, name="range_float_ceil"),
    OpCase("fill_any_like", {"X": r(2, 3)}, lambda i, a: {"Out": np.ones((2, 3))}, attrs={"value": 1.0}),
    OpCase("fill_any_like", {"X": r(2, 3)}, lambda i, a: {"Out": np.full((2, 3), -2, dtype=np.int32)},
           attrs={"value": -2.0, "dtype": "int32"}, name="fill_any_like_dtype"),
    OpCase("eye", {}, lambda i, a: {"Out": np.eye(3, dtype=np.float32)}, attrs={"num_rows": 3}),
    OpCase("eye", {}, lambda i, a: {"Out": np.eye(2, 4, dtype=np.int64)},
           attrs={"num_rows": 2, "num_columns": 4, "dtype": "int64"}, name="eye_wide_int64"),
    OpCase("eye", {}, lambda i, a: {"Out": np.eye(4, 2, dtype=np.float64)},
           attrs={"num_rows": 4, "num_columns": 2, "dtype": "float64"}, name="eye_tall"),
    OpCase("diag", {"Diagonal": r(4)}, lambda i, a: {"Out": np.diag(i["Diagonal"])}),
    OpCase("diag", {"Diagonal": np.array([3, -1], dtype=np.int32)},
           lambda i, a: {"Out": np.array([[3, 0], [0, -1]], dtype=np.int32)}, name="diag_int32"),
    OpCase("reverse", {"X": r(3, 4)}, lambda i, a: {"Out": i["X"][::-1]}, attrs={"axis": [0]}, grad=("X",)),
    OpCase("reverse", {"X": r(2, 3, 4)}, lambda i, a: {"Out": i["X"][:, ::-1, ::-1]}, attrs={"axis": [-1, 1]},
           grad=("X",), name="reverse_two_axes"),
    OpCase("reverse", {"X": np.arange(6, dtype=np.int64).reshape(2, 3)},
           lambda i, a: {"Out": i["X"][::-1, ::-1]}, attrs={"axis": [0, 1]}, name="reverse_all_int64"),
    OpCase("where_index", {"Condition": np.array([[True, False, True], [False, False, True]])},
           lambda i, a: {"Out": np.array([[0, 0], [0, 2], [1, 2]], dtype=np.int64)}),
    OpCase("where_index", {"Condition": np.zeros((2, 2), dtype=bool)},
           lambda i, a: {"Out": np.zeros((0, 2), dtype=np.int64)}, name="where_index_none"),
    OpCase("where_index", {"Condition": np.array([0.0, 2.0, 0.0, -1.0])},
           lambda i, a: {"Out": np.array([[1], [3]], dtype=np.int64)}, name="where_index_float_nonzero"),
    OpCase("expand_as", {"X": r(2, 3), "target_tensor": r(4, 6)}, lambda i, a: {"Out": np.tile(i["X"], (2, 2))},
           grad=("X",)),
    OpCase("expand_as", {"X": r(1, 3, 2), "target_tensor": r(3, 3, 4)},
           lambda i, a: {"Out": np.tile(i["X"], (3, 1, 2))}, grad=("X",), name="expand_as_3d"),
    OpCase("size", {"Input": r(2, 3, 4)}, lambda i, a: {"Out": np.array([24], dtype=np.int64)}),
    OpCase("isfinite", {"X": r(2, 3)}, lambda i, a: {"Out": np.array([True])}),
    OpCase("isfinite", {"X": _special}, lambda i, a: {"Out": np.array([False])}, name="isfinite_special"),
    OpCase("isinf", {"X": _special}, lambda i, a: {"Out": np.array([True])}),
    OpCase("isinf", {"X": np.array([1.0, np.nan])}, lambda i, a: {"Out": np.array([False])}, name="isinf_nan_only"),
    OpCase("isnan", {"X": _special.astype(np.float32)}, lambda i, a: {"Out": np.array([True])}),
    OpCase("isnan", {"X": np.array([1.0, -np.inf])}, lambda i, a: {"Out": np.array([False])}, name="isnan_inf_only"),
    OpCase("reduce_prod", {"X": r(3, 4)}, _prod_ref((1,)), attrs={"dim": [1]}, grad=("X",)),
    OpCase("reduce_prod", {"X": r(2, 3, 2)}, _prod_ref((0, 2), True), attrs={"dim": [0, -1], "keep_dim": True},
           grad=("X",), name="reduce_prod_two_dims"),
    OpCase("reduce_prod", {"X": _with_zero}, _prod_ref(None), attrs={"reduce_all": True}, grad=("X",),
           name="reduce_prod_all_with_zero"),
    OpCase("reduce_prod", {"X": np.array([[1, 2], [3, 4]], dtype=np.int64)},
           lambda i, a: {"Out": np.array([3, 8])}, attrs={"dim": [0]}, name="reduce_prod_int64"),
    OpCase("reduce_all", {"X": _bools}, lambda i, a: {"Out": np.array([False, True])}, attrs={"dim": [1]}),
    OpCase("reduce_all", {"X": _bools}, lambda i, a: {"Out": np.array([False])}, attrs={"reduce_all": True},
           name="reduce_all_all"),
    OpCase("reduce_any", {"X": _bools}, lambda i, a: {"Out": np.array([[True, True, True]])},
           attrs={"dim": [0], "keep_dim": True}),
    OpCase("reduce_any", {"X": np.zeros((2, 2), dtype=bool)}, lambda i, a: {"Out": np.array([False])},
           attrs={"reduce_all": True}, name="reduce_any_none"),
    OpCase("elementwise_floordiv", {"X": np.array([[7, -7, 6], [-9, 0, 5]], dtype=np.int64),
                                    "Y": np.array([2, 2, -4], dtype=np.int64)},
           lambda i, a: {"Out": np.array([[3, -3, -1], [-4, 0, -1]], dtype=np.int64)}),
    OpCase("elementwise_floordiv", {"X": np.array([[9, 8], [7, 6], [5, 4]], dtype=np.int32),
                                    "Y": np.array([2, 3, 4], dtype=np.int32)},
           lambda i, a: {"Out": np.array([[4, 4], [2, 2], [1, 1]], dtype=np.int32)}, attrs={"axis": 0},
           name="elementwise_floordiv_axis0_int32"),
    OpCase("elementwise_mod", {"X": np.array([7, -7, 7, -7, 6], dtype=np.int64),
                               "Y": np.array([3, 3, -3, -3, 3], dtype=np.int64)},
           lambda i, a: {"Out": np.array([1, -1, 1, -1, 0], dtype=np.int64)}),
    OpCase("elementwise_mod", {"X": np.array([[5.5, -5.5], [1.0, -3.0]]), "Y": np.array([2.0, -2.0])},
           lambda i, a: {"Out": np.mod(i["X"], i["Y"])}, name="elementwise_mod_float"),
]


def _check_crop(outs, inputs):
    x, out = inputs["X"], outs["Out"]
    assert out.shape == (2, 3, 2, 3) and outs["SeedOut"].dtype == np.int64
    for b in range(2):
        for c in range(3):
            windows = [(i, j) for i in range(x.shape[2] - 1) for j in range(x.shape[3] - 2)
                       if np.array_equal(x[b, c, i:i + 2, j:j + 3], out[b, c])]
            assert windows, "each instance is a window of its input"
    assert outs["SeedOut"][0] != inputs["Seed"][0]


CASES += [
    OpCase("random_crop", {"X": np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6),
                           "Seed": np.array([11], dtype=np.int64)},
           attrs={"shape": [2, 3]}, outputs=("Out", "SeedOut"), check=_check_crop),
]
