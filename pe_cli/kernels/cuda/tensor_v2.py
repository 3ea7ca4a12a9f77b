"""CUDA twins of kernels/cpu/tensor_v2.py: where and tril_triu are one grid-stride pass over the
flat arrays; shape writes the dims it knows on the host; inverse runs Gauss-Jordan elimination, one
thread per matrix (the small matrices paddle.inverse is used on)."""
import math

import numpy as np
from numba import cuda

from ...errors import PeError
from . import runtime as rt
from ._launch import copy, flat, grid, scalar, zeros


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


@cuda.jit
def _gauss_jordan(a, out, n, batch, singular):
    """One thread per matrix: reduces a (a copy of the input) to I while applying the same row
    operations to out (starting as I), with partial pivoting."""
    b = cuda.grid(1)
    if b >= batch:
        return
    base = b * n * n
    for col in range(n):
        pivot = col
        for r in range(col + 1, n):
            if abs(a[base + r * n + col]) > abs(a[base + pivot * n + col]):
                pivot = r
        if a[base + pivot * n + col] == 0:
            singular[0] = 1
            return
        if pivot != col:
            for k in range(n):
                i, j = base + col * n + k, base + pivot * n + k
                a[i], a[j] = a[j], a[i]
                out[i], out[j] = out[j], out[i]
        scale = 1 / a[base + col * n + col]
        for k in range(n):
            a[base + col * n + k] *= scale
            out[base + col * n + k] *= scale
        for r in range(n):
            f = a[base + r * n + col]
            if r != col and f != 0:
                for k in range(n):
                    a[base + r * n + k] -= f * a[base + col * n + k]
                    out[base + r * n + k] -= f * out[base + col * n + k]


@cuda.jit
def _identity(out, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if (i // n) % n == i % n else 0
        i += step


def inverse(ins, attrs):
    x = ins["Input"]
    n = tuple(x.shape)[-1]
    out = rt.empty(x.shape, x.dtype)
    if not out.size:
        return {"Output": out}
    work = copy(x)
    _identity[grid(out.size)](flat(out), n)
    singular = zeros((1,), np.int32)
    batch = out.size // (n * n)
    _gauss_jordan[grid(batch)](flat(work), flat(out), n, batch, singular)
    if scalar(singular):
        raise PeError(f"inverse: a matrix of Input {list(x.shape)} is singular (it has no inverse)")
    return {"Output": out}


@cuda.jit
def _cholesky(a, out, n, batch, upper, failed):
    """One thread per matrix (Cholesky-Banachiewicz over (A + A^T) / 2); out starts as zeros."""
    b = cuda.grid(1)
    if b >= batch:
        return
    base = b * n * n
    for i in range(n):
        for j in range(i + 1):
            acc = 0.5 * (a[base + i * n + j] + a[base + j * n + i])
            for k in range(j):
                li = out[base + k * n + i] if upper else out[base + i * n + k]
                lj = out[base + k * n + j] if upper else out[base + j * n + k]
                acc -= li * lj
            if i == j:
                if acc <= 0:
                    failed[0] = 1
                    return
                value = math.sqrt(acc)
            else:
                value = acc / (out[base + j * n + j])
            if upper:
                out[base + j * n + i] = value
            else:
                out[base + i * n + j] = value


def cholesky(ins, attrs):
    x = ins["X"]
    n = tuple(x.shape)[-1]
    out = zeros(tuple(x.shape), x.dtype)
    if not out.size:
        return {"Out": out}
    failed = zeros((1,), np.int32)
    batch = out.size // (n * n)
    _cholesky[grid(batch)](flat(x), flat(out), n, batch, bool(attrs["upper"]), failed)
    if scalar(failed):
        raise PeError(f"cholesky: a matrix of X {list(x.shape)} is not positive definite")
    return {"Out": out}
