"""Activation kernels: elementwise numpy, results in the input's dtype (attributes are cast to it so a
float32 input stays float32). Each ``<op>_grad`` reads X or Out, as registered, and Out@GRAD.
relu, the hot one, is a numba loop for float32/float64 (_pointwise_loops.py)."""
import functools
import math

import numpy as np

from ._numba import flat, is_float, lazy, parallel_parts

_loops = lazy("_pointwise_loops")


def _c(x, value):
    """A scalar attribute in x's dtype."""
    return x.dtype.type(value)


def relu(ins, attrs):
    x = ins["X"]
    if is_float(x):
        out = np.empty(x.shape, dtype=x.dtype)
        parts = parallel_parts(x.size)
        if parts > 1:
            _loops().relu_parallel(flat(x), out.reshape(-1), parts)
        else:
            _loops().relu(flat(x), out.reshape(-1))
        return {"Out": out}
    return {"Out": np.maximum(x, 0, dtype=x.dtype)}


def relu_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    if is_float(dout, out) and out.shape == dout.shape:
        dx = np.empty(dout.shape, dtype=dout.dtype)
        parts = parallel_parts(dout.size)
        if parts > 1:
            _loops().relu_grad_parallel(flat(out), flat(dout), dx.reshape(-1), parts)
        else:
            _loops().relu_grad(flat(out), flat(dout), dx.reshape(-1))
        return {"X@GRAD": dx}
    return {"X@GRAD": dout * (out > 0)}


def leaky_relu(ins, attrs):
    x = ins["X"]
    return {"Out": np.where(x > 0, x, x * _c(x, attrs["alpha"]))}


def leaky_relu_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": np.where(x > 0, dout, dout * _c(dout, attrs["alpha"]))}


def elu(ins, attrs):
    x = ins["X"]
    neg = np.minimum(x, 0)   # exp only of non-positive values: no overflow
    return {"Out": np.where(x > 0, x, _c(x, attrs["alpha"]) * np.expm1(neg))}


def elu_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": np.where(x > 0, dout, dout * _c(x, attrs["alpha"]) * np.exp(np.minimum(x, 0)))}


def relu6(ins, attrs):
    x = ins["X"]
    return {"Out": np.clip(x, _c(x, 0), _c(x, attrs["threshold"]))}


def relu6_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * ((out > 0) & (out < _c(out, attrs["threshold"])))}


def _sigmoid(x):
    """1 / (1 + exp(-x)) without overflow for large |x|."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def sigmoid(ins, attrs):
    return {"Out": _sigmoid(ins["X"])}


def sigmoid_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * out * (1 - out)}


def _softplus(x):
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): no overflow."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def logsigmoid(ins, attrs):
    x = ins["X"]
    return {"Out": -_softplus(-x)}


def logsigmoid_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _sigmoid(-x)}


def hard_sigmoid(ins, attrs):
    x = ins["X"]
    return {"Out": np.clip(x * _c(x, attrs["slope"]) + _c(x, attrs["offset"]), _c(x, 0), _c(x, 1))}


def hard_sigmoid_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * ((out > 0) & (out < 1)) * _c(dout, attrs["slope"])}


def swish(ins, attrs):
    x = ins["X"]
    return {"Out": x * _sigmoid(x * _c(x, attrs["beta"]))}


def swish_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    beta = _c(x, attrs["beta"])
    s = _sigmoid(x * beta)
    return {"X@GRAD": dout * (s + x * beta * s * (1 - s))}


def tanh(ins, attrs):
    return {"Out": np.tanh(ins["X"])}


def tanh_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * (1 - out * out)}


@functools.lru_cache(maxsize=None)
def _erf_ufunc():
    """A numba ufunc of math.erf (numpy has no erf), compiled on first use."""
    import numba

    @numba.vectorize(["float32(float32)", "float64(float64)"], nopython=True)
    def erf(v):
        return math.erf(v)
    return erf


def _erf(x):
    if x.dtype == np.float16:
        return _erf_ufunc()(x.astype(np.float32)).astype(np.float16)
    return _erf_ufunc()(x)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_C = 0.044715


def gelu(ins, attrs):
    x = ins["X"]
    if attrs["approximate"]:
        inner = _c(x, _SQRT_2_OVER_PI) * (x + _c(x, _GELU_C) * x * x * x)
        out = _c(x, 0.5) * x * (1 + np.tanh(inner))
    else:
        out = _c(x, 0.5) * x * (1 + _erf(x * _c(x, 1 / math.sqrt(2))))
    return {"Out": out}


def gelu_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    if attrs["approximate"]:
        inner = _c(x, _SQRT_2_OVER_PI) * (x + _c(x, _GELU_C) * x * x * x)
        t = np.tanh(inner)
        dinner = _c(x, _SQRT_2_OVER_PI) * (1 + _c(x, 3 * _GELU_C) * x * x)
        local = _c(x, 0.5) * (1 + t) + _c(x, 0.5) * x * (1 - t * t) * dinner
    else:
        cdf = _c(x, 0.5) * (1 + _erf(x * _c(x, 1 / math.sqrt(2))))
        pdf = np.exp(x * x * _c(x, -0.5)) * _c(x, 1 / math.sqrt(2 * math.pi))
        local = cdf + x * pdf
    return {"X@GRAD": dout * local}


def softplus(ins, attrs):
    return {"Out": _softplus(ins["X"])}


def softplus_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _sigmoid(x)}


def softsign(ins, attrs):
    x = ins["X"]
    return {"Out": x / (1 + np.abs(x))}


def softsign_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    d = 1 + np.abs(x)
    return {"X@GRAD": dout / (d * d)}


def sqrt(ins, attrs):
    return {"Out": np.sqrt(ins["X"])}


def sqrt_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _c(out, 0.5) / out}


def rsqrt(ins, attrs):
    x = ins["X"]
    return {"Out": 1 / np.sqrt(x)}


def rsqrt_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _c(out, -0.5) * out * out * out}


def reciprocal(ins, attrs):
    x = ins["X"]
    return {"Out": 1 / x}


def reciprocal_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": -dout * out * out}


def exp(ins, attrs):
    return {"Out": np.exp(ins["X"])}


def exp_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * out}


def log(ins, attrs):
    return {"Out": np.log(ins["X"])}


def log_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout / x}


def square(ins, attrs):
    x = ins["X"]
    return {"Out": x * x}


def square_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout * x * 2}


def abs(ins, attrs):
    return {"Out": np.abs(ins["X"])}


def abs_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout * np.sign(x)}


def sign(ins, attrs):
    return {"Out": np.sign(ins["X"])}


def softmax(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"]
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return {"Out": e / e.sum(axis=axis, keepdims=True)}


def softmax_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": out * (dout - (dout * out).sum(axis=attrs["axis"], keepdims=True))}


def log_softmax(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"]
    shifted = x - x.max(axis=axis, keepdims=True)
    return {"Out": shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))}


def log_softmax_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout - np.exp(out) * dout.sum(axis=attrs["axis"], keepdims=True)}
