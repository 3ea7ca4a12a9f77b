"""Paddle 2.x's running values along an axis (``paddle.cumprod``, ``cummax``, ``cummin``,
``logcumsumexp``) with 2.6.2's signatures, each the op of the cumulative family of that name
(ops/cumulative.py); ``paddle.cumsum`` is tensor_math's."""

from .. import layers as L
from ..base.dtypes import convert_dtype, var_type
from ..layers.checks import check_dtype, check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from .tensor_manip import flatten

__all__ = ["cumprod", "cummax", "cummin", "logcumsumexp"]


def _cast(x, dtype):
    return x if dtype is None or convert_dtype(dtype) == x.dtype else L.cast(x, dtype)


def cumprod(x, dim=None, dtype=None, name=None):
    """The running product along ``dim`` (an int: Paddle 2.6 has no flattened form), cast to ``dtype``
    first."""
    x = _cast(x, dtype)
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64", "int32", "int64"), "cumprod")
    check_type(dim, "dim", int, "cumprod")
    helper = LayerHelper("cumprod", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("cumprod", {"X": [x]}, {"Out": [out]}, {"dim": int(dim)})
    return out


def _cum_extreme(op_type, x, axis, dtype, name):
    if axis is None:
        x, axis = flatten(x), -1
    check_dtype(dtype, "dtype", ("int32", "int64"), op_type)
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), op_type)
    helper = LayerHelper(op_type, x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    indices = helper.create_variable_for_type_inference(convert_dtype(dtype), stop_gradient=True)
    helper.append_op(
        op_type, {"x": [x]}, {"out": [out], "indices": [indices]}, {"axis": int(axis), "dtype": int(var_type(dtype))}
    )
    return out, indices


def cummax(x, axis=None, dtype="int64", name=None):
    """(the running maximum along ``axis`` (None: over x flattened), the indices it came from in
    ``dtype``): the last of equal values; a NaN, once met, stays."""
    return _cum_extreme("cummax", x, axis, dtype, name)


def cummin(x, axis=None, dtype="int64", name=None):
    """(the running minimum, its indices), as cummax."""
    return _cum_extreme("cummin", x, axis, dtype, name)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log of the running sum of exp(x) along ``axis`` (None: over x flattened, 1-D), cast to ``dtype``
    first."""
    x = _cast(x, dtype)
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "logcumsumexp")
    helper = LayerHelper("logcumsumexp", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "logcumsumexp", {"X": [x]}, {"Out": [out]}, {"axis": -1 if axis is None else int(axis), "flatten": axis is None}
    )
    return out
