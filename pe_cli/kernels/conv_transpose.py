"""conv2d_transpose's kernels made from one device's conv2d kernels, the roles swapped: its Output is
conv2d_grad_input of a conv2d whose input is that Output, whose filter is Filter [C_in = that conv's
num_filters, C_out/groups, kh, kw] and whose output gradient is Input (shapes/conv_plans.py plans it).
CUDA builds its kernels here (kernels/cuda/convolution.py); the CPU's structured out-kernels
(kernels/cpu/conv2d_transpose.py, their meta rules in shapes/conv2d_transpose.py) take ShapeOf and
take_channels from here."""

import numpy as np

from ..shapes.conv_plans import conv_transpose_plan


class ShapeOf:
    """What conv2d_grad_input reads of its Input: the shape and dtype, no values."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype
        self.ndim = len(self.shape)


def take_channels(a, k, axis):
    """a's first k entries along ``axis`` (0 or 1), contiguous."""
    return np.ascontiguousarray(a[:k] if axis == 0 else a[:, :k])


def put_channels(a, shape, axis):
    """a in zeros of ``shape``, at the start of ``axis`` (0 or 1)."""
    full = np.zeros(shape, dtype=a.dtype)
    full[(slice(None),) * axis + (slice(0, a.shape[axis]),)] = a
    return full


def _used_channels(ins, attrs, take):
    """(Input, Filter, channels): Fluid's kernel convolves groups * (C_in // groups) input channels (C_in //
    groups per group); those the groups leave over take no part (their gradients are 0)."""
    x, w = ins["Input"], ins["Filter"]
    k = w.shape[0] // attrs["groups"] * attrs["groups"]
    if k == w.shape[0] or k == 0:
        return x, w, w.shape[0]
    return take(x, k, 1), take(w, k, 0), k


def transpose_kernels(conv2d, conv2d_grad_input, conv2d_grad_filter, take=take_channels, put=put_channels):
    """conv2d_transpose's three kernels from one device's conv2d kernels (``take`` / ``put``: that
    device's take_channels / put_channels)."""

    def forward(ins, attrs):
        x, w, _ = _used_channels(ins, attrs, take)
        out_shape, conv_attrs = conv_transpose_plan(tuple(x.shape), tuple(w.shape), attrs)
        like = ShapeOf(out_shape, x.dtype)
        return {"Output": conv2d_grad_input({"Input": like, "Filter": w, "Output@GRAD": x}, conv_attrs)["Input@GRAD"]}

    def grad_input(ins, attrs):
        x, w, k = _used_channels(ins, attrs, take)
        _, conv_attrs = conv_transpose_plan(tuple(x.shape), tuple(w.shape), attrs)
        dx = conv2d({"Input": ins["Output@GRAD"], "Filter": w}, conv_attrs)["Output"]
        return {"Input@GRAD": dx if k == ins["Input"].shape[1] else put(dx, tuple(ins["Input"].shape), 1)}

    def grad_filter(ins, attrs):
        x, w, k = _used_channels(ins, attrs, take)
        _, conv_attrs = conv_transpose_plan(tuple(x.shape), tuple(w.shape), attrs)
        dw = conv2d_grad_filter({"Input": ins["Output@GRAD"], "Filter": w, "Output@GRAD": x}, conv_attrs)["Filter@GRAD"]
        return {"Filter@GRAD": dw if k == ins["Filter"].shape[0] else put(dw, tuple(ins["Filter"].shape), 0)}

    return forward, grad_input, grad_filter
