"""Op cases for ops/indexing.py and ops/manipulation.py: strided_slice, unbind, scatter, gather_nd,
argsort, unique, unique_with_counts. References follow Fluid 1.8's unit tests (numpy slicing and indexing)."""
import numpy as np

from op_test import OpCase

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
    rows = [x[tuple(row)] for row in index.reshape(-1, k)]
    return {"Out": np.array(rows).reshape(index.shape[:-1] + x.shape[k:])}


_unique_x = np.array([2, 3, 3, 1, 5, 3], dtype=np.int64)

CASES = [
    OpCase("strided_slice", {"Input": r(5, 6)}, lambda i, a: {"Out": i["Input"][1:5:2, ::3]},
           attrs={"axes": [0, 1], "starts": [1, 0], "ends": [5, 6], "strides": [2, 3]}, grad=("Input",)),
    OpCase("strided_slice", {"Input": r(4, 7, 3)}, lambda i, a: {"Out": i["Input"][:, 5:0:-2]},
           attrs={"axes": [1], "starts": [5], "ends": [0], "strides": [-2]}, grad=("Input",),
           name="strided_slice_negative_stride"),
    OpCase("strided_slice", {"Input": r(4, 6)}, lambda i, a: {"Out": i["Input"][-2::-1, -1:-100:-3]},
           attrs={"axes": [0, 1], "starts": [-2, -1], "ends": [-1, -100], "strides": [-1, -3]}, grad=("Input",),
           name="strided_slice_to_the_start"),
    OpCase("strided_slice", {"Input": r(3, 4, 5)}, lambda i, a: {"Out": i["Input"][:, 2, 1:100:2]},
           attrs={"axes": [1, 2], "starts": [2, 1], "ends": [3, 100], "strides": [1, 2], "decrease_axis": [1]},
           grad=("Input",), name="strided_slice_decrease_axis"),
    OpCase("unbind", {"X": r(3, 2, 4)}, lambda i, a: {"Out": [i["X"][:, k] for k in range(2)]},
           attrs={"axis": 1}, num_outputs={"Out": 2}, grad=("X",)),
    OpCase("unbind", {"X": r(2, 3)}, lambda i, a: {"Out": [i["X"][:, k] for k in range(3)]},
           attrs={"axis": -1}, num_outputs={"Out": 3}, grad=("X",), name="unbind_last_axis"),
    OpCase("scatter", {"X": r(5, 3), "Ids": np.array([4, 0, 2], dtype=np.int64), "Updates": r(3, 3)},
           _scatter_ref(True), grad=("X", "Updates")),
    OpCase("scatter", {"X": r(4, 2), "Ids": np.array([1, 3, 1], dtype=np.int32), "Updates": r(3, 2)},
           _scatter_ref(True), name="scatter_repeated_id_keeps_last"),
    OpCase("scatter", {"X": r(4, 2, 2), "Ids": np.array([1, 3, 1], dtype=np.int64), "Updates": r(3, 2, 2)},
           _scatter_ref(False), attrs={"overwrite": False}, grad=("X", "Updates"), name="scatter_accumulate"),
    OpCase("gather_nd", {"X": r(3, 4, 2), "Index": np.array([[0, 1], [2, 3], [0, 1]], dtype=np.int64)},
           _gather_nd_ref, grad=("X",)),
    OpCase("gather_nd", {"X": r(3, 4), "Index": np.array([[[2, 1]], [[0, 3]]], dtype=np.int32)},
           _gather_nd_ref, grad=("X",), name="gather_nd_elements"),
    OpCase("gather_nd", {"X": r(4, 3), "Index": np.array([[3], [1]], dtype=np.int64)},
           _gather_nd_ref, grad=("X",), name="gather_nd_rows"),
    OpCase("argsort", {"X": r(3, 5)}, _argsort_ref(1), grad=("X",), loss_outputs=("Out",)),
    OpCase("argsort", {"X": r(4, 3, 2)}, _argsort_ref(0, descending=True), attrs={"axis": 0, "descending": True},
           grad=("X",), loss_outputs=("Out",), name="argsort_descending_axis0"),
    OpCase("argsort", {"X": np.array([[3, 1, 3, 2]], dtype=np.int64)},
           lambda i, a: {"Out": np.array([[3, 3, 2, 1]]), "Indices": np.array([[0, 2, 3, 1]])},
           attrs={"descending": True}, name="argsort_ties_keep_order"),
    OpCase("unique", {"X": _unique_x},
           lambda i, a: {"Out": np.array([2, 3, 1, 5]), "Index": np.array([0, 1, 1, 2, 3, 1], dtype=np.int32)}),
    OpCase("unique_with_counts", {"X": np.array([1.5, -1.0, 1.5, 0.0])},
           lambda i, a: {"Out": np.array([1.5, -1.0, 0.0]), "Index": np.array([0, 1, 0, 2]),
                         "Count": np.array([2, 1, 1])}, attrs={"dtype": "int64"}),
]
