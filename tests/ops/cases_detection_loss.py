"""Op cases for sigmoid_focal_loss (forward and float64 gradient), against a loop-by-loop numpy
reference written from Fluid 1.8's kernel and unit test (test_sigmoid_focal_loss_op.py)."""

import math

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(47)


def _sig(v):
    return 1 / (1 + math.exp(-v))


def focal_ref(i, a):
    x, label, fg = i["X"], i["Label"].reshape(-1), max(int(i["FgNum"][0]), 1)
    out = np.zeros(x.shape)
    for r in range(x.shape[0]):
        for d in range(x.shape[1]):
            p = _sig(x[r, d])
            if label[r] == d + 1:
                out[r, d] = -a["alpha"] / fg * (1 - p) ** a["gamma"] * math.log(p)
            elif label[r] != -1:
                out[r, d] = -(1 - a["alpha"]) / fg * p ** a["gamma"] * math.log(1 - p)
    return {"Out": out.astype(x.dtype)}


_LABEL = np.array([[1], [0], [3], [-1], [2]], np.int32)

CASES = [
    OpCase(
        "sigmoid_focal_loss",
        {"X": rng.normal(size=(5, 3)), "Label": _LABEL, "FgNum": np.array([3], np.int32)},
        focal_ref,
        grad=("X",),
    ),
    OpCase(
        "sigmoid_focal_loss",
        {"X": rng.normal(size=(5, 3)), "Label": _LABEL, "FgNum": np.array([0], np.int32)},
        focal_ref,
        attrs={"gamma": 1.5, "alpha": 0.6},
        grad=("X",),
        name="sigmoid_focal_loss_no_foreground",
    ),
]
