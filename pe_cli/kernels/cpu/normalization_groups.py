"""CPU kernels of instance_norm and group_norm (ops/normalization_groups.py), numpy: rows of X's flat
layout normalized, then scaled and shifted per channel. normalization.py, where the registry looks for
them, imports them."""

import numpy as np

from ...shapes.normalization import norm_layout


# -- instance_norm, group_norm: rows of X's flat layout, scaled and shifted per channel ----------------


def _per_channel(v, c):
    return v.reshape(1, c, 1)


def norm_forward(ins, eps, layout):
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
    dt = x.dtype
    return y.reshape(x.shape).astype(dt, copy=False), mean.astype(dt, copy=False), var.astype(dt, copy=False), inv


def norm_backward(ins, mean, inv, layout):
    x, dy = ins["X"], ins["Y@GRAD"]
    rows, n, c, inner = layout
    xhat = (x.reshape(rows, n) - mean[:, None]) * inv[:, None]
    dy3, xhat3 = dy.reshape(x.shape[0], c, inner), xhat.reshape(x.shape[0], c, inner)
    dt = x.dtype
    outs = {
        "Scale@GRAD": (dy3 * xhat3).sum(axis=(0, 2)).astype(dt, copy=False),
        "Bias@GRAD": dy3.sum(axis=(0, 2)).astype(dt, copy=False),
    }
    g = (dy3 * _per_channel(ins["Scale"], c) if "Scale" in ins else dy3).reshape(rows, n)
    dx = inv[:, None] * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
    outs["X@GRAD"] = dx.reshape(x.shape).astype(dt, copy=False)
    return outs


def instance_norm(ins, attrs):
    y, mean, _, inv = norm_forward(ins, attrs["epsilon"], norm_layout(ins["X"].shape))
    return {"Y": y, "SavedMean": mean, "SavedVariance": inv.astype(y.dtype, copy=False)}


def instance_norm_grad(ins, attrs):
    return norm_backward(ins, ins["SavedMean"], ins["SavedVariance"], norm_layout(ins["X"].shape))


def group_norm(ins, attrs):
    x, g = ins["X"], attrs["groups"]
    y, mean, var, _ = norm_forward(ins, attrs["epsilon"], norm_layout(x.shape, g))
    return {"Y": y, "Mean": mean.reshape(x.shape[0], g), "Variance": var.reshape(x.shape[0], g)}


def group_norm_grad(ins, attrs):
    x, g = ins["X"], attrs["groups"]
    inv = 1.0 / np.sqrt(ins["Variance"].reshape(-1) + attrs["epsilon"])
    return norm_backward(ins, ins["Mean"].reshape(-1), inv, norm_layout(x.shape, g))
