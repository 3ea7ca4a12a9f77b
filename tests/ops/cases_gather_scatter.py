"""Op cases for family gather_scatter: index_select (dims, an [N, 1] Index, repeated ids), index_sample,
multiplex (int32 and int64 Ids), scatter_nd_add (elements, slices, empty index rows: all of X; repeated
rows adding up) and
shard_index, against numpy's indexing."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(76)


def r(*shape):
    return rng.normal(size=shape)


def _index_select(i, a):
    return {"Out": np.take(i["X"], i["Index"].reshape(-1), axis=a["dim"])}


def _multiplex(i, a):
    ids = i["Ids"].reshape(-1)
    return {"Out": np.stack(i["X"])[ids, np.arange(len(ids))]}


def _scatter_nd_add(i, a):
    out, index = i["X"].copy(), i["Index"]
    k = index.shape[-1]
    rows = index.reshape(int(np.prod(index.shape[:-1])), k)
    for row, upd in zip(rows, i["Updates"].reshape((len(rows),) + out.shape[k:])):
        out[tuple(row)] += upd
    return {"Out": out}


def _shard_index(i, a):
    size = (a["index_num"] + a["nshards"] - 1) // a["nshards"]
    x = i["X"]
    return {"Out": np.where(x // size == a["shard_id"], x % size, a["ignore_value"])}


CASES = [
    OpCase("index_select", {"X": r(3, 4), "Index": np.array([2, 0, 2])}, _index_select, grad=("X",)),
    OpCase(
        "index_select",
        {"X": r(2, 3, 4), "Index": np.array([[3], [1]], np.int32)},
        _index_select,
        attrs={"dim": -1},
        grad=("X",),
        name="index_select_last_dim_index_n1",
    ),
    OpCase(
        "index_sample",
        {"X": r(3, 5), "Index": np.array([[0, 4], [2, 2], [1, 3]])},
        lambda i, a: {"Out": np.take_along_axis(i["X"], i["Index"], 1)},
        grad=("X",),
    ),
    OpCase(
        "multiplex",
        {"Ids": np.array([[1], [0], [2], [1]], np.int32), "X": [r(4, 3), r(4, 3), r(4, 3)]},
        _multiplex,
        grad=("X",),
    ),
    OpCase(
        "multiplex",
        {"Ids": np.array([[1], [1]]), "X": [r(2, 2, 2), r(2, 2, 2)]},
        _multiplex,
        name="multiplex_int64_ids",
    ),
    OpCase(
        "scatter_nd_add",
        {"X": r(3, 4), "Index": np.array([[1, 2], [0, 0], [1, 2]]), "Updates": r(3)},
        _scatter_nd_add,
        grad=("X", "Updates"),
        name="scatter_nd_add_elements",
    ),
    OpCase(
        "scatter_nd_add",
        {"X": r(3, 2, 2), "Index": np.array([[[2]], [[0]]], np.int32), "Updates": r(2, 1, 2, 2)},
        _scatter_nd_add,
        grad=("X", "Updates"),
    ),
    OpCase(
        "scatter_nd_add",
        {"X": r(2, 3), "Index": np.zeros((2, 0), np.int64), "Updates": r(2, 2, 3)},
        _scatter_nd_add,
        grad=("X", "Updates"),
        name="scatter_nd_add_empty_index_rows_add_all_of_x",
    ),
    OpCase(
        "shard_index",
        {"X": np.array([[1], [6], [12], [19]])},
        _shard_index,
        attrs={"index_num": 20, "nshards": 2, "shard_id": 1},
    ),
    OpCase(
        "shard_index",
        {"X": np.array([[0], [5], [7]], np.int32)},
        _shard_index,
        attrs={"index_num": 8, "nshards": 3, "shard_id": 0, "ignore_value": -7},
        name="shard_index_int32_ignore",
    ),
]
