"""CPU out-kernels of conv2d_transpose, depthwise_conv2d_transpose and their gradients (ops/convolution_transpose.py):
conv2d's out-kernels (convolution.py) with the roles swapped, following the TransposePlan their meta rules decide
(shapes/conv2d_transpose.py): on the first k input channels (a contiguous copy where the groups leave some over),
into the buffers they are handed (the left-over channels' gradients 0)."""

import numpy as np

from ..conv_transpose import ShapeOf, take_channels
from .convolution import forward_into, grads_into
from .launches import by_variant
from ...shapes.conv2d_transpose import TRANSPOSE


def _used(ins, k):
    """Input and Filter on their first k input channels."""
    x, w = ins["Input"], ins["Filter"]
    return (x, w) if k == w.shape[0] else (take_channels(x, k, 1), take_channels(w, k, 0))


def _part(out, k, axis):
    """``out`` where all of its channels along ``axis`` take part, else a new buffer of the first k."""
    if out.shape[axis] == k:
        return out
    return np.empty(out.shape[:axis] + (k,) + out.shape[axis + 1 :], out.dtype)


def _place(out, part, axis):
    """``part`` in the first channels of ``out`` along ``axis``, zeros after (where it is not ``out`` itself)."""
    if part is not out:
        out.fill(0)
        out[(slice(None),) * axis + (slice(0, part.shape[axis]),)] = part


def _forward(ins, outs, attrs, meta):
    t, out = meta.args, outs["Output"]
    x, w = _used(ins, t.k)
    grads_into(t.conv, t.variant, {"Input": ShapeOf(out.shape, out.dtype), "Filter": w, "Output@GRAD": x}, out, None)


def _grads(ins, outs, attrs, meta):
    t, dout = meta.args, ins["Output@GRAD"]
    x, w = _used(ins, t.k)
    dx, dw = outs.get("Input@GRAD"), outs.get("Filter@GRAD")
    if dx is not None:  # conv2d of Output@GRAD
        part = _part(dx, t.k, 1)
        forward_into(t.conv, t.variant, dout, w, part)
        _place(dx, part, 1)
    if dw is not None:  # conv2d's filter gradient, Output@GRAD its input and Input its output gradient
        part = _part(dw, t.k, 0)
        grads_into(t.filter_conv, t.filter_variant, {"Input": dout, "Filter": w, "Output@GRAD": x}, None, part)
        _place(dw, part, 0)


conv2d_transpose_out = by_variant("conv2d_transpose_out", None, **{TRANSPOSE: _forward})
conv2d_transpose_grad_out = by_variant("conv2d_transpose_grad_out", None, **{TRANSPOSE: _grads})
