"""CPU kernels of the regression losses (ops/loss_regression.py): huber_loss, smooth_l1_loss and
center_loss, numpy. ``center_ids`` checks the labels for the CUDA kernels too."""

import numpy as np

from .loss_classification import cast
from ..value_checks import center_ids


# -- huber_loss ------------------------------------------------------------------------------------


def huber_loss(ins, attrs):
    x, y = ins["X"], ins["Y"]
    delta = x.dtype.type(attrs["delta"])
    r = y - x
    a = np.abs(r)
    out = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    return {"Out": out.astype(x.dtype, copy=False), "Residual": r}


def huber_loss_grad(ins, attrs):
    r, dout = ins["Residual"], ins["Out@GRAD"]
    delta = r.dtype.type(attrs["delta"])
    dr = np.clip(r, -delta, delta) * dout  # d(Out)/d(Residual)
    return {"X@GRAD": (-dr).astype(r.dtype, copy=False), "Y@GRAD": dr.astype(r.dtype, copy=False)}


# -- smooth_l1_loss ---------------------------------------------------------------------------------


def smooth_l1_loss(ins, attrs):
    x, y = ins["X"], ins["Y"]
    weighted = "InsideWeight" in ins and "OutsideWeight" in ins
    diff = x - y
    if weighted:
        diff = diff * ins["InsideWeight"]
    s2 = attrs["sigma"] ** 2
    a = np.abs(diff)
    err = np.where(a < 1.0 / s2, 0.5 * s2 * diff * diff, a - 0.5 / s2)
    if weighted:
        err = err * ins["OutsideWeight"]
    return {"Diff": cast(diff, x), "Out": cast(err.reshape(x.shape[0], -1).sum(axis=1, keepdims=True), x)}


def smooth_l1_loss_grad(ins, attrs):
    diff, dout = ins["Diff"], ins["Out@GRAD"]
    s2 = attrs["sigma"] ** 2
    g = np.where(np.abs(diff) < 1.0 / s2, s2 * diff, np.sign(diff))
    if "InsideWeight" in ins and "OutsideWeight" in ins:
        g = g * ins["InsideWeight"] * ins["OutsideWeight"]
    g = cast(g * dout.reshape((-1,) + (1,) * (diff.ndim - 1)), diff)
    return {"X@GRAD": g, "Y@GRAD": -g}


# -- center_loss ------------------------------------------------------------------------------------


def center_loss(ins, attrs):
    x, centers = ins["X"], ins["Centers"]
    ids = center_ids(ins["Label"], centers.shape[0])
    diff = x - centers[ids]
    out = centers.copy()
    if attrs["need_update"]:
        alpha = np.asarray(ins["CenterUpdateRate"]).reshape(-1)[0]
        acc = np.zeros(centers.shape, dtype=np.float64)
        np.add.at(acc, ids, diff)
        count = 1 + np.bincount(ids, minlength=centers.shape[0])
        out = (centers + alpha * acc / count[:, None]).astype(centers.dtype)
    return {
        "SampleCenterDiff": diff,
        "Loss": cast(0.5 * (diff * diff).sum(axis=1, keepdims=True), x),
        "CentersOut": out,
    }


def center_loss_grad(ins, attrs):
    diff, dloss = ins["SampleCenterDiff"], ins["Loss@GRAD"]
    return {"X@GRAD": cast(diff * dloss.reshape(-1, 1), diff)}
