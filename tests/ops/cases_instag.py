"""Op cases for filter_by_instag (ops/instag.py), following Fluid 1.8's test_filter_by_instag_op.py:
rows or LoD instances kept by their tags, and the empty case."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(89)
_TAGS = LoDTensor(np.array([[1], [2], [5], [3], [2], [7]], dtype=np.int64), [[0, 2, 3, 4, 6]])  # 4 instances


def _ref(keep, rows_per, is_lod):
    def ref(i, a):
        x = np.asarray(i["Ins"])
        offs = np.concatenate([[0], np.cumsum(rows_per)])
        rows = [r for k in keep for r in range(offs[k], offs[k + 1])]
        starts = np.concatenate([[0], np.cumsum([rows_per[k] for k in keep])])
        return {
            "Out": x[rows],
            "LossWeight": np.ones((len(keep), 1), np.float32),
            "IndexMap": np.array([[starts[j], offs[k], rows_per[k]] for j, k in enumerate(keep)]),
        }

    return ref


CASES = [
    OpCase(
        "filter_by_instag",
        {"Ins": rng.normal(size=(4, 3)), "Ins_tag": _TAGS, "Filter_tag": np.array([2, 9], dtype=np.int64)},
        _ref([0, 3], [1, 1, 1, 1], False),
        loss_outputs=("Out",),
        grad=("Ins",),
    ),
    OpCase(
        "filter_by_instag",
        {
            "Ins": LoDTensor(rng.normal(size=(7, 2)), [[0, 2, 3, 6, 7]]),
            "Ins_tag": _TAGS,
            "Filter_tag": np.array([5, 3], dtype=np.int64),
        },
        _ref([1, 2], [2, 1, 3, 1], True),
        attrs={"is_lod": True},
        loss_outputs=("Out",),
        grad=("Ins",),
        name="filter_by_instag_lod",
    ),
    OpCase(
        "filter_by_instag",
        {"Ins": rng.normal(size=(4, 2)), "Ins_tag": _TAGS, "Filter_tag": np.array([8], dtype=np.int64)},
        lambda i, a: {
            "Out": np.full((1, 2), -1.0),
            "LossWeight": np.zeros((1, 1), np.float32),
            "IndexMap": np.array([[0, 1, 1]]),
        },
        attrs={"out_val_if_empty": -1},
        loss_outputs=("Out",),
        grad=("Ins",),
        name="filter_by_instag_none",
    ),
]
