"""Op cases for lookup_table and lookup_table_v2 (ops/embedding.py): the rows of W picked by Ids."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(1)


def r(*shape):
    return rng.normal(size=shape)


CASES = [
    # lookup_table
    OpCase(
        "lookup_table",
        {"W": r(6, 4), "Ids": np.array([[1], [3], [1], [5], [0]], dtype=np.int64)},
        lambda i, a: {"Out": i["W"][i["Ids"][:, 0]]},
        grad=("W",),
        name="lookup_table",
    ),
    OpCase(
        "lookup_table",
        {"W": r(6, 3), "Ids": np.array([[2], [4], [2], [0]], dtype=np.int64)},
        lambda i, a: {"Out": np.where(i["Ids"] == 2, 0, i["W"][i["Ids"][:, 0]])},
        attrs={"padding_idx": 2},
        grad=("W",),
        name="lookup_table_padding_idx",
    ),
    OpCase(
        "lookup_table",
        {"W": r(5, 3), "Ids": np.array([4, 0, 4], dtype=np.int64)},
        lambda i, a: {"Out": np.stack([i["W"][k] for k in i["Ids"]])},
        grad=("W",),
        name="lookup_table_ids_1d",
    ),
    OpCase(
        "lookup_table",
        {"W": r(5, 2), "Ids": np.array([[[1], [2], [3]], [[4], [4], [0]]], dtype=np.int64)},
        lambda i, a: {"Out": i["W"][i["Ids"][..., 0]]},
        grad=("W",),
        name="lookup_table_3d_ids",
    ),
    # lookup_table_v2 (fluid.embedding): Out is Ids' shape plus the width, a trailing 1 kept
    OpCase(
        "lookup_table_v2",
        {"W": r(6, 4), "Ids": np.array([[1, 3], [5, 1]], dtype=np.int64)},
        lambda i, a: {"Out": i["W"][i["Ids"]]},
        grad=("W",),
        name="lookup_table_v2",
    ),
    OpCase(
        "lookup_table_v2",
        {"W": r(5, 3), "Ids": np.array([[2], [4], [2]], dtype=np.int64)},
        lambda i, a: {"Out": np.where(i["Ids"][..., None] == 2, 0, i["W"][i["Ids"]])},
        attrs={"padding_idx": 2},
        grad=("W",),
        name="lookup_table_v2_trailing_one_padding_idx",
    ),
]


def _packed_table():
    """3 rows of 2 + 2 floats: min, max and 8 uint8 codes."""
    codes = np.array(
        [[0, 255, 7, 128, 1, 2, 3, 4], [9, 8, 7, 6, 5, 4, 3, 2], [200, 0, 100, 50, 25, 12, 6, 3]], dtype=np.uint8
    )
    bounds = np.array([[-1.0, 1.0], [0.0, 4.0], [-2.0, 0.5]], dtype=np.float32)
    return np.concatenate([bounds, codes.view(np.float32)], axis=1), codes, bounds


_TABLE, _CODES, _BOUNDS = _packed_table()


def _dequant(i, a):
    ids = i["Ids"].reshape(-1)
    lo, hi = _BOUNDS[ids, 0:1], _BOUNDS[ids, 1:2]
    out = (hi - lo) / np.float32(256) * _CODES[ids].astype(np.float32) + lo
    out[ids == a["padding_idx"]] = 0
    return {"Out": out.reshape(i["Ids"].shape[:-1] + (8,))}


CASES += [
    OpCase(
        "lookup_table_dequant",
        {"W": _TABLE, "Ids": np.array([[[2], [0]], [[1], [2]]], np.int64)},
        _dequant,
        attrs={"padding_idx": 1},
    )
]
