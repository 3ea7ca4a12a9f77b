"""Paddle 2.x's elementwise tensor functions: those Paddle 2.6 builds as one op build that op (``trunc``,
``asinh``/``acosh``/``atanh``, ``lerp``, ``atan2``, ``fmax``/``fmin``, ``heaviside``, ``logit``: a composition of
other ops gave other gradients at ties, zeros and NaN); the others pe builds from its own ops, each exactly
(same values; gradients by the chain rule through the ops): ``neg``, ``deg2rad``/``rad2deg``, ``frac``,
``sgn``, ``hypot``, ``logaddexp``, ``isclose``, ``masked_fill``, ``clone``, ``nan_to_num``, and the dtype
tests ``is_floating_point``/``is_integer``/``is_complex``."""

import math
import numbers

import numpy as np

from .. import layers as L
from ..layers.creation import assign_array_like
from ..base.dtypes import convert_dtype
from ..framework.variable import Variable
from . import tensor_create as TC
from . import tensor_math as TM
from ..layers.checks import check_type, check_variable_and_dtype
from ..layers.helper import single as _op

__all__ = [
    "neg",
    "deg2rad",
    "rad2deg",
    "trunc",
    "frac",
    "sgn",
    "asinh",
    "acosh",
    "atanh",
    "hypot",
    "lerp",
    "logaddexp",
    "isclose",
    "masked_fill",
    "clone",
    "is_floating_point",
    "is_integer",
    "is_complex",
    "atan2",
    "fmax",
    "fmin",
    "heaviside",
    "nan_to_num",
    "logit",
]

_FLOATS = ("float16", "float32", "float64", "bfloat16", "uint16")
_INTS = ("uint8", "int8", "int16", "int32", "int64")


def _float(x):
    """x as float32 when it is an integer tensor (as Paddle's deg2rad/rad2deg do)."""
    return x if convert_dtype(x.dtype) in _FLOATS else L.cast(x, "float32")


def neg(x, name=None):
    """-x."""
    return L.scale(x, -1.0, name=name)


def deg2rad(x, name=None):
    """x * pi / 180 (an integer x is cast to float32 first)."""
    return L.scale(_float(x), math.pi / 180.0, name=name)


def rad2deg(x, name=None):
    """x * 180 / pi (an integer x is cast to float32 first)."""
    return L.scale(_float(x), 180.0 / math.pi, name=name)


def trunc(input, name=None):
    """The integer part of each value, rounded toward zero (integers are returned as they are): Paddle's trunc
    op (its gradient 0, NaN's too)."""
    if convert_dtype(input.dtype) not in _FLOATS:
        return assign_array_like(input)
    return _op("trunc", input, {"X": [input]}, {}, name=name)


def frac(x, name=None):
    """x - trunc(x): the fractional part, with x's sign (x int32, int64, float32 or float64)."""
    if x.dtype not in ("int32", "int64", "float32", "float64"):
        raise TypeError(
            f"The data type of input must be one of ['int32', 'int64', 'float32', 'float64'], but got {x.dtype}"
        )
    return TM.subtract(x, trunc(x), name=name)


def sgn(x, name=None):
    """The sign of each value (-1, 0, 1) for real x."""
    return L.sign(x, name=name)


def asinh(x, name=None):
    """The inverse hyperbolic sine: Paddle's asinh op."""
    return _op("asinh", x, {"X": [x]}, {}, name=name)


def acosh(x, name=None):
    """The inverse hyperbolic cosine (x >= 1): Paddle's acosh op."""
    return _op("acosh", x, {"X": [x]}, {}, name=name)


def atanh(x, name=None):
    """The inverse hyperbolic tangent (|x| < 1): Paddle's atanh op."""
    return _op("atanh", x, {"X": [x]}, {}, name=name)


def hypot(x, y, name=None):
    """sqrt(x^2 + y^2), x and y broadcast."""
    return L.sqrt(TM.add(L.square(x), L.square(y)), name=name)


def lerp(x, y, weight, name=None):
    """x + weight * (y - x), broadcast; ``weight`` a number (a 0-D tensor of x's dtype) or a Tensor, which no
    gradient reaches: Paddle's lerp op."""
    if isinstance(weight, numbers.Number):
        weight = TC.full([], float(weight), x.dtype)
    return _op("lerp", x, {"X": [x], "Y": [y], "Weight": [weight]}, {}, name=name)


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)), as max(x, y) + log1p(exp(-|x - y|)) (no overflow)."""
    top = TM.maximum(x, y)
    return TM.add(top, L.log1p(L.exp(neg(L.abs(TM.subtract(x, y))))), name=name)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Paddle 2.6's isclose op: a == b, or |a - b| <= atol + rtol |b| (the bound in double), or within 1e-15 of it,
    elementwise (equal infinities are close; NaNs are close to each other only with ``equal_nan``)."""
    dtypes = ("float16", "float32", "float64", "complex64", "complex128")
    check_variable_and_dtype(x, "input", dtypes, "isclose")
    check_variable_and_dtype(y, "input", dtypes, "isclose")
    check_type(rtol, "rtol", float, "isclose")
    check_type(atol, "atol", float, "isclose")
    check_type(equal_nan, "equal_nan", bool, "isclose")
    attrs = {"rtol": str(rtol), "atol": str(atol), "equal_nan": equal_nan}
    return _op("isclose", x, {"Input": [x], "Other": [y]}, attrs, name=name, dtype="bool", stop_gradient=True)


def masked_fill(x, mask, value, name=None):
    """x with ``value`` (a number or a one-element Tensor) where the bool ``mask`` (broadcast to x) holds."""
    if isinstance(value, Variable):
        value = TM.multiply(TC.ones_like(x), L.cast(value, x.dtype) if value.dtype != x.dtype else value)
    return TC.where(mask, value, x, name=name)


def clone(x, name=None):
    """A copy of x (the gradient flows back to x)."""
    return assign_array_like(x)


def is_floating_point(x):
    return convert_dtype(x.dtype) in _FLOATS


def is_integer(x):
    return convert_dtype(x.dtype) in _INTS


def is_complex(x):
    return convert_dtype(x.dtype) in ("complex64", "complex128")


def atan2(x, y, name=None):
    """The angle of the point (y, x) (numpy's arctan2(x, y); integer inputs give float64): Paddle's atan2 op."""
    return _op("atan2", x, {"X1": [x], "X2": [y]}, {}, name=name, dtype=x.dtype if x.dtype in _FLOATS else "float64")


def fmax(x, y, name=None):
    """The larger of x and y elementwise, a NaN losing to a number (numpy's fmax; the gradient to x at ties):
    Paddle's elementwise_fmax op."""
    return _op("elementwise_fmax", x, {"X": [x], "Y": [y]}, {}, name=name)


def fmin(x, y, name=None):
    """The smaller of x and y elementwise, a NaN losing to a number (numpy's fmin; the gradient to x at ties):
    Paddle's elementwise_fmin op."""
    return _op("elementwise_fmin", x, {"X": [x], "Y": [y]}, {}, name=name)


def heaviside(x, y, name=None):
    """0 where x < 0, 1 where x > 0, y where x == 0 (x and y broadcast): Paddle's elementwise_heaviside op."""
    return _op("elementwise_heaviside", x, {"X": [x], "Y": [y]}, {}, name=name)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN, +inf and -inf replaced (the infinities by x's dtype's largest / lowest finite value
    unless given)."""
    info = np.finfo(convert_dtype(x.dtype))
    posinf = float(info.max) if posinf is None else float(posinf)
    neginf = float(info.min) if neginf is None else float(neginf)
    inf = TM.isinf(x)  # (+inf and -inf by isinf and the sign, as Paddle 2.6's x == inf has them)
    out = TC.where(L.logical_and(inf, L.greater_than(x, TC.zeros_like(x))), posinf, x)
    out = TC.where(L.logical_and(inf, L.less_than(x, TC.zeros_like(x))), neginf, out)
    return TC.where(TM.isnan(x), float(nan), out, name=name)


def logit(x, eps=None, name=None):
    """log(x / (1 - x)), x first clipped to [eps, 1 - eps] when ``eps`` is given: Paddle's logit op."""
    return _op("logit", x, {"X": [x]}, {"eps": 0.0 if eps is None else float(eps)}, name=name)
