"""cos_sim on a GPU: one thread per row of X for the forward and for dX (and dY when Y has X's rows),
one thread per column for dY when Y is one row compared with every row of X (a sum over the rows).
squared_l2_distance and dist: elementwise launches around a reduction (_reduce.py)."""

import math

from numba import cuda

from . import runtime as rt
from ._elementwise import Binary, Ternary, Unary, expand_to, scalar_arg
from ._launch import flat, grid
from ._reduce import reduce, sum_to_shape
from .launcher import jit_kernel
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


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


# -- squared_l2_distance and dist: elementwise launches around a reduction ---------------------------


@cuda.jit(device=True, inline=True)
def _minus(a, b, p, q):
    return a - b


@cuda.jit(device=True, inline=True)
def _abs_minus(a, b, p, q):
    return abs(a - b)


@cuda.jit(device=True, inline=True)
def _square(a, p, q):
    return a * a


@cuda.jit(device=True, inline=True)
def _negated(a, p, q):
    return -a


@cuda.jit(device=True, inline=True)
def _twice_times(d, s, p, q):
    return p * d * s


@cuda.jit(device=True, inline=True)
def _abs_pow(a, p, q):
    """a^p of a >= 0; with p = 0, 1 where a is nonzero (dist's count of nonzeros)."""
    if p == 0:
        return a - a + (1 if a != 0 else 0)
    return a**p


@cuda.jit(device=True, inline=True)
def _dist_grad(z, norm, d, p, q):
    s = 1 if z > 0 else (-1 if z < 0 else 0)
    if q == 2:  # p = 0: no gradient
        return z - z
    if q == 1:  # p = inf or -inf: the extreme elements
        return s * d if abs(z) == norm else z - z
    return (abs(z) / norm) ** (p - 1) * s * d


_MINUS, _ABS_MINUS, _SQUARE, _TWICE_TIMES = Binary(_minus), Binary(_abs_minus), Unary(_square), Binary(_twice_times)
_ABS_POW, _DIST_GRAD, _NEGATED = Unary(_abs_pow), Ternary(_dist_grad), Unary(_negated)


def squared_l2_distance(ins, attrs):
    x, y = ins["X"], ins["Y"]
    rows, cols = x.shape[0], x.size // max(x.shape[0], 1)
    if y.size // max(y.shape[0], 1) != cols or y.shape[0] not in (1, rows):
        raise ValueError(
            f"squared_l2_distance: Y {list(y.shape)} must have the rows of X {list(x.shape)} (or one row) of X's size"
        )
    sub = _MINUS(x.reshape((rows, cols)), y.reshape((y.shape[0], cols)), shape=(rows, cols))
    return {"sub_result": sub, "Out": reduce(_SQUARE(sub), (1,), "sum", keepdims=True)}


def squared_l2_distance_grad(ins, attrs):
    sub, dout, y = ins["sub_result"], ins["Out@GRAD"], ins["Y"]
    grad = _TWICE_TIMES(dout.reshape((sub.shape[0], 1)), sub, scalar_arg(sub.dtype, 2), shape=sub.shape)
    dy = grad if y.shape[0] == sub.shape[0] else reduce(grad, (0,), "sum", keepdims=True)
    return {"X@GRAD": grad.reshape(tuple(ins["X"].shape)), "Y@GRAD": _NEGATED(dy).reshape(tuple(y.shape))}


def dist(ins, attrs, ctx=NO_CONTEXT):
    x, y, p, one = ins["X"], ins["Y"], attrs["p"], scalar_shape(ctx.zero_dim)
    z = _ABS_MINUS(x, y)
    if math.isinf(p):
        return {"Out": reduce(z, range(z.ndim), "max" if p > 0 else "min").reshape(one)}
    total = reduce(_ABS_POW(z, scalar_arg(x.dtype, p)), range(z.ndim), "sum").reshape(one)
    return {"Out": total if p == 0 else _ABS_POW(total, scalar_arg(x.dtype, 1.0 / p))}


def dist_grad(ins, attrs):
    x, y, out, dout, p = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"], attrs["p"]
    z = _MINUS(x, y)
    ones = (1,) * max(z.ndim, 1)
    norm, d = expand_to(out.reshape(ones), z.shape), expand_to(dout.reshape(ones), z.shape)
    mode = 1 if math.isinf(p) else (2 if p == 0 else 0)
    grad = _DIST_GRAD(z, norm, d, scalar_arg(x.dtype, 1.0 if mode else p), mode)
    dy = sum_to_shape(grad, tuple(y.shape))
    return {"X@GRAD": sum_to_shape(grad, tuple(x.shape)), "Y@GRAD": _NEGATED(dy)}
