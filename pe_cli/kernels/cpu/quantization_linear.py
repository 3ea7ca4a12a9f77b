"""Kernels of pe_cli/ops/quantization_linear.py: numpy in X's dtype, Paddle 2.6's roundings (round_type 0:
ties to even, clipped to [-bins - 1, bins]; 1: ties away from zero after clipping X to [-scale, scale]).
Structured kernels (meta rules: shapes/quantization.py), numpy forms with no ``out=``, the "numpy" variant
(``fresh``: kernels/structured.fresh_kernel); the kernels by name are the adapters CUDA runs on the host."""

import numpy as np

from ...shapes import quantization as rules
from ..structured import adapter, fresh_kernel


def _bins(attrs):
    return (1 << (attrs["bit_length"] - 1)) - 1


def _per_channel(scale, x, axis):
    """Scale shaped to broadcast along ``axis`` of X (one value: as it is)."""
    s = np.asarray(scale).reshape(-1)
    if s.size == 1 or axis < 0:
        return x.dtype.type(s[0]) if s.size == 1 else s
    shape = [1] * x.ndim
    shape[axis] = s.size
    return s.reshape(shape).astype(x.dtype, copy=False)


def quantize(x, s, bins, round_type):
    t = x.dtype.type
    with np.errstate(divide="ignore", invalid="ignore"):
        if round_type == 0:
            return np.clip(np.rint(x * (t(1) / s) * t(bins)), t(-bins - 1), t(bins))
        v = np.clip(x, -s, s) * (t(1) / s) * t(bins)
        return np.sign(v) * np.floor(np.abs(v) + t(0.5))


def _quantize_linear(ins, attrs):
    x = ins["X"]
    s = _per_channel(ins["Scale"], x, attrs["quant_axis"])
    return {"Y": quantize(x, s, _bins(attrs), attrs["round_type"]).astype(x.dtype, copy=False)}


def _dequantize_linear(ins, attrs):
    x, scale = ins["X"], np.asarray(ins["Scale"])
    xf = x.astype(scale.dtype, copy=False)
    s = _per_channel(scale, xf, attrs["quant_axis"])
    return {"Y": (xf * s / scale.dtype.type(_bins(attrs))).astype(scale.dtype, copy=False)}


OUT = {
    "quantize_linear": fresh_kernel(_quantize_linear, "quantize_linear_out"),
    "dequantize_linear": fresh_kernel(_dequantize_linear, "dequantize_linear_out"),
}
META = {"quantize_linear": rules.quantize_linear_meta, "dequantize_linear": rules.dequantize_linear_meta}
quantize_linear, dequantize_linear = (adapter(META[op], OUT[op], op) for op in ("quantize_linear", "dequantize_linear"))
