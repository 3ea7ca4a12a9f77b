"""Op cases for the parameter-server ops that compute in the trainer (ops/distributed.py): split_ids,
merge_ids and ref_by_trainer_id, against numpy written from Fluid 1.8's kernels. lookup_sparse_table's
table outgrows its rows (tests/fluid/test_sparse_table_ops.py); send, recv and the barriers run between
processes (tests/transpiler/test_pserver.py)."""

import numpy as np

from op_test import OpCase

_IDS = [np.array([[0], [5], [2], [5]], np.int64), np.array([[7], [2], [3]], np.int64)]
CASES = [
    OpCase(
        "split_ids",
        {"Ids": _IDS},
        lambda i, a: {"Out": [np.array([[0], [3]]), np.array([[7]]), np.array([[2], [5]])]},
        num_outputs={"Out": 3},
    ),
    OpCase(
        "merge_ids",
        {
            "Ids": [np.array([[3], [0], [3]], np.int64), np.array([[5]], np.int64)],
            "Rows": [np.array([[0], [3]], np.int64), np.array([[5]], np.int64)],
            "X": [np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0]])],
        },
        lambda i, a: {"Out": [np.array([[3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0]])]},
        num_outputs={"Out": 2},
    ),
    OpCase(
        "ref_by_trainer_id",
        {"X": [np.ones((2, 2)), np.full((2, 2), 2.0)], "TrainerId": np.array([1], np.int64)},
        lambda i, a: {"Out": i["X"][1]},
    ),
]
