"""CUDA twins of kernels/cpu/tensor_v2.py: where and tril_triu are one grid-stride pass over the
flat arrays; shape writes the dims it knows on the host."""
import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import flat, grid


@cuda.jit
def _where(cond, x, y, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = x[i] if cond[i] else y[i]
        i += step


@cuda.jit
def _where_grad(cond, dout, dx, dy):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        dx[i] = dout[i] if cond[i] else 0
        dy[i] = 0 if cond[i] else dout[i]
        i += step


def where(ins, attrs):
    x = ins["X"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _where[grid(out.size)](flat(ins["Condition"]), flat(x), flat(ins["Y"]), flat(out))
    return {"Out": out}


def where_grad(ins, attrs):
    dout = ins["Out@GRAD"]
    dx, dy = rt.empty(dout.shape, dout.dtype), rt.empty(dout.shape, dout.dtype)
    if dout.size:
        _where_grad[grid(dout.size)](flat(ins["Condition"]), flat(dout), flat(dx), flat(dy))
    return {"X@GRAD": dx, "Y@GRAD": dy}


@cuda.jit
def _tril_triu(x, out, rows, cols, diagonal, lower):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        col = i % cols
        row = (i // cols) % rows
        d = col - row
        keep = d <= diagonal if lower else d >= diagonal
        out[i] = x[i] if keep else 0
        i += step


def _triangle(x, attrs):
    out = rt.empty(x.shape, x.dtype)
    rows, cols = tuple(x.shape)[-2:]
    if out.size:
        _tril_triu[grid(out.size)](flat(x), flat(out), rows, cols, int(attrs["diagonal"]),
                                   bool(attrs["lower"]))
    return out


def tril_triu(ins, attrs):
    return {"Out": _triangle(ins["X"], attrs)}


def tril_triu_grad(ins, attrs):
    return {"X@GRAD": _triangle(ins["Out@GRAD"], attrs)}


def shape(ins, attrs):
    return {"Out": rt.to_device(np.asarray(ins["Input"].shape, dtype=np.int32).reshape(-1))}
