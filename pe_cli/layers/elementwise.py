"""Elementwise layers with Fluid 1.x signatures: the elementwise_* binaries (Fluid's ``axis``
broadcasting), sums / sum of several tensors, scale, clip, clamp and clip_by_norm, addcmul, and the
finiteness checks isfinite, has_inf, has_nan."""

__all__ = [
    "clip",
    "sums",
    "sum",
    "scale",
    "clip_by_norm",
    "elementwise_add",
    "elementwise_sub",
    "elementwise_mul",
    "elementwise_div",
    "elementwise_max",
    "elementwise_min",
    "elementwise_pow",
    "isfinite",
    "has_inf",
    "has_nan",
    "elementwise_floordiv",
    "elementwise_mod",
    "clamp",
    "addcmul",
]
import numpy as np

from ..framework.variable import Variable
from .checks import NUMBERS, check_type, check_variable_and_dtype, each, fluid_checks, given, optional
from .creation import assign
from .helper import LayerHelper, _as_list, single
from .manipulation import cast


def clip(x, min, max, name=None):
    """min(max(x, min), max); the gradient passes where min < x < max."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "clip")
    return single("clip", x, {"X": [x]}, {"min": min, "max": max}, name=name)


def _elementwise(op_type):
    @fluid_checks(op_type, x=given(), y=given())
    def layer(x, y, axis=-1, act=None, name=None):
        check_variable_and_dtype(x, "x", NUMBERS, op_type)
        check_variable_and_dtype(y, "y", NUMBERS, op_type)
        return single(op_type, x, {"X": [x], "Y": [y]}, {"axis": axis}, name=name, act=act)

    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = (
        f"Appends '{op_type}' (then ``act``): y broadcasts into x from dim ``axis`` (-1: aligned to the end)."
    )
    return layer


elementwise_add = _elementwise("elementwise_add")
elementwise_sub = _elementwise("elementwise_sub")
elementwise_mul = _elementwise("elementwise_mul")
elementwise_div = _elementwise("elementwise_div")
elementwise_max = _elementwise("elementwise_max")
elementwise_min = _elementwise("elementwise_min")
elementwise_pow = _elementwise("elementwise_pow")


@fluid_checks("sums", out=optional(("float32", "float64", "int32", "int64")))
def sums(input, out=None):
    """The sum of a list of variables of one shape."""
    check_type(input, "input", (Variable, list, tuple), "sums")  # Fluid 1.8's TypeErrors
    inputs = _as_list(input)
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, f"input[{i}]", ("float32", "float64", "int32", "int64"), "sums")
    helper = LayerHelper("sum", input=inputs)
    if out is None:
        out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op("sum", {"X": inputs}, {"Out": [out]})
    return out


@fluid_checks("sum", x=each(("float32", "float64", "int32", "int64")))
def sum(x):  # noqa: A001 -- Fluid's name; it shadows the builtin in this module, which never calls it
    """Fluid's ``layers.sum``: the ``sum`` op over a variable or a list of variables of one shape."""
    return sums(x)


def _flag(op_type, layer, doc, dtypes=None):
    def fn(x):
        if dtypes:
            check_variable_and_dtype(x, "x", dtypes, layer)
        return single(op_type, x, {"X": [x]}, {}, dtype="bool", stop_gradient=True)

    fn.__name__ = fn.__qualname__ = layer
    fn.__doc__ = doc
    return fn


isfinite = _flag(
    "isfinite",
    "isfinite",
    "A bool [1]: True when every element of ``x`` is finite.",
    ("float32", "float64", "int32", "int64"),
)
has_inf = _flag("isinf", "has_inf", "A bool [1]: True when some element of ``x`` is +inf or -inf.")
has_nan = _flag("isnan", "has_nan", "A bool [1]: True when some element of ``x`` is nan.")


elementwise_floordiv = _elementwise("elementwise_floordiv")
elementwise_mod = _elementwise("elementwise_mod")


@fluid_checks("scale", x=("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"))
def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (or scale * (x + bias)); ``scale`` a number or a one-element Variable (Fluid 1.8's)."""
    check_type(x, "x", Variable, "scale")
    helper = LayerHelper("scale", x=x, act=act, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": [x], "ScaleTensor": [scale]} if isinstance(scale, Variable) else {"X": [x]}
    helper.append_op(
        "scale",
        inputs,
        {"Out": [out]},
        {
            "scale": 1.0 if isinstance(scale, Variable) else float(scale),
            "bias": float(bias),
            "bias_after_scale": bias_after_scale,
        },
    )
    return helper.append_activation(out)


@fluid_checks("clip_by_norm", x=("float32",), max_norm=float)
def clip_by_norm(x, max_norm, name=None):
    """x * max_norm / ||x||_2 where the L2 norm of all of x exceeds ``max_norm``, else x (the
    ``clip_by_norm`` op, which gradient clipping uses too; no gradient flows through it, as in Fluid)."""
    helper = LayerHelper("clip_by_norm", input=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("clip_by_norm", {"X": [x]}, {"Out": [out]}, {"max_norm": float(max_norm)})
    return out


def clamp(input, min=None, max=None, output=None, name=None):  # noqa: A002 -- Fluid's names
    """min(max(input, min), max); ``min`` and ``max`` are floats or one-element Variables (which get no
    gradient); a missing bound is float32's lowest / highest finite value."""
    if min is None and max is None:
        raise AssertionError("clamp: either min or max should be defined.")
    check_variable_and_dtype(input, "input", ("float16", "float32", "float64"), "clamp")
    for what, bound in (("min", min), ("max", max)):
        if bound is not None:
            check_type(bound, what, (float, Variable), "clamp")
            if isinstance(bound, Variable):
                check_variable_and_dtype(bound, what, ("float32", "float64", "int32"), "clamp")
    lo = float(np.finfo(np.float32).min) if min is None or isinstance(min, Variable) else min
    hi = float(np.finfo(np.float32).max) if max is None or isinstance(max, Variable) else max
    out = clip(input, lo, hi)
    for bound, op in ((min, elementwise_max), (max, elementwise_min)):
        if isinstance(bound, Variable):
            bound.stop_gradient = True
            out = op(out, bound if bound.dtype == input.dtype else cast(bound, input.dtype))
    return out if output is None else assign(out, output)


def addcmul(input, tensor1, tensor2, value=1.0, out=None, name=None):
    """input + value * tensor1 * tensor2 (the three broadcast); ``value`` a float for float inputs, an
    int for int inputs, as in Fluid."""
    for what, v in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        check_variable_and_dtype(v, what, ("float32", "float64", "int32", "int64"), "addcmul")
    check_type(value, "value", float if input.dtype.startswith("float") else int, "addcmul")
    result = elementwise_add(input, scale(elementwise_mul(tensor1, tensor2), scale=float(value)))
    return result if out is None else assign(result, out)
