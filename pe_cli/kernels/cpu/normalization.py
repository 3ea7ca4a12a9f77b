"""CPU kernels of the normalization ops (ops/normalization.py). batch_norm and its gradients are structured
kernels (out-kernels in batch_norm.py, with their relu forms that fused_batch_norm_act runs; here the adapters over
them, for the kernels made of them, and bn_training_outputs, the blocked layout's); affine_channel, lrn and norm are
structured kernels too (their out-kernels here, numpy's ufuncs written through out=); data_norm and its gradient are
numpy's expressions, their arrays handed over as the outputs (``fresh``; rules: shapes/data_norm.py). instance_norm and
group_norm are in normalization_groups.py."""

import numpy as np

from ...shapes.data_norm import data_norm_grad_meta, data_norm_meta
from ...shapes.normalization import (
    batch_norm_grad_meta,
    batch_norm_grad_param_meta,
    batch_norm_meta,
    running_stats,  # noqa: F401 (named here for blocked.py)
)
from ..structured import adapter, fresh_kernel, fresh_output
from . import batch_norm as bn
from .launches import by_variant


# -- batch_norm -------------------------------------------------------------------------------------


def bn_training_outputs(ins, attrs, y, m, v, inv_std):
    """batch_norm's outputs in training from Y and the batch's float64 mean, var and inv_std."""
    mom, mean, var, dt = attrs["momentum"], ins["Mean"], ins["Variance"], y.dtype
    return {
        "Y": y,
        "MeanOut": (mean * mom + m * (1.0 - mom)).astype(mean.dtype, copy=False),
        "VarianceOut": (var * mom + v * (1.0 - mom)).astype(var.dtype, copy=False),
        "SavedMean": m.astype(dt),
        "SavedVariance": inv_std.astype(dt),
    }


batch_norm = adapter(batch_norm_meta, bn.FORWARD, "batch_norm")
batch_norm_grad = adapter(batch_norm_grad_meta, bn.GRAD, "batch_norm_grad")
batch_norm_grad_param = adapter(batch_norm_grad_param_meta, bn.GRAD, "batch_norm_grad_param")


# -- affine_channel, lrn, norm: structured kernels (meta rules: shapes/normalization.py) ----------------------


def _put(outs, meta, ins, **results):
    for slot, result in results.items():
        outs[slot] = fresh_output(result, meta.outputs[slot], tuple(ins.values()))


def _affine_channel(ins, outs, attrs, meta):
    (view,) = meta.args
    s, b = ins["Scale"].reshape(1, -1, 1), ins["Bias"].reshape(1, -1, 1)
    np.add(np.multiply(ins["X"].reshape(view), s), b, out=outs["Out"].reshape(view))


def _affine_channel_fresh(ins, outs, attrs, meta):
    (view,) = meta.args
    s, b = ins["Scale"].reshape(1, -1, 1), ins["Bias"].reshape(1, -1, 1)
    _put(outs, meta, ins, Out=(ins["X"].reshape(view) * s + b).reshape(ins["X"].shape))


def _affine_channel_grad(ins, outs, attrs, meta):
    (view,) = meta.args
    d, xv = ins["Out@GRAD"].reshape(view), ins["X"].reshape(view)
    np.multiply(d, ins["Scale"].reshape(1, -1, 1), out=outs["X@GRAD"].reshape(view))
    np.add.reduce(np.multiply(d, xv), axis=(0, 2), out=outs["Scale@GRAD"])
    np.add.reduce(d, axis=(0, 2), out=outs["Bias@GRAD"])


def _affine_channel_grad_fresh(ins, outs, attrs, meta):
    (view,) = meta.args
    x, d = ins["X"], ins["Out@GRAD"].reshape(view)
    grads = {
        "X@GRAD": (d * ins["Scale"].reshape(1, -1, 1)).reshape(x.shape),
        "Scale@GRAD": (d * x.reshape(view)).sum(axis=(0, 2)),
        "Bias@GRAD": d.sum(axis=(0, 2)),
    }
    _put(outs, meta, ins, **grads)


def _lrn_mid(attrs, xv, mid):
    """MidOut: k plus alpha times the sum of the squares of the n channels around each (into ``mid``)."""
    n, pre_pad = attrs["n"], (attrs["n"] - 1) // 2
    sq = xv * xv
    c = xv.shape[1]
    for i in range(n):
        shift = i - pre_pad  # channel c reads channel c + shift
        lo, hi = max(0, -shift), min(c, c - shift)
        if lo < hi:
            mid[:, lo:hi] += attrs["alpha"] * sq[:, lo + shift : hi + shift]
    return mid


def _lrn(ins, outs, attrs, meta):
    (view,) = meta.args
    xv, mid = ins["X"].reshape(view), outs["MidOut"].reshape(view)
    mid.fill(attrs["k"])
    _lrn_mid(attrs, xv, mid)
    np.multiply(xv, mid ** -attrs["beta"], out=outs["Out"].reshape(view))


def _lrn_fresh(ins, outs, attrs, meta):
    (view,) = meta.args
    x = ins["X"]
    xv = x.reshape(view)
    mid = _lrn_mid(attrs, xv, np.full(view, attrs["k"], dtype=x.dtype))
    _put(outs, meta, ins, Out=(xv * mid ** -attrs["beta"]).reshape(x.shape), MidOut=mid.reshape(x.shape))


def _lrn_parts(ins, attrs, view):
    """dOut * Mid^-beta and 2 alpha beta X times the sum over the c' whose window holds c of dOut[c'] * Out[c'] /
    Mid[c'] (``acc``)."""
    x = ins["X"]
    xv, ov, mv, dv = (a.reshape(view) for a in (x, ins["Out"], ins["MidOut"], ins["Out@GRAD"]))
    ratio = dv * ov / mv
    acc = np.zeros(view, dtype=x.dtype)
    n, pre_pad, c = attrs["n"], (attrs["n"] - 1) // 2, view[1]
    for i in range(n):
        shift = i - pre_pad  # c' = c - shift has c in its window
        lo, hi = max(0, shift), min(c, c + shift)
        if lo < hi:
            acc[:, lo:hi] += ratio[:, lo - shift : hi - shift]
    return dv * mv ** -attrs["beta"], 2 * attrs["alpha"] * attrs["beta"] * xv * acc


def _lrn_grad(ins, outs, attrs, meta):
    """dX[c] = dOut[c] * Mid[c]^-beta - 2 alpha beta X[c] * sum over the c' whose window holds c of
    dOut[c'] * Out[c'] / Mid[c']."""
    (view,) = meta.args
    first, second = _lrn_parts(ins, attrs, view)
    np.subtract(first, second, out=outs["X@GRAD"].reshape(view))


def _lrn_grad_fresh(ins, outs, attrs, meta):
    (view,) = meta.args
    first, second = _lrn_parts(ins, attrs, view)
    _put(outs, meta, ins, **{"X@GRAD": (first - second).reshape(ins["X"].shape)})


def _norm(ins, outs, attrs, meta):
    x, n = ins["X"], outs["Norm"]
    np.add.reduce(np.multiply(x, x), axis=meta.args[0], keepdims=True, out=n)
    np.add(n, x.dtype.type(attrs["epsilon"]), out=n)
    np.sqrt(n, out=n)
    np.divide(x, n, out=outs["Out"])


def _norm_fresh(ins, outs, attrs, meta):
    x = ins["X"]
    n = np.sqrt(np.sum(x * x, axis=meta.args[0], keepdims=True) + x.dtype.type(attrs["epsilon"]))
    _put(outs, meta, ins, Out=x / n, Norm=n)


def _norm_grad(ins, outs, attrs, meta):
    """Out = X / n, n = sqrt(sum(X^2) + eps): dX = dOut / n - X * sum(dOut * X) / n^3."""
    x, n, dout = ins["X"], ins["Norm"], ins["Out@GRAD"]
    dot = np.add.reduce(np.multiply(dout, x), axis=meta.args[0], keepdims=True)
    scaled = np.multiply(x, dot)
    np.divide(scaled, n * n * n, out=scaled)
    np.subtract(np.divide(dout, n), scaled, out=outs["X@GRAD"])


def _norm_grad_fresh(ins, outs, attrs, meta):
    x, n, dout = ins["X"], ins["Norm"], ins["Out@GRAD"]
    dot = np.sum(dout * x, axis=meta.args[0], keepdims=True)
    _put(outs, meta, ins, **{"X@GRAD": dout / n - x * dot / (n * n * n)})


AFFINE_CHANNEL = by_variant("affine_channel_out", None, out=_affine_channel, fresh=_affine_channel_fresh)
AFFINE_CHANNEL_GRAD = by_variant(
    "affine_channel_grad_out", None, out=_affine_channel_grad, fresh=_affine_channel_grad_fresh
)
LRN = by_variant("lrn_out", None, out=_lrn, fresh=_lrn_fresh)
LRN_GRAD = by_variant("lrn_grad_out", None, out=_lrn_grad, fresh=_lrn_grad_fresh)
NORM = by_variant("norm_out", None, out=_norm, fresh=_norm_fresh)
NORM_GRAD = by_variant("norm_grad_out", None, out=_norm_grad, fresh=_norm_grad_fresh)


# -- data_norm --------------------------------------------------------------------------------------------

_SHOWN = 1e-7  # a slot whose first value is within this of 0 is not shown (Fluid's min_precision)


def _shown(x, slot_dim):
    """[N, C] bool: the columns of each row whose slot is shown (all of them without slots)."""
    if slot_dim <= 0:
        return np.ones(x.shape, dtype=bool)
    first = x[:, ::slot_dim]
    return np.repeat(np.abs(first) >= _SHOWN, slot_dim, axis=1)


def _data_norm(ins, attrs):
    x = ins["X"]
    means = ins["BatchSum"] / ins["BatchSize"]
    scales = np.sqrt(ins["BatchSize"] / ins["BatchSquareSum"])
    y = (x - means) * scales
    if attrs["enable_scale_and_shift"]:
        y = y * ins["scale_w"] + ins["bias"]
    y = np.where(_shown(x, attrs["slot_dim"]), y, 0)
    return {"Y": y.astype(x.dtype, copy=False), "Means": means, "Scales": scales}


def data_norm_stats(x, means, eps, slot_dim):
    """This batch's (count, sum, squared deviation sum) per column, as Fluid's data_norm_grad gives them."""
    shown = _shown(x, slot_dim)
    count = shown.sum(axis=0).astype(x.dtype)
    total = np.where(shown, x, 0).sum(axis=0)
    square = np.where(shown, (x - means) ** 2, 0).sum(axis=0)
    if slot_dim <= 0:
        return count, total, square + count * eps
    seen = count >= 1
    safe = np.maximum(count, 1)
    return (
        np.where(seen, 1, count).astype(x.dtype),
        np.where(seen, total / safe, total),
        np.where(seen, square / safe + count * eps, square),
    )


def _data_norm_grad(ins, attrs):
    x, dy, scales = ins["X"], ins["Y@GRAD"], ins["Scales"]
    shown = _shown(x, attrs["slot_dim"])
    dy = np.where(shown, dy, 0)
    scale_w = ins["scale_w"] if attrs["enable_scale_and_shift"] else 1.0
    outs = {"X@GRAD": (dy * scales * scale_w).astype(x.dtype, copy=False)}
    if attrs["enable_scale_and_shift"]:
        outs["scale_w@GRAD"] = (dy * (x - ins["Means"]) * scales).sum(axis=0)
        outs["bias@GRAD"] = dy.sum(axis=0)
    stats = data_norm_stats(x, ins["Means"], attrs["epsilon"], attrs["slot_dim"])
    decay = attrs["summary_decay_rate"]
    for slot, batch in zip(("BatchSize", "BatchSum", "BatchSquareSum"), stats):
        outs[slot] = (ins[slot] * decay + batch).astype(ins[slot].dtype, copy=False)
    return outs


DATA_NORM = fresh_kernel(_data_norm, "data_norm_numpy")
DATA_NORM_GRAD = fresh_kernel(_data_norm_grad, "data_norm_grad_numpy")
data_norm = adapter(data_norm_meta, DATA_NORM, "data_norm")
data_norm_grad = adapter(data_norm_grad_meta, DATA_NORM_GRAD, "data_norm_grad")
