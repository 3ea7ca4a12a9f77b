"""Comparison and logical layers with Fluid 1.x signatures: less_than, less_equal, greater_than,
greater_equal, equal, not_equal (bool results, elementwise; Fluid's layers.control_flow has them)
and logical_not, logical_and, logical_or, logical_xor (Fluid's layers.nn); elementwise_equal."""

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype, fluid_checks, optional
from .helper import LayerHelper

_COMPARABLE = ("bool", "float16", "float32", "float64", "int32", "int64")
# Paddle 2.x's paddle.equal, less_than, ... take the narrow integers too (bfloat16 aside, which pe lacks)
PADDLE2_COMPARABLE = _COMPARABLE + ("uint8", "int8", "int16")

__all__ = [
    "less_than",
    "less_equal",
    "greater_than",
    "greater_equal",
    "equal",
    "not_equal",
    "logical_not",
    "logical_and",
    "logical_or",
    "logical_xor",
    "elementwise_equal",
]


def append_compare(op_type, x, y, cond, force_cpu, name, dtypes=_COMPARABLE):
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, dtypes, op_type)
    check_type(cond, "cond", (Variable, type(None)), op_type)
    if force_cpu is not None:
        check_type(force_cpu, "force_cpu", bool, op_type)
    helper = LayerHelper(op_type, name=name)
    if cond is None:
        cond = helper.create_variable_for_type_inference("bool", stop_gradient=True)
    # force_cpu set only when given, as Fluid's (inside device_guard a given one warns: device_hint.py)
    helper.append_op(
        op_type, {"X": [x], "Y": [y]}, {"Out": [cond]}, {} if force_cpu is None else {"force_cpu": force_cpu}
    )
    cond.stop_gradient = True
    return cond


def _compare(op_type):
    """Fluid 1.8's signature: ``(x, y, cond=None)``; pe's ``force_cpu`` and ``name`` come after, by keyword."""

    def layer(x, y, cond=None, *, force_cpu=None, name=None):
        return append_compare(op_type, x, y, cond, force_cpu, name)

    layer.__name__ = op_type
    layer.__doc__ = f"``{op_type}(x, y)``: a bool variable, elementwise (Fluid's layers.{op_type})."
    return layer


def less_than(x, y, force_cpu=None, cond=None, *, name=None):
    """``less_than(x, y)``: a bool variable, elementwise (Fluid's layers.less_than, which alone takes force_cpu
    before cond)."""
    return append_compare("less_than", x, y, cond, force_cpu, name)


def _append_logical(op_type, inputs, out, name):
    helper = LayerHelper(op_type, name=name)
    out = out if out is not None else helper.create_variable_for_type_inference("bool", stop_gradient=True)
    helper.append_op(op_type, inputs, {"Out": [out]})
    return out


def _logical(op_type):
    @fluid_checks(op_type, x=("bool",), y=("bool",), out=optional(Variable))
    def layer(x, y, out=None, name=None):
        return _append_logical(op_type, {"X": [x], "Y": [y]}, out, name)

    layer.__name__ = op_type
    return layer


@fluid_checks("logical_not", x=("bool",), out=optional(Variable))
def logical_not(x, out=None, name=None):
    """``not x``, elementwise, a bool variable (Fluid's layers.logical_not)."""
    return _append_logical("logical_not", {"X": [x]}, out, name)


less_equal = _compare("less_equal")
greater_than, greater_equal = _compare("greater_than"), _compare("greater_equal")
equal, not_equal = _compare("equal"), _compare("not_equal")
logical_and = _logical("logical_and")
logical_or, logical_xor = _logical("logical_or"), _logical("logical_xor")


def elementwise_equal(x, y, name=None):
    """x == y, elementwise, a bool variable (Fluid 1.8's name for ``equal`` in paddle.tensor)."""
    return append_compare("equal", x, y, None, False, name)
