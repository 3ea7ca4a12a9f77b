"""Op cases for ops/loss_regression.py: huber_loss, smooth_l1_loss, center_loss. References follow
Fluid 1.8's unit tests (test_<op>_op.py)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(37)


def r(*shape):
    return rng.normal(size=shape)


def huber_ref(i, a):
    res = i["Y"] - i["X"]
    d = a["delta"]
    out = np.where(np.abs(res) <= d, 0.5 * res**2, d * (np.abs(res) - 0.5 * d))
    return {"Out": out, "Residual": res}


def _smooth_l1_ref(sigma, weighted=False):
    def ref(i, a):
        s2 = sigma * sigma
        diff = i["X"] - i["Y"]
        if weighted:
            diff = diff * i["InsideWeight"]
        err = np.where(np.abs(diff) < 1 / s2, 0.5 * diff * diff * s2, np.abs(diff) - 0.5 / s2)
        if weighted:
            err = err * i["OutsideWeight"]
        return {"Diff": diff, "Out": err.reshape(err.shape[0], -1).sum(1, keepdims=True)}

    return ref


def _away_from_kink(x, y, sigma):
    """Y moved so no |X - Y| sits within 0.05 of 1 / sigma^2 (where the loss has no second derivative)."""
    d = x - y
    close = np.abs(np.abs(d) - 1 / sigma**2) < 0.05
    return np.where(close, y + 0.2, y)


def _center_ref(i, a):
    x, c, ids = i["X"], i["Centers"], i["Label"].reshape(-1)
    diff = x - c[ids]
    out = c.copy()
    if a["need_update"]:
        alpha = i["CenterUpdateRate"][0]
        for j in range(len(c)):
            rows = ids == j
            out[j] = c[j] + alpha * diff[rows].sum(axis=0) / (1 + rows.sum())
    return {"SampleCenterDiff": diff, "Loss": 0.5 * (diff**2).sum(axis=1, keepdims=True), "CentersOut": out}


HUBER_X = r(4, 3)
HUBER_Y = HUBER_X + np.array([[0.3, -2.0, 0.5], [1.7, -0.2, 0.05], [-0.6, 3.0, -1.4], [0.8, -0.9, 2.2]])
_sl1_x, _sl1_y = r(4, 5), r(4, 5)
_sl1_y = _away_from_kink(_sl1_x, _sl1_y, 1.0)
_sl1_x3, _sl1_y3 = r(3, 2, 4), r(3, 2, 4)
_sl1_w = {"InsideWeight": rng.uniform(0.2, 1.0, (3, 2, 4)), "OutsideWeight": rng.uniform(0.2, 1.0, (3, 2, 4))}
_sl1_y3 = (
    _away_from_kink(_sl1_x3 * _sl1_w["InsideWeight"], _sl1_y3 * _sl1_w["InsideWeight"], 3.0) / _sl1_w["InsideWeight"]
)
_CENTER_IN = {
    "X": r(5, 3),
    "Label": np.array([[0], [2], [0], [3], [2]], dtype=np.int64),
    "Centers": r(4, 3),
    "CenterUpdateRate": np.array([0.5]),
}
CASES = [
    OpCase(
        "huber_loss", {"X": HUBER_X, "Y": HUBER_Y}, huber_ref, grad=("X", "Y"), loss_outputs=("Out",), name="huber_loss"
    ),
    OpCase(
        "huber_loss",
        {"X": HUBER_X, "Y": HUBER_Y},
        huber_ref,
        attrs={"delta": 0.5},
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name="huber_loss_delta",
    ),
    OpCase("smooth_l1_loss", {"X": _sl1_x, "Y": _sl1_y}, _smooth_l1_ref(1.0), grad=("X", "Y"), loss_outputs=("Out",)),
    OpCase(
        "smooth_l1_loss",
        {"X": _sl1_x3, "Y": _sl1_y3, **_sl1_w},
        _smooth_l1_ref(3.0, weighted=True),
        attrs={"sigma": 3.0},
        grad=("X", "Y"),
        loss_outputs=("Out",),
        name="smooth_l1_loss_weighted",
    ),
    OpCase(
        "center_loss",
        dict(_CENTER_IN),
        _center_ref,
        attrs={"cluster_num": 4, "need_update": True},
        loss_outputs=("Loss",),
        grad=("X",),
    ),
    OpCase(
        "center_loss",
        dict(_CENTER_IN),
        _center_ref,
        attrs={"cluster_num": 4},
        loss_outputs=("Loss",),
        name="center_loss_no_update",
    ),
]
