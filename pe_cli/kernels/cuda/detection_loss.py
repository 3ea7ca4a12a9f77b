"""Kernels of ops/detection_loss.py on a GPU: sigmoid_focal_loss and its gradient, one thread per
element."""

import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .launcher import jit_kernel

FLT_MIN = float(np.finfo(np.float32).tiny)


@jit_kernel
def _focal(x, label, fg, dout, out, size, classes, gamma, alpha, grad):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    f = max(fg[0], 1)
    while t < size:
        g = label[t // classes]
        d = t % classes
        pos = 1.0 if g == d + 1 else 0.0
        neg = 1.0 if (g != -1 and g != d + 1) else 0.0
        v = x[t]
        p = 1.0 / (1.0 + math.exp(-v))
        ge = 1.0 if v >= 0 else 0.0
        log_1mp = -v * ge - math.log(1.0 + math.exp(v - 2.0 * v * ge))
        log_p = math.log(max(p, FLT_MIN))
        if grad:
            tp = math.pow(1.0 - p, gamma) * (1.0 - p - p * gamma * log_p)
            tn = math.pow(p, gamma) * (log_1mp * (1.0 - p) * gamma - p)
            out[t] = (-pos * alpha / f * tp - neg * (1.0 - alpha) / f * tn) * dout[t]
        else:
            out[t] = (
                -pos * alpha / f * math.pow(1.0 - p, gamma) * log_p
                - neg * (1.0 - alpha) / f * math.pow(p, gamma) * log_1mp
            )
        t += step


def _run_focal(ins, attrs, grad):
    x = ins["X"]
    out = rt.empty(tuple(x.shape), x.dtype)
    dout = flat(ins["Out@GRAD"]) if grad else flat(x)
    if x.size:
        _focal[grid(x.size)](
            flat(x),
            flat(ins["Label"]),
            flat(ins["FgNum"]),
            dout,
            flat(out),
            x.size,
            x.shape[1],
            float(attrs["gamma"]),
            float(attrs["alpha"]),
            grad,
        )
    return out


def sigmoid_focal_loss(ins, attrs):
    return {"Out": _run_focal(ins, attrs, False)}


def sigmoid_focal_loss_grad(ins, attrs):
    return {"X@GRAD": _run_focal(ins, attrs, True)}
