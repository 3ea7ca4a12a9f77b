"""CPU kernels of the primitive family (ops/primitive.py): numpy's elementwise functions, in X's dtype."""

import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _unary(fn):
    def kernel(ins, attrs):
        x = ins["X"]
        return {"Y": np.asarray(fn(x)).astype(x.dtype, copy=False)}

    return kernel


def _binary(fn):
    def kernel(ins, attrs):
        x = ins["X"]
        return {"Z": np.asarray(fn(x, ins["Y"])).astype(x.dtype, copy=False)}

    return kernel


def _compare(fn):
    def kernel(ins, attrs):
        return {"Z": np.asarray(fn(ins["X"], ins["Y"]))}

    return kernel


sin_p, cos_p, tanh_p = _unary(np.sin), _unary(np.cos), _unary(np.tanh)
exp_p, log_p, sqrt_p, abs_p = _unary(np.exp), _unary(np.log), _unary(np.sqrt), _unary(np.abs)
erf_p = _unary(lambda x: _erf(x.astype(np.float64)))
rsqrt_p = _unary(lambda x: 1 / np.sqrt(x))
add_p, sub_p, mul_p = _binary(np.add), _binary(np.subtract), _binary(np.multiply)
div_p, max_p, pow_p = _binary(np.divide), _binary(np.maximum), _binary(np.power)
eq_p, ne_p = _compare(np.equal), _compare(np.not_equal)
gt_p, ge_p = _compare(np.greater), _compare(np.greater_equal)
