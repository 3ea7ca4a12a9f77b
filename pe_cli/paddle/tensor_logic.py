"""Paddle 2.x's tests of tensor values (``paddle.isnan``, ``paddle.isinf``, ``paddle.isfinite``, ``paddle.allclose``,
``paddle.equal_all``) and its logical operators (``paddle.logical_and``, ...), built from pe's layers;
tensor_math.py offers them with the other math names (its comparisons, ``paddle.equal``, ..., stay there beside
the scalar-to-tensor rule they share with the arithmetic)."""

import math

from .. import layers as L
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper


def _flag(op_type):
    def flag(x, name=None):
        dtypes = ("float16", "float32", "float64", "int32", "int64")
        check_variable_and_dtype(x, "x", dtypes, op_type.replace("_v2", ""))
        helper = LayerHelper(op_type, x=x, name=name)
        out = helper.create_variable_for_type_inference("bool")
        helper.append_op(op_type, {"X": [x]}, {"Out": [out]})
        return out

    flag.__name__ = op_type.replace("_v2", "")
    flag.__doc__ = f"Elementwise, whether x is {op_type[2:-3]}: Paddle 2.6's {op_type} op."
    return flag


isnan, isinf, isfinite = _flag("isnan_v2"), _flag("isinf_v2"), _flag("isfinite_v2")


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A bool [1]: |x - y| <= atol + rtol * |y| everywhere (nan equal to nan when ``equal_nan``)."""
    return L.allclose(x, y, float(rtol), float(atol), bool(equal_nan), name=name)


def equal_all(x, y, name=None):
    """A 0-D bool: x and y hold the same shape (when the program runs) and equal values (floats as paddle.equal
    has them): Paddle 2.6's equal_all op."""
    helper = LayerHelper("equal_all", x=x, name=name)
    out = helper.create_variable_for_type_inference("bool")
    helper.append_op("equal_all", {"X": [x], "Y": [y]}, {"Out": [out]})
    return out


def _logical(layer):
    def fn(x, y, out=None, name=None):
        return layer(x, y, out=out, name=name)

    fn.__doc__, fn.__name__ = layer.__doc__, layer.__name__
    return fn


logical_and, logical_or, logical_xor = _logical(L.logical_and), _logical(L.logical_or), _logical(L.logical_xor)


def logical_not(x, out=None, name=None):
    return L.logical_not(x, out=out, name=name)
