"""Slicing layers with Fluid 1.x signatures: slice and strided_slice, whose bounds may be lists of ints, lists
holding one-value int Variables, or whole-list int Variables (Fluid 1.8's StartsTensor / StartsTensorList forms).
manipulation.py offers them with the other shape manipulation layers."""

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import _as_list, check_ints, single
from .shape_tensor import int32_constant


def bounds_given(layer, bounds, axes):
    """(inputs, attrs) of a slice op whose ``bounds`` ({"starts": ..., ...}) are lists of ints, lists
    holding one-value int Variables, or whole-list int Variables (Fluid 1.8's slice / strided_slice):
    a Variable list -> StartsTensor, a list with Variables -> StartsTensorList (ints made one-value
    tensors) and -1 in the attribute and infer_flags where a Variable stands."""
    inputs, flags = {}, [1] * len(axes)
    attrs = {"axes": check_ints(layer, "axes", _as_list(axes))}
    for what, value in bounds.items():
        slot = what[:1].upper() + what[1:]
        check_type(value, what, (list, tuple, Variable), layer)
        if isinstance(value, Variable):
            inputs[f"{slot}Tensor"] = [value]
            flags = [-1] * len(axes)
        elif any(isinstance(v, Variable) for v in value):
            inputs[f"{slot}TensorList"] = [v if isinstance(v, Variable) else int32_constant(v) for v in value]
            attrs[what] = [-1 if isinstance(v, Variable) else v for v in value]
            flags = [-1 if isinstance(v, Variable) else f for v, f in zip(value, flags)]
        else:
            attrs[what] = check_ints(layer, what, list(value))
    for v in (v for vs in inputs.values() for v in vs):
        v.stop_gradient = True
    return inputs, dict(attrs, infer_flags=flags)


def slice(input, axes, starts, ends):
    """input[starts[i]:ends[i]] along each axes[i]; bounds as in Python (negative from the end,
    clamped to the dim). ``starts`` and ``ends``: lists of ints and one-value int Variables, or a
    whole-list int Variable."""
    inputs, attrs = bounds_given("slice", {"starts": starts, "ends": ends}, axes)
    return single("slice", input, {"Input": [input], **inputs}, attrs)


def strided_slice(input, axes, starts, ends, strides):
    """input[starts[i]:ends[i]:strides[i]] along each axes[i], bounds as Python's (an end of -1 with
    a negative stride runs through the first element); bounds as slice's."""
    check_variable_and_dtype(input, "input", ("float32", "float64", "int32", "int64"), "strided_slice")
    check_type(axes, "axes", (list, tuple), "strided_slice")
    inputs, attrs = bounds_given("strided_slice", {"starts": starts, "ends": ends, "strides": strides}, axes)
    return single("strided_slice", input, {"Input": [input], **inputs}, attrs)
