"""CUDA twins of kernels/cpu/loss_regression.py: huber_loss and smooth_l1_loss are elementwise
launches (smooth_l1's row sums one thread per row); center_loss one thread per row computes its diff
and loss and adds the diff to its class's sum atomically, then one thread per center entry moves it."""

import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._elementwise import Binary, Unary, scalar_arg
from ._launch import flat, grid, scale_rows, zeros
from ._reduce import reduce
from .launcher import jit_kernel
from ..value_checks import center_ids


# -- center_loss ------------------------------------------------------------------------------------


@jit_kernel
def _center_diff(x, centers, ids, diff, loss, acc, d):
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < loss.size:
        c = ids[r]
        s = 0.0
        for k in range(d):
            v = x[r * d + k] - centers[c * d + k]
            diff[r * d + k] = v
            s += v * v
            cuda.atomic.add(acc, c * d + k, v)
        loss[r] = 0.5 * s
        r += step


@jit_kernel
def _center_update(centers, acc, count, alpha, out, d):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = centers[i] + alpha * acc[i] / count[i // d]
        i += step


def center_loss(ins, attrs):
    x, centers = ins["X"], ins["Centers"]
    host_ids = center_ids(rt.to_host(ins["Label"]), centers.shape[0])
    ids = rt.to_device(host_ids)
    n, d = x.shape
    diff, loss = rt.empty(x.shape, x.dtype), rt.empty((n, 1), x.dtype)
    acc = zeros(centers.shape, np.float64)
    if n:
        _center_diff[grid(n)](flat(x), flat(centers), ids, flat(diff), flat(loss), flat(acc), d)
    out = rt.empty(centers.shape, centers.dtype)
    alpha = float(rt.to_host(ins["CenterUpdateRate"]).reshape(-1)[0]) if attrs["need_update"] else 0.0
    count = rt.to_device((1 + np.bincount(host_ids, minlength=centers.shape[0])).astype(np.float64))
    if out.size:
        _center_update[grid(out.size)](flat(centers), flat(acc), count, alpha, flat(out), d)
    return {"SampleCenterDiff": diff, "Loss": loss, "CentersOut": out}


def center_loss_grad(ins, attrs):
    diff, dloss = ins["SampleCenterDiff"], ins["Loss@GRAD"]
    n = diff.shape[0]
    return {"X@GRAD": scale_rows(diff, dloss.reshape((n,)))}


# -- huber_loss ------------------------------------------------------------------------------------

_residual = Binary(cuda.jit(device=True, inline=True)(lambda x, y, p, q: y - x))
_huber = Unary(
    cuda.jit(device=True, inline=True)(
        lambda r, delta, q: 0.5 * r * r if math.fabs(r) <= delta else delta * (math.fabs(r) - 0.5 * delta)
    )
)
_huber_dr = Binary(cuda.jit(device=True, inline=True)(lambda r, d, delta, q: min(max(r, -delta), delta) * d))
_negate = Unary(cuda.jit(device=True, inline=True)(lambda v, p, q: -v))


def huber_loss(ins, attrs):
    x, y = ins["X"], ins["Y"]
    r = _residual(x, y)
    return {"Out": _huber(r, scalar_arg(x.dtype, attrs["delta"])), "Residual": r}


def huber_loss_grad(ins, attrs):
    r, dout = ins["Residual"], ins["Out@GRAD"]
    dr = _huber_dr(r, dout, scalar_arg(r.dtype, attrs["delta"]))
    return {"X@GRAD": _negate(dr), "Y@GRAD": dr}


# -- smooth_l1_loss ---------------------------------------------------------------------------------


@jit_kernel
def _smooth_l1(x, y, iw, ow, weighted, s2, diff, err):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        d = x[i] - y[i]
        if weighted:
            d *= iw[i]
        diff[i] = d
        a = abs(d)
        e = 0.5 * s2 * d * d if a < 1.0 / s2 else a - 0.5 / s2
        err[i] = e * ow[i] if weighted else e
        i += step


@jit_kernel
def _smooth_l1_grad(diff, iw, ow, weighted, s2, dout, cols, dx, dy):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < diff.size:
        d = diff[i]
        g = s2 * d if abs(d) < 1.0 / s2 else (1.0 if d > 0 else (-1.0 if d < 0 else 0.0))
        if weighted:
            g *= iw[i] * ow[i]
        g *= dout[i // cols]
        dx[i] = g
        dy[i] = -g
        i += step


def _weights(ins, like):
    if "InsideWeight" in ins and "OutsideWeight" in ins:
        return flat(ins["InsideWeight"]), flat(ins["OutsideWeight"]), True
    return flat(like), flat(like), False


def smooth_l1_loss(ins, attrs):
    x, y = ins["X"], ins["Y"]
    iw, ow, weighted = _weights(ins, x)
    diff, err = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if x.size:
        _smooth_l1[grid(x.size)](flat(x), flat(y), iw, ow, weighted, float(attrs["sigma"]) ** 2, flat(diff), flat(err))
    rows = x.shape[0]
    out = reduce(err.reshape((rows, x.size // rows if rows else 0)), (1,), "sum")
    return {"Diff": diff, "Out": out.reshape((rows, 1))}


def smooth_l1_loss_grad(ins, attrs):
    diff, dout = ins["Diff"], ins["Out@GRAD"]
    iw, ow, weighted = _weights(ins, diff)
    dx, dy = rt.empty(diff.shape, diff.dtype), rt.empty(diff.shape, diff.dtype)
    if diff.size:
        _smooth_l1_grad[grid(diff.size)](
            flat(diff),
            iw,
            ow,
            weighted,
            float(attrs["sigma"]) ** 2,
            flat(dout),
            diff.size // diff.shape[0],
            flat(dx),
            flat(dy),
        )
    return {"X@GRAD": dx, "Y@GRAD": dy}
