"""Fluid 1.8's select_input and select_output (``fluid.layers.control_flow``): one of several
variables picked at run time by an int32 [1] mask, the way Fluid's ``cond`` merges its branches."""

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper

__all__ = ["select_input", "select_output"]


def select_output(input, outputs, mask):
    """Copies ``input`` to ``outputs[mask]``; returns ``outputs``."""
    helper = LayerHelper("select_output")
    check_type(input, "input", Variable, "select_output")
    check_variable_and_dtype(mask, "mask", ("int32",), "select_output")
    check_type(outputs, "outputs", (list, tuple), "select_output")
    helper.append_op("select_output", {"X": [input], "Mask": [mask]}, {"Out": list(outputs)})
    return outputs


def select_input(inputs, mask):
    """A new variable holding ``inputs[mask]`` (shaped and typed as ``inputs[0]``)."""
    helper = LayerHelper("select_input")
    check_type(inputs, "inputs", (list, tuple), "select_input")
    check_variable_and_dtype(mask, "mask", ("int32",), "select_input")
    first = inputs[0]
    out = helper.create_variable(name=helper.name + ".out", dtype=first.dtype, shape=first.shape, type=first.type)
    helper.append_op("select_input", {"X": list(inputs), "Mask": [mask]}, {"Out": [out]})
    return out
