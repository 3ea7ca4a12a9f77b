"""CUDA twins of kernels/cpu/sequence.py: one thread per (sequence, column) for sequence_pool,
one per sequence for sequence_softmax; the offsets go to the device with the launch."""

import math

import numpy as np
from numba import cuda

from ..common import POOL_CODES, seq_offsets
from . import runtime as rt
from ._launch import flat, grid, zeros
from .launcher import jit_kernel


@jit_kernel
def _pool(x, offs, code, pad, out, idx, w):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < out.size:
        s, c = t // w, t % w
        a, b = offs[s], offs[s + 1]
        n = b - a
        idx[t] = -1
        if n == 0:
            out[t] = pad
        elif code == 3:
            best = a
            for r in range(a + 1, b):
                if x[r * w + c] > x[best * w + c]:
                    best = r
            out[t] = x[best * w + c]
            idx[t] = best
        elif code == 4:
            out[t] = x[(b - 1) * w + c]
        elif code == 5:
            out[t] = x[a * w + c]
        else:
            acc = 0.0
            for r in range(a, b):
                acc += x[r * w + c]
            if code == 0:
                acc /= n
            elif code == 2:
                acc /= math.sqrt(n)
            out[t] = acc
        t += step


@jit_kernel
def _pool_grad(dout, offs, code, idx, dx, w):
    """Each (sequence, column) writes only its own rows of dx (sequences do not overlap)."""
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < dout.size:
        s, c = t // w, t % w
        a, b = offs[s], offs[s + 1]
        n = b - a
        g = dout[t]
        if n > 0:
            if code == 3:
                dx[idx[t] * w + c] += g
            elif code == 4:
                dx[(b - 1) * w + c] += g
            elif code == 5:
                dx[a * w + c] += g
            else:
                if code == 0:
                    g /= n
                elif code == 2:
                    g /= math.sqrt(n)
                for r in range(a, b):
                    dx[r * w + c] += g
        t += step


def _width(x):
    return int(np.prod(x.shape[1:], dtype=np.int64))


def sequence_pool(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    code = POOL_CODES[attrs["pooltype"].upper()]
    shape = (offs.size - 1,) + tuple(x.shape[1:])
    out, idx = rt.empty(shape, x.dtype), rt.empty(shape, np.int32)
    if out.size:
        _pool[grid(out.size)](
            flat(x), rt.to_device(offs), code, float(attrs["pad_value"]), flat(out), flat(idx), _width(x)
        )
    return {"Out": out, "MaxIndex": idx}


def sequence_pool_grad(ins, attrs, ctx):
    x, dout = ins["X"], ins["Out@GRAD"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    code = POOL_CODES[attrs["pooltype"].upper()]
    dx = zeros(tuple(x.shape), x.dtype)
    idx = ins.get("MaxIndex")
    idx = flat(idx) if idx is not None else flat(zeros(tuple(dout.shape), np.int32))
    if dout.size:
        _pool_grad[grid(dout.size)](flat(dout), rt.to_device(offs), code, idx, flat(dx), _width(x))
    return {"X@GRAD": dx}


@jit_kernel
def _softmax(x, offs, out):
    s = cuda.grid(1)
    step = cuda.gridsize(1)
    while s < offs.size - 1:
        a, b = offs[s], offs[s + 1]
        if b > a:
            m = x[a]
            for r in range(a + 1, b):
                m = max(m, x[r])
            total = 0.0
            for r in range(a, b):
                out[r] = math.exp(x[r] - m)
                total += out[r]
            for r in range(a, b):
                out[r] /= total
        s += step


@jit_kernel
def _softmax_grad(out, dout, offs, dx):
    s = cuda.grid(1)
    step = cuda.gridsize(1)
    while s < offs.size - 1:
        a, b = offs[s], offs[s + 1]
        dot = 0.0
        for r in range(a, b):
            dot += out[r] * dout[r]
        for r in range(a, b):
            dx[r] = out[r] * (dout[r] - dot)
        s += step


def sequence_softmax(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    out = rt.empty(tuple(x.shape), x.dtype)
    if offs.size > 1:
        _softmax[grid(offs.size - 1)](flat(x), rt.to_device(offs), flat(out))
    return {"Out": out}


def sequence_softmax_grad(ins, attrs, ctx):
    out, dout = ins["Out"], ins["Out@GRAD"]
    offs = seq_offsets(ctx, "Out", out.shape[0])
    dx = rt.empty(tuple(out.shape), out.dtype)
    if offs.size > 1:
        _softmax_grad[grid(offs.size - 1)](flat(out), flat(dout), rt.to_device(offs), flat(dx))
    return {"X@GRAD": dx}
