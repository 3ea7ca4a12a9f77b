"""Op cases for ops/loss_extra.py: norm, label_smooth, smooth_l1_loss, kldiv_loss, margin_rank_loss,
rank_loss, bpr_loss. References follow Fluid 1.8's unit tests (test_<op>_op.py)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(37)


def r(*shape):
    return rng.normal(size=shape)


def _norm_ref(axis, eps):
    def ref(i, a):
        n = np.sqrt(np.sum(i["X"] ** 2, axis=axis, keepdims=True) + eps)
        return {"Out": i["X"] / n, "Norm": n}
    return ref


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
    close = np.abs(np.abs(d) - 1 / sigma ** 2) < 0.05
    return np.where(close, y + 0.2, y)


def _kldiv_ref(reduction):
    def ref(i, a):
        x, t = i["X"], i["Target"]
        loss = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)
        if reduction == "none":
            return {"Loss": loss}
        total = loss.sum()
        total = {"sum": total, "mean": total / x.size, "batchmean": total / x.shape[0]}[reduction]
        return {"Loss": np.array([total])}
    return ref


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


_sl1_x, _sl1_y = r(4, 5), r(4, 5)
_sl1_y = _away_from_kink(_sl1_x, _sl1_y, 1.0)
_sl1_x3, _sl1_y3 = r(3, 2, 4), r(3, 2, 4)
_sl1_w = {"InsideWeight": rng.uniform(0.2, 1.0, (3, 2, 4)), "OutsideWeight": rng.uniform(0.2, 1.0, (3, 2, 4))}
_sl1_y3 = _away_from_kink(_sl1_x3 * _sl1_w["InsideWeight"], _sl1_y3 * _sl1_w["InsideWeight"], 3.0) \
    / _sl1_w["InsideWeight"]
_target = rng.uniform(0.05, 1.0, (3, 4))
_target[0, 1] = 0.0
_target[2, 3] = -0.5
_label_pm = np.array([[1.0], [-1.0], [1.0], [-1.0], [1.0]])
_x1 = r(5, 1)
_x2 = _x1 + np.array([[0.5], [0.6], [-0.7], [-0.4], [-0.3]]) * 2

CASES = [
    OpCase("norm", {"X": r(3, 4)}, _norm_ref(1, 1e-10), attrs={"axis": 1}, grad=("X",), loss_outputs=("Out",)),
    OpCase("norm", {"X": r(2, 3, 4)}, _norm_ref(1, 1e-6), attrs={"axis": -2, "epsilon": 1e-6}, grad=("X",),
           loss_outputs=("Out",), name="norm_middle_axis"),
    OpCase("norm", {"X": r(4, 2)}, _norm_ref(0, 1e-10), attrs={"axis": 0}, grad=("X",), loss_outputs=("Out",),
           name="norm_axis0"),
    OpCase("label_smooth", {"X": np.eye(4)[[0, 2, 3]]}, lambda i, a: {"Out": 0.9 * i["X"] + 0.1 / 4},
           attrs={"epsilon": 0.1}, grad=("X",)),
    OpCase("label_smooth", {"X": r(2, 3, 5), "PriorDist": rng.uniform(0, 0.4, (1, 5))},
           lambda i, a: {"Out": 0.75 * i["X"] + 0.25 * i["PriorDist"]}, attrs={"epsilon": 0.25}, grad=("X",),
           name="label_smooth_prior"),
    OpCase("smooth_l1_loss", {"X": _sl1_x, "Y": _sl1_y}, _smooth_l1_ref(1.0), grad=("X", "Y"),
           loss_outputs=("Out",)),
    OpCase("smooth_l1_loss", {"X": _sl1_x3, "Y": _sl1_y3, **_sl1_w}, _smooth_l1_ref(3.0, weighted=True),
           attrs={"sigma": 3.0}, grad=("X", "Y"), loss_outputs=("Out",), name="smooth_l1_loss_weighted"),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": _target}, _kldiv_ref("mean"), grad=("X",)),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": _target}, _kldiv_ref("none"), attrs={"reduction": "none"},
           grad=("X",), name="kldiv_loss_none"),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": _target}, _kldiv_ref("batchmean"),
           attrs={"reduction": "batchmean"}, grad=("X",), name="kldiv_loss_batchmean"),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": _target}, _kldiv_ref("sum"), attrs={"reduction": "sum"},
           grad=("X",), name="kldiv_loss_sum"),
    OpCase("margin_rank_loss", {"X1": _x1, "X2": _x2, "Label": _label_pm},
           lambda i, a: {"Out": np.maximum(0, -i["Label"] * (i["X1"] - i["X2"]) + 0.1),
                         "Activated": (-i["Label"] * (i["X1"] - i["X2"]) + 0.1 > 0).astype(np.float64)},
           attrs={"margin": 0.1}, grad=("X1", "X2"), loss_outputs=("Out",)),
    OpCase("rank_loss", {"Label": rng.integers(0, 2, (5, 1)).astype(np.float64), "Left": r(5, 1), "Right": r(5, 1)},
           lambda i, a: {"Out": np.log(1 + np.exp(i["Left"] - i["Right"])) - i["Label"] * (i["Left"] - i["Right"])},
           grad=("Left", "Right")),
    OpCase("bpr_loss", {"X": r(4, 5), "Label": np.array([[0], [4], [2], [2]], dtype=np.int64)}, _bpr_ref,
           grad=("X",)),
]


def _ts_ref(i, a):
    x, label = i["X"], i["Label"]
    y = np.zeros_like(x)
    for k in range(len(x)):
        xv, lv = x[k, 0], label[k, 0]
        sp = max(xv, 0.0) + np.log(1.0 + np.exp(-abs(xv)))
        if lv < -1.0:
            y[k] = sp
        elif lv < 0.0:
            y[k] = sp - xv
        elif lv < 1.0:
            y[k] = sp + max(xv, 0.0) - xv * lv + np.log(1.0 + np.exp(-abs(xv)))
        else:
            y[k] = sp - xv + max(xv, 0.0) - xv * (lv - 1.0) + np.log(1.0 + np.exp(-abs(xv)))
    return {"Y": y}


CASES += [
    OpCase("teacher_student_sigmoid_loss",
           {"X": r(6, 1) * 3, "Label": np.array([[-2.0], [-1.0], [0.3], [1.7], [0.0], [1.0]])}, _ts_ref, grad=("X",)),
    OpCase("teacher_student_sigmoid_loss", {"X": np.array([[2.0], [-3.0], [0.5]]), "Label": np.array([[0.4], [1.2], [-2.0]])},
           _ts_ref, attrs={"soft_max_up_bound": 1.0, "soft_max_lower_bound": -1.0},
           name="teacher_student_sigmoid_loss_bounds"),
]


def _center_ref(i, a):
    x, c, ids = i["X"], i["Centers"], i["Label"].reshape(-1)
    diff = x - c[ids]
    out = c.copy()
    if a["need_update"]:
        alpha = i["CenterUpdateRate"][0]
        for j in range(len(c)):
            rows = ids == j
            out[j] = c[j] + alpha * diff[rows].sum(axis=0) / (1 + rows.sum())
    return {"SampleCenterDiff": diff, "Loss": 0.5 * (diff ** 2).sum(axis=1, keepdims=True), "CentersOut": out}


_CENTER_IN = {"X": r(5, 3), "Label": np.array([[0], [2], [0], [3], [2]], dtype=np.int64), "Centers": r(4, 3),
              "CenterUpdateRate": np.array([0.5])}
CASES += [
    OpCase("center_loss", dict(_CENTER_IN), _center_ref, attrs={"cluster_num": 4, "need_update": True},
           loss_outputs=("Loss",), grad=("X",)),
    OpCase("center_loss", dict(_CENTER_IN), _center_ref, attrs={"cluster_num": 4}, loss_outputs=("Loss",),
           name="center_loss_no_update"),
]
