"""Kernels of pe_cli/ops/masked_softmax.py (numpy, in X's dtype)."""

import numpy as np


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def fused_softmax_mask(ins, attrs):
    x = ins["X"]
    return {"Out": _softmax(x + ins["Mask"]).astype(x.dtype, copy=False)}


def masked_softmax_grad(ins, attrs):
    out, d = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": (out * (d - np.sum(d * out, axis=-1, keepdims=True))).astype(out.dtype, copy=False)}
