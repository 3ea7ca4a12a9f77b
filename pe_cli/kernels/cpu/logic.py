"""Kernels of ops/logic.py: comparisons and logical ops, numpy elementwise (bool results)."""

import numpy as np

from ...base.errors import PeError
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


def _compare(fn):
    def kernel(ins, attrs):
        x, y = ins["X"], ins["Y"]
        axis = attrs.get("axis", -1)
        if y.ndim and y.ndim < x.ndim and axis not in (-1, x.ndim - y.ndim):
            y = y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim))
        return {"Out": fn(x, y)}

    return kernel


less_than = _compare(np.less)
less_equal = _compare(np.less_equal)
greater_than = _compare(np.greater)
greater_equal = _compare(np.greater_equal)
equal = _compare(np.equal)
not_equal = _compare(np.not_equal)


def logical_not(ins, attrs):
    return {"Out": np.logical_not(ins["X"])}


def logical_and(ins, attrs):
    return {"Out": np.logical_and(ins["X"], ins["Y"])}


def logical_or(ins, attrs):
    return {"Out": np.logical_or(ins["X"], ins["Y"])}


def logical_xor(ins, attrs):
    return {"Out": np.logical_xor(ins["X"], ins["Y"])}


def bitwise_not(ins, attrs):
    return {"Out": np.invert(ins["X"])}


def bitwise_and(ins, attrs):
    return {"Out": np.bitwise_and(ins["X"], ins["Y"])}


def bitwise_or(ins, attrs):
    return {"Out": np.bitwise_or(ins["X"], ins["Y"])}


def bitwise_xor(ins, attrs):
    return {"Out": np.bitwise_xor(ins["X"], ins["Y"])}


def _close(x, y):
    """Fluid's EqualReduceFunctor: floats within 1e-8 (their difference in X's dtype), others exactly."""
    if np.issubdtype(np.result_type(x, y), np.floating):
        return np.abs((x - y).astype(np.float64)) < 1e-8
    return np.equal(x, y)


def equal_reduce(ins, attrs):
    return {"Out": np.array([bool(np.all(_compare(_close)(ins, attrs)["Out"]))])}


def allclose(ins, attrs, ctx=NO_CONTEXT):
    """Fluid's rule, in Input's dtype: |x - y| <= atol + rtol * |y| everywhere; with equal_nan, NaNs at the same
    places and every other element close."""
    x, y = ins["Input"], ins["Other"]
    if x.shape != y.shape:
        raise PeError(f"allclose: Input {list(x.shape)} and Other {list(y.shape)} must have the same shape")
    t = x.dtype.type
    with np.errstate(invalid="ignore"):
        close = np.abs(x - y) <= t(attrs["atol"]) + t(attrs["rtol"]) * np.abs(y)
    if attrs["equal_nan"]:
        x_nan, y_nan = np.isnan(x), np.isnan(y)
        result = bool(np.all(x_nan == y_nan) and np.all(close != x_nan))
    else:
        result = bool(np.all(close))
    return {"Out": np.full(scalar_shape(ctx.zero_dim), result)}


def isclose(ins, attrs):
    """Paddle 2.6's IscloseFunctor, in Input's dtype: a == b, or |a - b| <= atol + rtol |b|, or within 1e-15 of
    that bound; a NaN on either side: close only with equal_nan, both NaN."""
    a, b = ins["Input"], ins["Other"]
    if a.shape != b.shape:
        raise PeError(f"isclose: Input {list(a.shape)} and Other {list(b.shape)} must have the same shape")
    t = a.dtype.type if a.dtype.kind == "f" else np.float64
    rtol, atol = t(float(attrs["rtol"])), t(float(attrs["atol"]))
    with np.errstate(invalid="ignore", over="ignore"):
        left = np.abs(a - b)
        right = atol + rtol * np.abs(b)
        close = (a == b) | (left <= right) | (np.abs(left - right) <= 1e-15)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    either = nan_a | nan_b
    return {"Out": np.where(either, (nan_a == nan_b) & bool(attrs["equal_nan"]), close)}


def isfinite_v2(ins, attrs):
    return {"Out": np.isfinite(ins["X"])}


def isinf_v2(ins, attrs):
    return {"Out": np.isinf(ins["X"])}


def isnan_v2(ins, attrs):
    return {"Out": np.isnan(ins["X"])}


def equal_all(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return {"Out": np.array(x.shape == y.shape and bool(np.all(x == y)))}
