"""Kernels of ops/normalization_activated.py: batch_norm's kernels (kernels/cpu/normalization.py) with the
activation after them; the gradient recovers the normalized value and X from Y."""

import numpy as np

from ...shapes.normalization import bn_channel_axis
from . import normalization


def _act(y, attrs):
    alpha, kind = y.dtype.type(attrs["alpha"]), attrs["activation"]
    if kind == "leaky_relu":
        return np.where(y >= 0, y, alpha * y)
    if kind == "elu":
        return np.where(y > 0, y, alpha * (np.exp(y) - 1))
    return y


def inplace_abn(ins, attrs):
    outs = dict(normalization.batch_norm(ins, attrs))
    outs["Y"] = _act(outs["Y"], attrs).astype(outs["Y"].dtype, copy=False)
    return outs


def _undo_act(y, dy, attrs):
    """(the normalized value, its gradient) from Y and Y@GRAD, as Fluid's InplaceABNActivation::GradCompute."""
    alpha, kind = y.dtype.type(attrs["alpha"]), attrs["activation"]
    if kind == "leaky_relu":
        return np.where(y >= 0, y, y / alpha), np.where(y > 0, dy, alpha * dy)
    if kind == "elu":
        return np.where(y >= 0, y, np.log(y / alpha + 1)), np.where(y > 0, dy, dy * (y + alpha))
    return y, dy


def inplace_abn_grad(ins, attrs):
    y, dy = _undo_act(ins["Y"], ins["Y@GRAD"], attrs)
    scale, bias = ins["Scale"].astype(y.dtype), ins["Bias"].astype(y.dtype)
    running = normalization.running_stats(attrs)
    mean = ins["Mean"] if running and "Mean" in ins else ins["SavedMean"]
    inv_std = (
        (1.0 / np.sqrt(ins["Variance"] + attrs["epsilon"])) if running and "Variance" in ins else ins["SavedVariance"]
    )
    shape = [1] * y.ndim
    shape[bn_channel_axis(y.ndim, attrs["data_layout"])] = -1
    x = (y - bias.reshape(shape)) / (scale * inv_std).astype(y.dtype).reshape(shape) + mean.astype(y.dtype).reshape(
        shape
    )
    grads = normalization.batch_norm_grad(
        {
            "X": x.astype(y.dtype),
            "Scale": ins["Scale"],
            "Y@GRAD": dy,
            "SavedMean": mean.astype(y.dtype),
            "SavedVariance": inv_std.astype(y.dtype),
        },
        attrs,
    )
    return grads
