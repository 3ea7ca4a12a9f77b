"""CUDA twins of kernels/cpu/padding.py: pad, crop and their gradients are one strided copy of a
window; pad2d and pad3d read through the CPU's index maps (copied over), their gradients add
atomically where reflect, edge and circular padding copy a pixel several times."""

import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import flat, full, grid, zeros
from ._strided import contiguous_strides, copy_window
from .launcher import jit_kernel
from ...shapes.padding import crop_geometry, crop_tensor_attrs, pad_maps


def _place(src, dst, offsets):
    """dst[offsets : offsets + src.shape] = src."""
    dstr = contiguous_strides(dst.shape)
    copy_window(
        src, dst, tuple(src.shape), contiguous_strides(src.shape), dstr, 0, sum(o * s for o, s in zip(offsets, dstr))
    )
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


# -- pad2d, pad3d -----------------------------------------------------------------------------------
# Both run as three-dimensional padding: pad2d's images are volumes of depth 1 (a map [0]).


@cuda.jit(device=True)
def _pad_at(i, c, od, oh, ow, last):
    """Output element i's (batch, channel, depth, row, column), channels first or last."""
    s = od * oh * ow
    p = (i // c) % s if last else i % s
    ch = i % c if last else (i // s) % c
    return i // (c * s), ch, p // (oh * ow), (p // ow) % oh, p % ow


@cuda.jit(device=True)
def _pad_source(b, ch, z, y, x, c, d, h, w, last):
    """The flat index of X's element (b, ch, z, y, x)."""
    if last:
        return (((b * d + z) * h + y) * w + x) * c + ch
    return (((b * c + ch) * d + z) * h + y) * w + x


@jit_kernel
def _pad(x, deps, rows, cols, out, c, d, h, w, od, oh, ow, last, value):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        b, ch, k, r, j = _pad_at(i, c, od, oh, ow, last)
        sz, sr, sc = deps[k], rows[r], cols[j]
        if sz < 0 or sr < 0 or sc < 0:
            out[i] = value
        else:
            out[i] = x[_pad_source(b, ch, sz, sr, sc, c, d, h, w, last)]
        i += step


@jit_kernel
def _pad_grad(dout, deps, rows, cols, dx, c, d, h, w, od, oh, ow, last):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        b, ch, k, r, j = _pad_at(i, c, od, oh, ow, last)
        sz, sr, sc = deps[k], rows[r], cols[j]
        if sz >= 0 and sr >= 0 and sc >= 0:
            cuda.atomic.add(dx, _pad_source(b, ch, sz, sr, sc, c, d, h, w, last), dout[i])
        i += step


def _geometry(op, ins, attrs):
    x_shape = tuple(ins["X"].shape)
    paddings = rt.to_host(ins["Paddings"]) if "Paddings" in ins else None
    maps, _, last = pad_maps(op, x_shape, attrs, paddings)
    sizes = list(x_shape[1:-1] if last else x_shape[2:])
    if len(maps) == 2:
        maps, sizes = [np.zeros(1, np.int64)] + maps, [1] + sizes
    n, c = x_shape[0], x_shape[-1] if last else x_shape[1]
    spatial = tuple(m.size for m in maps)[3 - (len(x_shape) - 2) :]
    out = (n,) + (spatial + (c,) if last else (c,) + spatial)
    return [rt.to_device(m) for m in maps], (c, *sizes, *(m.size for m in maps), last), out


def _pad_op(op, ins, attrs, value):
    x = ins["X"]
    maps, geo, shape = _geometry(op, ins, attrs)
    out = rt.empty(shape, x.dtype)
    if out.size:
        _pad[grid(out.size)](flat(x), *maps, flat(out), *geo, np.dtype(x.dtype).type(value))
    return {"Out": out}


def _pad_op_grad(op, ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    maps, geo, _ = _geometry(op, ins, attrs)
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _pad_grad[grid(dout.size)](flat(dout), *maps, flat(dx), *geo)
    return {"X@GRAD": dx}


def pad2d(ins, attrs):
    return _pad_op("pad2d", ins, attrs, attrs["pad_value"])


def pad2d_grad(ins, attrs):
    return _pad_op_grad("pad2d", ins, attrs)


def pad3d(ins, attrs):
    return _pad_op("pad3d", ins, attrs, attrs["value"])


def pad3d_grad(ins, attrs):
    return _pad_op_grad("pad3d", ins, attrs)


# -- pad_constant_like, crop ------------------------------------------------------------------------


def pad_constant_like(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return {"Out": _place(y, full(x.shape, attrs["pad_value"], y.dtype), [0] * y.ndim)}


def pad_constant_like_grad(ins, attrs):
    y = ins["Y"]
    return {"Y@GRAD": _take(ins["Out@GRAD"], [0] * y.ndim, y.shape)}


def crop(ins, attrs):
    offsets, shape = crop_geometry(ins, attrs)
    return {"Out": _take(ins["X"], offsets, shape)}


def crop_grad(ins, attrs):
    x = ins["X"]
    offsets, _ = crop_geometry(ins, attrs)
    return {"X@GRAD": _place(ins["Out@GRAD"], zeros(x.shape, x.dtype), offsets)}


def crop_tensor(ins, attrs):
    return crop(ins, crop_tensor_attrs(ins, attrs))


def crop_tensor_grad(ins, attrs):
    return crop_grad(ins, crop_tensor_attrs(ins, attrs))
