"""The meta rules (shapes/structured.py) of instance_norm_grad_grad and batch_norm_grad_grad (ops/norm_double_grad.py;
out-kernels: kernels/cpu/norm_double_grad.py): DX and DDY of X's shape, DScale one value per channel (instance norm:
X's dim 1; batch norm: SavedVariance's), all three in X's dtype. Variant "numpy", ``fresh``: the formulas are numpy's
expressions in float64, cast to X's dtype, and those arrays are the outputs."""

import numpy as np

from .structured import Meta


def _meta(x, channels):
    dtype = np.dtype(x.dtype)
    shape = tuple(x.shape)
    return Meta({"DX": (shape, dtype), "DDY": (shape, dtype), "DScale": ((channels,), dtype)}, "numpy", fresh=True)


def instance_norm_grad_grad_meta(attrs, ins, facts):
    x = ins["X"]
    return _meta(x, x.shape[1])


def batch_norm_grad_grad_meta(attrs, ins, facts):
    return _meta(ins["X"], int(np.prod(ins["SavedVariance"].shape)))
