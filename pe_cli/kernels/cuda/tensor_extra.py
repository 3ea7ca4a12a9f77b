"""CUDA twins of kernels/cpu/tensor_extra.py. where_index, whose output size depends on the data,
runs on the host as sequence_erase does; range reads its three scalars on the host to size its
output, then fills it in one launch."""
import math

import numpy as np
from numba import cuda

from ..cpu import tensor_extra as _cpu
from . import runtime as rt
from ._elementwise import offset
from ._launch import copy, flat, full, grid, zeros
from ._reduce import normalize_axes, plan, reduce
from ._strided import contiguous_strides, copy_window
from .tensor import _tile_view


# -- cumsum -------------------------------------------------------------------------------------

@cuda.jit
def _cumsum(x, out, n, post, lines, zero, exclusive, backward):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < lines:
        base = (i // post) * n * post + i % post
        acc = zero
        for k in range(n):
            j = base + ((n - 1 - k) if backward else k) * post
            v = x[j]
            if exclusive:
                out[j] = acc
                acc += v
            else:
                acc += v
                out[j] = acc
        i += step


def cumsum(ins, attrs):
    x = ins["X"]
    shape = tuple(x.shape) or (1,)
    axis = attrs["axis"] % len(shape)
    n = shape[axis]
    post = int(np.prod(shape[axis + 1:], dtype=np.int64))
    out = rt.empty(x.shape, x.dtype)
    lines = x.size // n if n else 0
    if lines:
        _cumsum[grid(lines)](flat(x), flat(out), n, post, lines, np.dtype(x.dtype).type(0),
                             bool(attrs["exclusive"]), bool(attrs["reverse"]))
    return {"Out": out}


# -- creating ------------------------------------------------------------------------------------

@cuda.jit
def _arange(out, start, step):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < out.size:
        out[i] = start + i * step
        i += stride


def arange(ins, attrs):
    start, end, step = _cpu.range_scalars({k: rt.to_host(ins[k]) for k in ("Start", "End", "Step")})
    n = _cpu.range_size(start, end, step)
    out = rt.empty((n,), ins["Start"].dtype)
    if n:
        _arange[grid(n)](out, start, step)
    return {"Out": out}


def fill_any_like(ins, attrs):
    x = ins["X"]
    return {"Out": full(x.shape, attrs["value"], np.dtype(attrs["dtype"] or x.dtype))}


@cuda.jit
def _eye(out, cols):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if i // cols == i % cols else 0
        i += step


def eye(ins, attrs):
    rows, cols = attrs["num_rows"], attrs["num_columns"]
    cols = rows if cols < 0 else cols
    out = rt.empty((rows, cols), np.dtype(attrs["dtype"]))
    if out.size:
        _eye[grid(out.size)](flat(out), cols)
    return {"Out": out}


@cuda.jit
def _diag(d, out, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        r = i // n
        out[i] = d[r] if r == i % n else 0
        i += step


def diag(ins, attrs):
    d = ins["Diagonal"]
    n = d.shape[0]
    out = rt.empty((n, n), d.dtype)
    if out.size:
        _diag[grid(out.size)](d, flat(out), n)
    return {"Out": out}


# -- reverse, expand_as -------------------------------------------------------------------------

def reverse(ins, attrs):
    """One strided copy reading X with negative strides along the reversed dims."""
    x = ins["X"]
    axes = _cpu.reverse_axes(x.ndim, attrs)
    shape = tuple(x.shape) or (1,)
    xstr = list(contiguous_strides(shape))
    base = 0
    for a in axes:
        base += (shape[a] - 1) * xstr[a]
        xstr[a] = -xstr[a]
    out = rt.empty(x.shape, x.dtype)
    copy_window(x, out, shape, xstr, contiguous_strides(shape), base if x.size else 0)
    return {"Out": out}


def expand_as(ins, attrs):
    x = ins["X"]
    times = _cpu.expand_times(tuple(x.shape), tuple(ins["target_tensor"].shape))
    out = rt.empty(tuple(ins["target_tensor"].shape), x.dtype)
    dims, src = _tile_view(x.shape, times)
    copy_window(x, out, dims, src, contiguous_strides(dims))
    return {"Out": out}


def expand_as_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    times = _cpu.expand_times(tuple(x.shape), tuple(dout.shape))
    dims = tuple(n for t, d in zip(times, x.shape) for n in (t, d))
    dx = reduce(dout.reshape(dims), tuple(range(0, 2 * x.ndim, 2)), "sum")
    return {"X@GRAD": dx.reshape(tuple(x.shape))}


# -- where_index, size, flags -------------------------------------------------------------------

def where_index(ins, attrs):
    return {"Out": rt.to_device(_cpu.where_index({"Condition": rt.to_host(ins["Condition"])}, attrs)["Out"])}


def size(ins, attrs):
    return {"Out": full((1,), ins["Input"].size, np.int64)}


def _flag_kernel(kind):
    @cuda.jit
    def kernel(x, out):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < x.size:
            v = x[i]
            if kind == 0:
                hit = math.isnan(v) or math.isinf(v)
            elif kind == 1:
                hit = math.isinf(v)
            else:
                hit = math.isnan(v)
            if hit:
                out[0] = 1
            i += step
    return kernel


_FLAGS = {"isfinite": _flag_kernel(0), "isinf": _flag_kernel(1), "isnan": _flag_kernel(2)}


def _flag(name):
    def kernel(ins, attrs):
        x = ins["X"]
        hit = zeros((1,), np.int32)
        if x.size:
            _FLAGS[name][grid(x.size)](flat(x), hit)
        found = bool(rt.to_host(hit)[0])
        return {"Out": rt.to_device(np.array([not found if name == "isfinite" else found]))}
    kernel.__name__ = name
    return kernel


isfinite = _flag("isfinite")
isinf = _flag("isinf")
isnan = _flag("isnan")


# -- reductions ---------------------------------------------------------------------------------

def _reduced(x, attrs, kind):
    axes = _cpu.reduce_axes(x, attrs)
    out = reduce(x, axes, kind, keepdims=attrs["keep_dim"])
    return out if out.ndim else out.reshape((1,))


def reduce_prod(ins, attrs):
    return {"Out": _reduced(ins["X"], attrs, "prod")}


def _logical(kind):
    def kernel(ins, attrs):
        out = _reduced(copy(ins["X"], np.uint8), attrs, kind)
        return {"Out": copy(out, np.bool_)}
    return kernel


reduce_all = _logical("min")
reduce_any = _logical("max")


@cuda.jit
def _prod_grad(x, dout, dx, kshape, kstr, rshape, rstr, nred, total):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        o = i // nred
        r = i % nred
        base = offset(o, kshape, kstr)
        acc = dout[o]
        for k in range(nred):
            if k != r:
                acc *= x[base + offset(k, rshape, rstr)]
        dx[base + offset(r, rshape, rstr)] = acc
        i += step


def reduce_prod_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        axes = normalize_axes(x.ndim, _cpu.reduce_axes(x, attrs))
        kshape, kstr, rshape, rstr = plan(tuple(x.shape), axes)
        nred = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        _prod_grad[grid(x.size)](flat(x), flat(dout), flat(dx), kshape, kstr, rshape, rstr, nred, x.size)
    return {"X@GRAD": dx}


def random_crop(ins, attrs):
    """Offsets drawn on the host (as the CPU kernel draws them), then one strided copy per instance."""
    x = ins["X"]
    shape = list(attrs["shape"])
    xs = tuple(x.shape)
    k = len(xs) - len(shape)
    offsets, next_seed = _cpu.crop_offsets(xs, attrs, rt.to_host(ins["Seed"]))
    out = rt.empty(xs[:k] + tuple(shape), x.dtype)
    inner = tuple(xs[k:])
    xstr, ostr = contiguous_strides((len(offsets),) + inner), contiguous_strides((len(offsets),) + tuple(shape))
    for i, off in enumerate(offsets):
        base = i * xstr[0] + sum(int(o) * s for o, s in zip(off, xstr[1:]))
        copy_window(x, out, tuple(shape), xstr[1:], ostr[1:], base, i * ostr[0])
    return {"Out": out, "SeedOut": rt.to_device(next_seed)}
