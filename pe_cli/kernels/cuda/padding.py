"""CUDA twins of kernels/cpu/padding.py: pad, crop and their gradients are one strided copy of a
window; pad2d reads through the CPU's index maps (copied over), its gradient adds atomically where
reflect and edge padding copy a pixel several times."""
import numpy as np
from numba import cuda

from ..cpu import padding as _cpu
from . import runtime as rt
from ._launch import flat, full, grid, zeros
from ._strided import contiguous_strides, copy_window


def _place(src, dst, offsets):
    """dst[offsets : offsets + src.shape] = src."""
    dstr = contiguous_strides(dst.shape)
    copy_window(src, dst, tuple(src.shape), contiguous_strides(src.shape), dstr, 0,
                sum(o * s for o, s in zip(offsets, dstr)))
    return dst


def _take(src, offsets, shape):
    """A new array: src[offsets : offsets + shape]."""
    sstr = contiguous_strides(src.shape)
    out = rt.empty(tuple(shape), src.dtype)
    copy_window(src, out, tuple(shape), sstr, contiguous_strides(shape), sum(o * s for o, s in zip(offsets, sstr)))
    return out


def pad(ins, attrs):
    x, p = ins["X"], attrs["paddings"]
    shape = tuple(n + p[2 * i] + p[2 * i + 1] for i, n in enumerate(x.shape))
    out = full(shape, attrs["pad_value"], x.dtype)
    return {"Out": _place(x, out, p[0::2])}


def pad_grad(ins, attrs):
    x = ins["X"]
    return {"X@GRAD": _take(ins["Out@GRAD"], attrs["paddings"][0::2], x.shape)}


# -- pad2d ---------------------------------------------------------------------------------------

@cuda.jit(device=True)
def _pad2d_at(i, c, oh, ow, nhwc):
    """Output element i's (batch, channel, row, column), NCHW or NHWC."""
    if nhwc:
        return i // (c * ow * oh), i % c, (i // (c * ow)) % oh, (i // c) % ow
    return i // (ow * oh * c), (i // (ow * oh)) % c, (i // ow) % oh, i % ow


@cuda.jit(device=True)
def _pad2d_source(b, ch, sr, sc, c, h, w, nhwc):
    """The flat index of X's element (b, ch, sr, sc)."""
    if nhwc:
        return ((b * h + sr) * w + sc) * c + ch
    return ((b * c + ch) * h + sr) * w + sc


@cuda.jit
def _pad2d(x, rows, cols, out, c, h, w, oh, ow, nhwc, value):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        b, ch, r, j = _pad2d_at(i, c, oh, ow, nhwc)
        sr, sc = rows[r], cols[j]
        if sr < 0 or sc < 0:
            out[i] = value
        else:
            out[i] = x[_pad2d_source(b, ch, sr, sc, c, h, w, nhwc)]
        i += step


@cuda.jit
def _pad2d_grad(dout, rows, cols, dx, c, h, w, oh, ow, nhwc):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        b, ch, r, j = _pad2d_at(i, c, oh, ow, nhwc)
        sr, sc = rows[r], cols[j]
        if sr >= 0 and sc >= 0:
            cuda.atomic.add(dx, _pad2d_source(b, ch, sr, sc, c, h, w, nhwc), dout[i])
        i += step


def _geometry(x_shape, attrs):
    rows, cols = _cpu.pad2d_maps(x_shape, attrs)
    nhwc = attrs["data_format"] == "NHWC"
    n, c, h, w = (x_shape[0], x_shape[3], x_shape[1], x_shape[2]) if nhwc else x_shape
    out = (n, rows.size, cols.size, c) if nhwc else (n, c, rows.size, cols.size)
    return rt.to_device(rows), rt.to_device(cols), (c, h, w, rows.size, cols.size, nhwc), out


def pad2d(ins, attrs):
    x = ins["X"]
    rows, cols, geo, shape = _geometry(tuple(x.shape), attrs)
    out = rt.empty(shape, x.dtype)
    if out.size:
        _pad2d[grid(out.size)](flat(x), rows, cols, flat(out), *geo, np.dtype(x.dtype).type(attrs["pad_value"]))
    return {"Out": out}


def pad2d_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    rows, cols, geo, _ = _geometry(tuple(x.shape), attrs)
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _pad2d_grad[grid(dout.size)](flat(dout), rows, cols, flat(dx), *geo)
    return {"X@GRAD": dx}


# -- pad_constant_like, crop ------------------------------------------------------------------------

def pad_constant_like(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return {"Out": _place(y, full(x.shape, attrs["pad_value"], y.dtype), [0] * y.ndim)}


def pad_constant_like_grad(ins, attrs):
    y = ins["Y"]
    return {"Y@GRAD": _take(ins["Out@GRAD"], [0] * y.ndim, y.shape)}


def crop(ins, attrs):
    offsets, shape = _cpu.crop_geometry(ins, attrs)
    return {"Out": _take(ins["X"], offsets, shape)}


def crop_grad(ins, attrs):
    x = ins["X"]
    offsets, _ = _cpu.crop_geometry(ins, attrs)
    return {"X@GRAD": _place(ins["Out@GRAD"], zeros(x.shape, x.dtype), offsets)}
