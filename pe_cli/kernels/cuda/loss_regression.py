"""CUDA twin of kernels/cpu/center_loss.py: one thread per row computes its diff and loss and adds
the diff to its class's sum atomically; one thread per center entry moves it."""
import numpy as np
from numba import cuda

from ..cpu import center_loss as _cpu
from . import runtime as rt
from ._launch import flat, grid, zeros


@cuda.jit
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


@cuda.jit
def _center_update(centers, acc, count, alpha, out, d):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = centers[i] + alpha * acc[i] / count[i // d]
        i += step


def center_loss(ins, attrs):
    x, centers = ins["X"], ins["Centers"]
    host_ids = _cpu.center_ids(rt.to_host(ins["Label"]), centers.shape[0])
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
    return {"X@GRAD": _rowscale(diff, dloss.reshape((n,)))}


@cuda.jit
def _rowscale_kernel(a, s, out, cols):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = a[i] * s[i // cols]
        i += step


def _rowscale(a, s):
    out = rt.empty(a.shape, a.dtype)
    if out.size:
        _rowscale_kernel[grid(out.size)](flat(a), s, flat(out), a.size // a.shape[0])
    return out
