"""CUDA twins of kernels/cpu/clip.py: norms are block reductions; the scaling reads the norm on
the device (no host round trip)."""
import math

from numba import cuda

from . import runtime as rt
from ._elementwise import Unary, scalar_arg
from ._launch import flat, grid
from ._reduce import reduce

_square = Unary(cuda.jit(device=True, inline=True)(lambda x, p, q: x * x))


def _sum_of_squares(x):
    return reduce(_square(x), range(x.ndim), "sum").reshape((1,))


@cuda.jit
def _scale_to_norm(x, sumsq, max_norm, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    norm = math.sqrt(sumsq[0])
    while i < out.size:
        out[i] = x[i] * (max_norm / norm) if norm > max_norm else x[i]
        i += step


def clip_by_norm(ins, attrs):
    x = ins["X"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _scale_to_norm[grid(out.size)](flat(x), _sum_of_squares(x), scalar_arg(x.dtype, attrs["max_norm"]),
                                       flat(out))
    return {"Out": out}


def squared_l2_norm(ins, attrs):
    return {"Out": _sum_of_squares(ins["X"])}


@cuda.jit
def _times_twice(x, dout, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    d = dout[0]
    while i < out.size:
        out[i] = x[i] * (2 * d)
        i += step


def squared_l2_norm_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _times_twice[grid(out.size)](flat(x), flat(dout), flat(out))
    return {"X@GRAD": out}
