"""``Variable`` arithmetic (``a + b``, ``2 * a``) and comparisons (``i < n``): scalars become a
``scale`` op (a constant for a comparison), variables an elementwise or compare op, exactly as the layers would build them. ``monkey_patch_variable()`` gives Variable
its operators; pe_cli.layers calls it on import (as Fluid does), so the IR never imports the layers."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has it as a public name

import numpy as np

from ..framework.variable import Variable  # noqa: F401 -- also one of Fluid's names of this module
from . import operator_promotion
from .operator_promotion import constant_like, scale_op
from .variable_index import getitem, refuse_setitem
from .helper import LayerHelper
from .op_proto import OpProtoHolder  # noqa: F401 -- Fluid's module exports it

# Fluid's table of the comparison operators it patches (dunder -> symbol)
compare_ops = {"__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}


def binary(var, other, op_type, reverse=False):
    # a Paddle 2.x program's operators follow Paddle 2.6, whoever writes them (a user's script or pe's code)
    if var.block.program._follows_paddle2:
        return operator_promotion.binary(var, other, op_type, reverse)
    helper = LayerHelper(op_type)
    if not hasattr(other, "name"):
        value = float(other)
        if op_type == "elementwise_add":
            return scale_op(helper, var, 1.0, value)
        if op_type == "elementwise_sub":
            return scale_op(helper, var, -1.0, value) if reverse else scale_op(helper, var, 1.0, -value)
        if op_type == "elementwise_mul":
            return scale_op(helper, var, value, 0.0)
        if op_type == "elementwise_div" and not reverse and not str(var.dtype).startswith(("int", "uint")):
            return scale_op(helper, var, 1.0 / value, 0.0)  # an integer one stays a division (Fluid's)
        other = constant_like(helper, var, value, [1])
    elif other.dtype != var.dtype:  # as Fluid 1.8's: the other operand is cast to this one's dtype
        cast = helper.create_variable_for_type_inference(var.dtype)
        helper.append_op("cast", {"X": [other]}, {"Out": [cast]}, {"in_dtype": other.dtype, "out_dtype": var.dtype})
        other = cast
    x, y = (other, var) if reverse else (var, other)
    out = helper.create_variable_for_type_inference(var.dtype)
    helper.append_op(op_type, {"X": [x], "Y": [y]}, {"Out": [out]}, {"axis": -1})
    return out


# (dunder method, op type, operands swapped)
_OPERATORS = [
    ("__add__", "elementwise_add", False),
    ("__radd__", "elementwise_add", True),
    ("__sub__", "elementwise_sub", False),
    ("__rsub__", "elementwise_sub", True),
    ("__mul__", "elementwise_mul", False),
    ("__rmul__", "elementwise_mul", True),
    ("__truediv__", "elementwise_div", False),
    ("__rtruediv__", "elementwise_div", True),
    ("__floordiv__", "elementwise_floordiv", False),
    ("__mod__", "elementwise_mod", False),
    ("__pow__", "elementwise_pow", False),
    ("__rpow__", "elementwise_pow", True),
    # comparisons give bool variables, as Fluid 1.8's; == and != are _compare_with_number's
    ("__lt__", "less_than", False),
    ("__le__", "less_equal", False),
    ("__gt__", "greater_than", False),
    ("__ge__", "greater_equal", False),
]


def _operator(op_type, reverse):
    def method(self, other):
        return binary(self, other, op_type, reverse)

    method.__name__ = f"_{op_type}{'_reversed' if reverse else ''}"
    return method


def _neg(self):
    paddle2 = self.block.program._follows_paddle2
    helper = operator_promotion.TmpHelper("scale") if paddle2 else LayerHelper("scale")
    return scale_op(helper, self, -1.0, 0.0)  # of the same dtype, as Fluid's and Paddle's


def _compare_with_number(op_type):
    """``var == 0`` / ``var != 0`` / ``x == y``: a bool variable, as Fluid 1.8's and Paddle 2.6's (the
    ``(i % 2) == 0`` and ``case([(x == y, fn)])`` idioms), wherever it is written: pe's own code looks a
    Variable up by identity (framework.variable.position_of). Against anything that is neither a
    number nor a Variable it stays Python's identity test."""

    def method(self, other):
        if isinstance(other, Variable) or (isinstance(other, (int, float, np.number)) and not isinstance(other, bool)):
            return binary(self, other, op_type)
        return NotImplemented

    method.__name__ = f"_{op_type}_number"
    return method


def monkey_patch_variable():
    """Gives Variable (and so Parameter) its arithmetic operators. Idempotent."""
    for dunder, op_type, reverse in _OPERATORS:
        setattr(Variable, dunder, _operator(op_type, reverse))
    Variable.__neg__ = _neg
    Variable.__eq__, Variable.__ne__ = _compare_with_number("equal"), _compare_with_number("not_equal")
    Variable.__hash__ = object.__hash__
    Variable.__getitem__ = getitem
    Variable.__setitem__ = refuse_setitem
