"""Paddle 2.x's bitwise functions (``paddle.bitwise_and``, ``bitwise_or``, ``bitwise_xor``,
``bitwise_not``; Paddle's python/paddle/tensor/logic.py) on bool and integer tensors, each one op of
pe's registry (ops/logic.py), and their in-place names (static mode: the same, with Paddle's warning)."""

from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from .tensor_inplace import _static_inplace
from .alpha_keywords import written_to

__all__ = [
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_and_",
    "bitwise_or_",
    "bitwise_xor_",
    "bitwise_not_",
]

_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _bitwise(op_type, x, y, out, name):
    check_variable_and_dtype(x, "x", _DTYPES, op_type)
    ins = {"X": [x]}
    if y is not None:
        check_variable_and_dtype(y, "y", _DTYPES, op_type)
        ins["Y"] = [y]
    helper = LayerHelper(op_type, name=name)
    result = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op(op_type, ins, {"Out": [result]})
    return written_to(result, out)


def bitwise_and(x, y, out=None, name=None):
    """x & y elementwise (bool or integer tensors of one dtype; they broadcast as in numpy)."""
    return _bitwise("bitwise_and", x, y, out, name)


def bitwise_or(x, y, out=None, name=None):
    """x | y elementwise."""
    return _bitwise("bitwise_or", x, y, out, name)


def bitwise_xor(x, y, out=None, name=None):
    """x ^ y elementwise."""
    return _bitwise("bitwise_xor", x, y, out, name)


def bitwise_not(x, out=None, name=None):
    """~x elementwise (not, for bool)."""
    return _bitwise("bitwise_not", x, None, out, name)


def bitwise_and_(x, y, name=None):
    return _static_inplace("bitwise_and", bitwise_and)(x, y, name=name)


def bitwise_or_(x, y, name=None):
    return _static_inplace("bitwise_or", bitwise_or)(x, y, name=name)


def bitwise_xor_(x, y, name=None):
    return _static_inplace("bitwise_xor", bitwise_xor)(x, y, name=name)


def bitwise_not_(x, name=None):
    return _static_inplace("bitwise_not", bitwise_not)(x, name=name)
