"""CUDA twin of kernels/cpu/cvm.py: one thread per element."""

import math

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .launcher import jit_kernel
from ...shapes.sequence import cvm_rows


@jit_kernel
def _cvm(x, y, width, out_width, use_cvm):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < y.size:
        r, k = i // out_width, i % out_width
        if use_cvm:
            if k == 0:
                y[i] = math.log(x[r * width] + 1)
            elif k == 1:
                y[i] = math.log(x[r * width + 1] + 1) - math.log(x[r * width] + 1)
            else:
                y[i] = x[r * width + k]
        else:
            y[i] = x[r * width + k + 2]
        i += step


@jit_kernel
def _cvm_grad(c, rows, dy, dx, width, use_cvm):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        r, k = i // width, i % width
        if k < 2:
            dx[i] = c[rows[r] * 2 + k]
        else:
            dx[i] = dy[r * width + k] if use_cvm else dy[r * (width - 2) + k - 2]
        i += step


def cvm(ins, attrs):
    x = ins["X"]
    width = x.shape[1]
    out_width = width if attrs["use_cvm"] else width - 2
    y = rt.empty((x.shape[0], out_width), x.dtype)
    if y.size:
        _cvm[grid(y.size)](flat(x), flat(y), width, out_width, bool(attrs["use_cvm"]))
    return {"Y": y}


def cvm_grad(ins, attrs, ctx):
    x, c = ins["X"], ins["CVM"]
    rows = rt.to_device(cvm_rows(x.shape[0], c.shape[0], ctx))
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        _cvm_grad[grid(dx.size)](flat(c), rows, flat(ins["Y@GRAD"]), flat(dx), x.shape[1], bool(attrs["use_cvm"]))
    return {"X@GRAD": dx}
