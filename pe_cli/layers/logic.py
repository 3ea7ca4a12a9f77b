"""Comparison and logical layers with Fluid 1.x signatures: less_than, less_equal, greater_than,
greater_equal, equal, not_equal (bool results, elementwise; Fluid's layers.control_flow has them)
and logical_not, logical_and, logical_or, logical_xor (Fluid's layers.nn)."""
from .helper import LayerHelper

__all__ = ["less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal", "logical_not",
           "logical_and", "logical_or", "logical_xor"]


def _compare(op_type):
    def layer(x, y, force_cpu=None, cond=None, name=None):
        helper = LayerHelper(op_type, name=name)
        if cond is None:
            cond = helper.create_variable_for_type_inference("bool", stop_gradient=True)
        helper.append_op(op_type, {"X": [x], "Y": [y]}, {"Out": [cond]}, {"force_cpu": bool(force_cpu)})
        cond.stop_gradient = True
        return cond
    layer.__name__ = op_type
    layer.__doc__ = f"``{op_type}(x, y)``: a bool variable, elementwise (Fluid's layers.{op_type})."
    return layer


def _logical(op_type):
    def layer(x, y=None, out=None, name=None):
        helper = LayerHelper(op_type, name=name)
        out = out if out is not None else helper.create_variable_for_type_inference("bool", stop_gradient=True)
        inputs = {"X": [x]} if op_type == "logical_not" else {"X": [x], "Y": [y]}
        helper.append_op(op_type, inputs, {"Out": [out]})
        return out
    layer.__name__ = op_type
    return layer


less_than, less_equal = _compare("less_than"), _compare("less_equal")
greater_than, greater_equal = _compare("greater_than"), _compare("greater_equal")
equal, not_equal = _compare("equal"), _compare("not_equal")
logical_not, logical_and = _logical("logical_not"), _logical("logical_and")
logical_or, logical_xor = _logical("logical_or"), _logical("logical_xor")
