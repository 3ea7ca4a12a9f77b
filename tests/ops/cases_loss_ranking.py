"""Op cases for ops/loss_ranking.py: margin_rank_loss, rank_loss, bpr_loss. References follow Fluid 1.8's
unit tests (test_<op>_op.py)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(37)


def r(*shape):
    return rng.normal(size=shape)


def _bpr_ref(i, a):
    x, label = i["X"], i["Label"].reshape(-1)
    y = np.zeros((x.shape[0], 1))
    for n in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            if j != label[n]:
                s += -np.log(1.0 + np.exp(x[n, j] - x[n, label[n]]))
        y[n] = -s / (x.shape[1] - 1)
    return {"Y": y}


_label_pm = np.array([[1.0], [-1.0], [1.0], [-1.0], [1.0]])
_x1 = r(5, 1)
_x2 = _x1 + np.array([[0.5], [0.6], [-0.7], [-0.4], [-0.3]]) * 2


def _rank_flat(i):
    o = i["Left"].reshape(-1) - i["Right"].reshape(-1)
    return np.log(1 + np.exp(o)) - i["Label"].reshape(-1) * o


CASES = [
    OpCase(
        "margin_rank_loss",
        {"X1": _x1, "X2": _x2, "Label": _label_pm},
        lambda i, a: {
            "Out": np.maximum(0, -i["Label"] * (i["X1"] - i["X2"]) + 0.1),
            "Activated": (-i["Label"] * (i["X1"] - i["X2"]) + 0.1 > 0).astype(np.float64),
        },
        attrs={"margin": 0.1},
        grad=("X1", "X2"),
        loss_outputs=("Out",),
    ),
    OpCase(
        "rank_loss",
        {"Label": rng.integers(0, 2, (5, 1)).astype(np.float64), "Left": r(5, 1), "Right": r(5, 1)},
        lambda i, a: {"Out": np.log(1 + np.exp(i["Left"] - i["Right"])) - i["Label"] * (i["Left"] - i["Right"])},
        grad=("Left", "Right"),
    ),
    # Fluid takes each of the three as [N] or [N, 1] (test_rank_loss_op's TestRankLossOp1-5): Out is Label's shape
    OpCase(
        "rank_loss",
        {"Label": rng.integers(0, 2, 5).astype(np.float64), "Left": r(5, 1), "Right": r(5)},
        lambda i, a: {"Out": _rank_flat(i).reshape(5)},
        grad=("Left", "Right"),
        name="rank_loss_mixed_ranks",
    ),
    OpCase("bpr_loss", {"X": r(4, 5), "Label": np.array([[0], [4], [2], [2]], dtype=np.int64)}, _bpr_ref, grad=("X",)),
]
