"""Op cases for row-sparse gradients (SelectedRows, issue 12 item 3): lookup_table's gradient with
is_sparse, and the updates that read one (sgd, momentum, adam with and without lazy_mode, adagrad,
sum). References follow Fluid's kernels (lookup_table_op.h, sgd_op.h, momentum_op.h's
SparseMomentumFunctor, adam_op.h's SparseAdamFunctor, adagrad_op.cc's MergeAdd then the rows), written
row by row in plain numpy, independently of pe's kernels. Not an op family: SelectedRows inputs cross
families (embedding, optimizer, elementwise, selected_rows), so this file is the one exception to "every
case lives in cases_<its op's family>.py or cases_<family>_<sub>.py" (tests/ops/test_coverage.py)."""

import numpy as np

from op_test import OpCase
from pe_cli.base.selected_rows import SelectedRows

from .cases_optimizer import _adam, _momentum, lr, pos, r

# rows 4 and 1 twice: a row listed twice is summed (Fluid's MergeAdd); rows 0, 2, 3, 5 untouched
ROWS = np.array([4, 1, 6, 1, 4], dtype=np.int64)


def grad(width=3, dtype="float64", rows=ROWS, height=7):
    return SelectedRows(rows.copy(), r(len(rows), width, dtype=dtype), height)


def _dense(g):
    out = np.zeros((g.height,) + g.values.shape[1:])
    for row, value in zip(g.rows, g.values):
        out[row] += value
    return out


def _merged(g):
    """{row: summed values}, rows ascending."""
    out = {}
    for row, value in zip(g.rows, g.values):
        out[int(row)] = out.get(int(row), 0) + value
    return dict(sorted(out.items()))


def _lookup_grad(i, a):
    ids = i["Ids"].reshape(-1)
    dout = i["Out@GRAD"].reshape(len(ids), -1)
    keep = [k for k in range(len(ids)) if ids[k] != a["padding_idx"]]
    return {"W@GRAD": SelectedRows(ids[keep], dout[keep], i["W"].shape[0])}


def _sparse_clip_by_norm(i, a):
    """Fluid's clip_by_norm of SelectedRows: MergeAdd, then the merged values scaled to max_norm."""
    merged = _merged(i["X"])
    values = np.array(list(merged.values()))
    norm = np.sqrt(np.sum(values**2))
    scale = a["max_norm"] / norm if norm > a["max_norm"] else 1.0
    return {"Out": SelectedRows(np.array(list(merged), np.int64), values * scale, i["X"].height)}


def _sparse_sgd(i, a):
    p = i["Param"].copy()
    for row, value in zip(i["Grad"].rows, i["Grad"].values):  # one row at a time, as sgd_op.h
        p[row] -= i["LearningRate"][0] * value
    return {"ParamOut": p}


def _sparse_momentum(i, a):
    return _momentum(dict(i, Grad=_dense(i["Grad"])), a)  # every row moves; Grad 0 where absent


def _sparse_adam(i, a):
    if not a["lazy_mode"]:
        return _adam(dict(i, Grad=_dense(i["Grad"])), a)
    out = _adam(dict(i, Grad=np.zeros_like(i["Param"])), a)  # the beta powers; rows below
    p, m1, m2 = i["Param"].copy(), i["Moment1"].copy(), i["Moment2"].copy()
    for row, g in _merged(i["Grad"]).items():
        dense_row = _adam(
            dict(i, Param=i["Param"][row], Grad=g, Moment1=i["Moment1"][row], Moment2=i["Moment2"][row]), a
        )
        p[row], m1[row], m2[row] = dense_row["ParamOut"], dense_row["Moment1Out"], dense_row["Moment2Out"]
    return dict(out, ParamOut=p, Moment1Out=m1, Moment2Out=m2)


def _sparse_adagrad(i, a):
    p, m = i["Param"].copy(), i["Moment"].copy()
    for row, g in _merged(i["Grad"]).items():
        m[row] = m[row] + g * g
        p[row] = p[row] - i["LearningRate"][0] * g / (np.sqrt(m[row]) + a["epsilon"])
    return {"ParamOut": p, "MomentOut": m}


def _split(g, sections):
    """Fluid's split_selected_rows, row by row: each row to the block whose run holds it, renumbered."""
    starts = np.cumsum([0] + list(sections))
    out = []
    for b, height in enumerate(sections):
        mine = [(row - starts[b], value) for row, value in zip(g.rows, g.values) if starts[b] <= row < starts[b + 1]]
        out.append(
            SelectedRows(
                np.array([m[0] for m in mine], dtype=np.int64),
                np.array([m[1] for m in mine]).reshape(len(mine), *g.values.shape[1:]),
                height,
            )
        )
    return out


def _adam_inputs(dtype="float64"):
    return {
        "Param": r(7, 3, dtype=dtype),
        "Grad": grad(dtype=dtype),
        "LearningRate": lr(0.01, dtype),
        "Moment1": r(7, 3, dtype=dtype),
        "Moment2": pos(7, 3, dtype=dtype),
        "Beta1Pow": lr(0.9**3, dtype),
        "Beta2Pow": lr(0.999**3, dtype),
    }


CASES = [
    OpCase(
        "clip_by_norm", {"X": grad()}, _sparse_clip_by_norm, attrs={"max_norm": 1.0}, name="clip_by_norm_sparse"
    ),  # test_clip_by_norm_op.py's TestClipByNormOpWithSelectedRows
    OpCase(
        "lookup_table_grad",
        {"W": r(7, 3), "Ids": np.array([[4], [1], [6], [1], [2]], dtype=np.int64), "Out@GRAD": r(5, 3)},
        _lookup_grad,
        attrs={"is_sparse": True, "padding_idx": 2},
        name="lookup_table_grad_sparse",
    ),
    OpCase(
        "lookup_table",
        {"W": r(6, 3), "Ids": np.array([[2], [4], [2], [0], [4]], dtype=np.int64)},
        lambda i, a: {"Out": np.where(i["Ids"] == 2, 0, i["W"][i["Ids"][:, 0]])},
        attrs={"padding_idx": 2, "is_sparse": True},
        grad=("W",),
        name="lookup_table_sparse",
    ),
    OpCase("sgd", {"Param": r(7, 3), "Grad": grad(), "LearningRate": lr(0.1)}, _sparse_sgd, name="sgd_sparse"),
    OpCase(
        "sgd",
        {"Param": r(7, 4, dtype="float32"), "Grad": grad(4, "float32"), "LearningRate": lr(0.5, "float32")},
        _sparse_sgd,
        name="sgd_sparse_float32",
        rtol=1e-6,
    ),
    OpCase(
        "momentum",
        {"Param": r(7, 3), "Grad": grad(), "Velocity": r(7, 3), "LearningRate": lr(0.1)},
        _sparse_momentum,
        attrs={"mu": 0.9},
        name="momentum_sparse",
    ),
    OpCase("adam", _adam_inputs(), _sparse_adam, attrs={"lazy_mode": True}, name="adam_sparse_lazy"),
    OpCase("adam", _adam_inputs(), _sparse_adam, attrs={"lazy_mode": False}, name="adam_sparse"),
    OpCase(
        "adagrad",
        {"Param": r(7, 3), "Grad": grad(), "Moment": pos(7, 3), "LearningRate": lr(0.1)},
        _sparse_adagrad,
        attrs={"epsilon": 1e-6},
        name="adagrad_sparse",
    ),
    OpCase(
        "sum",
        {"X": [grad(), grad(rows=np.array([0, 4], dtype=np.int64))]},
        lambda i, a: {
            "Out": SelectedRows(
                *SelectedRows(
                    np.concatenate([x.rows for x in i["X"]]), np.concatenate([x.values for x in i["X"]]), 7
                ).merged(),
                7,
            )
        },
        name="sum_sparse",
    ),
    OpCase(
        "sum",
        {"X": [grad(), r(7, 3)]},
        lambda i, a: {"Out": _dense(i["X"][0]) + i["X"][1]},
        name="sum_sparse_and_dense",
    ),
    OpCase(
        "merge_selected_rows",
        {"X": grad()},
        lambda i, a: {
            "Out": SelectedRows(
                np.array(list(_merged(i["X"])), dtype=np.int64), np.stack(list(_merged(i["X"]).values())), 7
            )
        },
        name="merge_selected_rows_sparse",
    ),
    OpCase(
        "merge_selected_rows",
        {"X": grad(rows=np.array([5, 0, 2], dtype=np.int64))},
        lambda i, a: {"Out": SelectedRows(np.array([0, 2, 5]), i["X"].values[[1, 2, 0]], 7)},
        name="merge_selected_rows_sparse_no_duplicates",
    ),
    OpCase(
        "split_selected_rows",
        {"X": grad()},
        lambda i, a: {"Out": _split(i["X"], a["height_sections"])},
        attrs={"height_sections": [2, 3, 2]},
        num_outputs={"Out": 3},
        name="split_selected_rows_sparse",
    ),
    OpCase(
        "split_selected_rows",
        {"X": grad(rows=np.array([6, 5], dtype=np.int64))},
        lambda i, a: {"Out": _split(i["X"], a["height_sections"])},
        attrs={"height_sections": [4, 3]},
        num_outputs={"Out": 2},
        name="split_selected_rows_sparse_an_empty_block",
    ),
    OpCase(
        "scale",
        {"X": grad()},
        lambda i, a: {"Out": SelectedRows(i["X"].rows, i["X"].values * 0.5 + 2.0, 7)},
        attrs={"scale": 0.5, "bias": 2.0},
        name="scale_sparse",
    ),
    OpCase(
        "get_tensor_from_selected_rows",
        {"X": grad()},
        lambda i, a: {"Out": i["X"].values},
        name="get_tensor_from_selected_rows_sparse",
    ),
]
