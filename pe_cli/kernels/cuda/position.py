"""CUDA twin of kernels/cpu/position.py: the rows' positions come from the host (from the LoD), the
sines and cosines are computed per element in float64 as on the CPU."""

import math

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .launcher import jit_kernel
from ...shapes.sequence import positions


@jit_kernel
def _encode(x, pos, size, alpha, beta, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    half = size // 2
    while i < x.size:
        k = i % size
        j = pos[i // size]
        kk = k if k < half else k - half
        val = j / (math.pow(10000.0, kk / (half - 1)) if half > 1 else 10000.0)
        pe = math.sin(val) if k < half else math.cos(val)
        out[i] = x[i] * alpha + pe * beta
        i += step


def add_position_encoding(ins, attrs, ctx):
    x = ins["X"]
    pos = rt.to_device(positions(tuple(x.shape), ctx))
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _encode[grid(out.size)](
            flat(x), pos, tuple(x.shape)[x.ndim - 1], float(attrs["alpha"]), float(attrs["beta"]), flat(out)
        )
    return {"Out": out}
