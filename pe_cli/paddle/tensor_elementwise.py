"""Paddle 2.x's elementwise tensor functions that pe builds from its own ops, each exactly (same
values; gradients by the chain rule through the ops): ``neg``, ``deg2rad``/``rad2deg``, ``trunc``,
``frac``, ``sgn``, ``asinh``/``acosh``/``atanh``, ``hypot``, ``lerp``, ``logaddexp``, ``isclose``,
``masked_fill``, ``clone``, ``atan2``, ``fmax``/``fmin`` (NaN-ignoring), ``heaviside``, ``nan_to_num``,
``logit``, and the dtype tests ``is_floating_point``/``is_integer``/``is_complex``."""

import math
import numbers

import numpy as np

from .. import layers as L
from ..layers.creation import assign_array_like
from ..base.dtypes import convert_dtype
from ..framework.variable import Variable
from . import tensor_create as TC
from . import tensor_math as TM

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
    """The integer part of each value, rounded toward zero (integers are returned as they are)."""
    if convert_dtype(input.dtype) not in _FLOATS:
        return assign_array_like(input)
    return TM.multiply(L.sign(input), L.floor(L.abs(input)), name=name)


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
    """sign(x) * log(|x| + sqrt(x^2 + 1)) (exact for either sign)."""
    a = L.abs(x)
    return TM.multiply(L.sign(x), L.log(TM.add(a, L.sqrt(L.scale(L.square(a), 1.0, bias=1.0)))), name=name)


def acosh(x, name=None):
    """log(x + sqrt(x^2 - 1)), for x >= 1."""
    return L.log(TM.add(x, L.sqrt(L.scale(L.square(x), 1.0, bias=-1.0))), name=name)


def atanh(x, name=None):
    """0.5 * (log1p(x) - log1p(-x)), for |x| < 1."""
    return L.scale(TM.subtract(L.log1p(x), L.log1p(neg(x))), 0.5, name=name)


def hypot(x, y, name=None):
    """sqrt(x^2 + y^2), x and y broadcast."""
    return L.sqrt(TM.add(L.square(x), L.square(y)), name=name)


def lerp(x, y, weight, name=None):
    """x + weight * (y - x); ``weight`` a number or a Tensor (broadcast)."""
    step = TM.subtract(y, x)
    step = L.scale(step, float(weight)) if isinstance(weight, numbers.Number) else TM.multiply(step, weight)
    return TM.add(x, step, name=name)


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)), as max(x, y) + log1p(exp(-|x - y|)) (no overflow)."""
    top = TM.maximum(x, y)
    return TM.add(top, L.log1p(L.exp(neg(L.abs(TM.subtract(x, y))))), name=name)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (equal infinities are close; NaNs are close to each
    other only with ``equal_nan``)."""
    bound = L.scale(L.abs(y), float(rtol), bias=float(atol))
    close = L.logical_or(L.less_equal(L.abs(TM.subtract(x, y)), bound), L.equal(x, y))
    if equal_nan:
        close = L.logical_or(close, L.logical_and(TM.isnan(x), TM.isnan(y)))
    return close


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
    """The angle of the point (y, x): arctan(x / y) moved to its quadrant (numpy's arctan2(x, y));
    where y = 0 it is sign(x) * pi / 2."""
    zero = L.equal(y, TC.zeros_like(y))
    ratio = L.atan(TM.divide(x, TC.where(zero, 1.0, y)))
    turn = TC.where(L.less_than(x, TC.zeros_like(x)), -math.pi, math.pi)
    shifted = TC.where(L.less_than(y, TC.zeros_like(y)), TM.add(ratio, turn), ratio)
    return TC.where(zero, L.scale(L.sign(x), math.pi / 2), shifted, name=name)


def fmax(x, y, name=None):
    """The larger of x and y elementwise, a NaN losing to a number (numpy's fmax)."""
    return TC.where(TM.isnan(y), x, TC.where(TM.isnan(x), y, TM.maximum(x, y)), name=name)


def fmin(x, y, name=None):
    """The smaller of x and y elementwise, a NaN losing to a number (numpy's fmin)."""
    return TC.where(TM.isnan(y), x, TC.where(TM.isnan(x), y, TM.minimum(x, y)), name=name)


def heaviside(x, y, name=None):
    """0 where x < 0, 1 where x > 0, y where x == 0 (x and y broadcast)."""
    zeros = TC.zeros_like(x)
    return TC.where(L.less_than(x, zeros), 0.0, TC.where(L.greater_than(x, zeros), 1.0, y), name=name)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN, +inf and -inf replaced (the infinities by x's dtype's largest / lowest finite value
    unless given)."""
    info = np.finfo(convert_dtype(x.dtype))
    posinf = float(info.max) if posinf is None else float(posinf)
    neginf = float(info.min) if neginf is None else float(neginf)
    out = TC.where(L.equal(x, TC.full_like(x, np.inf)), posinf, x)
    out = TC.where(L.equal(x, TC.full_like(x, -np.inf)), neginf, out)
    return TC.where(TM.isnan(x), float(nan), out, name=name)


def logit(x, eps=None, name=None):
    """log(x / (1 - x)), x first clipped to [eps, 1 - eps] when ``eps`` is given."""
    if eps is not None:
        x = L.clip(x, float(eps), 1.0 - float(eps))
    return L.log(TM.divide(x, L.scale(x, -1.0, bias=1.0)), name=name)
