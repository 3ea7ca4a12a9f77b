"""Padding and cropping layers of Fluid 1.8's ``fluid.layers``, with its signatures: pad, pad2d,
pad_constant_like, crop, crop_tensor. Paddings, shapes and offsets are lists of ints (crop also
takes a Variable whose shape is the window's); pad2d's paddings and crop_tensor's shape and offsets
may be given by Variables, as Fluid's."""

__all__ = ["pad", "pad2d", "pad_constant_like", "crop", "crop_tensor"]
import numbers

from ..base.errors import ArgumentValueError, PeError
from ..framework.variable import Variable
from .checks import NUMBERS, check_type, check_variable_and_dtype, fluid_checks
from .helper import _as_list, check_ints, single
from .shape_tensor import attr_shape, holds_variable, shape_tensor_list


def _ints(layer, what, value):
    if isinstance(value, Variable):
        raise PeError(f"{layer}: {what} as a Variable is not supported by pe; give a list of ints")
    return check_ints(layer, what, _as_list(value))


@fluid_checks("pad", x=("float16", "float32", "float64", "int32", "int64"))
def pad(x, paddings, pad_value=0.0, name=None):
    """``x`` with paddings[2i] values before and paddings[2i+1] after it along each dim i."""
    return single(
        "pad", x, {"X": [x]}, {"paddings": _ints("pad", "paddings", paddings), "pad_value": float(pad_value)}, name=name
    )


@fluid_checks("pad2d", input=("float16", "float32", "float64", "int32", "int64"))
def pad2d(input, paddings=[0, 0, 0, 0], mode="constant", pad_value=0.0, data_format="NCHW", name=None):  # noqa: B006
    """Images padded by [top, bottom, left, right]: with pad_value ('constant'), mirrored without
    the edge ('reflect') or with the edge repeated ('edge'). ``paddings`` may be an int32 Variable of
    the four (Fluid 1.8's Paddings input)."""
    inputs = {"X": [input]}
    if isinstance(paddings, Variable):
        paddings.stop_gradient = True
        inputs["Paddings"], paddings = [paddings], []
    attrs = {
        "paddings": _ints("pad2d", "paddings", paddings),
        "mode": mode,
        "pad_value": float(pad_value),
        "data_format": data_format,
    }
    return single("pad2d", input, inputs, attrs, name=name)


def pad_constant_like(x, y, pad_value=0.0, name=None):
    """``y`` padded with pad_value at the end of each dim up to ``x``'s shape."""
    check_type(x, "x", Variable, "pad_constant_like")
    check_variable_and_dtype(y, "y", NUMBERS[1:], "pad_constant_like")
    return single("pad_constant_like", y, {"X": [x], "Y": [y]}, {"pad_value": float(pad_value)}, name=name)


def _crop(op_type, x, shape, offsets, name):
    if shape is None:
        raise PeError(f"{op_type}: give the shape of the window (a list of ints)")
    inputs, attrs = {"X": [x]}, {}
    if isinstance(shape, Variable) and op_type == "crop":
        inputs["Y"] = [shape]
    else:
        attrs["shape"] = _ints(op_type, "shape", shape)
    rank = len(x.shape or ())
    attrs["offsets"] = [0] * rank if offsets is None else _ints(op_type, "offsets", offsets)
    return single(op_type, x, inputs, attrs, name=name)


@fluid_checks("crop", x=("float32",), shape=(list, tuple, Variable))
def crop(x, shape=None, offsets=None, name=None):
    """The window of ``x`` at ``offsets`` (default 0) of ``shape``: a list of ints (-1: x's dim less
    its offset) or a Variable whose shape it takes."""
    return _crop("crop", x, shape, offsets, name)


def crop_tensor(x, shape=None, offsets=None, name=None):
    """The window of ``x`` at ``offsets`` (default 0) of ``shape`` (-1: x's dim less its offset). As
    Fluid 1.8's: each may be an int Variable holding the list (Shape / Offsets) or a list holding
    one-value int Variables (ShapeTensor / OffsetsTensor); a wrong type is a TypeError, a size 0 or
    below -1 or a negative offset a ValueError."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), "crop_tensor")
    check_type(shape, "shape", (list, tuple, Variable), "crop_tensor")
    check_type(offsets, "offsets", (list, tuple, Variable, type(None)), "crop_tensor")
    inputs, attrs = {"X": [x]}, {}
    for what, value, lowest in (
        ("shape", shape, -1),
        ("offsets", [0] * len(x.shape) if offsets is None else offsets, 0),
    ):
        slot = what.capitalize()
        if isinstance(value, Variable):
            value.stop_gradient = True
            inputs[slot], attrs[what] = [value], [-1] * len(x.shape)
            continue
        for v in value:
            if isinstance(v, Variable):
                continue
            check_type(v, f"each item of {what}", numbers.Integral, "crop_tensor")
            if v < lowest or (what == "shape" and v == 0):
                raise ArgumentValueError(
                    f"crop_tensor: {what} {list(value)}: each must be {'> 0 or -1' if what == 'shape' else '>= 0'}"
                )
        if holds_variable(value):
            inputs[f"{slot}Tensor"] = shape_tensor_list("crop_tensor", value)
        attrs[what] = attr_shape(value)
    return single("crop_tensor", x, inputs, attrs, name=name)
