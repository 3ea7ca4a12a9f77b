"""CPU out-kernels of the regression losses (ops/loss_regression.py): huber_loss, smooth_l1_loss, center_loss
and their gradients, structured kernels: numpy forms, ``fresh`` variants of the meta rules in
pe_cli/shapes/loss_pairwise.py (the array numpy made is the output). ``center_ids`` checks the labels (for the
CUDA kernels too); a label out of range is refused in one line when the values are read."""

import numpy as np

from ..value_checks import center_ids
from .launches import by_variant
from .loss_classification import cast, put


# -- huber_loss ------------------------------------------------------------------------------------


def _huber(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    delta = x.dtype.type(attrs["delta"])
    r = y - x
    a = np.abs(r)
    out = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    put(outs, "Out", out.astype(x.dtype, copy=False), meta, (x, y))
    put(outs, "Residual", r, meta, (x, y))


def _huber_grad(ins, outs, attrs, meta):
    r, dout = ins["Residual"], ins["Out@GRAD"]
    delta = r.dtype.type(attrs["delta"])
    dr = np.clip(r, -delta, delta) * dout  # d(Out)/d(Residual)
    put(outs, "X@GRAD", (-dr).astype(r.dtype, copy=False), meta, (r, dout))
    put(outs, "Y@GRAD", dr.astype(r.dtype, copy=False), meta, (r, dout))


# -- smooth_l1_loss ---------------------------------------------------------------------------------


def _smooth_l1(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    weighted = meta.variant == "weighted"
    diff = x - y
    if weighted:
        diff = diff * ins["InsideWeight"]
    s2 = attrs["sigma"] ** 2
    a = np.abs(diff)
    err = np.where(a < 1.0 / s2, 0.5 * s2 * diff * diff, a - 0.5 / s2)
    if weighted:
        err = err * ins["OutsideWeight"]
    put(outs, "Diff", cast(diff, x), meta, (x, y))
    put(outs, "Out", cast(err.reshape(x.shape[0], -1).sum(axis=1, keepdims=True), x), meta, (x, y))


def _smooth_l1_grad(ins, outs, attrs, meta):
    diff, dout = ins["Diff"], ins["Out@GRAD"]
    s2 = attrs["sigma"] ** 2
    g = np.where(np.abs(diff) < 1.0 / s2, s2 * diff, np.sign(diff))
    if meta.variant == "weighted":
        g = g * ins["InsideWeight"] * ins["OutsideWeight"]
    g = cast(g * dout.reshape((-1,) + (1,) * (diff.ndim - 1)), diff)
    put(outs, "X@GRAD", g, meta, (diff, dout))
    put(outs, "Y@GRAD", -g, meta, (diff, dout))


# -- center_loss ------------------------------------------------------------------------------------


def _center(ins, outs, attrs, meta):
    x, centers = ins["X"], ins["Centers"]
    ids = center_ids(ins["Label"], centers.shape[0])
    diff = x - centers[ids]
    if meta.variant == "update":
        alpha = np.asarray(ins["CenterUpdateRate"]).reshape(-1)[0]
        acc = np.zeros(centers.shape, dtype=np.float64)
        np.add.at(acc, ids, diff)
        count = 1 + np.bincount(ids, minlength=centers.shape[0])
        new = (centers + alpha * acc / count[:, None]).astype(centers.dtype)
    else:
        new = centers.copy()
    put(outs, "SampleCenterDiff", diff, meta, (x, centers))
    put(outs, "Loss", cast(0.5 * (diff * diff).sum(axis=1, keepdims=True), x), meta, (x, centers))
    put(outs, "CentersOut", new, meta, (x, centers))


def _center_grad(ins, outs, attrs, meta):
    diff, dloss = ins["SampleCenterDiff"], ins["Loss@GRAD"]
    put(outs, "X@GRAD", cast(diff * dloss.reshape(-1, 1), diff), meta, (diff, dloss))


HUBER = by_variant("huber_loss_out", None, numpy=_huber)
HUBER_GRAD = by_variant("huber_loss_grad_out", None, numpy=_huber_grad)
SMOOTH_L1 = by_variant("smooth_l1_loss_out", None, plain=_smooth_l1, weighted=_smooth_l1)
SMOOTH_L1_GRAD = by_variant("smooth_l1_loss_grad_out", None, plain=_smooth_l1_grad, weighted=_smooth_l1_grad)
CENTER = by_variant("center_loss_out", None, plain=_center, update=_center)
CENTER_GRAD = by_variant("center_loss_grad_out", None, numpy=_center_grad)
