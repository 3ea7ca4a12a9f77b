"""CPU out-kernels of instance_norm and group_norm (ops/normalization_groups.py; structured kernels, meta rules:
shapes/normalization.py): rows of X's flat layout normalized, then scaled and shifted per channel. "out": each
step written through numpy's out= into the buffers handed (Y, the statistics, the gradients); "fresh": the numpy
form, its arrays cast to the outputs' dtypes."""

import numpy as np

from ..structured import fresh_output
from .launches import by_variant


def _per_channel(v, c):
    return v.reshape(1, c, 1)


def _affine(ins, y, c):
    """Y (normalized, [N, C, inner]) times Scale and plus Bias per channel, in place."""
    if "Scale" in ins:
        np.multiply(y, _per_channel(ins["Scale"], c), out=y)
    if "Bias" in ins:
        np.add(y, _per_channel(ins["Bias"], c), out=y)


def _normalized(ins, eps, layout, y, mean, var, inv=None):
    """Y, the rows' mean, var and 1 / sqrt(var + eps) (``inv``: None, a new array) into the buffers given; returns
    1 / sqrt(var + eps)."""
    x = ins["X"]
    rows, n, c, inner = layout
    x2 = x.reshape(rows, n)
    np.mean(x2, axis=1, out=mean)
    x2.var(axis=1, out=var)
    inv = np.true_divide(1.0, np.sqrt(var + eps), out=inv)
    y2 = y.reshape(rows, n)
    np.subtract(x2, mean[:, None], out=y2)
    np.multiply(y2, inv[:, None], out=y2)
    _affine(ins, y.reshape(x.shape[0], c, inner), c)
    return inv


def norm_forward(ins, eps, layout):
    """The numpy form: Y, mean, var (X's dtype) and 1 / sqrt(var + eps)."""
    x = ins["X"]
    rows, n, c, inner = layout
    x2 = x.reshape(rows, n)
    mean, var = x2.mean(axis=1), x2.var(axis=1)
    inv = 1.0 / np.sqrt(var + eps)
    y = ((x2 - mean[:, None]) * inv[:, None]).reshape(x.shape[0], c, inner)
    if "Scale" in ins:
        y = y * _per_channel(ins["Scale"], c)
    if "Bias" in ins:
        y = y + _per_channel(ins["Bias"], c)
    return y.reshape(x.shape), mean, var, inv


def _put(outs, meta, ins, **results):
    for slot, result in results.items():
        outs[slot] = fresh_output(result, meta.outputs[slot], tuple(ins.values()))


def _instance_norm(ins, outs, attrs, meta):
    _normalized(ins, attrs["epsilon"], meta.args[0], outs["Y"], outs["SavedMean"], outs["@var"], outs["SavedVariance"])


def _instance_norm_fresh(ins, outs, attrs, meta):
    y, mean, _, inv = norm_forward(ins, attrs["epsilon"], meta.args[0])
    _put(outs, meta, ins, Y=y, SavedMean=mean, SavedVariance=inv)


def _group_norm(ins, outs, attrs, meta):
    _normalized(ins, attrs["epsilon"], meta.args[0], outs["Y"], outs["Mean"].reshape(-1), outs["Variance"].reshape(-1))


def _group_norm_fresh(ins, outs, attrs, meta):
    y, mean, var, _ = norm_forward(ins, attrs["epsilon"], meta.args[0])
    shape = meta.outputs["Mean"][0]
    _put(outs, meta, ins, Y=y, Mean=mean.reshape(shape), Variance=var.reshape(shape))


def _backward(ins, mean, inv, layout, outs=None):
    """The gradients (into ``outs``' buffers where given, else numpy's new arrays, returned)."""
    x, dy = ins["X"], ins["Y@GRAD"]
    rows, n, c, inner = layout
    xhat = (x.reshape(rows, n) - mean[:, None]) * inv[:, None]
    dy3, xhat3 = dy.reshape(x.shape[0], c, inner), xhat.reshape(x.shape[0], c, inner)
    got = outs or {}
    scale_grad = np.add.reduce(dy3 * xhat3, axis=(0, 2), out=got.get("Scale@GRAD"))
    bias_grad = np.add.reduce(dy3, axis=(0, 2), out=got.get("Bias@GRAD"))
    g = (dy3 * _per_channel(ins["Scale"], c) if "Scale" in ins else dy3).reshape(rows, n)
    part = g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True)
    dx = got.get("X@GRAD")
    dx = np.multiply(inv[:, None], part, out=None if dx is None else dx.reshape(rows, n))
    return {"Scale@GRAD": scale_grad, "Bias@GRAD": bias_grad, "X@GRAD": dx.reshape(x.shape)}


def _group_inv(ins, attrs):
    return 1.0 / np.sqrt(ins["Variance"].reshape(-1) + attrs["epsilon"])


def _instance_norm_grad(ins, outs, attrs, meta):
    _backward(ins, ins["SavedMean"], ins["SavedVariance"], meta.args[0], outs)


def _instance_norm_grad_fresh(ins, outs, attrs, meta):
    _put(outs, meta, ins, **_backward(ins, ins["SavedMean"], ins["SavedVariance"], meta.args[0]))


def _group_norm_grad(ins, outs, attrs, meta):
    _backward(ins, ins["Mean"].reshape(-1), _group_inv(ins, attrs), meta.args[0], outs)


def _group_norm_grad_fresh(ins, outs, attrs, meta):
    _put(outs, meta, ins, **_backward(ins, ins["Mean"].reshape(-1), _group_inv(ins, attrs), meta.args[0]))


INSTANCE_NORM = by_variant("instance_norm_out", None, out=_instance_norm, fresh=_instance_norm_fresh)
INSTANCE_NORM_GRAD = by_variant(
    "instance_norm_grad_out", None, out=_instance_norm_grad, fresh=_instance_norm_grad_fresh
)
GROUP_NORM = by_variant("group_norm_out", None, out=_group_norm, fresh=_group_norm_fresh)
GROUP_NORM_GRAD = by_variant("group_norm_grad_out", None, out=_group_norm_grad, fresh=_group_norm_grad_fresh)
