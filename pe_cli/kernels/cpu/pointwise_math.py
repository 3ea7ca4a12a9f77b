"""Kernels of the pointwise_math family (pe_cli/ops/pointwise_math.py): numpy expressions in the input's
dtype, the formulas of Paddle 2.6.2's phi kernels (activation_functor.h, elementwise_functor.h)."""

import numpy as np

from ...base.activations_sigmoid import sigmoid_array
from .elementwise import unbroadcast
from ..common import table_getattr


def _c(x, v):
    return x.dtype.type(v)


def _attr(x, v):
    """A float attribute in x's dtype as Paddle holds it: a float32 (celu's alpha=0.7 is 0.699999988)."""
    return x.dtype.type(np.float32(v))


def _logit(x, a):
    """Paddle's LogitFunctor: X clipped to [eps, 1 - eps] (whatever eps), then log(p / (1 - p))."""
    eps = _attr(x, a["eps"])
    p = np.minimum(np.maximum(x, eps), _c(x, 1) - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p / (_c(x, 1) - p))


def _logit_grad(x, d, a):
    """0 where X lies outside [eps, 1 - eps], else dOut / (X (1 - X)) (LogitGradFunctor)."""
    eps = _attr(x, a["eps"])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x < eps) | (x > _c(x, 1) - eps), _c(x, 0), d / (x * (_c(x, 1) - x)))


def _celu(x, a):
    alpha = _attr(x, a["alpha"])
    with np.errstate(over="ignore"):
        return np.maximum(x, _c(x, 0)) + np.minimum(_c(x, 0), alpha * (np.exp(x / alpha) - _c(x, 1)))


def _celu_grad(x, d, a):
    """Paddle's CELUGradFunctor: dOut where X > 0 and alpha > 0 or X <= 0 and alpha < 0, else dOut exp(X / alpha)."""
    alpha = _attr(x, a["alpha"])
    with np.errstate(over="ignore"):
        return np.where((x > 0) == (alpha > 0), d, d * np.exp(x / alpha))


# name -> (forward(x, attrs), derivative(x, dout, attrs))
UNARY = {
    "silu": (
        lambda x, a: x * sigmoid_array(x),
        lambda x, d, a: d * sigmoid_array(x) * (_c(x, 1) + x * (_c(x, 1) - sigmoid_array(x))),
    ),
    "celu": (_celu, _celu_grad),
    "tan": (lambda x, a: np.tan(x), lambda x, d, a: d / np.square(np.cos(x))),
    "acosh": (lambda x, a: np.arccosh(x), lambda x, d, a: d / np.sqrt(x * x - _c(x, 1))),
    "asinh": (lambda x, a: np.arcsinh(x), lambda x, d, a: d / np.sqrt(x * x + _c(x, 1))),
    "atanh": (lambda x, a: np.arctanh(x), lambda x, d, a: d / (_c(x, 1) - x * x)),
    "log2": (lambda x, a: np.log2(x), lambda x, d, a: d / (x * _c(x, np.log(2.0)))),
    "log10": (lambda x, a: np.log10(x), lambda x, d, a: d / (x * _c(x, np.log(10.0)))),
    "trunc": (lambda x, a: np.trunc(x), lambda x, d, a: np.zeros_like(d)),
    "conj": (lambda x, a: np.conj(x), lambda x, d, a: np.conj(d)),
    "logit": (_logit, _logit_grad),
}


def _make_unary(name, forward, derivative):
    def kernel(ins, attrs):
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"Out": np.asarray(forward(ins["X"], attrs)).astype(ins["X"].dtype, copy=False)}

    def grad(ins, attrs):
        x = ins["X"]
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"X@GRAD": np.asarray(derivative(x, ins["Out@GRAD"], attrs)).astype(x.dtype, copy=False)}

    kernel.__name__, grad.__name__ = name, f"{name}_grad"
    return kernel, grad


# The UNARY table's kernels, one per row and one per row's gradient (silu, silu_grad, celu, ...): the
# registry finds them by op type as module attributes (``__getattr__``).
_ROW_KERNELS = {}
for _name, (_f, _d) in UNARY.items():
    _ROW_KERNELS[_name], _ROW_KERNELS[f"{_name}_grad"] = _make_unary(_name, _f, _d)


__getattr__ = table_getattr(_ROW_KERNELS, __name__)


def atan2(ins, attrs):
    """Integers: atan2 in float32, given as float64 (Paddle's Atan2Functor of int32/int64)."""
    x1, x2 = ins["X1"], ins["X2"]
    if x1.dtype.kind == "f":
        return {"Out": np.arctan2(x1, x2)}
    x1, x2 = x1.astype(np.float32).astype(np.float64), x2.astype(np.float32).astype(np.float64)
    return {"Out": np.arctan2(x1, x2).astype(np.float32).astype(np.float64)}


def atan2_grad(ins, attrs):
    x1, x2, d = ins["X1"], ins["X2"], ins["Out@GRAD"]
    r = x1 * x1 + x2 * x2
    return {
        "X1@GRAD": unbroadcast(d * x2 / r, x1.shape).astype(x1.dtype, copy=False),
        "X2@GRAD": unbroadcast(-d * x1 / r, x2.shape).astype(x2.dtype, copy=False),
    }


def elementwise_fmax(ins, attrs):
    return {"Out": np.fmax(ins["X"], ins["Y"])}


def elementwise_fmin(ins, attrs):
    return {"Out": np.fmin(ins["X"], ins["Y"])}


def _pick_grad(ins, to_x):
    """Out@GRAD to X where ``to_x`` holds, else to Y, each summed to its input's shape."""
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    zero = _c(d, 0)
    return {
        "X@GRAD": unbroadcast(np.where(to_x, d, zero), x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": unbroadcast(np.where(to_x, zero, d), y.shape).astype(y.dtype, copy=False),
    }


def elementwise_fmax_grad(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return _pick_grad(ins, (x >= y) | np.isnan(y))


def elementwise_fmin_grad(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return _pick_grad(ins, (x <= y) | np.isnan(y))


def elementwise_heaviside(ins, attrs):
    x, y = ins["X"], ins["Y"]
    # Paddle's HeavisideFunctor: y where x == 0, else x > 0 (0 for a NaN x, where numpy's heaviside gives NaN)
    dtype = np.result_type(x, y)
    return {"Out": np.where(x == 0, y, x > 0).astype(dtype, copy=False)}


def elementwise_heaviside_grad(ins, attrs):
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    return {
        "X@GRAD": unbroadcast(np.zeros_like(d), x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": unbroadcast(np.where(x == 0, d, _c(d, 0)), y.shape).astype(y.dtype, copy=False),
    }


def lerp(ins, attrs):
    x, y, w = ins["X"], ins["Y"], ins["Weight"]
    return {"Out": (x + w * (y - x)).astype(x.dtype, copy=False)}


def lerp_grad(ins, attrs):
    x, y, w, d = ins["X"], ins["Y"], ins["Weight"], ins["Out@GRAD"]
    return {
        "X@GRAD": unbroadcast(d * (_c(d, 1) - w), x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": unbroadcast(d * w, y.shape).astype(y.dtype, copy=False),
    }
