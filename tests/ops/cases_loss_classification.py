"""Op cases for ops/loss_classification.py: softmax_with_cross_entropy, cross_entropy,
sigmoid_cross_entropy_with_logits, label_smooth, kldiv_loss, teacher_student_sigmoid_loss."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(2)


def r(*shape):
    return rng.normal(size=shape)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def ids(n, classes, shape=None):
    return rng.integers(0, classes, size=shape or (n, 1)).astype(np.int64)


def soft(n, classes):
    return softmax(r(n, classes) * 2)


def swce_ref(i, a):
    logits, label = i["Logits"], i["Label"]
    p = softmax(logits)
    if a["soft_label"]:
        loss = -(label * np.log(p)).sum(axis=-1, keepdims=True)
    else:
        loss = np.zeros(label.shape)
        for row in np.ndindex(label.shape[:-1]):
            k = label[row][0]
            loss[row] = 0.0 if k == a["ignore_index"] else -np.log(p[row][k])
    return {"Softmax": p, "Loss": loss}


def swce_axis_ref(i, a):
    moved = {k: np.moveaxis(v, a["axis"], -1) for k, v in i.items()}
    return {k: np.moveaxis(v, -1, a["axis"]) for k, v in swce_ref(moved, a).items()}


def ce_ref(i, a):
    x, label = i["X"], i["Label"]
    if a.get("soft_label"):  # (cross_entropy2 has hard labels only)
        return {"Y": -(label * np.log(x)).sum(axis=-1, keepdims=True)}
    y = np.zeros(label.shape)
    for row in range(label.shape[0]):
        k = label[row, 0]
        y[row, 0] = 0.0 if k == a["ignore_index"] else -np.log(x[row, k])
    return {"Y": y}


def sce_ref(i, a):
    x, label = i["X"], i["Label"]
    sig = 1 / (1 + np.exp(-x))
    out = -(label * np.log(sig) + (1 - label) * np.log(1 - sig))
    keep = label != a["ignore_index"]
    out = np.where(keep, out, 0)
    if a["normalize"]:
        out = out / keep.sum()
    return {"Out": out}


LABEL_IGNORE = np.array([[1], [-1], [3], [0], [-1]], dtype=np.int64)
SCE_LABEL_IGNORE = np.where(rng.random((4, 3)) < 0.3, -1.0, rng.random((4, 3)))
# residuals kept away from +-delta so finite differences never straddle the kink
CASES = [
    OpCase(
        "softmax_with_cross_entropy",
        {"Logits": r(5, 4), "Label": ids(5, 4)},
        swce_ref,
        grad=("Logits",),
        loss_outputs=("Loss",),
        name="softmax_with_cross_entropy_hard",
    ),
    OpCase(
        "softmax_with_cross_entropy",
        {"Logits": r(4, 3), "Label": soft(4, 3)},
        swce_ref,
        grad=("Logits",),
        attrs={"soft_label": True},
        loss_outputs=("Loss",),
        name="softmax_with_cross_entropy_soft",
    ),
    OpCase(
        "softmax_with_cross_entropy",
        {"Logits": r(5, 4), "Label": LABEL_IGNORE},
        swce_ref,
        grad=("Logits",),
        attrs={"ignore_index": -1},
        loss_outputs=("Loss",),
        name="softmax_with_cross_entropy_ignore_index",
    ),
    OpCase(
        "softmax_with_cross_entropy",
        {"Logits": r(2, 3, 4), "Label": ids(0, 4, (2, 3, 1))},
        swce_ref,
        grad=("Logits",),
        loss_outputs=("Loss",),
        name="softmax_with_cross_entropy_3d",
    ),
    # the class dim given by axis (test_softmax_with_cross_entropy_op's Axis1-3 cases): the reference
    # moves it last and back
    OpCase(
        "softmax_with_cross_entropy",
        {"Logits": r(2, 4, 3), "Label": ids(0, 4, (2, 1, 3))},
        swce_axis_ref,
        attrs={"axis": 1},
        grad=("Logits",),
        loss_outputs=("Loss",),
        name="softmax_with_cross_entropy_axis1",
    ),
    OpCase(
        "softmax_with_cross_entropy",
        {"Logits": r(3, 2, 4), "Label": softmax(r(3, 2, 4).swapaxes(0, 2)).swapaxes(0, 2)},
        swce_axis_ref,
        attrs={"axis": 0, "soft_label": True},
        grad=("Logits",),
        loss_outputs=("Loss",),
        name="softmax_with_cross_entropy_axis0_soft",
    ),
    OpCase("cross_entropy", {"X": soft(5, 4), "Label": ids(5, 4)}, ce_ref, grad=("X",), name="cross_entropy_hard"),
    OpCase(
        "cross_entropy",
        {"X": soft(4, 3), "Label": soft(4, 3)},
        ce_ref,
        grad=("X",),
        attrs={"soft_label": True},
        name="cross_entropy_soft",
    ),
    OpCase(
        "cross_entropy",
        {"X": soft(5, 4), "Label": LABEL_IGNORE},
        ce_ref,
        grad=("X",),
        attrs={"ignore_index": -1},
        name="cross_entropy_ignore_index",
    ),
    OpCase("cross_entropy2", {"X": soft(5, 4), "Label": ids(5, 4)}, ce_ref, grad=("X",), outputs=("Y",)),
    # ids without the trailing 1 (test_cross_entropy_op's RemoveLastDim cases): Y has Label's shape
    OpCase(
        "cross_entropy",
        {"X": soft(6, 4).reshape(2, 3, 4), "Label": ids(0, 4, (2, 3))},
        lambda i, a: {
            "Y": ce_ref({"X": i["X"].reshape(6, 4), "Label": i["Label"].reshape(6, 1)}, a)["Y"].reshape(2, 3)
        },
        grad=("X",),
        name="cross_entropy_label_without_last_dim",
    ),
    OpCase(
        "cross_entropy2",
        {"X": soft(5, 4), "Label": ids(0, 4, (5,))},
        lambda i, a: {"Y": ce_ref({"X": i["X"], "Label": i["Label"].reshape(5, 1)}, a)["Y"].reshape(5)},
        grad=("X",),
        outputs=("Y",),
        name="cross_entropy2_label_without_last_dim",
    ),
    OpCase(
        "cross_entropy2",
        {"X": soft(5, 4), "Label": LABEL_IGNORE},
        ce_ref,
        grad=("X",),
        outputs=("Y",),
        attrs={"ignore_index": -1},
        name="cross_entropy2_ignore_index",
    ),
    # Fluid's MatchX output: X at each row's label, 0 where ignored (test_cross_entropy2_op.py checks it), and
    # XShape (X's shape and a 0, no data); the gradient then reads them, as Fluid's cross_entropy_grad2 does
    OpCase(
        "cross_entropy2",
        {"X": soft(5, 4), "Label": LABEL_IGNORE},
        lambda i, a: {
            **ce_ref(i, a),
            "MatchX": np.where(i["Label"] == -1, 0, np.take_along_axis(i["X"], np.maximum(i["Label"], 0), axis=-1)),
            "XShape": np.empty(i["X"].shape + (0,)),
        },
        grad=("X",),
        outputs=("Y", "MatchX", "XShape"),
        loss_outputs=("Y",),
        attrs={"ignore_index": -1},
        name="cross_entropy2_match_x",
    ),
    OpCase(
        "sigmoid_cross_entropy_with_logits",
        {"X": r(4, 3), "Label": rng.random((4, 3))},
        sce_ref,
        grad=("X",),
        name="sigmoid_cross_entropy_with_logits",
    ),
    OpCase(
        "sigmoid_cross_entropy_with_logits",
        {"X": r(4, 3) * 5, "Label": SCE_LABEL_IGNORE},
        sce_ref,
        grad=("X",),
        attrs={"ignore_index": -1, "normalize": True},
        name="sigmoid_cross_entropy_with_logits_ignore_normalize",
    ),
]


# -- label_smooth, kldiv_loss, teacher_student_sigmoid_loss (references after Fluid 1.8's unit tests) --


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


_target = rng.uniform(0.05, 1.0, (3, 4))
_target[0, 1] = 0.0
_target[2, 3] = -0.5


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
    OpCase(
        "label_smooth",
        {"X": np.eye(4)[[0, 2, 3]]},
        lambda i, a: {"Out": 0.9 * i["X"] + 0.1 / 4},
        attrs={"epsilon": 0.1},
        grad=("X",),
    ),
    OpCase(
        "label_smooth",
        {"X": r(2, 3, 5), "PriorDist": rng.uniform(0, 0.4, (1, 5))},
        lambda i, a: {"Out": 0.75 * i["X"] + 0.25 * i["PriorDist"]},
        attrs={"epsilon": 0.25},
        grad=("X",),
        name="label_smooth_prior",
    ),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": _target}, _kldiv_ref("mean"), grad=("X",)),
    OpCase(
        "kldiv_loss",
        {"X": r(3, 4), "Target": _target},
        _kldiv_ref("none"),
        attrs={"reduction": "none"},
        grad=("X",),
        name="kldiv_loss_none",
    ),
    OpCase(
        "kldiv_loss",
        {"X": r(3, 4), "Target": _target},
        _kldiv_ref("batchmean"),
        attrs={"reduction": "batchmean"},
        grad=("X",),
        name="kldiv_loss_batchmean",
    ),
    OpCase(
        "kldiv_loss",
        {"X": r(3, 4), "Target": _target},
        _kldiv_ref("sum"),
        attrs={"reduction": "sum"},
        grad=("X",),
        name="kldiv_loss_sum",
    ),
    OpCase(
        "teacher_student_sigmoid_loss",
        {"X": r(6, 1) * 3, "Label": np.array([[-2.0], [-1.0], [0.3], [1.7], [0.0], [1.0]])},
        _ts_ref,
        grad=("X",),
    ),
    OpCase(
        "teacher_student_sigmoid_loss",
        {"X": np.array([[2.0], [-3.0], [0.5]]), "Label": np.array([[0.4], [1.2], [-2.0]])},
        _ts_ref,
        attrs={"soft_max_up_bound": 1.0, "soft_max_lower_bound": -1.0},
        name="teacher_student_sigmoid_loss_bounds",
    ),
]


def _log_loss_ref(i, a):
    p, label, eps = i["Predicted"], i["Labels"], a["epsilon"]
    return {"Loss": -label * np.log(p + eps) - (1 - label) * np.log(1 - p + eps)}


CASES += [
    OpCase(
        "log_loss",
        {"Predicted": rng.uniform(0.05, 0.95, (5, 1)), "Labels": rng.integers(0, 2, (5, 1)) * 1.0},
        _log_loss_ref,
        grad=("Predicted",),
    ),
    OpCase(
        "log_loss",
        {"Predicted": rng.uniform(0.1, 0.9, (3, 1)), "Labels": rng.uniform(0, 1, (3, 1))},
        _log_loss_ref,
        attrs={"epsilon": 0.01},
        grad=("Predicted",),
        name="log_loss_soft_eps",
    ),
]


def _bce_ref(i, a):
    x, label = i["X"], i["Label"]
    return {"Out": -(label * np.maximum(np.log(x), -100) + (1 - label) * np.maximum(np.log(1 - x), -100))}


def _nll_ref(i, a):
    x, label = np.moveaxis(i["X"], 1, -1), i["Label"]
    weight = i.get("Weight", np.ones(x.shape[-1]))
    kept = label != a["ignore_index"]
    ids = np.where(kept, label, 0)
    w = weight[ids] * kept
    losses = -np.take_along_axis(x, ids[..., None], -1)[..., 0] * w
    if a["reduction"] == "none":
        return {"Out": losses, "Total_weight": np.zeros(1)}
    out = losses.sum() / (w.sum() if a["reduction"] == "mean" else 1.0)
    return {"Out": np.array([out]), "Total_weight": np.array([w.sum()])}


def _margin_scores():
    return {"X": rng.normal(size=(6, 1)) * 2, "Y": np.array([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0]])}


def _mhl_ref(i, a):
    v = i["X"] * (2 * i["Y"] - 1)
    return {"IntermediateVal": v, "Out": np.where(v < -1, -4 * v, np.where(v < 1, (1 - v) ** 2, 0))}


_SCORES = _margin_scores()
CASES += [
    OpCase(
        "bce_loss",
        {"X": rng.uniform(0.05, 0.95, (3, 4)), "Label": rng.integers(0, 2, (3, 4)) * 1.0},
        _bce_ref,
        grad=("X",),
    ),
    OpCase("nll_loss", {"X": r(4, 3), "Label": np.array([0, 2, 1, 2])}, _nll_ref, grad=("X",), loss_outputs=("Out",)),
    OpCase(
        "nll_loss",
        {"X": r(5, 3), "Label": np.array([0, 2, -100, 1, 2]), "Weight": rng.uniform(0.5, 2, 3)},
        _nll_ref,
        attrs={"reduction": "sum"},
        grad=("X",),
        loss_outputs=("Out",),
        name="nll_loss_weight_ignored_sum",
    ),
    OpCase(
        "nll_loss",
        {"X": r(2, 3, 2, 2), "Label": rng.integers(0, 3, (2, 2, 2))},
        _nll_ref,
        attrs={"reduction": "none", "ignore_index": 1},
        grad=("X",),
        loss_outputs=("Out",),
        name="nll_loss_4d_none",
    ),
    OpCase(
        "nll_loss",
        {"X": r(2, 3, 1, 2), "Label": rng.integers(0, 3, (2, 1, 2)), "Weight": rng.uniform(0.5, 2, 3)},
        _nll_ref,
        grad=("X",),
        loss_outputs=("Out",),
        name="nll_loss_4d_mean_weight",
    ),
    OpCase(
        "hinge_loss",
        {"Logits": _SCORES["X"], "Labels": _SCORES["Y"]},
        lambda i, a: {"Loss": np.maximum(0, 1 - i["Logits"] * (2 * i["Labels"] - 1))},
        grad=("Logits",),
    ),
    OpCase("modified_huber_loss", dict(_SCORES), _mhl_ref, grad=("X",), loss_outputs=("Out",)),
]
