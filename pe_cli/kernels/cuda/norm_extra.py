"""CUDA twins of kernels/cpu/norm_extra.py: prelu is one elementwise kernel (its alpha gradient a
reduction of x * dout where x <= 0)."""
from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from ._reduce import reduce


def _alpha_index(x_shape, mode):
    """(div, mod): element e of X uses alpha[(e // div) % mod]."""
    inner = 1
    for d in x_shape[2:]:
        inner *= d
    if mode == "all":
        return 1, 1
    if mode == "channel":
        return inner, x_shape[1]
    return 1, inner * x_shape[1]


@cuda.jit
def _prelu(x, alpha, out, div, mod):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        v = x[e]
        out[e] = v if v > 0 else alpha[(e // div) % mod] * v
        e += step


@cuda.jit
def _prelu_grad(x, alpha, dout, dx, neg, div, mod):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        v = x[e]
        if v > 0:
            dx[e] = dout[e]
            neg[e] = 0
        else:
            dx[e] = alpha[(e // div) % mod] * dout[e]
            neg[e] = v * dout[e]
        e += step


def prelu(ins, attrs):
    x = ins["X"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _prelu[grid(out.size)](flat(x), flat(ins["Alpha"]), flat(out), *_alpha_index(x.shape, attrs["mode"]))
    return {"Out": out}


def prelu_grad(ins, attrs):
    x, alpha = ins["X"], ins["Alpha"]
    div, mod = _alpha_index(x.shape, attrs["mode"])
    dx, neg = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if dx.size:
        _prelu_grad[grid(dx.size)](flat(x), flat(alpha), flat(ins["Out@GRAD"]), flat(dx), flat(neg), div, mod)
    if attrs["mode"] == "channel":
        dalpha = reduce(neg.reshape((x.shape[0], x.shape[1], div)), (0, 2), "sum")
    else:
        dalpha = reduce(neg.reshape((x.shape[0], x.size // max(x.shape[0], 1))), (0,), "sum")
        if attrs["mode"] == "all":
            dalpha = reduce(dalpha, (0,), "sum")
    return {"X@GRAD": dx, "Alpha@GRAD": dalpha.reshape(tuple(alpha.shape))}
