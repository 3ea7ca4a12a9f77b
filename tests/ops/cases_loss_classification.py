"""Op cases for the losses: softmax_with_cross_entropy, cross_entropy,
sigmoid_cross_entropy_with_logits and huber_loss (square_error_cost is a layer of elementwise ops)."""
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


def ce_ref(i, a):
    x, label = i["X"], i["Label"]
    if a["soft_label"]:
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


def huber_ref(i, a):
    res = i["Y"] - i["X"]
    d = a["delta"]
    out = np.where(np.abs(res) <= d, 0.5 * res ** 2, d * (np.abs(res) - 0.5 * d))
    return {"Out": out, "Residual": res}


LABEL_IGNORE = np.array([[1], [-1], [3], [0], [-1]], dtype=np.int64)
SCE_LABEL_IGNORE = np.where(rng.random((4, 3)) < 0.3, -1.0, rng.random((4, 3)))
# residuals kept away from +-delta so finite differences never straddle the kink
HUBER_X = r(4, 3)
HUBER_Y = HUBER_X + np.array([[0.3, -2.0, 0.5], [1.7, -0.2, 0.05], [-0.6, 3.0, -1.4], [0.8, -0.9, 2.2]])

CASES = [
    OpCase("softmax_with_cross_entropy", {"Logits": r(5, 4), "Label": ids(5, 4)}, swce_ref, grad=("Logits",),
           loss_outputs=("Loss",), name="softmax_with_cross_entropy_hard"),
    OpCase("softmax_with_cross_entropy", {"Logits": r(4, 3), "Label": soft(4, 3)}, swce_ref, grad=("Logits",),
           attrs={"soft_label": True}, loss_outputs=("Loss",), name="softmax_with_cross_entropy_soft"),
    OpCase("softmax_with_cross_entropy", {"Logits": r(5, 4), "Label": LABEL_IGNORE}, swce_ref, grad=("Logits",),
           attrs={"ignore_index": -1}, loss_outputs=("Loss",), name="softmax_with_cross_entropy_ignore_index"),
    OpCase("softmax_with_cross_entropy", {"Logits": r(2, 3, 4), "Label": ids(0, 4, (2, 3, 1))}, swce_ref,
           grad=("Logits",), loss_outputs=("Loss",), name="softmax_with_cross_entropy_3d"),

    OpCase("cross_entropy", {"X": soft(5, 4), "Label": ids(5, 4)}, ce_ref, grad=("X",), name="cross_entropy_hard"),
    OpCase("cross_entropy", {"X": soft(4, 3), "Label": soft(4, 3)}, ce_ref, grad=("X",),
           attrs={"soft_label": True}, name="cross_entropy_soft"),
    OpCase("cross_entropy", {"X": soft(5, 4), "Label": LABEL_IGNORE}, ce_ref, grad=("X",),
           attrs={"ignore_index": -1}, name="cross_entropy_ignore_index"),
    OpCase("cross_entropy2", {"X": soft(5, 4), "Label": ids(5, 4)}, ce_ref, grad=("X",), outputs=("Y",)),
    OpCase("cross_entropy2", {"X": soft(5, 4), "Label": LABEL_IGNORE}, ce_ref, grad=("X",), outputs=("Y",),
           attrs={"ignore_index": -1}, name="cross_entropy2_ignore_index"),

    OpCase("sigmoid_cross_entropy_with_logits", {"X": r(4, 3), "Label": rng.random((4, 3))}, sce_ref, grad=("X",),
           name="sigmoid_cross_entropy_with_logits"),
    OpCase("sigmoid_cross_entropy_with_logits", {"X": r(4, 3) * 5, "Label": SCE_LABEL_IGNORE}, sce_ref, grad=("X",),
           attrs={"ignore_index": -1, "normalize": True}, name="sigmoid_cross_entropy_with_logits_ignore_normalize"),

    OpCase("huber_loss", {"X": HUBER_X, "Y": HUBER_Y}, huber_ref, grad=("X", "Y"), loss_outputs=("Out",),
           name="huber_loss"),
    OpCase("huber_loss", {"X": HUBER_X, "Y": HUBER_Y}, huber_ref, attrs={"delta": 0.5}, grad=("X", "Y"),
           loss_outputs=("Out",), name="huber_loss_delta"),
]
