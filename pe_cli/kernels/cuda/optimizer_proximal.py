"""CUDA twins of kernels/cpu/optimizer_proximal.py: one thread per parameter value."""

import math

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from .launcher import jit_kernel


@jit_kernel
def _proximal(p, m, g, lr, out, m_out, l1, l2, adagrad):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < out.size:
        d = g[i]
        if adagrad:
            mo = m[i] + g[i] * g[i]
            m_out[i] = mo
            d = g[i] / math.sqrt(mo)
        prox = p[i] - rate * d
        if l1 > 0:
            mag = abs(prox) - rate * l1
            if mag < 0:
                mag = 0.0
            sign = 1.0 if prox > 0 else (-1.0 if prox < 0 else 0.0)
            out[i] = sign * mag / (1.0 + rate * l2)
        else:
            out[i] = prox / (1.0 + rate * l2)
        i += step


def _run(ins, attrs, adagrad):
    p, g = ins["Param"], ins["Grad"]
    m = ins["Moment"] if adagrad else p
    out, m_out = rt.empty(p.shape, p.dtype), rt.empty(m.shape, m.dtype) if adagrad else rt.empty((1,), p.dtype)
    if out.size:
        _proximal[grid(out.size)](
            flat(p),
            flat(m),
            flat(g),
            flat(ins["LearningRate"]),
            flat(out),
            flat(m_out),
            float(attrs["l1"]),
            float(attrs["l2"]),
            adagrad,
        )
    return out, m_out


def proximal_gd(ins, attrs):
    return {"ParamOut": _run(ins, attrs, False)[0]}


def proximal_adagrad(ins, attrs):
    out, m_out = _run(ins, attrs, True)
    return {"ParamOut": out, "MomentOut": m_out}
