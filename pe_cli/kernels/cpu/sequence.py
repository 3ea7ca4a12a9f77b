"""CPU kernels of the sequence ops (ops/sequence.py): numba loops that release the GIL."""

import numpy as np

from ..common import POOL_CODES, seq_offsets
from .runtime.loops import lazy

_loops = lazy("_seq_loops")


def _rows2d(x):
    return np.ascontiguousarray(x).reshape(x.shape[0], -1)


def sequence_pool(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    code = POOL_CODES[attrs["pooltype"].upper()]
    x2 = _rows2d(x)
    out = np.empty((offs.size - 1, x2.shape[1]), x.dtype)
    idx = np.empty(out.shape, np.int32)
    _loops().pool(x2, offs, code, x.dtype.type(attrs["pad_value"]), out, idx)
    shape = (offs.size - 1,) + tuple(x.shape[1:])
    return {"Out": out.reshape(shape), "MaxIndex": idx.reshape(shape)}


def sequence_pool_grad(ins, attrs, ctx):
    x, dout = ins["X"], ins["Out@GRAD"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    code = POOL_CODES[attrs["pooltype"].upper()]
    dx = np.zeros((x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64))), x.dtype)
    idx = ins.get("MaxIndex")
    idx = _rows2d(idx) if idx is not None else np.zeros((offs.size - 1, dx.shape[1]), np.int32)
    _loops().pool_grad(_rows2d(dout), offs, code, idx, dx)
    return {"X@GRAD": dx.reshape(x.shape)}


def sequence_softmax(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    out = np.empty(x.size, x.dtype)
    _loops().softmax(np.ascontiguousarray(x).reshape(-1), offs, out)
    return {"Out": out.reshape(x.shape)}


def sequence_softmax_grad(ins, attrs, ctx):
    out, dout = ins["Out"], ins["Out@GRAD"]
    offs = seq_offsets(ctx, "Out", out.shape[0])
    dx = np.empty(out.size, out.dtype)
    _loops().softmax_grad(np.ascontiguousarray(out).reshape(-1), np.ascontiguousarray(dout).reshape(-1), offs, dx)
    return {"X@GRAD": dx.reshape(out.shape)}
