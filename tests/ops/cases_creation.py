"""Op cases for family creation: assign, assign_value, fill_constant, fill_constant_batch_size_like,
fill_zeros_like, fill_any_like, range, eye, diag, diag_embed, tril_triu, linspace (Fluid's CPU sum of steps),
meshgrid (references: numpy's constructors, np.tril / np.triu, np.diag per vector, np.meshgrid)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(41)


def r(*shape):
    return rng.normal(size=shape)


def _scalar(v, dtype):
    return np.array([v], dtype=dtype)


_tri = r(2, 3, 4)


def _diag_embed(x, offset, dim1, dim2):
    """numpy reference: np.diag of each last-dim vector, then its two dims moved to dim1, dim2."""
    planes = np.stack([np.diag(v, offset) for v in x.reshape(-1, x.shape[-1])])
    side = planes.shape[-1]
    planes = planes.reshape(x.shape[:-1] + (side, side))
    return np.moveaxis(planes, [-2, -1], [dim1 % (x.ndim + 1), dim2 % (x.ndim + 1)])


CASES = [
    OpCase("assign", {"X": r(2, 3)}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
    OpCase(
        "fill_constant",
        {},
        lambda i, a: {"Out": np.full((2, 3), 1.5, dtype="float32")},
        attrs={"shape": [2, 3], "value": 1.5, "dtype": "float32"},
    ),
    OpCase("fake_init", {}, lambda i, a: {"Out": np.zeros((4, 7), dtype="float32")}, attrs={"shape": [4, 7]}),
    OpCase(
        "fill_constant",
        {
            "ShapeTensorList": [np.array([2], np.int32), np.array([3], np.int32)],
            "ValueTensor": np.array([4.0], np.float32),
        },
        lambda i, a: {"Out": np.full((2, 3), 4.0, dtype="float32")},
        attrs={"shape": [-1, 3], "dtype": "float32"},
        name="fill_constant_tensors",
    ),
    OpCase(
        "fill_constant",
        {"ShapeTensor": np.array([3, 1], np.int32)},
        lambda i, a: {"Out": np.full((3, 1), 2.0, dtype="float64")},
        attrs={"shape": [], "value": 2.0, "dtype": "float64"},
        name="fill_constant_shape_tensor",
    ),
    OpCase("fill_zeros_like", {"X": r(2, 3)}, lambda i, a: {"Out": np.zeros((2, 3))}),
    OpCase(
        "assign_value",
        {},
        lambda i, a: {"Out": np.array([[1, 2, 3], [4, 5, 6]], dtype="float32")},
        attrs={"shape": [2, 3], "dtype": "float32", "fp32_values": [1, 2, 3, 4, 5, 6]},
    ),
    OpCase(
        "assign_value",
        {},
        lambda i, a: {"Out": np.array([7, -8], dtype="int64")},
        attrs={"shape": [2], "dtype": "int64", "int64_values": [7, -8]},
        name="assign_value_int64",
    ),
    OpCase(
        "range",
        {"Start": _scalar(1, np.int64), "End": _scalar(10, np.int64), "Step": _scalar(3, np.int64)},
        lambda i, a: {"Out": np.array([1, 4, 7], dtype=np.int64)},
    ),
    OpCase(
        "range",
        {"Start": _scalar(2.0, np.float32), "End": _scalar(-1.0, np.float32), "Step": _scalar(-0.5, np.float32)},
        lambda i, a: {"Out": np.arange(2.0, -1.0, -0.5, dtype=np.float32)},
        name="range_float_down",
    ),
    OpCase(
        "range",
        {"Start": _scalar(0.0, np.float64), "End": _scalar(1.0, np.float64), "Step": _scalar(0.3, np.float64)},
        lambda i, a: {"Out": np.array([0.0, 0.3, 0.6, 0.9])},
        name="range_float_ceil",
    ),
    OpCase("fill_any_like", {"X": r(2, 3)}, lambda i, a: {"Out": np.ones((2, 3))}, attrs={"value": 1.0}),
    OpCase(
        "fill_any_like",
        {"X": r(2, 3)},
        lambda i, a: {"Out": np.full((2, 3), -2, dtype=np.int32)},
        attrs={"value": -2.0, "dtype": "int32"},
        name="fill_any_like_dtype",
    ),
    OpCase("eye", {}, lambda i, a: {"Out": np.eye(3, dtype=np.float32)}, attrs={"num_rows": 3}),
    OpCase(
        "eye",
        {},
        lambda i, a: {"Out": np.eye(2, 4, dtype=np.int64)},
        attrs={"num_rows": 2, "num_columns": 4, "dtype": "int64"},
        name="eye_wide_int64",
    ),
    OpCase(
        "eye",
        {},
        lambda i, a: {"Out": np.eye(4, 2, dtype=np.float64)},
        attrs={"num_rows": 4, "num_columns": 2, "dtype": "float64"},
        name="eye_tall",
    ),
    # num_rows and num_columns are Fluid's LONG attributes: a float is truncated, as Fluid's checker does
    OpCase(
        "eye",
        {},
        lambda i, a: {"Out": np.eye(2, 3, dtype=np.float32)},
        attrs={"num_rows": 2.0, "num_columns": 3.7},
        name="eye_float_sizes",
    ),
    OpCase("diag", {"Diagonal": r(4)}, lambda i, a: {"Out": np.diag(i["Diagonal"])}),
    OpCase(
        "diag",
        {"Diagonal": np.array([3, -1], dtype=np.int32)},
        lambda i, a: {"Out": np.array([[3, 0], [0, -1]], dtype=np.int32)},
        name="diag_int32",
    ),
    OpCase(
        "fill_constant_batch_size_like",
        {"Input": rng.normal(size=(4, 7, 2))},
        lambda i, a: {"Out": np.full((2, 7), 1.5, dtype="float32")},
        attrs={"shape": [2, -1], "value": 1.5, "input_dim_idx": 1, "output_dim_idx": 1},
    ),
    OpCase("diag_embed", {"Input": r(2, 3)}, lambda i, a: {"Out": _diag_embed(i["Input"], 0, -2, -1)}),
    OpCase(
        "diag_embed",
        {"Input": r(2, 3)},
        lambda i, a: {"Out": _diag_embed(i["Input"], 1, 0, 2)},
        attrs={"offset": 1, "dim1": 0, "dim2": 2},
        name="diag_embed_offset_dims",
    ),
    OpCase(
        "diag_embed",
        {"Input": np.arange(6, dtype=np.int32).reshape(3, 2)},
        lambda i, a: {"Out": _diag_embed(i["Input"], -1, 2, 0)},
        attrs={"offset": -1, "dim1": 2, "dim2": 0},
        name="diag_embed_int32_swapped",
    ),
    OpCase("tril_triu", {"X": r(4, 5)}, lambda i, a: {"Out": np.tril(i["X"])}, grad=("X",)),
    OpCase(
        "tril_triu",
        {"X": _tri},
        lambda i, a: {"Out": np.triu(i["X"], 1)},
        attrs={"diagonal": 1, "lower": False},
        grad=("X",),
        name="triu_batched",
    ),
    OpCase(
        "tril_triu",
        {"X": r(5, 3)},
        lambda i, a: {"Out": np.tril(i["X"], -2)},
        attrs={"diagonal": -2},
        name="tril_below",
    ),
    OpCase(
        "tril_triu",
        {"X": np.arange(12, dtype=np.int32).reshape(3, 4)},
        lambda i, a: {"Out": np.triu(i["X"], -1)},
        attrs={"diagonal": -1, "lower": False},
        name="triu_int32",
    ),
]

CASES += [
    OpCase(
        "fill",
        {},
        lambda i, a: {"Out": np.array([[1, 2, 3], [-4, 5, 0]], np.int32)},
        attrs={"value": [1.0, 2.0, 3.7, -4.2, 5.0, 0.0, 9.0], "shape": [2, 3], "dtype": "int32"},
    ),
    OpCase(
        "fill_zeros_like2",
        {"X": np.ones((2, 3), np.float32)},
        lambda i, a: {"Out": np.zeros((2, 3), np.float64)},
        attrs={"dtype": "float64"},
    ),
]


def _linspace(i, a):
    start, stop, num = i["Start"][0], i["Stop"][0], int(i["Num"][0])
    step = (stop - start) / (num - 1) if num > 1 else 0
    return {"Out": np.cumsum(np.array([start] + [step] * (num - 1), i["Start"].dtype))}


def _meshgrid(i, a):
    return {"Out": [np.ascontiguousarray(o) for o in np.meshgrid(*i["X"], indexing="ij")]}


CASES += [
    OpCase("linspace", {"Start": np.array([-1.0]), "Stop": np.array([2.0]), "Num": np.array([7], np.int32)}, _linspace),
    OpCase(
        "linspace",
        {"Start": np.array([0.5], np.float32), "Stop": np.array([0.0], np.float32), "Num": np.array([1], np.int32)},
        _linspace,
        name="linspace_one_value_float32",
    ),
    OpCase("meshgrid", {"X": [r(3), r(2), r(4)]}, _meshgrid, grad=("X",), num_outputs={"Out": 3}),
    OpCase("meshgrid", {"X": [np.arange(2), np.arange(3)]}, _meshgrid, num_outputs={"Out": 2}, name="meshgrid_int64"),
]

# str_value, when set, is the value, read as Fluid 1.8.5 reads it (a C++ stream; checked with its oracle)
CASES += [
    OpCase(
        "fill_constant_batch_size_like",
        {"Input": np.zeros((3, 2))},
        lambda i, a: {"Out": np.full((3, 2), 123456789012345678, np.int64)},
        attrs={"shape": [-1, 2], "dtype": "int64", "str_value": "123456789012345678"},
        name="fill_constant_batch_size_like_str_value",
    ),
    OpCase(
        "fill_constant",
        {},
        lambda i, a: {"Out": np.zeros(2, np.float32)},
        attrs={"shape": [2], "dtype": "float32", "value": 1.0, "str_value": "inf"},
        name="fill_constant_str_inf_is_0",
    ),
    OpCase(
        "fill_constant",
        {},
        lambda i, a: {"Out": np.full(2, 2, np.int32)},
        attrs={"shape": [2], "dtype": "int32", "str_value": "2.7"},
        name="fill_constant_str_value_int32",
    ),
]

from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("creation")  # recorded from Paddle 2.6.2 (fill_constant of int16)
