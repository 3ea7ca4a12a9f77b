"""Reductions: sum / max / min of an array over any set of axes, and block-level helpers for
row kernels (softmax, cross-entropy, layer_norm).

Where the reduced elements of one output are contiguous (a row), a block reduces each output: its
threads stride along the row and combine through shared memory. Where they are not (columns, e.g.
the bias gradient), one thread per output walks its column, so neighbouring threads read
neighbouring addresses.
"""

import functools

import numpy as np
from numba import cuda

from . import runtime as rt
from ._elementwise import offset
from ._launch import SIM, THREADS, flat, grid, per_dtype, rows_grid
from .launcher import jit_kernel


@cuda.jit(device=True, inline=True)
def _sum(a, b):
    return a + b


@cuda.jit(device=True, inline=True)
def _max(a, b):
    return a if a >= b else b


@cuda.jit(device=True, inline=True)
def _min(a, b):
    return a if a <= b else b


@cuda.jit(device=True, inline=True)
def _prod(a, b):
    return a * b


_COMBINE = {"sum": _sum, "max": _max, "min": _min, "prod": _prod}


# -- block helpers for row kernels: every thread of the block gets the result ------------------


@cuda.jit(device=True, inline=True)
def block_sum(shared, value):
    t = cuda.threadIdx.x
    cuda.syncthreads()  # the previous use of `shared` is over
    shared[t] = value
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            shared[t] += shared[t + s]
        cuda.syncthreads()
        s //= 2
    return shared[0]


@cuda.jit(device=True, inline=True)
def block_max(shared, value):
    t = cuda.threadIdx.x
    cuda.syncthreads()
    shared[t] = value
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s and shared[t + s] > shared[t]:
            shared[t] = shared[t + s]
        cuda.syncthreads()
        s //= 2
    return shared[0]


# -- reducing an array over axes ----------------------------------------------------------------


def _thread_kernel(dt, kind):
    combine = _COMBINE[kind]

    @jit_kernel
    def kernel(x, out, kshape, kstr, rshape, rstr, nred, init, divisor):
        o = cuda.grid(1)
        step = cuda.gridsize(1)
        while o < out.size:
            base = offset(o, kshape, kstr)
            acc = init
            for r in range(nred):
                acc = combine(acc, x[base + offset(r, rshape, rstr)])
            if divisor != 1:
                out[o] = acc / divisor
            else:
                out[o] = acc
            o += step

    return kernel


def _block_kernel(dt, kind):
    combine = _COMBINE[kind]
    T = THREADS

    @jit_kernel
    def kernel(x, out, kshape, kstr, rshape, rstr, nred, init, divisor):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x  # a power of two <= T
        o = cuda.blockIdx.x
        while o < out.size:
            base = offset(o, kshape, kstr)
            acc = init
            r = t
            while r < nred:
                acc = combine(acc, x[base + offset(r, rshape, rstr)])
                r += nt
            shared[t] = acc
            cuda.syncthreads()
            s = nt // 2
            while s > 0:
                if t < s:
                    shared[t] = combine(shared[t], shared[t + s])
                cuda.syncthreads()
                s //= 2
            if t == 0:
                if divisor != 1:
                    out[o] = shared[0] / divisor
                else:
                    out[o] = shared[0]
            cuda.syncthreads()
            o += cuda.gridDim.x

    return kernel


_thread = per_dtype(_thread_kernel)
_block = per_dtype(_block_kernel)


def normalize_axes(ndim, axes):
    return tuple(sorted({a % ndim for a in axes})) if ndim else ()


@functools.lru_cache(maxsize=4096)  # shapes repeat every training step
def plan(shape, axes):
    """(kept dims, kept strides, reduced dims, reduced strides), each merged where contiguous."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    strides.reverse()
    groups = {True: ([], []), False: ([], [])}
    last = None
    for d, n in enumerate(shape):
        if n == 1:
            continue
        red = d in axes
        dims, st = groups[red]
        if last is red and dims and st[-1] == strides[d] * n:
            dims[-1] *= n
            st[-1] = strides[d]
        else:
            dims.append(n)
            st.append(strides[d])
        last = red
    (kd, ks), (rd, rs) = groups[False], groups[True]
    return tuple(kd) or (1,), tuple(ks) or (0,), tuple(rd) or (1,), tuple(rs) or (0,)


def _init(kind, dtype):
    if kind == "sum":
        return dtype.type(0)
    if kind == "prod":
        return dtype.type(1)
    if dtype.kind == "f":
        return dtype.type(-np.inf if kind == "max" else np.inf)
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:
        return dtype.type(kind == "min")
    return dtype.type(info.min if kind == "max" else info.max)


def reduce(x, axes, kind="sum", keepdims=False, mean=False, out=None):
    """``x`` reduced over ``axes`` with ``kind`` in sum/max/min/prod (``mean``: the sum / count).
    The result is a new contiguous device array (or ``out``, contiguous and of the result's size);
    a full reduction has shape () reshaped by callers."""
    shape = tuple(x.shape)
    axes = normalize_axes(len(shape), axes)
    out_shape = (
        tuple(1 if d in axes else n for d, n in enumerate(shape))
        if keepdims
        else tuple(n for d, n in enumerate(shape) if d not in axes)
    )
    dtype = np.dtype(x.dtype)
    out = rt.empty(out_shape, dtype) if out is None else out
    if out.size == 0:
        return out
    nred = 1
    for d in axes:
        nred *= shape[d]
    divisor = nred if mean else 1
    kshape, kstr, rshape, rstr = plan(shape, axes)
    rows = rstr[-1] == 1 and nred > 1  # an output's elements are contiguous
    if nred >= (2 * THREADS if not SIM else 2) and (rows or out.size < 64):
        _block(dtype, kind)[rows_grid(out.size, nred)](
            flat(x), flat(out), kshape, kstr, rshape, rstr, nred, _init(kind, dtype), divisor
        )
    else:
        _thread(dtype, kind)[grid(out.size)](
            flat(x), flat(out), kshape, kstr, rshape, rstr, nred, _init(kind, dtype), divisor
        )
    return out


def sum_to_shape(g, shape):
    """``g`` summed over the dims that numpy broadcasting stretched to reach it from ``shape``
    (the gradient of a broadcast), reshaped to ``shape``."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
    out = reduce(g, axes, "sum") if axes else g
    return out.reshape(shape) if tuple(out.shape) != shape else out
