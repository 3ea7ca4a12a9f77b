"""The activation table's elementwise math functions (pe_cli/base/activations.py): roots, reciprocal,
exp and logs, square, abs, sign, pow, rounding, erf, the trigonometric and hyperbolic functions. A leaf,
as the table."""

import math

import numpy as np

from .activations_row import Activation, c, _erf, _number

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _abs_grad(x, d):
    if x > 0:
        return d
    return -d if x < 0 else 0 * d


A = Activation
MATH_FUNCTIONS = (
    A(
        "sqrt",
        "Out = sqrt(X).",
        reads="Out",
        forward=np.sqrt,
        derivative=lambda o, d: d * c(o, 0.5) / o,
        scalar_forward=lambda x: math.sqrt(x),
        scalar_derivative=lambda o, d: d * 0.5 / o,
    ),
    A(
        "rsqrt",
        "Out = 1 / sqrt(X).",
        reads="Out",
        forward=lambda x: 1 / np.sqrt(x),
        derivative=lambda o, d: d * c(o, -0.5) * o * o * o,
        scalar_forward=lambda x: 1 / math.sqrt(x),
        scalar_derivative=lambda o, d: d * -0.5 * o * o * o,
    ),
    A("reciprocal", "Out = 1 / X.", reads="Out", forward=lambda x: 1 / x, derivative=lambda o, d: -d * o * o),
    A(
        "exp",
        "Out = exp(X) (an integer X: truncated to its dtype, as Fluid 1.8.5's kernel).",
        reads="Out",
        dtypes=None,
        forward=np.exp,
        derivative=lambda o, d: d * o,
        scalar_forward=lambda x: math.exp(x),
    ),
    A("log", "Out = ln(X).", forward=np.log, derivative=lambda x, d: d / x, scalar_forward=lambda x: math.log(x)),
    A(
        "log1p",
        "Out = ln(1 + X), exact for small X.",
        forward=np.log1p,
        derivative=lambda x, d: d / (1 + x),
        scalar_forward=lambda x: math.log1p(x),
    ),
    A(
        "square",
        "Out = X * X.",
        dtypes=None,
        forward_loop=True,
        grad_loop=True,
        forward=lambda x: x * x,
        derivative=lambda x, d: d * x * 2,
    ),
    A(
        "abs",
        "Out = |X|; the gradient at 0 is 0.",
        dtypes=None,
        forward=np.abs,
        derivative=lambda x, d: d * np.sign(x),
        scalar_forward=lambda x: -x if x < 0 else x,
        scalar_derivative=_abs_grad,
    ),
    A(
        "sign",
        "Out = -1, 0 or 1 by the sign of X; the gradient is 0 (Fluid's).",
        dtypes=None,
        forward=np.sign,
        derivative=lambda x, d: d * 0,
        scalar_forward=lambda x: 1 if x > 0 else (-1 if x < 0 else 0),
    ),
    A(
        "pow",
        "Out = X ** factor (factor in X's dtype).",
        params=(_number("factor", 1.0),),
        dtypes=None,
        forward=lambda x, f: x**f,
        derivative=lambda x, d, f: d * f * x ** (f - 1),
    ),
    A(
        "floor",
        "Out = the largest integer <= X; the gradient is 0.",
        forward=np.floor,
        reads="",
        derivative=lambda d, d_: d * 0,
        scalar_forward=lambda x: math.floor(x),
    ),
    A(
        "ceil",
        "Out = the smallest integer >= X; the gradient is 0.",
        forward=np.ceil,
        reads="",
        derivative=lambda d, d_: d * 0,
        scalar_forward=lambda x: math.ceil(x),
    ),
    A(
        "round",
        "Out = X rounded to the nearest integer, halves away from 0; the gradient is 0.",
        reads="",
        forward=lambda x: np.sign(x) * np.floor(np.abs(x) + c(x, 0.5)),
        derivative=lambda d, d_: d * 0,
        scalar_forward=lambda x: math.copysign(math.floor(abs(x) + 0.5), x),
    ),
    A(
        "erf",
        "Out = erf(X), the Gauss error function.",
        forward=lambda x: _erf(x),
        derivative=lambda x, d: d * c(x, _TWO_OVER_SQRT_PI) * np.exp(-(x * x)),
        scalar_forward=lambda x: math.erf(x),
        scalar_derivative=lambda x, d: d * _TWO_OVER_SQRT_PI * math.exp(-(x * x)),
    ),
    A(
        "cos",
        "Out = cos(X).",
        forward=np.cos,
        derivative=lambda x, d: -d * np.sin(x),
        scalar_forward=lambda x: math.cos(x),
        scalar_derivative=lambda x, d: -d * math.sin(x),
    ),
    A(
        "sin",
        "Out = sin(X).",
        forward=np.sin,
        derivative=lambda x, d: d * np.cos(x),
        scalar_forward=lambda x: math.sin(x),
        scalar_derivative=lambda x, d: d * math.cos(x),
    ),
    A(
        "acos",
        "Out = arccos(X).",
        forward=np.arccos,
        derivative=lambda x, d: -d / np.sqrt(1 - x * x),
        scalar_forward=lambda x: math.acos(x),
        scalar_derivative=lambda x, d: -d / math.sqrt(1 - x * x),
    ),
    A(
        "asin",
        "Out = arcsin(X).",
        forward=np.arcsin,
        derivative=lambda x, d: d / np.sqrt(1 - x * x),
        scalar_forward=lambda x: math.asin(x),
        scalar_derivative=lambda x, d: d / math.sqrt(1 - x * x),
    ),
    A(
        "atan",
        "Out = arctan(X).",
        forward=np.arctan,
        derivative=lambda x, d: d / (1 + x * x),
        scalar_forward=lambda x: math.atan(x),
    ),
    A(
        "cosh",
        "Out = cosh(X).",
        forward=np.cosh,
        derivative=lambda x, d: d * np.sinh(x),
        scalar_forward=lambda x: math.cosh(x),
        scalar_derivative=lambda x, d: d * math.sinh(x),
    ),
    A(
        "sinh",
        "Out = sinh(X).",
        forward=np.sinh,
        derivative=lambda x, d: d * np.cosh(x),
        scalar_forward=lambda x: math.sinh(x),
        scalar_derivative=lambda x, d: d * math.cosh(x),
    ),
)
del A
