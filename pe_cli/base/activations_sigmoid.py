"""The activation table's sigmoid and tanh family (pe_cli/base/activations.py): sigmoid, logsigmoid,
hard_sigmoid, swish, tanh, stanh, tanh_shrink, gelu, softplus, mish and softsign, and the helpers their
forms share: one sigmoid formula, 1 / (1 + exp(-x)) (``sigmoid_array`` on arrays, ``_sigmoid`` on one
scalar), and softplus without overflow. ``SCALAR_HELPERS``: the helpers the scalar forms call by name,
which device code compiles and binds (``bind``). A leaf, as the table."""

import math
import numbers
import sys

import numpy as np

from .activations_row import Activation, Param, c, device_constant, _erf, _number, real_number


def sigmoid_array(x):
    """1 / (1 + exp(-x)) in x's dtype, Fluid's formula and roundings (exp(-x) overflowing to inf gives 0):
    op_test's float32 finite differences of sigmoid (test_activation_op.py's TestSigmoid, within 1 %)
    land on the derivative with them, 1 % off with the rearranged e / (1 + e) for x < 0."""
    with np.errstate(over="ignore"):
        return (c(x, 1) / (c(x, 1) + np.exp(-x))).astype(x.dtype, copy=False)


def _softplus_array(x):
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): no overflow."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


_LOG_MAX = math.log(sys.float_info.max)  # exp of more overflows float64


def _sigmoid(x):
    """1 / (1 + exp(-x)), sigmoid_array's formula on one scalar: 0 where exp(-x) overflows (a device's
    exp gives inf there, as numpy's; Python's math.exp, which the CUDA simulator runs, raises)."""
    return 0.0 if -x > _LOG_MAX else 1 / (1 + math.exp(-x))


def _softplus(x):
    return max(x, 0) + math.log1p(math.exp(-math.fabs(x)))


def _log_sigmoid_array(x):
    """Fluid 1.8's and Paddle 2.6's LogSigmoidFunctor, in x's dtype: -t - log(exp(-t) + exp(-x - t)), t = max(-x,
    0): NaN at -inf (inf - inf), -0.0 where exp(-x) is lost in 1 + exp(-x) (x = 50 in float32)."""
    t = np.maximum(-x, c(x, 0))
    with np.errstate(invalid="ignore"):
        return -t - np.log(np.exp(-t) + np.exp(-x - t))


def _log_sigmoid_grad_array(x, d):
    """Their LogSigmoidGradFunctor: dOut exp(-x - t) / (exp(-t) + exp(-x - t)) (NaN at -inf)."""
    t = np.maximum(-x, c(x, 0))
    with np.errstate(invalid="ignore"):
        e = np.exp(-x - t)
        return d * (e / (np.exp(-t) + e))


def _log_sigmoid(x):
    t = max(-x, 0.0)
    return -t - math.log(math.exp(-t) + math.exp(-x - t))


def _log_sigmoid_grad(x, d):
    t = max(-x, 0.0)
    e = math.exp(-x - t)
    return d * (e / (math.exp(-t) + e))


def _swish_grad_array(x, d, b):
    s = sigmoid_array(x * b)
    return d * (s + x * b * s * (1 - s))


def _swish_grad(x, d, b):
    s = _sigmoid(x * b)
    return d * (s + x * b * s * (1 - s))


def _softsign_grad(x, d):
    t = 1 + abs(x)
    return d / (t * t)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_C = 0.044715
_INV_SQRT2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu_array(x, approximate):
    if approximate:
        inner = c(x, _SQRT_2_OVER_PI) * (x + c(x, _GELU_C) * x * x * x)
        return c(x, 0.5) * x * (1 + np.tanh(inner))
    return c(x, 0.5) * x * (1 + _erf(x * c(x, _INV_SQRT2)))


def _gelu_grad_array(x, d, approximate):
    if approximate:
        t = np.tanh(c(x, _SQRT_2_OVER_PI) * (x + c(x, _GELU_C) * x * x * x))
        dinner = c(x, _SQRT_2_OVER_PI) * (1 + c(x, 3 * _GELU_C) * x * x)
        return d * (c(x, 0.5) * (1 + t) + c(x, 0.5) * x * (1 - t * t) * dinner)
    cdf = c(x, 0.5) * (1 + _erf(x * c(x, _INV_SQRT2)))
    pdf = np.exp(x * x * c(x, -0.5)) * c(x, _INV_SQRT_2PI)
    return d * (cdf + x * pdf)


def _gelu(x, approximate):
    if approximate:
        return 0.5 * x * (1 + math.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)))
    return 0.5 * x * (1 + math.erf(x * _INV_SQRT2))


def _gelu_grad(x, d, approximate):
    if approximate:
        t = math.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x))
        dinner = _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * x * x)
        return d * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * dinner)
    cdf = 0.5 * (1 + math.erf(x * _INV_SQRT2))
    pdf = math.exp(x * x * -0.5) * _INV_SQRT_2PI
    return d * (cdf + x * pdf)


def _mish_parts_array(x, t):
    """(softplus(x) as Fluid's mish computes it, its derivative): with a threshold t > 0, x above t and
    exp(x) below -t (Fluid's gradient takes 1 - exp(-sp) for the derivative, the same but for e^-t)."""
    if not t > 0:
        return _softplus_array(x), sigmoid_array(x)
    sp = np.where(x > t, x, np.where(x < -t, np.exp(x), _softplus_array(x)))
    dsp = np.where(x > t, c(x, 1), np.where(x < -t, np.exp(x), sigmoid_array(x)))
    return sp, dsp


def _mish_array(x, t):
    return x * np.tanh(_mish_parts_array(x, t)[0])


def _mish_grad_array(x, d, t):
    sp, dsp = _mish_parts_array(x, t)
    tsp = np.tanh(sp)
    return d * (tsp + x * (1 - tsp * tsp) * dsp)


def _mish_softplus(x, t):
    """softplus(x) as Fluid's mish takes it: x above a threshold t > 0, exp(x) below -t."""
    if t > 0 and x > t:
        return x
    if t > 0 and x < -t:
        return math.exp(x)
    return max(x, 0.0) + math.log1p(math.exp(-math.fabs(x)))


def _mish(x, t):
    return x * math.tanh(_mish_softplus(x, t))


def _mish_grad(x, d, t):
    sp = _mish_softplus(x, t)
    if t > 0 and x > t:
        dsp = 1.0
    elif t > 0 and x < -t:
        dsp = sp
    else:
        dsp = _sigmoid(x)
    tsp = math.tanh(sp)
    return d * (tsp + x * (1 - tsp * tsp) * dsp)


SCALAR_HELPERS = {
    "_sigmoid": _sigmoid,
    "_softplus": _softplus,
    "_log_sigmoid": _log_sigmoid,
    "_log_sigmoid_grad": _log_sigmoid_grad,
    "_mish_softplus": _mish_softplus,  # (a helper _mish and _mish_grad call on a device)
    "c": device_constant,
}


A = Activation
SIGMOID_FAMILY = (
    A(
        "sigmoid",
        "Out = 1 / (1 + exp(-X)).",
        reads="Out",
        grad_loop=True,
        float32_loop=True,
        forward=sigmoid_array,
        derivative=lambda o, d: d * o * (c(o, 1) - o),
        scalar_forward=_sigmoid,
    ),
    A(
        "logsigmoid",
        "Out = log(1 / (1 + exp(-X))), as Fluid 1.8 and Paddle 2.6 compute it: -t - log(exp(-t) + exp(-X - t)),"
        " t = max(-X, 0) (NaN at X = -inf; -0.0 where exp(-X) is below float32's rounding of 1).",
        forward=_log_sigmoid_array,
        derivative=_log_sigmoid_grad_array,
        scalar_forward=lambda x: _log_sigmoid(x),
        scalar_derivative=lambda x, d: _log_sigmoid_grad(x, d),
    ),
    A(
        "hard_sigmoid",
        "Out = clip(slope * X + offset, 0, 1).",
        reads="Out",
        params=(_number("slope", 0.2), _number("offset", 0.5)),
        forward=lambda x, s, b: np.clip(x * s + b, c(x, 0), c(x, 1)),
        derivative=lambda o, d, s, b: d * ((o > 0) & (o < 1)) * s,
        scalar_forward=lambda x, s, b: min(max(x * s + b, 0), 1),
        scalar_derivative=lambda o, d, s, b: d * s if (o > 0 and o < 1) else 0 * d,
    ),
    A(
        "swish",
        "Out = X * sigmoid(beta * X).",
        params=(_number("beta", 1.0),),
        forward=lambda x, b: x * sigmoid_array(x * b),
        derivative=_swish_grad_array,
        scalar_forward=lambda x, b: x * _sigmoid(x * b),
        scalar_derivative=_swish_grad,
    ),
    A(
        "tanh",
        "Out = tanh(X).",
        reads="Out",
        grad_loop=True,
        float32_loop=True,
        float32_loop_paddle2=True,
        forward=np.tanh,
        derivative=lambda o, d: d * (c(o, 1) - o * o),
        scalar_forward=lambda x: math.tanh(x),
    ),
    A(
        "stanh",
        "Out = scale_b * tanh(scale_a * X).",
        params=(_number("scale_a", 0.67), _number("scale_b", 1.7159)),
        forward=lambda x, a, b: np.tanh(x * a) * b,
        derivative=lambda x, d, a, b: d * (a * b) * (1 - np.tanh(x * a) ** 2),
        scalar_forward=lambda x, a, b: math.tanh(x * a) * b,
        scalar_derivative=lambda x, d, a, b: d * (a * b) * (1 - math.tanh(x * a) ** 2),
    ),
    A(
        "tanh_shrink",
        "Out = X - tanh(X).",
        forward=lambda x: x - np.tanh(x),
        derivative=lambda x, d: d * np.tanh(x) ** 2,
        scalar_forward=lambda x: x - math.tanh(x),
        scalar_derivative=lambda x, d: d * math.tanh(x) ** 2,
    ),
    A(
        "gelu",
        "Out = X * Phi(X): 0.5 X (1 + erf(X / sqrt 2)), or with approximate=True "
        "0.5 X (1 + tanh(sqrt(2 / pi) (X + 0.044715 X^3))).",
        params=(Param("approximate", False, choices=(False, True)),),
        forward=_gelu_array,
        derivative=_gelu_grad_array,
        scalar_forward=_gelu,
        scalar_derivative=_gelu_grad,
    ),
    A(
        "softplus",
        "Out = log(1 + exp(beta * X)) / beta, computed without overflow, or X where beta * X > "
        "threshold (Paddle 2.x's attributes; the defaults, beta 1 and no threshold, are Fluid 1.8's softplus).",
        params=(
            Param("beta", 1.0, lambda v: real_number(v) and v > 0, "a number > 0"),
            Param("threshold", math.inf, lambda v: isinstance(v, numbers.Real) and v > 0, "a number > 0"),
        ),
        forward=lambda x, b, t: np.where(x * b > t, x, _softplus_array(x * b) / b),
        derivative=lambda x, d, b, t: np.where(x * b > t, d, d * sigmoid_array(x * b)),
        scalar_forward=lambda x, b, t: x if x * b > t else _softplus(x * b) / b,
        scalar_derivative=lambda x, d, b, t: d if x * b > t else d * _sigmoid(x * b),
    ),
    A(
        "mish",
        "Out = X * tanh(softplus(X)), softplus(X) taken as X above threshold and exp(X) below -threshold "
        "(Fluid 1.8's mish).",
        params=(_number("threshold", 20.0),),
        forward=_mish_array,
        derivative=_mish_grad_array,
        scalar_forward=_mish,
        scalar_derivative=_mish_grad,
    ),
    A("softsign", "Out = X / (1 + |X|).", forward=lambda x: x / (1 + abs(x)), derivative=_softsign_grad),
)
del A
