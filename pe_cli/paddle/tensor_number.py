"""Paddle 2.x's integer and floating-point-decomposition functions (Paddle's python/paddle/tensor/
math.py): ``gcd`` and ``lcm`` (Euclid's algorithm in a while_loop, elementwise on broadcast int
tensors), ``ldexp`` (x * 2 ** y) and ``frexp`` (mantissa in [0.5, 1) and exponent), composed of
pe's ops as Paddle composes them."""

from .. import layers as L
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from .device import get_default_dtype
from .tensor_arrange import broadcast_shape
from .tensor_create import full_like, ones_like, where, zeros_like
from .tensor_inplace import _static_inplace
from .tensor_manip import _broadcast
from . import tensor_math as TM
from . import tensor_reduce as TR

__all__ = ["gcd", "lcm", "ldexp", "frexp", "gcd_", "lcm_", "ldexp_"]


def _euclid_cond(x, y):
    return TR.any(TM.not_equal(y, zeros_like(y)))


def _euclid_body(x, y):
    """One step of Euclid's algorithm where y != 0: (x, y) -> (y, x mod y), larger first."""
    nonzero = TM.not_equal(y, zeros_like(y))
    y_safe = where(nonzero, y, ones_like(y))
    x, y = where(nonzero, y, x), where(nonzero, TM.mod(x, y_safe), zeros_like(y))
    smaller = TM.less_than(x, y)
    return where(smaller, y, x), where(smaller, x, y)


def gcd(x, y, name=None):
    """The greatest common divisor of |x| and |y| elementwise (int32 or int64; they broadcast);
    gcd(0, 0) is 0."""
    check_variable_and_dtype(x, "x", ("int32", "int64"), "gcd")
    check_variable_and_dtype(y, "y", ("int32", "int64"), "gcd")
    shape = broadcast_shape(list(x.shape), list(y.shape))
    x, y = TM.abs(_broadcast(x, shape)), TM.abs(_broadcast(y, shape))
    return L.while_loop(_euclid_cond, _euclid_body, [x, y])[0]


def lcm(x, y, name=None):
    """The least common multiple of |x| and |y| elementwise; 0 where either is 0."""
    d = gcd(x, y)
    zero = TM.equal(d, zeros_like(d))
    d_safe = where(zero, ones_like(d), d)
    return where(zero, zeros_like(d), TM.floor_divide(TM.abs(TM.multiply(x, y)), d_safe))


def ldexp(x, y, name=None):
    """x * 2 ** y, in float64 when either is float64, else in the default float dtype."""
    if not isinstance(x, Variable):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    if not isinstance(y, Variable):
        raise TypeError(f"y must be tensor type, but got {type(y)}")
    dtype = "float64" if "float64" in (x.dtype, y.dtype) else get_default_dtype()
    x, y = L.cast(x, dtype), L.cast(y, dtype)
    return TM.multiply(x, TM.pow(full_like(y, 2.0), y))


def frexp(x, name=None):
    """(mantissa, exponent): x = mantissa * 2 ** exponent, |mantissa| in [0.5, 1) (0 for 0), both of
    x's float dtype."""
    if x.dtype not in ("float32", "float64"):
        raise TypeError(f"The data type of input must be one of ['float32', 'float64'], but got {x.dtype}")
    magnitude = TM.abs(x)
    exponent = TM.floor(TM.log2(magnitude))
    exponent = where(TM.isinf(exponent), full_like(exponent, 0), exponent)
    mantissa = TM.divide(magnitude, TM.pow(full_like(exponent, 2.0), exponent))
    big = TM.greater_equal(mantissa, ones_like(mantissa))
    exponent = where(big, TM.add(exponent, ones_like(exponent)), exponent)
    mantissa = where(big, TM.divide(mantissa, full_like(mantissa, 2.0)), mantissa)
    mantissa = where(TM.less_than(x, zeros_like(x)), TM.scale(mantissa, -1.0), mantissa)
    return mantissa, exponent


def gcd_(x, y, name=None):
    return _static_inplace("gcd", gcd)(x, y, name=name)


def lcm_(x, y, name=None):
    return _static_inplace("lcm", lcm)(x, y, name=name)


def ldexp_(x, y, name=None):
    return _static_inplace("ldexp", ldexp)(x, y, name=name)
