"""Kernels of ops/optimizer_proximal.py (numpy, in the parameter's dtype as Fluid's Eigen kernels)."""

import numpy as np


def proximal_step(prox, lr, attrs):
    """The proximal operator of l1 * |p| + l2 / 2 * p^2 at step lr, applied to ``prox``."""
    dt = prox.dtype.type
    l1, l2 = dt(attrs["l1"]), dt(attrs["l2"])
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, dt(0)) / (dt(1) + lr * l2)
    return prox / (dt(1) + lr * l2)


def _lr(ins, dtype):
    return dtype.type(np.asarray(ins["LearningRate"]).reshape(-1)[0])


def proximal_gd(ins, attrs):
    p, g = ins["Param"], ins["Grad"]
    lr = _lr(ins, p.dtype)
    return {"ParamOut": proximal_step(p - lr * g, lr, attrs).astype(p.dtype, copy=False)}


def proximal_adagrad(ins, attrs):
    p, m, g = ins["Param"], ins["Moment"], ins["Grad"]
    lr = _lr(ins, p.dtype)
    m_out = (m + g * g).astype(m.dtype, copy=False)
    return {
        "ParamOut": proximal_step(p - lr * g / np.sqrt(m_out), lr, attrs).astype(p.dtype, copy=False),
        "MomentOut": m_out,
    }
