"""CUDA twins of kernels/cpu/activation.py. Each activation is a device function of (x, p, q)
mapped in one launch; each gradient a device function of (X or Out, Out@GRAD, p, q). Attributes
are passed in the input's dtype. softmax and log_softmax are block reductions along their axis."""
import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._elementwise import Binary, Unary, scalar_arg
from ._launch import THREADS, per_dtype, rows_grid
from ._reduce import block_max, block_sum


def _d(fn):
    return cuda.jit(device=True, inline=True)(fn)


def _forward(fn, *attr_names):
    op = Unary(_d(fn))

    def kernel(ins, attrs):
        x = ins["X"]
        p, q = ([scalar_arg(x.dtype, attrs[a]) for a in attr_names] + [0.0, 0.0])[:2]
        return {"Out": op(x, p, q)}
    return kernel


def _backward(fn, uses="X", *attr_names):
    op = Binary(_d(fn))

    def kernel(ins, attrs):
        a, dout = ins[uses], ins["Out@GRAD"]
        p, q = ([scalar_arg(dout.dtype, attrs[n]) for n in attr_names] + [0.0, 0.0])[:2]
        return {"X@GRAD": op(a, dout, p, q, dtype=dout.dtype)}
    return kernel


# Device code below uses math.fabs, never abs(): this module defines a kernel named abs.
@cuda.jit(device=True, inline=True)
def _sigmoid(x):
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


@cuda.jit(device=True, inline=True)
def _softplus(x):
    return max(x, 0) + math.log1p(math.exp(-math.fabs(x)))


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_C = 0.044715
_INV_SQRT2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


relu = _forward(lambda x, p, q: x if x > 0 else 0 * x)
relu_grad = _backward(lambda o, d, p, q: d if o > 0 else 0 * d, "Out")
leaky_relu = _forward(lambda x, a, q: x if x > 0 else x * a, "alpha")
leaky_relu_grad = _backward(lambda x, d, a, q: d if x > 0 else d * a, "X", "alpha")
elu = _forward(lambda x, a, q: x if x > 0 else a * math.expm1(min(x, 0)), "alpha")
elu_grad = _backward(lambda x, d, a, q: d if x > 0 else d * a * math.exp(min(x, 0)), "X", "alpha")
relu6 = _forward(lambda x, t, q: 0 * x if x < 0 else (t if x > t else x), "threshold")
relu6_grad = _backward(lambda o, d, t, q: d if (o > 0 and o < t) else 0 * d, "Out", "threshold")
sigmoid = _forward(lambda x, p, q: _sigmoid(x))
sigmoid_grad = _backward(lambda o, d, p, q: d * o * (1 - o), "Out")
logsigmoid = _forward(lambda x, p, q: -_softplus(-x))
logsigmoid_grad = _backward(lambda x, d, p, q: d * _sigmoid(-x), "X")
hard_sigmoid = _forward(lambda x, s, b: min(max(x * s + b, 0), 1), "slope", "offset")
hard_sigmoid_grad = _backward(lambda o, d, s, q: d * s if (o > 0 and o < 1) else 0 * d, "Out", "slope")
swish = _forward(lambda x, b, q: x * _sigmoid(x * b), "beta")
swish_grad = _backward(lambda x, d, b, q: d * (_sigmoid(x * b) + x * b * _sigmoid(x * b) * (1 - _sigmoid(x * b))),
                       "X", "beta")
tanh = _forward(lambda x, p, q: math.tanh(x))
tanh_grad = _backward(lambda o, d, p, q: d * (1 - o * o), "Out")
softplus = _forward(lambda x, p, q: _softplus(x))
softplus_grad = _backward(lambda x, d, p, q: d * _sigmoid(x), "X")
softsign = _forward(lambda x, p, q: x / (1 + math.fabs(x)))
softsign_grad = _backward(lambda x, d, p, q: d / ((1 + math.fabs(x)) * (1 + math.fabs(x))), "X")
sqrt = _forward(lambda x, p, q: math.sqrt(x))
sqrt_grad = _backward(lambda o, d, p, q: d * 0.5 / o, "Out")
rsqrt = _forward(lambda x, p, q: 1 / math.sqrt(x))
rsqrt_grad = _backward(lambda o, d, p, q: d * -0.5 * o * o * o, "Out")
reciprocal = _forward(lambda x, p, q: 1 / x)
reciprocal_grad = _backward(lambda o, d, p, q: -d * o * o, "Out")
exp = _forward(lambda x, p, q: math.exp(x))
exp_grad = _backward(lambda o, d, p, q: d * o, "Out")
log = _forward(lambda x, p, q: math.log(x))
log_grad = _backward(lambda x, d, p, q: d / x, "X")
square = _forward(lambda x, p, q: x * x)
square_grad = _backward(lambda x, d, p, q: d * x * 2, "X")
abs = _forward(lambda x, p, q: -x if x < 0 else x)
abs_grad = _backward(lambda x, d, p, q: d if x > 0 else (-d if x < 0 else 0 * d), "X")
sign = _forward(lambda x, p, q: 1 if x > 0 else (-1 if x < 0 else 0))


@cuda.jit(device=True, inline=True)
def _gelu_exact(x):
    return 0.5 * x * (1 + math.erf(x * _INV_SQRT2))


@cuda.jit(device=True, inline=True)
def _gelu_tanh(x):
    return 0.5 * x * (1 + math.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)))


@cuda.jit(device=True, inline=True)
def _gelu_exact_grad(x, d, p, q):
    cdf = 0.5 * (1 + math.erf(x * _INV_SQRT2))
    pdf = math.exp(x * x * -0.5) * _INV_SQRT_2PI
    return d * (cdf + x * pdf)


@cuda.jit(device=True, inline=True)
def _gelu_tanh_grad(x, d, p, q):
    t = math.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x))
    dinner = _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * x * x)
    return d * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * dinner)


_gelu = {False: Unary(_d(lambda x, p, q: _gelu_exact(x))), True: Unary(_d(lambda x, p, q: _gelu_tanh(x)))}
_gelu_grad = {False: Binary(_gelu_exact_grad), True: Binary(_gelu_tanh_grad)}


def gelu(ins, attrs):
    return {"Out": _gelu[bool(attrs["approximate"])](ins["X"])}


def gelu_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": _gelu_grad[bool(attrs["approximate"])](x, dout, dtype=dout.dtype)}


# -- softmax family: one block per row along the axis ----------------------------------------

def row_layout(shape, axis):
    """(rows, n, inner): the array as rows of n elements along ``axis``, ``inner`` apart."""
    axis %= len(shape)
    n = shape[axis]
    inner = 1
    for d in shape[axis + 1:]:
        inner *= d
    total = 1
    for d in shape:
        total *= d
    return total // max(n, 1), n, inner


def _softmax_kernel(dt, log):
    T = THREADS
    neg_inf = dt(-np.inf)
    zero = dt(0)

    @cuda.jit
    def kernel(x, out, rows, n, inner):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = (r // inner) * n * inner + r % inner
            m = neg_inf
            for j in range(t, n, nt):
                m = max(m, x[base + j * inner])
            m = block_max(shared, m)
            s = zero
            for j in range(t, n, nt):
                s += math.exp(x[base + j * inner] - m)
            s = block_sum(shared, s)
            for j in range(t, n, nt):
                k = base + j * inner
                if log:
                    out[k] = x[k] - m - math.log(s)
                else:
                    out[k] = math.exp(x[k] - m) / s
            r += cuda.gridDim.x
    return kernel


def _softmax_grad_kernel(dt, log):
    T = THREADS
    zero = dt(0)

    @cuda.jit
    def kernel(out, dout, dx, rows, n, inner):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = (r // inner) * n * inner + r % inner
            s = zero
            for j in range(t, n, nt):
                k = base + j * inner
                if log:
                    s += dout[k]
                else:
                    s += dout[k] * out[k]
            s = block_sum(shared, s)
            for j in range(t, n, nt):
                k = base + j * inner
                if log:
                    dx[k] = dout[k] - math.exp(out[k]) * s
                else:
                    dx[k] = out[k] * (dout[k] - s)
            r += cuda.gridDim.x
    return kernel


_softmax_k = per_dtype(_softmax_kernel)
_softmax_grad_k = per_dtype(_softmax_grad_kernel)


def _rowwise(x, axis, log):
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        rows, n, inner = row_layout(tuple(x.shape), axis)
        _softmax_k(x.dtype, log)[rows_grid(rows, n)](x.reshape(x.size), out.reshape(out.size), rows, n, inner)
    return out


def _rowwise_grad(out, dout, axis, log):
    dx = rt.empty(out.shape, dout.dtype)
    if dx.size:
        rows, n, inner = row_layout(tuple(out.shape), axis)
        _softmax_grad_k(dout.dtype, log)[rows_grid(rows, n)](
            out.reshape(out.size), dout.reshape(dout.size), dx.reshape(dx.size), rows, n, inner)
    return dx


def softmax(ins, attrs):
    return {"Out": _rowwise(ins["X"], attrs["axis"], False)}


def softmax_grad(ins, attrs):
    return {"X@GRAD": _rowwise_grad(ins["Out"], ins["Out@GRAD"], attrs["axis"], False)}


def log_softmax(ins, attrs):
    return {"Out": _rowwise(ins["X"], attrs["axis"], True)}


def log_softmax_grad(ins, attrs):
    return {"X@GRAD": _rowwise_grad(ins["Out"], ins["Out@GRAD"], attrs["axis"], True)}
