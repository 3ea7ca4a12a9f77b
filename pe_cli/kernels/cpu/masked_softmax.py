"""Kernels of pe_cli/ops/masked_softmax.py (numpy, in X's dtype), structured kernels (meta rules: shapes/softmax.py's
fused_softmax_mask_meta and masked_softmax_grad_meta): numpy forms, "numpy" variants (fresh,
kernels/structured.fresh_kernel). The kernels by name (CUDA's host ops) are the rule and out-kernel through
kernels/structured.adapter."""

import numpy as np

from ...shapes.softmax import fused_softmax_mask_meta, masked_softmax_grad_meta
from ..structured import adapter, fresh_kernel


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _fused_softmax_mask(ins, attrs):
    x = ins["X"]
    return {"Out": _softmax(x + ins["Mask"]).astype(x.dtype, copy=False)}


def _masked_softmax_grad(ins, attrs):
    out, d = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": (out * (d - np.sum(d * out, axis=-1, keepdims=True))).astype(out.dtype, copy=False)}


FUSED_SOFTMAX_MASK = fresh_kernel(_fused_softmax_mask, "fused_softmax_mask_out")
MASKED_SOFTMAX_GRAD = fresh_kernel(_masked_softmax_grad, "masked_softmax_grad_out")
fused_softmax_mask = adapter(fused_softmax_mask_meta, FUSED_SOFTMAX_MASK, "fused_softmax_mask")
masked_softmax_grad = adapter(masked_softmax_grad_meta, MASKED_SOFTMAX_GRAD, "masked_softmax_grad")
