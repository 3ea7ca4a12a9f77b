"""CPU kernels of the classification losses (ops/loss_classification.py): softmax_with_cross_entropy and
its gradient are structured kernels (their loops and forms: loss_softmax_ce.py), and so are cross_entropy,
cross_entropy2, sigmoid_cross_entropy_with_logits and their gradients (loss_cross_entropy.py, run by name
through OpDef.kernel); the other losses are vectorised numpy."""

import numpy as np

from ...base.errors import PeError
from ...shapes import loss_classification as meta_rules
from ...shapes.reduction import kl_scale
from ..structured import adapter
from .loss_softmax_ce import FORWARD, GRAD


# softmax_with_cross_entropy and its grad op are structured kernels: the meta rules of
# pe_cli/shapes/loss_classification.py and the out-kernels of loss_softmax_ce.py, registered with both
# (ops/loss_classification.py); these are the two as ``kernel(ins, attrs, ctx)`` for the callers that run a
# kernel by name (op tests, CUDA's host fallbacks).
softmax_with_cross_entropy = adapter(meta_rules.softmax_ce_meta, FORWARD, "softmax_with_cross_entropy")
softmax_with_cross_entropy_grad = adapter(meta_rules.softmax_ce_grad_meta, GRAD, "softmax_with_cross_entropy_grad")


# -- the losses outside the hot loop: vectorised numpy; ``_cast`` serves the other loss families --


def cast(a, like):
    return np.asarray(a).astype(like.dtype, copy=False)


# -- label_smooth -----------------------------------------------------------------------------------


def label_smooth(ins, attrs):
    x, eps = ins["X"], attrs["epsilon"]
    prior = ins["PriorDist"].reshape(-1) if "PriorDist" in ins else x.dtype.type(1.0 / x.shape[-1])
    return {"Out": cast((1 - eps) * x + eps * prior, x)}


def label_smooth_grad(ins, attrs):
    d = ins["Out@GRAD"]
    return {"X@GRAD": cast((1 - attrs["epsilon"]) * d, d)}


# -- kldiv_loss -------------------------------------------------------------------------------------


def kldiv_loss(ins, attrs):
    x, t = ins["X"], ins["Target"]
    pos = t > 0
    loss = np.where(pos, t * (np.log(np.where(pos, t, 1)) - x), 0)
    red = attrs["reduction"]
    if red != "none":
        loss = np.array([loss.sum() / max(kl_scale(x, red), 1)])
    return {"Loss": cast(loss, x)}


def kldiv_loss_grad(ins, attrs):
    x, t, dloss = ins["X"], ins["Target"], ins["Loss@GRAD"]
    red = attrs["reduction"]
    d = dloss if red == "none" else dloss.reshape(-1)[0] / max(kl_scale(x, red), 1)
    return {"X@GRAD": cast(np.where(t > 0, -t * d, 0), x)}


# -- teacher_student_sigmoid_loss ------------------------------------------------------------------------


def teacher_student_sigmoid_loss(ins, attrs):
    x, label = ins["X"], ins["Label"]
    sp = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))  # softplus(x) = log(1 + exp(x))
    y = np.where(
        label < -1,
        sp,
        np.where(label < 0, sp - x, np.where(label < 1, 2 * sp - x * label, 2 * sp - x - x * (label - 1))),
    )
    return {"Y": cast(y, x)}


def teacher_student_sigmoid_loss_grad(ins, attrs):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    up, low = attrs["soft_max_up_bound"], attrs["soft_max_lower_bound"]
    s = np.clip(x, low, up)
    pred = 1 / (1 + np.exp(-s))
    g = np.where(label < -1, -pred, np.where(label < 0, 1 - pred, label - 2 * pred))
    g = np.where((s >= up) | (s <= low), 0, g)
    return {"X@GRAD": cast(-g * dy, x)}


def log_loss(ins, attrs):
    p, label, eps = ins["Predicted"], ins["Labels"], attrs["epsilon"]
    loss = -label * np.log(p + eps) - (1 - label) * np.log(1 - p + eps)
    return {"Loss": loss.astype(p.dtype, copy=False)}


def log_loss_grad(ins, attrs):
    p, label, eps, d = ins["Predicted"], ins["Labels"], attrs["epsilon"], ins["Loss@GRAD"]
    grad = d * (-label / (p + eps) + (1 - label) / (1 - p + eps))
    return {"Predicted@GRAD": grad.astype(p.dtype, copy=False)}


# -- bce_loss, nll_loss, hinge_loss, modified_huber_loss -------------------------------------------------


def bce_loss(ins, attrs):
    x, label = ins["X"], ins["Label"]
    if x.size and not (np.all(x >= 0) and np.all(x <= 1)):
        raise PeError("bce_loss: X holds a value outside [0, 1]; it takes probabilities (apply sigmoid first)")
    t, floor = x.dtype.type, x.dtype.type(-100)
    with np.errstate(divide="ignore"):
        out = (label - t(1)) * np.maximum(np.log(t(1) - x), floor) - label * np.maximum(np.log(x), floor)
    return {"Out": out.astype(x.dtype, copy=False)}


def bce_loss_grad(ins, attrs):
    x, label, dout = ins["X"], ins["Label"], ins["Out@GRAD"]
    t = x.dtype.type
    return {"X@GRAD": (dout * ((x - label) / np.maximum((t(1) - x) * x, t(1e-12)))).astype(x.dtype, copy=False)}


def _nll_rows(ins, attrs):
    """X as [positions, classes], each position's class (0 where ignored), weight (0 where ignored) and whether it
    counts (its label is not ignore_index)."""
    x, label = ins["X"], ins["Label"].astype(np.int64, copy=False).reshape(-1)
    classes = x.shape[1]
    rows = np.moveaxis(x, 1, -1).reshape(-1, classes)
    kept = label != attrs["ignore_index"]
    if np.any(kept & ((label < 0) | (label >= classes))):
        raise PeError(f"nll_loss: Label holds a class outside [0, {classes}) (that is not ignore_index)")
    ids = np.where(kept, label, 0)
    weight = ins.get("Weight")
    w = (weight[ids] if weight is not None else np.ones(len(ids), x.dtype)) * kept
    return rows, ids, w.astype(x.dtype, copy=False), kept


def nll_loss(ins, attrs):
    x = ins["X"]
    rows, ids, w, _ = _nll_rows(ins, attrs)
    losses = -rows[np.arange(len(ids)), ids] * w
    if attrs["reduction"] == "none":
        return {
            "Out": losses.reshape(ins["Label"].shape).astype(x.dtype, copy=False),
            "Total_weight": np.zeros(1, x.dtype),
        }
    total, out = w.sum(dtype=x.dtype), losses.sum(dtype=x.dtype)
    if attrs["reduction"] == "mean" and total != 0:
        out = out / total
    return {"Out": np.array([out], x.dtype), "Total_weight": np.array([total], x.dtype)}


def nll_loss_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    rows, ids, w, kept = _nll_rows(ins, attrs)
    if attrs["reduction"] == "none":
        d = -dout.reshape(-1) * w
    else:
        d = -dout.reshape(-1)[0] * w
        if attrs["reduction"] == "mean":
            with np.errstate(divide="ignore", invalid="ignore"):
                d = d / ins["Total_weight"].reshape(-1)[0]
    grad = np.zeros_like(rows)
    grad[np.arange(len(ids)), ids] = np.where(kept, d, 0)
    moved = np.moveaxis(x, 1, -1).shape
    return {"X@GRAD": np.moveaxis(grad.reshape(moved), -1, 1).astype(x.dtype, copy=False)}


def hinge_loss(ins, attrs):
    x, y = ins["Logits"], ins["Labels"]
    return {"Loss": np.maximum(x.dtype.type(1) - x * (2 * y - 1), 0).astype(x.dtype, copy=False)}


def hinge_loss_grad(ins, attrs):
    x, y, d = ins["Logits"], ins["Labels"], ins["Loss@GRAD"]
    sign = (2 * y - 1).astype(x.dtype, copy=False)
    return {"Logits@GRAD": (d * (x * sign < 1) * -sign).astype(x.dtype, copy=False)}


def modified_huber_loss(ins, attrs):
    x, y = ins["X"], ins["Y"]
    v = (x * (2 * y - 1)).astype(x.dtype, copy=False)
    out = np.where(v < -1, -4 * v, np.where(v < 1, (1 - v) * (1 - v), 0))
    return {"IntermediateVal": v, "Out": out.astype(x.dtype, copy=False)}


def modified_huber_loss_grad(ins, attrs):
    y, v, d = ins["Y"], ins["IntermediateVal"], ins["Out@GRAD"]
    sign = 2 * y - 1
    grad = np.where(v < -1, -4 * sign * d, np.where(v < 1, -2 * (1 - v) * sign * d, 0))
    return {"X@GRAD": grad.astype(v.dtype, copy=False)}
