"""Paddle 2.x's special functions (``paddle.digamma``, ``lgamma``, ``polygamma``, ``multigammaln``,
``erfinv``, ``expm1``, ``i0``, ``i0e``, ``i1``, ``i1e``, ``nextafter``) with 2.6.2's signatures: each the
op of the special family of that name (ops/special.py), ``polygamma(x, 0)`` digamma's, and
``multigammaln`` built as Paddle builds it, a sum of lgammas."""

import math
import numbers

from .. import layers as L
from ..layers.checks import check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from . import tensor_create as TC
from . import tensor_manip as TMP
from . import tensor_math as TM

__all__ = ["digamma", "lgamma", "polygamma", "multigammaln", "erfinv", "expm1", "i0", "i0e", "i1", "i1e", "nextafter"]

_FLOATS = ("float16", "float32", "float64")
_F32_64 = ("float32", "float64")


def _unary(op_type, x, name, dtypes, lower=False, attrs=None, out_dtype=None):
    check_variable_and_dtype(x, "x", dtypes, op_type)
    x_slot, out_slot = ("x", "out") if lower else ("X", "Out")
    helper = LayerHelper(op_type, x=x, name=name)
    out = helper.create_variable_for_type_inference(out_dtype or x.dtype)
    helper.append_op(op_type, {x_slot: [x]}, {out_slot: [out]}, attrs or {})
    return out


def digamma(x, name=None):
    """psi(x), the derivative of lgamma (NaN at 0 and the negative integers)."""
    return _unary("digamma", x, name, _FLOATS)


def lgamma(x, name=None):
    """log|gamma(x)| (+inf at 0 and the negative integers)."""
    return _unary("lgamma", x, name, _FLOATS)


def erfinv(x, name=None):
    """The inverse of erf, +-inf at and beyond +-1."""
    return _unary("erfinv", x, name, _FLOATS)


def expm1(x, name=None):
    """exp(x) - 1, exact near 0; an int32/int64 x gives float32 (as Paddle's kernel)."""
    dtype = None if x.dtype in _FLOATS else "float32"
    return _unary("expm1", x, name, _FLOATS + ("int32", "int64"), out_dtype=dtype)


def i0(x, name=None):
    """I0(x), the modified Bessel function of the first kind of order 0."""
    return _unary("i0", x, name, _F32_64, lower=True)


def i0e(x, name=None):
    """e^-|x| I0(x)."""
    return _unary("i0e", x, name, _F32_64, lower=True)


def i1(x, name=None):
    """I1(x), of order 1."""
    return _unary("i1", x, name, _F32_64, lower=True)


def i1e(x, name=None):
    """e^-|x| I1(x)."""
    return _unary("i1e", x, name, _F32_64, lower=True)


def polygamma(x, n, name=None):
    """The n-th derivative of digamma (n an int >= 0; 0 is digamma)."""
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"The input of n must be int type, but received: {type(n)} ")
    if n < 0:
        raise ValueError(f"The input of n must be greater than or equal to 0. But received n = {n}")
    if n == 0:
        return digamma(x, name=name)
    return _unary("polygamma", x, name, _F32_64, lower=True, attrs={"n": int(n)})


def multigammaln(x, p, name=None):
    """log of the multivariate gamma function of dimension p: sum over j < p of lgamma(x - j/2), plus
    p (p - 1) / 4 log(pi) (Paddle's composition: lgamma of x unsqueezed plus [(1 - p)/2, ..., 0])."""
    if not p >= 1:
        raise ValueError(f"paddle.multigammaln: p must be >= 1, got {p}")
    offsets = L.scale(TC.arange(1 - p, 1, 1, dtype=x.dtype), 0.5)
    terms = lgamma(TM.add(TMP.unsqueeze(x, -1), offsets))
    return L.scale(TM.sum(terms, axis=-1), 1.0, bias=0.25 * p * (p - 1) * math.log(math.pi), name=name)


def nextafter(x, y, name=None):
    """The next float after each x towards y (x and y of one shape, float32 or float64)."""
    check_variable_and_dtype(x, "x", _F32_64, "nextafter")
    check_variable_and_dtype(y, "y", _F32_64, "nextafter")
    check_type(y, "y", type(x), "nextafter")
    helper = LayerHelper("nextafter", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("nextafter", {"x": [x], "y": [y]}, {"out": [out]})
    return out
