"""Shape manipulation layers with Fluid 1.x signatures: concat, split, stack, unbind, reshape,
transpose, flatten, squeeze, unsqueeze, expand, expand_as, reverse, slice, strided_slice, cast, size;
Fluid 1.8's flip, roll, unstack, rank and shape. Each
appends one op (or a few) through LayerHelper; shape mistakes are reported when the layer is built.
slice and strided_slice are slicing.py's (their bounds may be Variables), offered here."""

__all__ = [
    "concat",
    "split",
    "stack",
    "reshape",
    "transpose",
    "flatten",
    "squeeze",
    "unsqueeze",
    "cast",
    "expand",
    "slice",
    "strided_slice",
    "unbind",
    "reverse",
    "expand_as",
    "size",
    "flip",
    "roll",
    "unstack",
    "rank",
    "shape",
]
import numbers

from ..base.dtypes import VarType
from ..base.errors import ArgumentAssertionError, ArgumentValueError, PeError
from ..framework.variable import Variable
from .checks import NUMBERS, check_dtype, check_type, check_variable_and_dtype, fluid_checks
from .helper import LayerHelper, _as_list, check_ints, single
from .shape_tensor import attr_shape, holds_variable, shape_tensor_list
from .slicing import slice, strided_slice  # noqa: F401 (in __all__)


# -- combining and cutting ----------------------------------------------------------------------


def _is_array(x):
    return getattr(x, "type", None) == VarType.LOD_TENSOR_ARRAY


def _joined_array(helper, array, out, axis, stack):
    """``out`` = a tensor array's tensors concatenated (or stacked) along ``axis``, as Fluid 1.8's concat
    and stack do with one (tensor_array_to_tensor)."""
    index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "tensor_array_to_tensor",
        {"X": [array]},
        {"Out": [out], "OutIndex": [index]},
        {"axis": axis, "use_stack": stack},
    )
    return out


def concat(input, axis=0, name=None):
    """Joins the variables of ``input`` along ``axis`` (an int, or a one-value int Variable read at run
    time); the other dims must agree."""
    inputs = _as_list(input)
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, f"input[{i}]", NUMBERS, "concat")
    check_type(axis, "axis", (int, Variable), "concat")
    helper = LayerHelper("concat", input=inputs, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    if _is_array(inputs[0]):
        return _joined_array(helper, inputs[0], out, axis, False)
    if isinstance(axis, Variable):
        axis.stop_gradient = True
        helper.append_op("concat", {"X": inputs, "AxisTensor": [axis]}, {"Out": [out]}, {})
    else:
        helper.append_op("concat", {"X": inputs}, {"Out": [out]}, {"axis": axis})
    return out


def split(input, num_or_sections, dim=-1, name=None):
    """Cuts ``input`` along ``dim`` into ``num_or_sections`` equal parts (an int), or parts of the
    listed sizes (one may be -1: the rest). Returns the list of parts. As Fluid 1.8's: ``dim`` may be an
    int Variable (AxisTensor), the list may hold one-value int Variables (SectionsTensorList), and a
    wrong type is a TypeError."""
    check_variable_and_dtype(input, "input", ("bool", "float16", "float32", "float64", "int32", "int64"), "split")
    check_type(num_or_sections, "num_or_sections", (list, numbers.Integral, tuple), "split")
    check_type(dim, "dim", (numbers.Integral, Variable), "split")
    helper = LayerHelper("split", input=input, name=name)
    inputs, attrs = {"X": [input]}, {"axis": 0 if isinstance(dim, Variable) else dim, "num": 0, "sections": []}
    if isinstance(dim, Variable):
        dim.stop_gradient = True
        inputs["AxisTensor"] = [dim]
    if isinstance(num_or_sections, numbers.Integral) and not isinstance(num_or_sections, bool):
        if num_or_sections <= 0:
            raise ArgumentValueError(f"split '{helper.name}': num_or_sections={num_or_sections} must be > 0")
        attrs["num"] = count = int(num_or_sections)
    elif num_or_sections:
        if holds_variable(num_or_sections):
            inputs["SectionsTensorList"] = shape_tensor_list("split", num_or_sections)
        attrs["sections"] = check_ints(f"split '{helper.name}'", "num_or_sections", attr_shape(num_or_sections))
        count = len(num_or_sections)
    else:
        raise ArgumentValueError(f"split '{helper.name}': num_or_sections must be an int or a non-empty list")
    outs = [helper.create_variable_for_type_inference(input.dtype) for _ in range(count)]
    helper.append_op("split", inputs, {"Out": outs}, attrs)
    return outs


def stack(x, axis=0, *, name=None):
    """Stacks variables of one shape along a new dim ``axis``; a tensor array's tensors as Fluid 1.8
    does (tensor_array_to_tensor with use_stack)."""
    inputs = _as_list(x)
    helper = LayerHelper("stack", x=inputs, name=name)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    if _is_array(inputs[0]):
        return _joined_array(helper, inputs[0], out, axis, True)
    helper.append_op("stack", {"X": inputs}, {"Y": [out]}, {"axis": axis})
    return out


# -- reshaping ----------------------------------------------------------------------------------


def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    """``x`` with a new shape: a 0 copies x's dim at that index, one -1 is inferred from the rest.
    ``shape`` may also be an int Variable, or ``actual_shape`` one, giving the shape at run time
    (the ``shape`` list, when given, is then the build-time shape). ``inplace`` is accepted and
    ignored: the output is always a new variable. Fluid 1.8's TypeErrors: x a Variable of a number
    dtype (bool is paddle.reshape's), shape a list, tuple or Variable, actual_shape a Variable."""
    check_variable_and_dtype(x, "x", NUMBERS, "reshape")
    check_type(shape, "shape", (list, tuple, Variable), "reshape")
    check_type(actual_shape, "actual_shape", (Variable, type(None)), "reshape")
    return reshape_variable(x, shape, actual_shape, act, name=name)


def reshape_variable(x, shape, actual_shape=None, act=None, name=None):
    """fluid.layers.reshape without its type checks: paddle.reshape's, which takes any dtype."""
    inputs = {"X": [x]}
    if isinstance(shape, Variable):
        inputs["Shape"] = [shape]
        shape = []
    elif holds_variable(shape):  # Fluid's list of ints and int Variables: one tensor per dim
        inputs["ShapeTensor"] = shape_tensor_list(f"reshape of '{x.name}'", shape)
        shape = check_ints(f"reshape of '{x.name}'", "shape", attr_shape(shape))
        actual_shape = None
    elif isinstance(shape, (list, tuple)):
        shape = check_ints(f"reshape of '{x.name}'", "shape", shape)
        unknown = [i for i, d in enumerate(shape) if d == -1]
        if len(unknown) > 1:
            raise ArgumentAssertionError(
                f"reshape of '{x.name}': Only one dimension value of 'shape' in reshape can "
                f"be -1. But received shape[{unknown[1]}] is also -1."
            )
        negative = [i for i, d in enumerate(shape) if d < -1]
        if negative:
            raise ArgumentAssertionError(
                f"reshape of '{x.name}': Each dimension value of 'shape' in reshape must not "
                f"be negative except one unknown dimension. But received "
                f"shape[{negative[0]}] = {shape[negative[0]]}."
            )
        copied = [i for i, d in enumerate(shape) if d == 0 and x.shape is not None and i >= len(x.shape)]
        if copied:
            raise ArgumentAssertionError(
                f"reshape of '{x.name}': The index of 0 in 'shape' must be less than the "
                f"input's {len(x.shape)} dims. But received shape[{copied[0]}] = 0."
            )
    else:
        raise PeError(f"reshape of '{x.name}': shape must be a list of ints or a Variable, got {shape!r}")
    if actual_shape is not None:
        inputs["Shape"] = [actual_shape]
    return _with_xshape("reshape2", x, inputs, {"shape": shape}, "reshape2", name=name, act=act)


def transpose(x, perm, name=None):
    """``x`` with its dims permuted: output dim i is x's dim perm[i]."""
    check_variable_and_dtype(x, "x", NUMBERS, "transpose")
    check_type(perm, "perm", (list, tuple), "transpose")
    if x.shape is not None and (
        len(perm) != len(x.shape) or any(isinstance(p, int) and p >= len(x.shape) for p in perm)
    ):
        raise ArgumentValueError(
            f"transpose: perm {list(perm)} must be a permutation of the {len(x.shape)} dims of x {list(x.shape)}"
        )
    return _with_xshape(
        "transpose2", x, {"X": [x]}, {"axis": check_ints("transpose", "perm", _as_list(perm))}, "transpose", name=name
    )


@fluid_checks("flatten", x=("float32", "float64", "int8", "int32", "int64"))
def flatten(x, axis=1, name=None):
    """``x`` as a matrix: dims before ``axis`` make the rows, the others the columns."""
    return _with_xshape("flatten2", x, {"X": [x]}, {"axis": axis}, "flatten", name=name)


def squeeze(input, axes, name=None):
    """``input`` without the listed dims of size 1; Fluid 1.8's TypeErrors (``axes`` a list; the dtypes
    its squeeze takes)."""
    check_variable_and_dtype(input, "input", ("float32", "float64", "int8", "int32", "int64"), "squeeze")
    check_type(axes, "axes", list, "squeeze")
    return _with_xshape(
        "squeeze2", input, {"X": [input]}, {"axes": check_ints("squeeze", "axes", axes)}, "squeeze", name=name
    )


def unsqueeze(input, axes, name=None):
    """``input`` with dims of size 1 inserted at ``axes`` (one after another): an int, a list of ints and
    one-value int Variables (AxesTensorList), or an int Variable holding them (AxesTensor)."""
    check_type(axes, "axes", (numbers.Integral, list, tuple, Variable), "unsqueeze")
    inputs = {"X": [input]}
    if isinstance(axes, Variable):
        axes.stop_gradient = True
        inputs["AxesTensor"], axes = [axes], []
    elif holds_variable(_as_list(axes)):
        inputs["AxesTensorList"], axes = shape_tensor_list("unsqueeze", _as_list(axes)), []
    return _with_xshape(
        "unsqueeze2", input, inputs, {"axes": check_ints("unsqueeze", "axes", _as_list(axes))}, "unsqueeze2", name=name
    )


def _with_xshape(op_type, x, inputs, attrs, helper_name, name=None, act=None):
    """Appends Fluid 1.8's ``*2`` op (reshape2...) as its layer does, under its helper's name: Out and
    XShape (x's shape behind a 0, holding no data); returns Out."""
    check_type(x, "x", Variable, op_type)
    helper = LayerHelper(helper_name, x=x, name=name, act=act)
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op(op_type, inputs, {"Out": [out], "XShape": [xshape]}, attrs)
    return helper.append_activation(out)


def cast(x, dtype):
    """``x`` converted to ``dtype``; the gradient is cast back."""
    check_variable_and_dtype(x, "x", ("bool",) + NUMBERS + ("uint8",), "cast")
    dtype = check_dtype(
        dtype, "dtype", ("bool", "float16", "float32", "float64", "int8", "int32", "int64", "uint8"), "cast"
    )
    return single("cast", x, {"X": [x]}, {"in_dtype": x.dtype, "out_dtype": dtype}, dtype=dtype)


def expand(x, expand_times, name=None):
    """``x`` tiled ``expand_times[i]`` times along each dim i: a list of ints and int Variables, or one
    int Variable holding the list (known at run time, as Fluid 1.8's)."""
    check_variable_and_dtype(x, "x", ("bool", "float32", "float64", "int32", "int64"), "expand")
    check_type(expand_times, "expand_times", (list, tuple, Variable), "expand")
    if x.dtype == "bool" and x.stop_gradient:
        raise ArgumentValueError("expand: a bool x must have stop_gradient=False, as Fluid 1.8 requires")
    return tiled(x, expand_times, name)


_TILING = {
    "expand": ("ExpandTimes", "expand_times_tensor", "expand_times"),
    "tile": ("RepeatTimes", "repeat_times_tensor", "repeat_times"),
}


def tiled(x, expand_times, name=None, op_type="expand"):
    """expand without Fluid 1.8's argument checks (its refusal of a bool ``x`` with stop_gradient among
    them), for pe's own layers and Paddle 2.x's expand / broadcast_to; with ``op_type="tile"``, Paddle
    2.x's tile op (the times as long as X's rank or not)."""
    whole, items, attr = _TILING[op_type]
    if isinstance(expand_times, Variable):
        expand_times.stop_gradient = True
        return single(op_type, x, {"X": [x], whole: [expand_times]}, {attr: []}, name=name)
    inputs = {"X": [x]}
    if holds_variable(expand_times):
        inputs[items] = shape_tensor_list(op_type, expand_times)
    times = check_ints(op_type, attr, attr_shape(expand_times))
    return single(op_type, x, inputs, {attr: times}, name=name)


# -- unbind, reverse, expand_as, size (slice and strided_slice: slicing.py) -----------------------


def unbind(input, axis=0):
    """The slices of ``input`` along ``axis`` (that dim removed), as a list."""
    shape = input.shape or ()
    if not -len(shape) <= axis < len(shape) or shape[axis] < 0:
        raise PeError(f"unbind of '{input.name}' {list(shape)}: axis={axis} must name a dim of known size")
    helper = LayerHelper("unbind", input=input)
    outs = [helper.create_variable_for_type_inference(input.dtype) for _ in range(shape[axis])]
    helper.append_op("unbind", {"X": [input]}, {"Out": outs}, {"axis": axis})
    return outs


@fluid_checks("reverse", x=("float32", "float64", "int32", "int64", "uint8"), axis=(int, tuple, list))
def reverse(x, axis):
    """``x`` with its elements in reverse order along ``axis`` (an int or a list of ints)."""
    return single("reverse", x, {"X": [x]}, {"axis": check_ints("reverse", "axis", _as_list(axis))})


@fluid_checks(
    "expand_as",
    x=("float32", "float64", "int32", "int64", "bool"),
    target_tensor=("float32", "float64", "int32", "int64", "bool"),
)
def expand_as(x, target_tensor, name=None):
    """``x`` tiled to ``target_tensor``'s shape (each of its dims a multiple of x's)."""
    return single("expand_as", x, {"X": [x], "target_tensor": [target_tensor]}, {}, name=name)


def size(input):
    """The number of elements of ``input``, an int64 tensor of shape [1]."""
    return single("size", input, {"Input": [input]}, {}, dtype="int64", stop_gradient=True)


def flip(input, dims, name=None):
    """``input`` with its elements in reverse order along each of ``dims`` (a list): the flip op."""
    check_variable_and_dtype(input, "input", NUMBERS + ("bool",), "flip")
    check_type(dims, "dims", (list, tuple), "flip")
    if not dims:
        raise ArgumentAssertionError("len(dims) must be greater than 0.")
    return single("flip", input, {"X": [input]}, {"dims": check_ints("flip", "dims", list(dims))}, name=name)


def roll(input, shifts, dims=None):
    """``input`` rolled ``shifts`` places along ``dims`` (ints or lists as long): the roll op. With dims None, as
    Fluid 1.8's layer: over the input flattened to [-1, 1], then reshaped back to its shape."""
    shifts = [shifts] if isinstance(shifts, numbers.Integral) else shifts
    dims = [dims] if isinstance(dims, numbers.Integral) else dims
    if dims:
        check_type(dims, "dims", (list, tuple), "roll")
    check_type(shifts, "shifts", (list, tuple), "roll")
    shape = list(input.shape)
    if dims is None:
        input, dims = reshape(input, [-1, 1]), [0]
    out = single(
        "roll",
        input,
        {"X": [input]},
        {"dims": check_ints("roll", "dims", list(dims)), "shifts": check_ints("roll", "shifts", list(shifts))},
    )
    return reshape(out, shape) if list(out.shape) != shape else out


def unstack(x, axis=0, num=None):
    """The ``num`` slices of ``x`` along ``axis`` (that dim removed), as a list (num None: the dim's size): the
    unstack op."""
    if axis is not None and not -len(x.shape) <= axis < len(x.shape):  # (Paddle 2.6's check; Fluid 1.8: IndexError)
        raise ArgumentValueError(f"`axis` must be in the range [-{len(x.shape)}, {len(x.shape)})")
    if num is None:
        if axis is None or x.shape[axis] <= 0:
            raise ArgumentValueError("unknown unstack number")
        num = x.shape[axis]
    if num == 0:
        return []
    helper = LayerHelper("unstack")
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(num)]
    helper.append_op("unstack", {"X": [x]}, {"Y": outs}, {"axis": int(axis), "num": int(num)})
    return outs


def rank(input, *, zero_dim=False):
    """The number of dims of ``input``, an int32 tensor [1] (an assign_value, as Fluid's); ``zero_dim`` (pe's,
    for paddle.rank): 0-D, as Paddle 2.6's."""
    check_type(input, "input", Variable, "rank")
    helper = LayerHelper("assign", input=input)
    out = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "assign_value",
        {},
        {"Out": [out]},
        {"shape": [] if zero_dim else [1], "dtype": "int32", "int32_values": [len(input.shape)]},
    )
    out.stop_gradient = True
    return out


def shape(input):
    """The dims of ``input`` at run time: an int32 tensor [rank]."""
    check_variable_and_dtype(input, "input", NUMBERS + ("bool",), "shape")
    return single("shape", input, {"Input": [input]}, {}, dtype="int32", stop_gradient=True)
