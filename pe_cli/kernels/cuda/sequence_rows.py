"""CUDA twins of kernels/cpu/sequence_rows.py: the same row maps (computed from the LoD on the
host), one gather kernel forward and one atomic scatter-add backward; sequence_erase runs on the host
(kernels/seq_dp.py)."""

import numpy as np
from numba import cuda

from ..common import expand_rows, pad_index, reverse_index, seq_offsets, unpad_index
from ..seq_dp import erase
from . import runtime as rt
from ._launch import flat, grid, zeros
from .launcher import jit_kernel
from ...shapes.sequence import mask_length


@jit_kernel
def _gather_pad(x, idx, pad, out, row):
    """out row i = x row idx[i], or the pad row (pad has 1 or ``row`` values) where idx[i] < 0."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        r, c = i // row, i % row
        k = idx[r]
        out[i] = x[k * row + c] if k >= 0 else pad[c % pad.size]
        i += step


@jit_kernel
def _scatter_add(dout, idx, dx, row):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        k = idx[i // row]
        if k >= 0:
            cuda.atomic.add(dx, k * row + i % row, dout[i])
        i += step


def _row(shape):
    return int(np.prod(shape[1:], dtype=np.int64))


def _gather(x, idx, out_shape, pad=None):
    out = rt.empty(tuple(out_shape), x.dtype)
    if pad is None:
        pad = zeros((1,), x.dtype)
    if out.size:
        _gather_pad[grid(out.size)](flat(x), rt.to_device(idx), flat(pad), flat(out), _row(x.shape))
    return out


def _scatter(dout, idx, x_shape, dtype):
    dx = zeros(tuple(x_shape), dtype)
    if dout.size:
        _scatter_add[grid(dout.size)](flat(dout), rt.to_device(idx), flat(dx), _row(x_shape))
    return dx


def sequence_reverse(ins, attrs, ctx):
    x = ins["X"]
    return {"Y": _gather(x, reverse_index(seq_offsets(ctx, "X", x.shape[0])), x.shape)}


def sequence_reverse_grad(ins, attrs, ctx):
    x = ins["X"]
    return {"X@GRAD": _scatter(ins["Y@GRAD"], reverse_index(seq_offsets(ctx, "X", x.shape[0])), x.shape, x.dtype)}


def sequence_expand(ins, attrs, ctx):
    x = ins["X"]
    idx, offs = expand_rows(attrs, ctx, x.shape[0], ins["Y"].shape[0])
    ctx.set_lod_map({"Out": [offs]} if offs is not None else {})
    return {"Out": _gather(x, idx, (len(idx),) + tuple(x.shape[1:]))}


def sequence_expand_grad(ins, attrs, ctx):
    x = ins["X"]
    return {
        "X@GRAD": _scatter(ins["Out@GRAD"], expand_rows(attrs, ctx, x.shape[0], ins["Y"].shape[0])[0], x.shape, x.dtype)
    }


def sequence_pad(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    idx, length = pad_index(offs, attrs["padded_length"])
    out = _gather(x, idx, (len(offs) - 1, length) + tuple(x.shape[1:]), ins["PadValue"])
    return {"Out": out, "Length": rt.to_device(np.diff(offs).astype(np.int64))}


def sequence_pad_grad(ins, attrs, ctx):
    x = ins["X"]
    idx, _ = pad_index(seq_offsets(ctx, "X", x.shape[0]), attrs["padded_length"])
    return {"X@GRAD": _scatter(ins["Out@GRAD"], idx, x.shape, x.dtype)}


def _unpad_map(x, length):
    return unpad_index(rt.to_host(length), x.shape[1])


def sequence_unpad(ins, attrs, ctx):
    x = ins["X"]
    idx, offs = _unpad_map(x, ins["Length"])
    rows = (x.shape[0] * x.shape[1],) + (tuple(x.shape[2:]) or (1,))  # a 2-D X gives [N, 1], as Fluid's
    out = rt.empty((len(idx),) + rows[1:], x.dtype)
    if out.size:
        _gather_pad[grid(out.size)](flat(x), rt.to_device(idx), flat(zeros((1,), x.dtype)), flat(out), _row(rows))
    ctx.set_lod_map({"Out": [offs]})
    return {"Out": out.reshape((len(idx), 1)) if len(x.shape) == 2 else out}


def sequence_unpad_grad(ins, attrs):
    x = ins["X"]
    idx, _ = _unpad_map(x, ins["Length"])
    rows = (x.shape[0] * x.shape[1],) + (tuple(x.shape[2:]) or (1,))
    dx = _scatter(ins["Out@GRAD"], idx, rows, x.dtype)
    return {"X@GRAD": dx.reshape(tuple(x.shape))}


@jit_kernel
def _mask(x, out, maxlen):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if i % maxlen < x[i // maxlen] else 0
        i += step


def sequence_mask(ins, attrs):
    x = ins["X"]
    maxlen = mask_length(ins, attrs, x, rt.to_host)
    out = rt.empty(tuple(x.shape) + (maxlen,), np.dtype(attrs["out_dtype"]))
    if out.size:
        _mask[grid(out.size)](flat(x), flat(out), maxlen)
    return {"Y": out}


def sequence_erase(ins, attrs, ctx):
    out, lod = erase(rt.to_host(ins["X"]), attrs, ctx)
    ctx.set_lod_map({"Out": lod})
    return {"Out": rt.to_device(out)}
