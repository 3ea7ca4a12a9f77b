"""CUDA twins of kernels/cpu/sequence_window.py: one thread per output value; each step's sequence
bounds (computed on the host from the LoD) go to the device with the launch."""

import numpy as np
from numba import cuda

from ..common import seq_offsets
from ..seq_maps import row_conv_offsets, scatter_checks
from . import runtime as rt
from ._launch import copy, flat, grid
from .launcher import jit_kernel


def _bounds(offs):
    """Per row: the first and one-past-the-last row of its sequence."""
    lengths = np.diff(offs)
    return rt.to_device(np.repeat(offs[:-1], lengths)), rt.to_device(np.repeat(offs[1:], lengths))


@jit_kernel
def _enumerate(x, ends, win, pad, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        t, k = i // win, i % win
        out[i] = x[t + k] if t + k < ends[t] else pad
        i += step


def sequence_enumerate(ins, attrs, ctx):
    x, win = ins["X"], attrs["win_size"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    out = rt.empty((x.shape[0], win), x.dtype)
    if out.size:
        _enumerate[grid(out.size)](flat(x), _bounds(offs)[1], win, x.dtype.type(attrs["pad_value"]), flat(out))
    return {"Out": out}


@jit_kernel
def _scatter_add(out, ids, upd, seg, width):
    j = cuda.grid(1)
    step = cuda.gridsize(1)
    while j < ids.size:
        cuda.atomic.add(out, seg[j] * width + ids[j], upd[j])
        j += step


@jit_kernel
def _scatter_take(dout, ids, seg, width, dupd):
    j = cuda.grid(1)
    step = cuda.gridsize(1)
    while j < ids.size:
        dupd[j] = dout[seg[j] * width + ids[j]]
        j += step


def _scatter_args(ins, attrs, ctx, x_shape):
    ids = rt.to_host(ins["Ids"]).reshape(-1).astype(np.int64)
    offs = seq_offsets(ctx, "Ids", ids.size)
    scatter_checks(tuple(x_shape), ids, offs, ins["Updates"].size)
    seg = np.repeat(np.arange(len(offs) - 1, dtype=np.int64), np.diff(offs))
    return rt.to_device(ids), rt.to_device(seg), int(np.prod(x_shape[1:], dtype=np.int64))


def sequence_scatter(ins, attrs, ctx):
    x, upd = ins["X"], ins["Updates"]
    ids, seg, width = _scatter_args(ins, attrs, ctx, x.shape)
    out = copy(x)
    if ids.size:
        _scatter_add[grid(ids.size)](flat(out), ids, flat(upd), seg, width)
    return {"Out": out}


def sequence_scatter_grad(ins, attrs, ctx):
    dout, upd = ins["Out@GRAD"], ins["Updates"]
    ids, seg, width = _scatter_args(ins, attrs, ctx, dout.shape)
    dupd = rt.empty(tuple(upd.shape), dout.dtype)
    if ids.size:
        _scatter_take[grid(ids.size)](flat(dout), ids, seg, width, flat(dupd))
    return {"X@GRAD": copy(dout), "Updates@GRAD": dupd}


@jit_kernel
def _row_conv(x, w, ends, ctx, width, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        t, d = i // width, i % width
        acc = 0.0
        for k in range(min(ctx, ends[t] - t)):
            acc += x[(t + k) * width + d] * w[k * width + d]
        out[i] = acc
        i += step


@jit_kernel
def _row_conv_dx(w, dout, starts, ctx, width, dx):
    """dx[t] = sum_k w[k] * dout[t - k] over the steps t - k of t's own sequence."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        t, d = i // width, i % width
        acc = 0.0
        for k in range(min(ctx, t - starts[t] + 1)):
            acc += w[k * width + d] * dout[(t - k) * width + d]
        dx[i] = acc
        i += step


@jit_kernel
def _row_conv_dw(x, dout, ends, rows, width, dw):
    """dw[k, d] = sum_t x[t + k, d] * dout[t, d] over the steps with t + k in t's sequence."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dw.size:
        k, d = i // width, i % width
        acc = 0.0
        for t in range(rows):
            if t + k < ends[t]:
                acc += x[(t + k) * width + d] * dout[t * width + d]
        dw[i] = acc
        i += step


def row_conv(ins, attrs, ctx):
    x, w = ins["X"], ins["Filter"]
    _, ends = _bounds(row_conv_offsets(ctx, tuple(x.shape)))
    out = rt.empty(tuple(x.shape), x.dtype)
    if out.size:
        _row_conv[grid(out.size)](flat(x), flat(w), ends, w.shape[0], w.shape[1], flat(out))
    return {"Out": out}


def row_conv_grad(ins, attrs, ctx):
    x, w, dout = ins["X"], ins["Filter"], ins["Out@GRAD"]
    starts, ends = _bounds(row_conv_offsets(ctx, tuple(x.shape)))
    dx, dw = rt.empty(tuple(x.shape), x.dtype), rt.empty(tuple(w.shape), w.dtype)
    if dx.size:
        _row_conv_dx[grid(dx.size)](flat(w), flat(dout), starts, w.shape[0], w.shape[1], flat(dx))
    if dw.size:
        _row_conv_dw[grid(dw.size)](flat(x), flat(dout), ends, x.size // w.shape[1], w.shape[1], flat(dw))
    return {"X@GRAD": dx, "Filter@GRAD": dw}
