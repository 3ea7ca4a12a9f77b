"""Op cases for family indexing: slice, strided_slice, gather, gather_nd, scatter, one_hot, argsort,
unique, unique_with_counts, where, where_index, top_k, arg_max, arg_min. References follow Fluid 1.8's
unit tests (numpy slicing and indexing)."""

import numpy as np

from op_test import OpCase
from tests.kernels import stl_order as _stl

rng = np.random.default_rng(43)


def r(*shape):
    return rng.normal(size=shape)


def _scatter_ref(overwrite):
    def ref(i, a):
        out = i["X"].copy()
        ids = i["Ids"].reshape(-1)
        if overwrite:
            for k, row in zip(ids, i["Updates"]):
                out[k] = row
        else:
            out[ids] = 0
            for k, row in zip(ids, i["Updates"]):
                out[k] += row
        return {"Out": out}

    return ref


def _argsort_ref(axis, descending=False):
    def ref(i, a):
        x = i["X"]
        idx = np.argsort(-x if descending else x, axis=axis, kind="stable")
        return {"Out": np.take_along_axis(x, idx, axis), "Indices": idx}

    return ref


def _gather_nd_ref(i, a):
    x, index = i["X"], i["Index"]
    k = index.shape[-1]
    rows = [x[tuple(row)] for row in index.reshape(int(np.prod(index.shape[:-1])), k)]
    return {"Out": np.array(rows).reshape(index.shape[:-1] + x.shape[k:])}


_unique_x = np.array([2, 3, 3, 1, 5, 3], dtype=np.int64)

CASES = [
    OpCase(
        "strided_slice",
        {"Input": r(5, 6)},
        lambda i, a: {"Out": i["Input"][1:5:2, ::3]},
        attrs={"axes": [0, 1], "starts": [1, 0], "ends": [5, 6], "strides": [2, 3]},
        grad=("Input",),
    ),
    OpCase(
        "strided_slice",
        {"Input": r(4, 7, 3)},
        lambda i, a: {"Out": i["Input"][:, 5:0:-2]},
        attrs={"axes": [1], "starts": [5], "ends": [0], "strides": [-2]},
        grad=("Input",),
        name="strided_slice_negative_stride",
    ),
    OpCase(
        "strided_slice",
        {"Input": r(4, 6)},
        lambda i, a: {"Out": i["Input"][-2::-1, -1:-100:-3]},
        attrs={"axes": [0, 1], "starts": [-2, -1], "ends": [-1, -100], "strides": [-1, -3]},
        grad=("Input",),
        name="strided_slice_to_the_start",
    ),
    OpCase(
        "strided_slice",
        {"Input": r(3, 4, 5)},
        lambda i, a: {"Out": i["Input"][:, 2, 1:100:2]},
        attrs={"axes": [1, 2], "starts": [2, 1], "ends": [3, 100], "strides": [1, 2], "decrease_axis": [1]},
        grad=("Input",),
        name="strided_slice_decrease_axis",
    ),
    OpCase(
        "scatter",
        {"X": r(5, 3), "Ids": np.array([4, 0, 2], dtype=np.int64), "Updates": r(3, 3)},
        _scatter_ref(True),
        grad=("X", "Updates"),
    ),
    OpCase(
        "scatter",
        {"X": r(4, 2), "Ids": np.array([1, 3, 1], dtype=np.int32), "Updates": r(3, 2)},
        _scatter_ref(True),
        name="scatter_repeated_id_keeps_last",
    ),
    OpCase(
        "scatter",
        {"X": r(4, 2, 2), "Ids": np.array([1, 3, 1], dtype=np.int64), "Updates": r(3, 2, 2)},
        _scatter_ref(False),
        attrs={"overwrite": False},
        grad=("X", "Updates"),
        name="scatter_accumulate",
    ),
    OpCase(
        "gather_nd",
        {"X": r(3, 4, 2), "Index": np.array([[0, 1], [2, 3], [0, 1]], dtype=np.int64)},
        _gather_nd_ref,
        grad=("X",),
    ),
    OpCase(
        "gather_nd",
        {"X": r(3, 4), "Index": np.array([[[2, 1]], [[0, 3]]], dtype=np.int32)},
        _gather_nd_ref,
        grad=("X",),
        name="gather_nd_elements",
    ),
    OpCase(
        "gather_nd",
        {"X": r(4, 3), "Index": np.array([[3], [1]], dtype=np.int64)},
        _gather_nd_ref,
        grad=("X",),
        name="gather_nd_rows",
    ),
    OpCase(
        "gather_nd",
        {"X": r(5, 4), "Index": np.zeros((2, 0), dtype=np.int32)},  # an empty index row: all X
        _gather_nd_ref,
        grad=("X",),
        name="gather_nd_empty_index",
    ),
    OpCase("argsort", {"X": r(3, 5)}, _argsort_ref(1), grad=("X",), loss_outputs=("Out",)),
    OpCase(
        "argsort",
        {"X": r(4, 3, 2)},
        _argsort_ref(0, descending=True),
        attrs={"axis": 0, "descending": True},
        grad=("X",),
        loss_outputs=("Out",),
        name="argsort_descending_axis0",
    ),
    OpCase(
        "argsort",
        {"X": np.array([[3, 1, 3, 2]], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[3, 3, 2, 1]]), "Indices": np.array([[0, 2, 3, 1]])},
        attrs={"descending": True},
        name="argsort_ties_keep_order",
    ),
    OpCase(
        "unique",
        {"X": _unique_x},
        lambda i, a: {"Out": np.array([2, 3, 1, 5]), "Index": np.array([0, 1, 1, 2, 3, 1], dtype=np.int32)},
    ),
    OpCase(
        "unique_with_counts",
        {"X": np.array([1.5, -1.0, 1.5, 0.0])},
        lambda i, a: {"Out": np.array([1.5, -1.0, 0.0]), "Index": np.array([0, 1, 0, 2]), "Count": np.array([2, 1, 1])},
        attrs={"dtype": "int64"},
    ),
]


def topk_ref(i, a):
    x, k = i["X"], a["k"]
    flat = x.reshape(-1, x.shape[-1])
    vals, idx = [], []
    for row in flat:
        order = sorted(range(len(row)), key=lambda j: (-row[j], j))[:k]
        idx.append(order)
        vals.append([row[j] for j in order])
    shape = x.shape[:-1] + (k,)
    return {"Out": np.array(vals).reshape(shape), "Indices": np.array(idx, dtype=np.int64).reshape(shape)}


def paddle_topk_ref(i, a):
    """Fluid's top_k where values repeat: the indices of Paddle's std::partial_sort comparing ``l > r``
    (pe's emulation, which tests/data/paddle_oracle/edges26.json checks against Paddle 2.6.2's top_k op)."""
    x, k = i["X"], a["k"]
    comp = _stl.paddle_comp("greater")
    idx = np.array([_stl.partial_sorted_row(row.tolist(), k, comp) for row in x.reshape(-1, x.shape[-1])])
    idx = idx.reshape(x.shape[:-1] + (k,))
    return {"Out": np.take_along_axis(x, idx, axis=-1), "Indices": idx}


TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, 2.0, 2.0]])
K1_NAN = np.array([[1.0, np.nan, 3.0, 3.0], [np.nan, 2.0, 5.0, -1.0], [0.5, 2.0, 2.0, np.nan], [4.0, 1.0, 4.0, 0.0]])
WIDE_TIES = np.concatenate([rng.normal(size=(2, 40)), rng.integers(0, 4, (3, 40)).astype(float), np.full((1, 40), 2.0)])
_cond = rng.random((3, 4)) > 0.5
CASES += [
    OpCase(
        "slice",
        {"Input": r(3, 4, 5)},
        lambda i, a: {"Out": i["Input"][1:3, :, 0:2]},
        attrs={"axes": [0, 2], "starts": [1, 0], "ends": [3, 2]},
        grad=("Input",),
    ),
    OpCase(
        "slice",
        {"Input": r(3, 4, 5)},
        lambda i, a: {"Out": i["Input"][:, -3:-1, 2:]},
        attrs={"axes": [1, 2], "starts": [-3, 2], "ends": [-1, 1000]},
        grad=("Input",),
        name="slice_negative",
    ),
    OpCase(
        "slice",
        {"Input": r(4, 5)},
        lambda i, a: {"Out": i["Input"][:, 2]},
        attrs={"axes": [1], "starts": [2], "ends": [3], "decrease_axis": [1]},
        grad=("Input",),
        name="slice_decrease_axis",
    ),
    OpCase(
        "slice",
        {"Input": r(4, 3)},
        lambda i, a: {"Out": i["Input"][0:4]},
        attrs={"axes": [0], "starts": [-100], "ends": [100]},
        name="slice_clamped",
    ),
    OpCase(
        "gather",
        {"X": r(5, 3), "Index": np.array([4, 0, 2, 0], dtype=np.int64)},
        lambda i, a: {"Out": i["X"][i["Index"]]},
        grad=("X",),
    ),
    OpCase(
        "gather",
        {"X": r(4, 2, 3), "Index": np.array([[3], [1]], dtype=np.int32)},
        lambda i, a: {"Out": i["X"][i["Index"].reshape(-1)]},
        grad=("X",),
        name="gather_int32_column_index",
    ),
    OpCase(
        "one_hot",
        {"X": np.array([[0], [3], [1], [3]], dtype=np.int64)},
        lambda i, a: {"Out": np.eye(4, dtype=np.float32)[i["X"].reshape(-1)]},
        attrs={"depth": 4},
    ),
    OpCase(
        "one_hot",
        {"X": np.array([[0], [5], [-1], [2]], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1]], dtype=np.float32)},
        attrs={"depth": 3, "allow_out_of_range": True},
        name="one_hot_out_of_range_allowed",
    ),
    OpCase(
        "one_hot_v2",
        {"X": np.array([[0, 3], [1, 3]], dtype=np.int64)},
        lambda i, a: {"Out": np.eye(4, dtype=np.float32)[i["X"]]},
        attrs={"depth": 4},
    ),
    OpCase(
        "one_hot_v2",
        {"X": np.array([0, 5, -1, 2], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1]], dtype=np.float32)},
        attrs={"depth": 3, "allow_out_of_range": True},
        name="one_hot_v2_out_of_range_allowed",
    ),
    OpCase(
        "where_index",
        {"Condition": np.array([[True, False, True], [False, False, True]])},
        lambda i, a: {"Out": np.array([[0, 0], [0, 2], [1, 2]], dtype=np.int64)},
    ),
    OpCase(
        "where_index",
        {"Condition": np.zeros((2, 2), dtype=bool)},
        lambda i, a: {"Out": np.zeros((0, 2), dtype=np.int64)},
        name="where_index_none",
    ),
    OpCase(
        "where_index",
        {"Condition": np.array([0.0, 2.0, 0.0, -1.0])},
        lambda i, a: {"Out": np.array([[1], [3]], dtype=np.int64)},
        name="where_index_float_nonzero",
    ),
    OpCase(
        "where",
        {"Condition": _cond, "X": r(3, 4), "Y": r(3, 4)},
        lambda i, a: {"Out": np.where(i["Condition"], i["X"], i["Y"])},
        grad=("X", "Y"),
    ),
    OpCase(
        "where",
        {"Condition": np.array([[[True], [False], [True]], [[False], [False], [True]]]), "X": r(5), "Y": r(2, 3, 5)},
        lambda i, a: {"Out": np.where(i["Condition"], i["X"], i["Y"])},
        grad=("X", "Y"),
        name="where_rows_broadcast",
    ),
    OpCase(
        "where",
        {"Condition": np.array([[True], [False], [True]]), "X": r(2, 3, 4), "Y": r(4)},
        lambda i, a: {"Out": np.where(i["Condition"], i["X"], i["Y"])},
        grad=("X", "Y"),
        name="where_rows_of_x",
    ),
    OpCase(
        "where",
        {"Condition": np.array([True, False, False, True]), "X": r(3, 1), "Y": r(1, 4)},
        lambda i, a: {"Out": np.where(i["Condition"], i["X"], i["Y"])},
        grad=("X", "Y"),
        name="where_broadcast_each",
    ),
    OpCase(
        "where",
        {
            "Condition": np.array([True, False, True]),
            "X": np.array([1, 2, 3], dtype=np.int64),
            "Y": np.array([-1, -2, -3], dtype=np.int64),
        },
        lambda i, a: {"Out": np.array([1, -2, 3], dtype=np.int64)},
        name="where_int64",
    ),
    OpCase(
        "where",
        {"Condition": np.array([[True, False]]), "X": np.array([[np.inf, 1.0]]), "Y": np.array([[0.0, np.nan]])},
        lambda i, a: {"Out": np.array([[np.inf, np.nan]])},
        name="where_keeps_nonfinite",
    ),
    OpCase(
        "top_k",
        {"X": rng.normal(size=(3, 6))},
        topk_ref,
        attrs={"k": 2},
        name="top_k",
        grad=("X",),
        loss_outputs=("Out",),
    ),
    OpCase(
        "top_k",
        {"X": rng.normal(size=(2, 3, 5))},
        topk_ref,
        attrs={"k": 3},
        name="top_k_3d_grad",
        grad=("X",),
        loss_outputs=("Out",),
    ),
    OpCase("top_k", {"X": rng.normal(size=(4, 5))}, topk_ref, name="top_k_k1"),
    # k = 1 over rows holding NaN: Paddle's std::partial_sort order (a planned step's loop too: _top_k_loops.top_1_rows)
    OpCase("top_k", {"X": K1_NAN}, paddle_topk_ref, name="top_k_k1_nan"),
    OpCase("top_k", {"X": rng.normal(size=(2, 3, 5))}, topk_ref, attrs={"k": 5}, name="top_k_3d_full"),
    OpCase("top_k", {"X": TIES}, paddle_topk_ref, attrs={"k": 3}, name="top_k_ties"),
    # rows much wider than k (a beam search's beam x vocabulary) take the loop of _top_k_loops.py: the same
    # order, rows with a tie at the k-th value among rows without
    OpCase("top_k", {"X": rng.normal(size=(2, 3, 50))}, topk_ref, attrs={"k": 4}, name="top_k_wide"),
    OpCase("top_k", {"X": WIDE_TIES}, paddle_topk_ref, attrs={"k": 3}, name="top_k_wide_ties"),
    OpCase(
        "arg_max", {"X": rng.normal(size=(4, 5))}, lambda i, a: {"Out": i["X"].argmax(axis=0)}, name="arg_max_axis0"
    ),
    OpCase(
        "arg_max",
        {"X": rng.normal(size=(2, 3, 4))},
        lambda i, a: {"Out": i["X"].argmax(axis=-1)},
        attrs={"axis": -1},
        name="arg_max_last",
    ),
    OpCase(
        "arg_max",
        {"X": rng.normal(size=(2, 3, 4))},
        lambda i, a: {"Out": i["X"].argmax(axis=1)[:, None, :]},
        attrs={"axis": 1, "keepdims": True},
        name="arg_max_keepdims",
    ),
    OpCase("arg_max", {"X": TIES}, lambda i, a: {"Out": np.array([1, 0])}, attrs={"axis": 1}, name="arg_max_ties"),
    OpCase(
        "arg_min",
        {"X": rng.normal(size=(3, 4))},
        lambda i, a: {"Out": i["X"].argmin(axis=1)},
        attrs={"axis": 1},
        name="arg_min",
    ),
]

# Fluid 1.8's attributes given by tensors (K, depth_tensor) and arg_max's dtype
CASES += [
    OpCase(
        "top_k",
        {"X": rng.normal(size=(2, 5)), "K": np.array([3], np.int32)},
        lambda i, a: topk_ref(i, dict(a, k=3)),
        name="top_k_k_tensor",
    ),
    OpCase(
        "one_hot_v2",
        {"X": np.array([[0, 2]], np.int64), "depth_tensor": np.array([3], np.int32)},
        lambda i, a: {"Out": np.eye(3, dtype=np.float32)[i["X"]]},
        name="one_hot_v2_depth_tensor",
    ),
    OpCase(
        "arg_max",
        {"X": np.array([[1.0, 3.0, 2.0]])},
        lambda i, a: {"Out": np.array([1], np.int32)},
        attrs={"axis": 1, "dtype": 2},
        name="arg_max_int32",
    ),
    # Fluid's kernel takes any dtype < 0 as int64, and its axis is a LONG (a float is truncated)
    OpCase(
        "arg_min",
        {"X": np.array([[1.0, 3.0, 0.5], [2.0, -1.0, 4.0]])},
        lambda i, a: {"Out": np.array([2, 1], np.int64)},
        attrs={"axis": 1.0, "dtype": -2},
        name="arg_min_negative_dtype_float_axis",
    ),
]

# Paddle 2.6.2 recorded (tools/paddle26_op_cases.py): the family's cases of issue 96
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("indexing")
