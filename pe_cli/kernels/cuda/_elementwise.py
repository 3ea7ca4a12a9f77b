"""Elementwise building blocks: a map over same-shaped arrays, and a binary op whose inputs
broadcast (numpy rules) into the output, each one launch.

An op is a device function of its array values and two scalar parameters ``p, q`` (unused ones
ignored): ``Unary(f)(x, p, q)``, ``Binary(f)(x, y, p, q)``, ``Ternary(f)(a, b, c, p, q)``.
Broadcast indexing collapses dims first, so the common cases (bias add, scalar) index cheaply.
"""

import functools

import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .launcher import jit_kernel


@cuda.jit(device=True, inline=True)
def offset(i, shape, strides):
    """Element offset of flat index ``i`` of ``shape`` in an array with element ``strides``."""
    off = 0
    for d in range(len(shape) - 1, -1, -1):
        n = shape[d]
        off += (i % n) * strides[d]
        i //= n
    return off


def _unary_kernel(fn):
    @jit_kernel
    def kernel(x, out, p, q):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            out[i] = fn(x[i], p, q)
            i += step

    return kernel


def _binary_kernel(fn):
    @jit_kernel
    def kernel(x, y, out, p, q):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            out[i] = fn(x[i], y[i], p, q)
            i += step

    return kernel


def _ternary_kernel(fn):
    @jit_kernel
    def kernel(a, b, c, out, p, q):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            out[i] = fn(a[i], b[i], c[i], p, q)
            i += step

    return kernel


def _broadcast_kernel(fn):
    @jit_kernel
    def kernel(x, y, out, shape, xs, ys, p, q):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            out[i] = fn(x[offset(i, shape, xs)], y[offset(i, shape, ys)], p, q)
            i += step

    return kernel


class Unary:
    def __init__(self, fn):
        self.kernel = _unary_kernel(fn)

    def __call__(self, x, p=0.0, q=0.0, dtype=None):
        out = rt.empty(x.shape, dtype or x.dtype)
        if out.size:
            self.kernel[grid(out.size)](flat(x), flat(out), p, q)
        return out


class Ternary:
    def __init__(self, fn):
        self.kernel = _ternary_kernel(fn)

    def __call__(self, a, b, c, p=0.0, q=0.0, dtype=None):
        out = rt.empty(a.shape, dtype or a.dtype)
        if out.size:
            self.kernel[grid(out.size)](flat(a), flat(b), flat(c), flat(out), p, q)
        return out


class Binary:
    """``Binary(f)(x, y)``: x and y broadcast into the output shape (numpy rules; align Fluid's
    ``axis`` first by viewing y with unit dims). Same shapes take a plain flat launch."""

    def __init__(self, fn):
        self.same = _binary_kernel(fn)
        self.broadcast = _broadcast_kernel(fn)

    def __call__(self, x, y, p=0.0, q=0.0, dtype=None, shape=None):
        xshape, yshape = tuple(x.shape), tuple(y.shape)
        out_shape = tuple(shape) if shape is not None else broadcast_shapes(xshape, yshape)
        out = rt.empty(out_shape, dtype or x.dtype)
        if not out.size:
            return out
        if xshape == out_shape and yshape == out_shape:
            self.same[grid(out.size)](flat(x), flat(y), flat(out), p, q)
        else:
            dims, xs, ys = collapse(out_shape, (xshape, yshape))
            self.broadcast[grid(out.size)](flat(x), flat(y), flat(out), dims, xs, ys, p, q)
        return out


@functools.lru_cache(maxsize=4096)
def _broadcast_shapes(a, b):
    return tuple(np.broadcast_shapes(a, b))


def broadcast_shapes(a, b):
    return _broadcast_shapes(tuple(a), tuple(b))


def broadcast_strides(shape, out_shape):
    """Element strides of a contiguous array of ``shape`` read as ``out_shape`` (0 where broadcast)."""
    shape = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    strides, step = [], 1
    for n, m in zip(reversed(shape), reversed(out_shape)):
        strides.append(step if n == m and n != 1 else 0)
        step *= n
    return list(reversed(strides))


@functools.lru_cache(maxsize=4096)  # shapes repeat every training step
def collapse(out_shape, in_shapes):
    """(dims, strides per input) with size-1 dims dropped and neighbours merged wherever every
    input steps through them alike, so most broadcasts index through one or two dims."""
    return merge_dims(out_shape, [broadcast_strides(s, out_shape) for s in in_shapes])


def merge_dims(dims, strides_list):
    """Drops size-1 dims of an index space and merges neighbours that every strided array walks
    as one (outer stride == inner stride * inner size). Returns (dims, strides, ...) as tuples,
    at least one dim long (kernels index tuples, and an empty tuple has no element type)."""
    merged, strides = [], [[] for _ in strides_list]
    for d, n in enumerate(dims):
        if n == 1:
            continue
        if merged and all(s[-1] == st[d] * n for s, st in zip(strides, strides_list)):
            merged[-1] *= n
            for s, st in zip(strides, strides_list):
                s[-1] = st[d]
            continue
        merged.append(n)
        for s, st in zip(strides, strides_list):
            s.append(st[d])
    if not merged:
        merged, strides = [1], [[0] for _ in strides_list]
    return (tuple(merged), *(tuple(s) for s in strides))


def _broadcast_map_kernel(fn):
    @jit_kernel
    def kernel(x, out, shape, xs, p, q):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            out[i] = fn(x[offset(i, shape, xs)], p, q)
            i += step

    return kernel


class BroadcastUnary:
    """``BroadcastUnary(f)(x, shape)``: out[i] = f(x broadcast to ``shape``, p, q), one launch."""

    def __init__(self, fn):
        self.same = _unary_kernel(fn)
        self.broadcast = _broadcast_map_kernel(fn)

    def __call__(self, x, shape, p=0.0, q=0.0, dtype=None):
        shape = tuple(shape)
        out = rt.empty(shape, dtype or x.dtype)
        if not out.size:
            return out
        if tuple(x.shape) == shape:
            self.same[grid(out.size)](flat(x), flat(out), p, q)
        else:
            dims, xs = collapse(shape, (tuple(x.shape),))
            self.broadcast[grid(out.size)](flat(x), flat(out), dims, xs, p, q)
        return out


@cuda.jit(device=True, inline=True)
def _divide_by(a, p, q):
    return a / p if p != 1 else a


_expand = BroadcastUnary(_divide_by)


def expand_to(x, shape, divisor=1):
    """``x`` broadcast (numpy rules) to ``shape`` as a new array, each value divided by ``divisor``."""
    return _expand(x, shape, divisor)


def scalar_arg(dtype, value):
    """A scalar kernel argument in the array's dtype, so float32 kernels compute in float32."""
    dtype = np.dtype(dtype)
    return dtype.type(value) if dtype.kind == "f" else value


@cuda.jit(device=True, inline=True)
def _conjugate(a, p, q):
    return a.conjugate()


_CONJ = Unary(_conjugate)


def conj(a):
    """a's complex conjugate (a itself when real): kernels/common.py ``conj``, Paddle's rule for the gradients
    of complex products (dX = dOut @ conj(Y)^T), on the device."""
    return _CONJ(a) if np.dtype(a.dtype).kind == "c" else a
