"""Out-kernels of ops/normalization_activated.py (structured kernels; meta rules: shapes/normalization_activated.py):
batch_norm's out-kernels (kernels/cpu/batch_norm.py) into the buffers handed, with the activation written over Y
after them; the gradient recovers the normalized value and X from Y, then runs batch_norm_grad's."""

import numpy as np

from ...shapes.normalization import bn_channel_axis
from ...shapes.normalization_activated import inplace_abn_grad_meta, inplace_abn_meta
from ..structured import adapter
from . import batch_norm as bn
from .launches import by_variant


def _act(ins, outs, attrs, meta):
    (inner,) = meta.args
    bn.FORWARD(ins, outs, attrs, inner)
    y = outs["Y"]
    alpha, kind = y.dtype.type(attrs["alpha"]), attrs["activation"]
    if kind == "leaky_relu":  # (y >= 0 ? y : alpha * y)
        np.multiply(y, alpha, out=y, where=~(y >= 0))
    elif kind == "elu":  # (y > 0 ? y : alpha * (exp(y) - 1))
        e = outs["elu"]
        np.exp(y, out=e)
        np.subtract(e, 1, out=e)
        np.multiply(alpha, e, out=e)
        np.copyto(y, e, where=~(y > 0))


def _undo_act(y, dy, attrs):
    """(the normalized value, its gradient) from Y and Y@GRAD, as Fluid's InplaceABNActivation::GradCompute."""
    alpha, kind = y.dtype.type(attrs["alpha"]), attrs["activation"]
    if kind == "leaky_relu":
        return np.where(y >= 0, y, y / alpha), np.where(y > 0, dy, alpha * dy)
    if kind == "elu":
        return np.where(y >= 0, y, np.log(y / alpha + 1)), np.where(y > 0, dy, dy * (y + alpha))
    return y, dy


def _undo(ins, outs, attrs, meta):
    inner, (mean_given, var_given) = meta.args
    y, dy = _undo_act(ins["Y"], ins["Y@GRAD"], attrs)
    scale, bias = ins["Scale"].astype(y.dtype), ins["Bias"].astype(y.dtype)
    mean = ins["Mean"] if mean_given else ins["SavedMean"]
    inv_std = (1.0 / np.sqrt(ins["Variance"] + attrs["epsilon"])) if var_given else ins["SavedVariance"]
    shape = [1] * y.ndim
    shape[bn_channel_axis(y.ndim, attrs["data_layout"])] = -1
    x = (y - bias.reshape(shape)) / (scale * inv_std).astype(y.dtype).reshape(shape) + mean.astype(y.dtype).reshape(
        shape
    )
    bn_ins = {
        "X": x.astype(y.dtype),
        "Scale": ins["Scale"],
        "Y@GRAD": dy,
        "SavedMean": mean.astype(y.dtype),
        "SavedVariance": inv_std.astype(y.dtype),
    }
    bn.GRAD(bn_ins, outs, attrs, inner)


INPLACE_ABN = by_variant("inplace_abn_out", None, act=_act)
INPLACE_ABN_GRAD = by_variant("inplace_abn_grad_out", None, undo=_undo)
# (the kernels by name, for CUDA's host fallbacks: kernels/cuda/normalization_activated.py's HOST_OPS)
inplace_abn = adapter(inplace_abn_meta, INPLACE_ABN, "inplace_abn")
inplace_abn_grad = adapter(inplace_abn_grad_meta, INPLACE_ABN_GRAD, "inplace_abn_grad")
