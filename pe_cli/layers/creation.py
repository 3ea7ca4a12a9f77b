"""Creating tensors with Fluid 1.x signatures: filled (fill_constant, zeros, ones, zeros_like,
ones_like), copied or given (assign), ranges (range), eye and diag, and the variables and parameters
a program creates directly (create_tensor, create_global_var, create_parameter),
fill_constant_batch_size_like (a shape taken from a batch), and Fluid 1.8's names from paddle.tensor:
full, full_like, arange, linspace, meshgrid."""

__all__ = [
    "fill_constant",
    "zeros",
    "ones",
    "zeros_like",
    "assign",
    "create_tensor",
    "create_global_var",
    "create_parameter",
    "range",
    "ones_like",
    "eye",
    "diag",
    "fill_constant_batch_size_like",
    "full",
    "full_like",
    "arange",
    "linspace",
    "meshgrid",
]
import numbers

import numpy as np

from ..base.dtypes import convert_dtype, is_complex
from ..base.errors import ArgumentTypeError, ArgumentValueError, PeError
from ..framework import unique_name
from ..framework.variable import Variable
from ..training.initializer import ConstantInitializer, Initializer
from ..ops.creation import values_attr
from ..training.param_attr import ParamAttr
from ..shapes.manipulation import range_length
from .checks import NUMBERS, check_dtype, check_type, check_variable_and_dtype, fluid_checks, optional
from .helper import LayerHelper, _as_list, check_ints, single
from .manipulation import cast, reshape, tiled
from .shape_tensor import shape_inputs


_FILL_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64")


def fill_constant(shape, dtype, value, force_cpu=False, out=None, *, zero_dim=False):
    """A variable of ``shape`` and ``dtype`` filled with ``value`` (no gradient flows to it). As
    Fluid's: ``shape`` may be an int Variable or a list holding int Variables (the dims known at run
    time: ``[fluid.layers.shape(x)[0], 1]``), ``value`` a one-element Variable. ``zero_dim`` (pe's,
    for Paddle 2.x): an empty ``shape`` makes a 0-D tensor, and the dtypes are 2.x's. Fluid 1.8's
    TypeErrors: a shape not a list, tuple or Variable, a dtype it does not fill, an ``out`` of another."""
    if zero_dim:  # Paddle 2.6's fill_constant makes its LayerHelper twice: its variable has the second name
        unique_name.generate("fill_constant")
    helper = LayerHelper("fill_constant")
    dtype = check_dtype(
        dtype, "dtype", _FILL_DTYPES + (("int8", "int16", "uint8") if zero_dim else ()), "fill_constant"
    )
    check_type(shape, "shape", (Variable, list, tuple), "fill_constant")
    if out is not None:
        check_type(out, "out", Variable, "fill_constant")
        check_dtype(dtype, "dtype", (convert_dtype(out.dtype),), "fill_constant")
    attrs = {"dtype": dtype, "force_cpu": force_cpu}
    inputs = shape_inputs("fill_constant", shape, {}, attrs, zero_dim=zero_dim)
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [value]
        attrs["value"] = 0.0
    else:
        attrs["value"] = float(value)
    if out is None:
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant", inputs, {"Out": [out]}, attrs)
    out.stop_gradient = True
    return out


def zeros(shape, dtype, force_cpu=False):
    return fill_constant(shape, dtype, 0.0, force_cpu)


def ones(shape, dtype, force_cpu=False):
    return fill_constant(shape, dtype, 1.0, force_cpu)


@fluid_checks(
    "zeros_like",
    x=("bool", "float32", "float64", "int32", "int64"),
    out=optional(("bool", "float32", "float64", "int32", "int64")),
)
def zeros_like(x, out=None):
    """Zeros shaped like ``x``."""
    helper = LayerHelper("zeros_like", x=x)
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("fill_zeros_like", {"X": [x]}, {"Out": [out]})
    out.stop_gradient = True
    return out


def assign(input, output=None):
    """Fluid 1.8's assign: a copy of a Variable (float, int32/int64 or bool), or a variable holding a
    numpy array's values (bool, float32, int32 or int64); anything else is a TypeError, as Fluid's."""
    check_type(input, "input", (Variable, np.ndarray), "assign")
    if isinstance(input, Variable):
        check_variable_and_dtype(input, "input", NUMBERS + ("bool",), "assign")
    elif convert_dtype(input.dtype) not in ("bool", "float32", "int32", "int64"):
        raise ArgumentTypeError(
            f"assign: a numpy array given to assign must be bool, float32, int32 or int64, got {input.dtype}"
        )
    return assign_array_like(input, output)


def assign_array_like(input, output=None, keep_float64=False):
    """A copy of a Variable, or a variable holding the values of anything numpy makes an array of
    (float64 arrays become float32, as in Paddle 2.x's static ``paddle.assign``; ``keep_float64``: float64 values
    as they are, assign_value's fp64_values, as Paddle's eager tensors keep them)."""
    helper = LayerHelper("assign", input=input)
    if isinstance(input, Variable):
        if output is None:
            output = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op("assign", {"X": [input]}, {"Out": [output]})
        return output
    array = np.asarray(input)
    if array.dtype == np.float64 and not keep_float64:
        array = array.astype(np.float32)
    dtype = convert_dtype(array.dtype)
    if output is None:
        output = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "assign_value",
        {},
        {"Out": [output]},
        {
            "shape": list(array.shape),
            "dtype": dtype,
            "fp64_values" if dtype == "float64" else values_attr(dtype): array.reshape(-1).tolist(),
        },
    )
    return output


def create_tensor(dtype, name=None, persistable=False):
    """An empty variable to be written by a later op (``assign(x, output=t)``)."""
    helper = LayerHelper("create_tensor", name=name)
    return helper.create_variable(name=helper.name, dtype=dtype, persistable=persistable)


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block, filled with ``value`` by the startup program.
    As Fluid's: a TypeError for a shape that is not a list or tuple of ints."""
    if not isinstance(shape, (list, tuple)) or not all(isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"create_global_var: shape must be a list or tuple of ints, got {shape!r}")
    helper = LayerHelper("global_var", name=name)
    if is_complex(convert_dtype(dtype)) and not getattr(helper.main_program, "_follows_paddle2", False):
        raise ArgumentValueError(
            f"create_global_var: dtype {convert_dtype(dtype)}: Fluid 1.8 has no complex dtypes "
            f"(a Paddle 2.x program has: paddle.enable_static())"
        )
    var = helper.create_global_variable(
        name=name, shape=list(shape), dtype=dtype, persistable=persistable, stop_gradient=True
    )
    if isinstance(value, np.ndarray) and value.size == 1:  # numpy 1.x's float() of a one-element array
        value = value.reshape(())
    helper.set_variable_initializer(var, ConstantInitializer(float(value)))
    return var


_PARAMETER_DTYPES = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A trainable parameter outside any layer (``ParamAttr`` decides its name and initializer).
    Arguments of the wrong type are TypeErrors, as Fluid checks them."""
    check_type(shape, "shape", (list, tuple, np.ndarray), "create_parameter")
    for item in shape:
        check_type(item, "item of shape", (int, np.uint8, np.int8, np.int16, np.int32, np.int64), "create_parameter")
    check_dtype(dtype, "dtype", _PARAMETER_DTYPES, "create_parameter")
    check_type(attr, "attr", (type(None), ParamAttr), "create_parameter")
    check_type(default_initializer, "default_initializer", (type(None), Initializer), "create_parameter")
    helper = LayerHelper("create_parameter", name=name)
    attr = ParamAttr._to_attr(attr)
    if name is not None and attr is not False and attr.name is None:
        attr.name = name
    return helper.create_parameter(attr, list(shape), dtype, is_bias, default_initializer)


_RANGE_DTYPES = ("float32", "float64", "int32", "int64")


@fluid_checks("range", start=(float, int, Variable), end=(float, int, Variable), step=(float, int, Variable))
def range(start, end, step, dtype):  # noqa: A001 -- Fluid's name
    """The 1-D tensor [start, start + step, ...) stopping before ``end``; each of start, end and
    step is a number or a one-element Variable of ``dtype``. No gradient."""
    dtype = convert_dtype(dtype)
    if dtype not in _RANGE_DTYPES:
        raise ArgumentTypeError(f"range: dtype {dtype} is not one of {list(_RANGE_DTYPES)}")  # Paddle's TypeError
    numbers_ = [v for v in (start, end, step) if not isinstance(v, Variable)]
    length = None
    if len(numbers_) == 3:
        typed = [np.dtype(dtype).type(v) for v in (start, end, step)]
        length = range_length(*typed, integer=dtype.startswith("int"))
        if length is None:
            raise PeError(
                f"range: step={step} does not lead from start={start} to end={end}; it must be "
                f"nonzero, positive when start < end and negative when start > end"
            )
    start, end, step = (v if isinstance(v, Variable) else fill_constant([1], dtype, v) for v in (start, end, step))
    helper = LayerHelper("range")
    out = helper.create_variable_for_type_inference(start.dtype, stop_gradient=True)
    helper.append_op("range", {"Start": [start], "End": [end], "Step": [step]}, {"Out": [out]})
    if length is not None:
        out.shape = (length,)
    out.stop_gradient = True
    return out


@fluid_checks(
    "ones_like",
    x=("bool", "float32", "float64", "int32", "int64"),
    out=optional(("bool", "float32", "float64", "int32", "int64")),
)
def ones_like(x, out=None):
    """Ones shaped like ``x``, of its dtype (no gradient flows through)."""
    helper = LayerHelper("ones_like", x=x)
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("fill_any_like", {"X": [x]}, {"Out": [out]}, {"value": 1.0})
    out.stop_gradient = True
    return out


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32"):
    """The [num_rows, num_columns] identity matrix (num_columns None: square), repeated over
    ``batch_shape`` leading dims when given."""
    helper = LayerHelper("eye")
    num_columns = num_rows if num_columns is None else num_columns
    for what, v in (("num_rows", num_rows), ("num_columns", num_columns)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 0:
            raise ArgumentTypeError(f"eye: {what} must be an int >= 0, got {v!r}")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "eye", {}, {"Out": [out]}, {"num_rows": int(num_rows), "num_columns": int(num_columns), "dtype": dtype}
    )
    out.stop_gradient = True
    if batch_shape is not None:
        batch = check_ints("eye", "batch_shape", _as_list(batch_shape))
        out = reshape(out, [1] * len(batch) + [int(num_rows), int(num_columns)])
        out = tiled(out, batch + [1, 1])
        out.stop_gradient = True
    return out


@fluid_checks("diag", diagonal=(Variable, np.ndarray))
def diag(diagonal):
    """The square matrix with ``diagonal`` (a 1-D Variable or numpy array) on its main diagonal."""
    if not isinstance(diagonal, Variable):
        diagonal = assign_array_like(np.asarray(diagonal))
    helper = LayerHelper("diag", diagonal=diagonal)
    out = helper.create_variable_for_type_inference(diagonal.dtype, stop_gradient=True)
    helper.append_op("diag", {"Diagonal": [diagonal]}, {"Out": [out]})
    out.stop_gradient = True
    return out


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx=0, output_dim_idx=0, force_cpu=False):
    helper = LayerHelper("fill_constant_batch_size_like")
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "fill_constant_batch_size_like",
        {"Input": [input]},
        {"Out": [out]},
        {
            "shape": list(shape),
            "dtype": dtype,
            "value": float(value),
            "input_dim_idx": input_dim_idx,
            "output_dim_idx": output_dim_idx,
        },
    )
    return out


def check_device(layer, device):
    """Paddle 2.0-alpha's ``device=``: None, 'cpu' or 'gpu' (a ValueError for another); whether it is 'cpu'."""
    if device not in (None, "cpu", "gpu"):
        raise ArgumentValueError(f"{layer}: device={device!r} must be None, 'cpu' or 'gpu'")
    return device == "cpu"


def full(shape, fill_value, out=None, dtype=None, device=None, stop_gradient=True, name=None):
    """A tensor of ``shape`` filled with ``fill_value``, of ``dtype`` (None: float32)."""
    force_cpu = check_device("full", device)
    out = fill_constant(shape, "float32" if dtype is None else dtype, fill_value, force_cpu, out)
    out.stop_gradient = stop_gradient
    return out


def full_like(
    input, fill_value, out=None, dtype=None, device=None, stop_gradient=True, name=None, *, dtypes=_FILL_DTYPES
):
    """``fill_value`` shaped like ``input``, of ``dtype`` (None: input's), one of ``dtypes`` (Paddle
    2.0-alpha's, a TypeError for another; paddle.full_like gives 2.6's)."""
    check_device("full_like", device)
    check_variable_and_dtype(input, "input", NUMBERS + ("bool",), "full_like")
    dtype = input.dtype if dtype is None else check_dtype(dtype, "dtype", dtypes, "full_like")
    helper = LayerHelper("full_like", input=input, name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_any_like", {"X": [input]}, {"Out": [out]}, {"value": float(fill_value), "dtype": dtype})
    out.stop_gradient = stop_gradient
    return out


def arange(start, end, step=1, dtype=None, name=None):
    """[start, start + step, ...) stopping before ``end``, of ``dtype`` (None: int64 when start, end
    and step are ints, else float32). No gradient."""
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = "int64" if ints else "float32"
    return range(start, end, step, dtype)


def linspace(start, stop, num, dtype):
    """``num`` evenly spaced values from start to stop, both included: Fluid 1.8's linspace op. start and stop
    are numbers (made [1] tensors of ``dtype``) or float32/float64 [1] Variables, num an int or an int32 [1]
    Variable; the result has start's dtype. No gradient."""
    for what, v in (("start", start), ("stop", stop), ("num", num)):
        check_type(v, what, (Variable, float, int), "linspace")
    if not (isinstance(start, Variable) and isinstance(stop, Variable)) and convert_dtype(dtype) not in (
        "float32",
        "float64",
    ):  # Fluid's op has no kernel for another
        raise ArgumentTypeError(f"linspace: dtype must be float32 or float64, got {convert_dtype(dtype)}")
    ends = []
    for what, v in (("start", start), ("stop", stop)):
        if isinstance(v, Variable):
            check_variable_and_dtype(v, what, ("float32", "float64"), "linspace")
        else:
            v = fill_constant([1], dtype, v)
        ends.append(v)
    if isinstance(num, Variable):
        check_variable_and_dtype(num, "num", ("int32",), "linspace")
    else:
        if int(num) < 1:
            raise ArgumentValueError(f"linspace: num={num!r} must be >= 1 (Fluid's kernel refuses it when it runs)")
        num = fill_constant([1], "int32", int(num))
    helper = LayerHelper("linspace")
    out = helper.create_variable_for_type_inference(ends[0].dtype, stop_gradient=True)
    helper.append_op("linspace", {"Start": [ends[0]], "Stop": [ends[1]], "Num": [num]}, {"Out": [out]}, {})
    return out


def evenly_spaced(start, stop, num, dtype):
    """linspace's values in any numeric ``dtype``: start + k * (stop - start) / (num - 1), k < num."""
    if any(isinstance(v, Variable) for v in (start, stop, num)):
        raise PeError("linspace: Variable start/stop/num are not supported by pe; give numbers")
    if not isinstance(num, numbers.Integral) or num < 1:
        raise ArgumentValueError(f"linspace: num={num!r} must be an int >= 1")
    if num == 1:
        return fill_constant([1], dtype, start)
    step = (float(stop) - float(start)) / (int(num) - 1)
    steps = cast(range(0, int(num), 1, "int64"), dtype)
    out = single(
        "scale",
        steps,
        {"X": [steps]},
        {"scale": step, "bias": float(start), "bias_after_scale": True},
        stop_gradient=True,
    )
    out.stop_gradient = True
    return out


def meshgrid(input, name=None):
    """For k 1-D tensors of sizes n1..nk: k tensors [n1, ..., nk], the i-th varying along dim i (the meshgrid
    op)."""
    check_type(input, "input", (list, tuple), "meshgrid")
    for i, t in enumerate(input):
        check_variable_and_dtype(t, f"input[{i}]", NUMBERS, "meshgrid")
    helper = LayerHelper("meshgrid", name=name)
    out = [helper.create_variable_for_type_inference(t.dtype) for t in input]
    helper.append_op("meshgrid", {"X": list(input)}, {"Out": out}, {})
    return out
