"""CUDA twins of kernels/cpu/tensor.py. Random ops draw on the host with the same numpy Generator
as the CPU kernels and copy the result over, so both devices initialize parameters identically.
Reshape-like ops return views (kernels never write their inputs, so sharing the buffer is safe);
every other data movement is one strided-copy launch."""
import builtins

import numpy as np
from numba import cuda

from ..common import (check_slice_not_empty, gather_rows, one_hot_ids, reshape_shape, slice_window, split_sizes,
                      squeeze_axes, unsqueeze_shape)
from ..cpu import tensor as _cpu
from . import runtime as rt
from ._launch import copy, flat, full, grid, zeros
from ._reduce import reduce
from ._strided import contiguous_strides, copy_window
from . import selected_rows as _sparse
from ...selected_rows import SelectedRows


def fill_constant(ins, attrs):
    return {"Out": full(attrs["shape"], attrs["value"], attrs["dtype"])}


def fill_zeros_like(ins, attrs):
    x = ins["X"]
    if isinstance(x, list):         # a tensor array (a While's gradient): empty slots, as on the CPU
        return _cpu.fill_zeros_like(ins, attrs)
    return {"Out": zeros(x.shape, x.dtype)}


def _on_host(cpu_kernel):
    def kernel(ins, attrs):
        return {"Out": rt.to_device(cpu_kernel(ins, attrs)["Out"])}
    kernel.__name__ = cpu_kernel.__name__
    return kernel


uniform_random = _on_host(_cpu.uniform_random)
gaussian_random = _on_host(_cpu.gaussian_random)
truncated_gaussian_random = _on_host(_cpu.truncated_gaussian_random)
assign_value = _on_host(_cpu.assign_value)


def _sum_kernel(n):
    @cuda.jit
    def add_n(xs, out):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            acc = xs[0][i]
            for k in range(1, n):       # in order, as the CPU adds them
                acc += xs[k][i]
            out[i] = acc
            i += step
    return add_n


_sum_kernels = {}


def _add_slots(a, b):
    """a + b for tensor arrays' gradients, slot by slot (None: zero), each sum on the device."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, list):
        n = builtins.max(len(a), len(b))
        return [_add_slots(x, y) for x, y in zip(list(a) + [None] * (n - len(a)), list(b) + [None] * (n - len(b)))]
    return sum({"X": [a, b]}, {})["Out"]


def sum(ins, attrs):
    xs = ins["X"]
    if isinstance(xs[0], list):         # tensor arrays' gradients (control flow), as on the CPU
        out = xs[0]
        for x in xs[1:]:
            out = _add_slots(out, x)
        return {"Out": out}
    if any(isinstance(x, SelectedRows) for x in xs):
        return {"Out": _sparse.sum_with_sparse(xs, lambda dense: sum({"X": dense}, attrs)["Out"])}
    if len(xs) == 1:
        return {"Out": copy(xs[0])}
    kernel = _sum_kernels.get(len(xs))
    if kernel is None:
        kernel = _sum_kernels[len(xs)] = _sum_kernel(len(xs))
    out = rt.empty(xs[0].shape, xs[0].dtype)
    if out.size:
        kernel[grid(out.size)](tuple(flat(x) for x in xs), flat(out))
    return {"Out": out}


def assign(ins, attrs):
    return {"Out": copy(ins["X"])}


# -- joining and splitting along an axis ------------------------------------------------------

def _place_along(parts, out, axis):
    """Copies each part into ``out`` at its running offset along ``axis``."""
    ostr = contiguous_strides(out.shape)
    start = 0
    for part in parts:
        copy_window(part, out, part.shape, contiguous_strides(part.shape), ostr, 0, start * ostr[axis])
        start += part.shape[axis]
    return out


def _take_along(src, sizes, axis):
    """Splits ``src`` along ``axis`` into new arrays of the given sizes."""
    sstr = contiguous_strides(src.shape)
    parts, start = [], 0
    for n in sizes:
        shape = tuple(src.shape[:axis]) + (n,) + tuple(src.shape[axis + 1:])
        part = rt.empty(shape, src.dtype)
        copy_window(src, part, shape, sstr, contiguous_strides(shape), start * sstr[axis], 0)
        parts.append(part)
        start += n
    return parts


def concat(ins, attrs):
    xs = ins["X"]
    axis = attrs["axis"] % xs[0].ndim
    shape = list(xs[0].shape)
    shape[axis] = builtins.sum(x.shape[axis] for x in xs)
    return {"Out": _place_along(xs, rt.empty(shape, xs[0].dtype), axis)}


def concat_grad(ins, attrs):
    xs, dout = ins["X"], ins["Out@GRAD"]
    axis = attrs["axis"] % dout.ndim
    return {"X@GRAD": _take_along(dout, [x.shape[axis] for x in xs], axis)}


def split(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    return {"Out": _take_along(x, split_sizes(tuple(x.shape), axis, attrs), axis)}


def stack(ins, attrs):
    xs = ins["X"]
    axis = attrs["axis"] % (xs[0].ndim + 1)
    unit = tuple(xs[0].shape[:axis]) + (1,) + tuple(xs[0].shape[axis:])
    shape = unit[:axis] + (len(xs),) + unit[axis + 1:]
    return {"Y": _place_along([x.reshape(unit) for x in xs], rt.empty(shape, xs[0].dtype), axis)}


def stack_grad(ins, attrs):
    xs, dy = ins["X"], ins["Y@GRAD"]
    axis = attrs["axis"] % dy.ndim
    parts = _take_along(dy, [1] * len(xs), axis)
    return {"X@GRAD": [p.reshape(x.shape) for p, x in zip(parts, xs)]}


# -- reshape family: views ---------------------------------------------------------------------

def _xshape(x):
    return rt.empty((0,) + tuple(x.shape), x.dtype)


def reshape(ins, attrs):
    x = ins["X"]
    shape = rt.to_host(ins["Shape"]).reshape(-1).tolist() if "Shape" in ins else attrs["shape"]
    return {"Out": x.reshape(tuple(reshape_shape(tuple(x.shape), x.size, shape))), "XShape": _xshape(x)}


def reshape_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout.reshape(tuple(x.shape))}


def flatten(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"]
    rows = int(np.prod(x.shape[:axis]))
    cols = int(np.prod(x.shape[axis:]))
    return {"Out": x.reshape((rows, cols)), "XShape": _xshape(x)}


def squeeze(ins, attrs):
    x = ins["X"]
    axes = squeeze_axes(tuple(x.shape), attrs["axes"])
    return {"Out": x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes)),
            "XShape": _xshape(x)}


def unsqueeze(ins, attrs):
    x = ins["X"]
    return {"Out": x.reshape(tuple(unsqueeze_shape(tuple(x.shape), attrs["axes"]))), "XShape": _xshape(x)}


def transpose(ins, attrs):
    x = ins["X"]
    perm = [a % x.ndim for a in attrs["axis"]]
    shape = tuple(x.shape[p] for p in perm)
    xstr = contiguous_strides(x.shape)
    out = rt.empty(shape, x.dtype)
    copy_window(x, out, shape, [xstr[p] for p in perm], contiguous_strides(shape))
    return {"Out": out, "XShape": _xshape(x)}


def cast(ins, attrs):
    return {"Out": copy(ins["X"], np.dtype(attrs["out_dtype"]))}


# -- slice ---------------------------------------------------------------------------------------

def slice(ins, attrs):
    x = ins["Input"]
    starts, sizes = slice_window(tuple(x.shape), attrs)
    check_slice_not_empty(x.shape, sizes, attrs)
    xstr = contiguous_strides(x.shape)
    out = rt.empty(sizes, x.dtype)
    copy_window(x, out, sizes, xstr, contiguous_strides(sizes), builtins.sum(s * t for s, t in zip(starts, xstr)))
    decrease = tuple(a % x.ndim for a in attrs["decrease_axis"])
    if decrease:
        out = out.reshape(tuple(d for i, d in enumerate(sizes) if i not in decrease) or (1,))
    return {"Out": out}


def slice_grad(ins, attrs):
    x, dout = ins["Input"], ins["Out@GRAD"]
    starts, sizes = slice_window(tuple(x.shape), attrs)
    xstr = contiguous_strides(x.shape)
    dx = zeros(x.shape, x.dtype)
    copy_window(dout, dx, sizes, contiguous_strides(sizes), xstr, 0,
                builtins.sum(s * t for s, t in zip(starts, xstr)))
    return {"Input@GRAD": dx}


# -- gather, one_hot, expand ---------------------------------------------------------------------

def _checked_rows(index, n):
    """The index as a flat int64 device array, checked (on the host) to lie in [0, n)."""
    gather_rows(rt.to_host(index), n)
    idx = index.reshape((index.size,))
    return idx if idx.dtype == np.int64 else copy(idx, np.int64)


@cuda.jit
def _gather_rows(x, idx, out, row):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        r = i // row
        out[i] = x[idx[r] * row + i % row]
        i += step


@cuda.jit
def _scatter_add_rows(dout, idx, dx, row):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        r = i // row
        cuda.atomic.add(dx, idx[r] * row + i % row, dout[i])
        i += step


def gather(ins, attrs):
    x = ins["X"]
    idx = _checked_rows(ins["Index"], x.shape[0])
    out = rt.empty((idx.size,) + tuple(x.shape[1:]), x.dtype)
    if out.size:
        _gather_rows[grid(out.size)](flat(x), idx, flat(out), out.size // idx.size)
    return {"Out": out}


def gather_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    idx = _checked_rows(ins["Index"], x.shape[0])
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _scatter_add_rows[grid(dout.size)](flat(dout), idx, flat(dx), dout.size // idx.size)
    return {"X@GRAD": dx}


@cuda.jit
def _one_hot(ids, out, depth):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if ids[i // depth] == i % depth else 0
        i += step


def one_hot(ins, attrs):
    x, depth = ins["X"], attrs["depth"]
    if not attrs["allow_out_of_range"]:
        one_hot_ids(rt.to_host(x), depth, False)          # raises the CPU kernel's error, if any
    out = rt.empty(tuple(x.shape[:-1]) + (depth,), np.dtype(attrs["dtype"]))
    if out.size:
        _one_hot[grid(out.size)](flat(x), flat(out), depth)
    return {"Out": out}


def _tile_view(shape, times):
    """Out (X tiled) seen as [t0, d0, t1, d1, ...]; X read with stride 0 along the t's."""
    xstr = contiguous_strides(shape)
    dims = tuple(n for t, d in zip(times, shape) for n in (t, d))
    src = tuple(s for st in xstr for s in (0, st))
    return dims, src


def expand(ins, attrs):
    x = ins["X"]
    times = list(attrs["expand_times"])
    shape = tuple(t * d for t, d in zip(times, x.shape))
    out = rt.empty(shape, x.dtype)
    dims, src = _tile_view(x.shape, times)
    copy_window(x, out, dims, src, contiguous_strides(dims))
    return {"Out": out}


def expand_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    times = list(attrs["expand_times"])
    dims = tuple(n for t, d in zip(times, x.shape) for n in (t, d))
    dx = reduce(dout.reshape(dims), tuple(range(0, 2 * x.ndim, 2)), "sum")
    return {"X@GRAD": dx.reshape(tuple(x.shape))}
