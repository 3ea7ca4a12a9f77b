"""renorm's kernels (numpy): the slices' p-norms over every dim but `axis`, in X's dtype; the factor
max_norm / norm (Paddle 2.6.2's CPU kernel adds no epsilon, whatever paddle.renorm's docs say). The out-kernels of shapes/renormalizing.py's meta rules (fresh)."""

import numpy as np

from ...shapes.renormalizing import renorm_grad_meta, renorm_meta
from ..structured import adapter, fresh_kernel


def _norms(x, attrs):
    axis = attrs["axis"] % x.ndim
    others = tuple(i for i in range(x.ndim) if i != axis)
    p = x.dtype.type(np.float32(attrs["p"]))
    return np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1 / p), p


def _renorm(ins, attrs):
    x = ins["X"]
    norm, _ = _norms(x, attrs)
    m = x.dtype.type(np.float32(attrs["max_norm"]))
    factor = np.where(norm > m, m / norm, x.dtype.type(1))
    return {"Out": (x * factor).astype(x.dtype, copy=False)}


def _renorm_grad(ins, attrs):
    x, d = ins["X"], ins["Out@GRAD"]
    norm, p = _norms(x, attrs)
    axis = attrs["axis"] % x.ndim
    others = tuple(i for i in range(x.ndim) if i != axis)
    m = x.dtype.type(np.float32(attrs["max_norm"]))
    big = norm > m
    factor = np.where(big, m / norm, x.dtype.type(1))
    # d(norm)/dx = |x|^(p-1) sign(x) norm^(1-p); d(factor)/d(norm) = -m / norm^2 where big
    dnorm = np.abs(x) ** (p - 1) * np.sign(x) * norm ** (1 - p)
    inner = np.sum(d * x, axis=others, keepdims=True)
    dx = d * factor + np.where(big, -m / norm**2, 0) * inner * dnorm
    return {"X@GRAD": dx.astype(x.dtype, copy=False)}


RENORM = fresh_kernel(_renorm, "renorm_out")
RENORM_GRAD = fresh_kernel(_renorm_grad, "renorm_grad_out")
renorm = adapter(renorm_meta, RENORM, "renorm")  # (the kernels by name: CUDA's host fallbacks)
renorm_grad = adapter(renorm_grad_meta, RENORM_GRAD, "renorm_grad")
