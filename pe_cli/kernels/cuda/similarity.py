"""cos_sim on a GPU: one thread per row of X for the forward and for dX (and dY when Y has X's rows),
one thread per column for dY when Y is one row compared with every row of X (a sum over the rows)."""
import math

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .launcher import jit_kernel


@jit_kernel
def _forward(x, y, out, xn, yn, rows, d, y_rows):
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < rows:
        yr = r if y_rows > 1 else 0
        s = 0.0
        sx = 0.0
        sy = 0.0
        for k in range(d):
            a = x[r * d + k]
            b = y[yr * d + k]
            s += a * b
            sx += a * a
            sy += b * b
        xn[r] = math.sqrt(sx)
        if y_rows > 1 or r == 0:
            yn[yr] = math.sqrt(sy)
        out[r] = s / (math.sqrt(sx) * math.sqrt(sy))
        r += stride


@jit_kernel
def _grad_rows(x, y, out, xn, yn, dout, dx, dy, rows, d, y_rows):
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < rows:
        yr = r if y_rows > 1 else 0
        a, b, g = xn[r], yn[yr], dout[r]
        for k in range(d):
            dx[r * d + k] = g * (y[yr * d + k] / (a * b) - out[r] * x[r * d + k] / (a * a))
            if y_rows > 1:
                dy[r * d + k] = g * (x[r * d + k] / (a * b) - out[r] * y[r * d + k] / (b * b))
        r += stride


@jit_kernel
def _grad_one_y(x, y, out, xn, yn, dout, dy, rows, d):
    k = cuda.grid(1)
    stride = cuda.gridsize(1)
    while k < d:
        b = yn[0]
        acc = 0.0
        for r in range(rows):
            acc += dout[r] * (x[r * d + k] / (xn[r] * b) - out[r] * y[k] / (b * b))
        dy[k] = acc
        k += stride


def cos_sim(ins, attrs):
    x, y = ins["X"], ins["Y"]
    rows, y_rows, d = x.shape[0], y.shape[0], x.size // max(x.shape[0], 1)
    out, xn, yn = rt.empty((rows, 1), x.dtype), rt.empty((rows, 1), x.dtype), rt.empty((y_rows, 1), x.dtype)
    if rows:
        _forward[grid(rows)](flat(x), flat(y), flat(out), flat(xn), flat(yn), rows, d, y_rows)
    return {"Out": out, "XNorm": xn, "YNorm": yn}


def cos_sim_grad(ins, attrs):
    x, y = ins["X"], ins["Y"]
    rows, y_rows, d = x.shape[0], y.shape[0], x.size // max(x.shape[0], 1)
    dx, dy = rt.empty(tuple(x.shape), x.dtype), rt.empty(tuple(y.shape), y.dtype)
    args = (flat(x), flat(y), flat(ins["Out"]), flat(ins["XNorm"]), flat(ins["YNorm"]), flat(ins["Out@GRAD"]))
    if rows:
        _grad_rows[grid(rows)](*args, flat(dx), flat(dy), rows, d, y_rows if rows > 1 else 2)
        if y_rows == 1 and rows > 1:
            _grad_one_y[grid(d)](*args, flat(dy), rows, d)
    return {"X@GRAD": dx, "Y@GRAD": dy}
