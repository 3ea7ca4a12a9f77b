"""Fluid's argument checks (its ``data_feeder.check_variable_and_dtype``, ``check_type`` and
``check_dtype``): a layer given a value of the wrong type or dtype raises an ArgumentTypeError, a
TypeError as in Fluid, where the layer is built, naming the layer and the argument."""
from ..base.dtypes import DTYPE_NAMES, convert_dtype
from ..base.errors import ArgumentTypeError, UnknownDtypeError
from ..framework.variable import Variable

NUMBERS = ("float16", "float32", "float64", "int32", "int64")
FLOATS = ("float16", "float32", "float64")
FLOAT32_64 = ("float32", "float64")     # the layers whose Fluid check refuses float16


def check_type(value, what, types, layer):
    """``value`` is an instance of ``types`` (a type or a tuple of them), else an ArgumentTypeError."""
    if not isinstance(value, types):
        names = "|".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise ArgumentTypeError(f"{layer}: {what} must be {names}, got {type(value).__name__}")
    return value


def check_variable_and_dtype(value, what, dtypes, layer):
    """``value`` is a Variable of one of ``dtypes``, else an ArgumentTypeError."""
    check_type(value, what, Variable, layer)
    if value.dtype not in dtypes:
        raise ArgumentTypeError(f"{layer}: {what} '{value.name}' is {value.dtype}; it must be one of "
                                f"{', '.join(dtypes)}")
    return value


def check_dtype(dtype, what, dtypes, layer):
    """``dtype`` (any of Fluid's spellings) is one of ``dtypes``, else an ArgumentTypeError."""
    if isinstance(dtype, str) and dtype not in DTYPE_NAMES:      # Fluid's convert_dtype: no other spelling
        raise UnknownDtypeError(f"{layer}: {what} {dtype!r} is no dtype; it must be one of {', '.join(dtypes)}")
    try:
        name = convert_dtype(dtype)
    except UnknownDtypeError:
        raise                   # a name no dtype has: a ValueError as Fluid's convert_dtype (and a TypeError)
    except ValueError:
        name = str(dtype)
    if name not in dtypes:
        raise ArgumentTypeError(f"{layer}: the data type of {what} is {name}; it must be one of {', '.join(dtypes)}")
    return name


def check_recurrent_inputs(layer, input, **states):
    """Fluid's checks of a recurrent layer's input and initial states (h_0, c_0 of dynamic_lstm,
    dynamic_gru, dynamic_lstmp): Variables of float32 or float64 (a state may be None)."""
    check_variable_and_dtype(input, "input", FLOAT32_64, layer)
    for what, state in states.items():
        check_type(state, what, (Variable, type(None)), layer)
        if state is not None:
            check_variable_and_dtype(state, what, FLOAT32_64, layer)


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Variable), expected_element_type=(int, Variable),
                expected_tensor_dtype=("int32", "int64")):
    """Paddle 2.x's ``data_feeder.check_shape``: ``shape`` is a list, tuple or int Tensor, its elements
    ints or int Tensors, else an ArgumentTypeError naming ``op_name``."""
    check_type(shape, "shape", expected_shape_type, op_name)
    if expected_element_type is not None and not isinstance(shape, Variable):
        for item in shape:
            check_type(item, "element of shape", expected_element_type, op_name)
            if expected_tensor_dtype is not None and isinstance(item, Variable):
                check_dtype(item.dtype, "element of shape", expected_tensor_dtype, op_name)
    if expected_tensor_dtype is not None and isinstance(shape, Variable):
        check_dtype(shape.dtype, "shape", expected_tensor_dtype, op_name)
