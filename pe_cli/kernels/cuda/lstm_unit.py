"""CUDA twin of kernels/cpu/lstm_unit.py: one elementwise kernel forward, one backward."""
import math

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .rnn import _act


@cuda.jit
def _unit_fwd(x, cp, c_out, h_out, d, forget_bias):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < cp.size:
        n, j = t // d, t % d
        base = n * 4 * d + j
        i, f = _act(x[base], 0), _act(x[base + d] + forget_bias, 0)
        o, g = _act(x[base + 2 * d], 0), math.tanh(x[base + 3 * d])
        c = f * cp[t] + i * g
        c_out[t], h_out[t] = c, o * math.tanh(c)
        t += step


@cuda.jit
def _unit_back(x, cp, c, dc_in, dh_in, dx, dcp, d, forget_bias):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < cp.size:
        n, j = t // d, t % d
        base = n * 4 * d + j
        i, f = _act(x[base], 0), _act(x[base + d] + forget_bias, 0)
        o, g = _act(x[base + 2 * d], 0), math.tanh(x[base + 3 * d])
        tc = math.tanh(c[t])
        dh = dh_in[t]
        dc = dc_in[t] + dh * o * (1.0 - tc * tc)
        dx[base], dx[base + d] = dc * g * i * (1.0 - i), dc * cp[t] * f * (1.0 - f)
        dx[base + 2 * d], dx[base + 3 * d] = dh * tc * o * (1.0 - o), dc * i * (1.0 - g * g)
        dcp[t] = dc * f
        t += step


def lstm_unit(ins, attrs):
    x, cp = ins["X"], ins["C_prev"]
    c, h = rt.empty(tuple(cp.shape), x.dtype), rt.empty(tuple(cp.shape), x.dtype)
    _unit_fwd[grid(cp.size)](flat(x), flat(cp), flat(c), flat(h), cp.shape[1], float(attrs["forget_bias"]))
    return {"C": c, "H": h}


def lstm_unit_grad(ins, attrs):
    x, cp = ins["X"], ins["C_prev"]
    dx, dcp = rt.empty(tuple(x.shape), x.dtype), rt.empty(tuple(cp.shape), x.dtype)
    _unit_back[grid(cp.size)](flat(x), flat(cp), flat(ins["C"]), flat(ins["C@GRAD"]), flat(ins["H@GRAD"]), flat(dx),
                              flat(dcp), cp.shape[1], float(attrs["forget_bias"]))
    return {"X@GRAD": dx, "C_prev@GRAD": dcp}
