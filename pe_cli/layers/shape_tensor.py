"""Shapes known at run time, as Fluid 1.8 gives them: a ``shape`` that is an int Variable (the
ShapeTensor input), or a list mixing ints and int Variables of one element, such as
``[fluid.layers.shape(x)[0], 1]`` (the ShapeTensorList input: one int32 [1] variable per dim, an int
becoming a constant one). The shape attribute then holds -1 where a Variable gives the dim, the
build-time shape. fill_constant, uniform_random and reshape take them."""

import numbers

from ..base.errors import ArgumentAssertionError, ArgumentTypeError
from ..framework.variable import Variable
from .helper import LayerHelper, check_ints

_INTS = ("int32", "int64")


def holds_variable(shape):
    """Whether ``shape`` (a list or tuple) names a dim with a Variable."""
    return isinstance(shape, (list, tuple)) and any(isinstance(d, Variable) for d in shape)


def _int32(layer, what, var):
    """``var`` (int32 or int64) as int32, with no gradient."""
    if var.dtype not in _INTS:
        raise ArgumentTypeError(f"{layer}: {what} '{var.name}' is {var.dtype}; it must be int32 or int64")
    var.stop_gradient = True
    if var.dtype == "int32":
        return var
    helper = LayerHelper("cast")
    out = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("cast", {"X": [var]}, {"Out": [out]}, {"in_dtype": var.dtype, "out_dtype": "int32"})
    return out


def int32_constant(value):
    """An int32 [1] variable holding ``value`` (Fluid's fill_constant(force_cpu=True))."""
    helper = LayerHelper("fill_constant")
    out = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "fill_constant", {}, {"Out": [out]}, {"shape": [1], "dtype": "int32", "value": float(value), "force_cpu": True}
    )
    return out


def attr_shape(shape):
    """The shape attribute of a list holding Variables: -1 where a Variable gives the dim."""
    return [-1 if isinstance(d, Variable) else d for d in shape]


def shape_tensor_list(layer, shape):
    """One int32 [1] variable per dim of ``shape`` (ints made constants), as Fluid's ShapeTensorList."""
    out = []
    for i, d in enumerate(shape):
        if isinstance(d, Variable):
            out.append(_int32(layer, f"shape[{i}]", d))
        elif isinstance(d, numbers.Integral) and not isinstance(d, bool):
            out.append(int32_constant(int(d)))
        else:
            raise ArgumentTypeError(f"{layer}: shape[{i}] must be an int or an int Variable, got {d!r}")
    return out


def shape_inputs(layer, shape, inputs, attrs, list_slot="ShapeTensorList", zero_dim=False):
    """Fills ``inputs`` and ``attrs["shape"]`` for ``shape`` as Fluid's ``_get_shape_tensor_inputs``:
    a Variable goes to ShapeTensor, a list holding Variables to ``list_slot``, a list of ints to the
    attribute only; an empty list is refused, as Fluid 1.8 does, unless ``zero_dim`` (Paddle 2.x's
    0-D tensors). Returns ``inputs``."""
    if isinstance(shape, Variable):
        inputs["ShapeTensor"] = [_int32(layer, "shape", shape)]
        attrs.setdefault("shape", [])
        return inputs
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    if not shape and not zero_dim:
        raise ArgumentAssertionError(f"The size of 'shape' in {layer} can't be zero, but received 0.")
    if holds_variable(shape):
        inputs[list_slot] = shape_tensor_list(layer, shape)
        attrs["shape"] = attr_shape(shape)
        check_ints(layer, "shape", attrs["shape"])
    else:
        attrs["shape"] = check_ints(layer, "shape", shape)
    return inputs
