"""Kernels of ops/loss_extra.py: vectorised numpy, as the other loss kernels outside the hot
softmax-cross-entropy loop."""
import numpy as np

from ...errors import PeError


def _cast(a, like):
    return np.asarray(a).astype(like.dtype, copy=False)


# -- norm ---------------------------------------------------------------------------------------

def norm(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    n = np.sqrt(np.sum(x * x, axis=axis, keepdims=True) + x.dtype.type(attrs["epsilon"]))
    return {"Out": _cast(x / n, x), "Norm": _cast(n, x)}


def norm_grad(ins, attrs):
    """Out = X / n, n = sqrt(sum(X^2) + eps): dX = dOut / n - X * sum(dOut * X) / n^3."""
    x, n, dout = ins["X"], ins["Norm"], ins["Out@GRAD"]
    axis = attrs["axis"] % x.ndim
    dot = np.sum(dout * x, axis=axis, keepdims=True)
    return {"X@GRAD": _cast(dout / n - x * dot / (n * n * n), x)}


# -- label_smooth -----------------------------------------------------------------------------------

def label_smooth(ins, attrs):
    x, eps = ins["X"], attrs["epsilon"]
    prior = ins["PriorDist"].reshape(-1) if "PriorDist" in ins else x.dtype.type(1.0 / x.shape[-1])
    return {"Out": _cast((1 - eps) * x + eps * prior, x)}


def label_smooth_grad(ins, attrs):
    d = ins["Out@GRAD"]
    return {"X@GRAD": _cast((1 - attrs["epsilon"]) * d, d)}


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
    return {"Diff": _cast(diff, x), "Out": _cast(err.reshape(x.shape[0], -1).sum(axis=1, keepdims=True), x)}


def smooth_l1_loss_grad(ins, attrs):
    diff, dout = ins["Diff"], ins["Out@GRAD"]
    s2 = attrs["sigma"] ** 2
    g = np.where(np.abs(diff) < 1.0 / s2, s2 * diff, np.sign(diff))
    if "InsideWeight" in ins and "OutsideWeight" in ins:
        g = g * ins["InsideWeight"] * ins["OutsideWeight"]
    g = _cast(g * dout.reshape((-1,) + (1,) * (diff.ndim - 1)), diff)
    return {"X@GRAD": g, "Y@GRAD": -g}


# -- kldiv_loss -------------------------------------------------------------------------------------

def kl_scale(x, reduction):
    return {"mean": x.size, "batchmean": x.shape[0] if x.ndim else 1}.get(reduction, 1)


def kldiv_loss(ins, attrs):
    x, t = ins["X"], ins["Target"]
    pos = t > 0
    loss = np.where(pos, t * (np.log(np.where(pos, t, 1)) - x), 0)
    red = attrs["reduction"]
    if red != "none":
        loss = np.array([loss.sum() / max(kl_scale(x, red), 1)])
    return {"Loss": _cast(loss, x)}


def kldiv_loss_grad(ins, attrs):
    x, t, dloss = ins["X"], ins["Target"], ins["Loss@GRAD"]
    red = attrs["reduction"]
    d = dloss if red == "none" else dloss.reshape(-1)[0] / max(kl_scale(x, red), 1)
    return {"X@GRAD": _cast(np.where(t > 0, -t * d, 0), x)}


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------

def margin_rank_loss(ins, attrs):
    x1, x2, label = ins["X1"], ins["X2"], ins["Label"]
    out = np.maximum(0, -label * (x1 - x2) + attrs["margin"])
    return {"Out": _cast(out, x1), "Activated": _cast(out > 0, x1)}


def margin_rank_loss_grad(ins, attrs):
    label, act, dout = ins["Label"], ins["Activated"], ins["Out@GRAD"]
    g = _cast(dout * label * act, act)
    return {"X1@GRAD": -g, "X2@GRAD": g}


def rank_loss(ins, attrs):
    label, left, right = ins["Label"], ins["Left"], ins["Right"]
    o = left - right
    return {"Out": _cast(np.logaddexp(0, o) - label * o, left)}


def rank_loss_grad(ins, attrs):
    label, left, right, dout = ins["Label"], ins["Left"], ins["Right"], ins["Out@GRAD"]
    o = left - right
    g = _cast(dout * (0.5 * (1 + np.tanh(0.5 * o)) - label), left)     # sigmoid(o) - label, no overflow
    return {"Left@GRAD": g, "Right@GRAD": -g}


# -- bpr_loss ---------------------------------------------------------------------------------------

def bpr_ids(x_shape, label):
    """The positive item of each row of X (shaped ``x_shape``), checked to lie among its items."""
    items = x_shape[-1]
    ids = np.asarray(label).reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= items)
    if bad.any():
        raise PeError(f"bpr_loss: Label holds {int(ids[bad][0])}, outside the {items} items of X {list(x_shape)}")
    if items < 2:
        raise PeError(f"bpr_loss: X {list(x_shape)} needs at least 2 items per row")
    return ids


def bpr_rows(x, label):
    """X as [rows, items] and the positive item of each row, checked."""
    return x.reshape(-1, x.shape[-1]), bpr_ids(x.shape, label)


def bpr_loss(ins, attrs):
    x = ins["X"]
    rows, ids = bpr_rows(x, ins["Label"])
    d = rows - rows[np.arange(rows.shape[0]), ids][:, None]
    sp = np.logaddexp(0, d)
    sp[np.arange(rows.shape[0]), ids] = 0
    y = sp.sum(axis=1) / (rows.shape[1] - 1)
    return {"Y": _cast(y.reshape(x.shape[:-1] + (1,)), x)}


def bpr_loss_grad(ins, attrs):
    x, dy = ins["X"], ins["Y@GRAD"]
    rows, ids = bpr_rows(x, ins["Label"])
    r = np.arange(rows.shape[0])
    d = rows - rows[r, ids][:, None]
    g = 0.5 * (1 + np.tanh(0.5 * d)) * (dy.reshape(-1, 1) / (rows.shape[1] - 1))
    g[r, ids] = 0
    g[r, ids] = -g.sum(axis=1)
    return {"X@GRAD": _cast(g.reshape(x.shape), x)}


# -- teacher_student_sigmoid_loss ------------------------------------------------------------------------

def teacher_student_sigmoid_loss(ins, attrs):
    x, label = ins["X"], ins["Label"]
    sp = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))         # softplus(x) = log(1 + exp(x))
    y = np.where(label < -1, sp, np.where(label < 0, sp - x, np.where(
        label < 1, 2 * sp - x * label, 2 * sp - x - x * (label - 1))))
    return {"Y": _cast(y, x)}


def teacher_student_sigmoid_loss_grad(ins, attrs):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    up, low = attrs["soft_max_up_bound"], attrs["soft_max_lower_bound"]
    s = np.clip(x, low, up)
    pred = 1 / (1 + np.exp(-s))
    g = np.where(label < -1, -pred, np.where(label < 0, 1 - pred, label - 2 * pred))
    g = np.where((s >= up) | (s <= low), 0, g)
    return {"X@GRAD": _cast(-g * dy, x)}

