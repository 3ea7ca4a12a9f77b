"""Kernels of ops/optimizer_proximal.py (numpy, in the parameter's dtype as Fluid's Eigen kernels): structured
kernels, their meta rules pe_cli/shapes/optimizer.py's (NUMPY_METAS) and their out-kernels ``OUT`` (numpy's
arrays the outputs: optimizer_numpy.fresh); ``proximal_gd`` and ``proximal_adagrad`` here are the two as a
kernel, for the callers that run one by name."""

import numpy as np

from ...shapes.optimizer import NUMPY_METAS
from ..structured import adapter
from .launches import by_variant
from .optimizer_numpy import fresh


def proximal_step(prox, lr, attrs):
    """The proximal operator of l1 * |p| + l2 / 2 * p^2 at step lr, applied to ``prox``."""
    dt = prox.dtype.type
    l1, l2 = dt(attrs["l1"]), dt(attrs["l2"])
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, dt(0)) / (dt(1) + lr * l2)
    return prox / (dt(1) + lr * l2)


def _lr(ins, dtype):
    return dtype.type(np.asarray(ins["LearningRate"]).reshape(-1)[0])


def _proximal_gd(ins, attrs):
    p, g = ins["Param"], ins["Grad"]
    lr = _lr(ins, p.dtype)
    return {"ParamOut": proximal_step(p - lr * g, lr, attrs).astype(p.dtype, copy=False)}


def _proximal_adagrad(ins, attrs):
    p, m, g = ins["Param"], ins["Moment"], ins["Grad"]
    lr = _lr(ins, p.dtype)
    m_out = (m + g * g).astype(m.dtype, copy=False)
    return {
        "ParamOut": proximal_step(p - lr * g / np.sqrt(m_out), lr, attrs).astype(p.dtype, copy=False),
        "MomentOut": m_out,
    }


OUT = {
    name: by_variant(f"{name}_out", None, numpy=fresh(compute, f"{name}_numpy"))
    for name, compute in (("proximal_gd", _proximal_gd), ("proximal_adagrad", _proximal_adagrad))
}
proximal_gd, proximal_adagrad = (adapter(NUMPY_METAS[n], OUT[n], n) for n in ("proximal_gd", "proximal_adagrad"))
