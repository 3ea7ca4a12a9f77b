"""Fluid's argument checks (its ``data_feeder.check_variable_and_dtype``, ``check_type`` and
``check_dtype``): a layer given a value of the wrong type or dtype raises an ArgumentTypeError, a
TypeError as in Fluid, where the layer is built, naming the layer and the argument."""

import functools
import inspect

from ..base.dtypes import DTYPE_NAMES, convert_dtype
from ..base.errors import ArgumentAssertionError, ArgumentTypeError, UnknownDtypeError
from ..framework import default_main_program
from ..framework.variable import Variable

NUMBERS = ("float16", "float32", "float64", "int32", "int64")
FLOATS = ("float16", "float32", "float64")
FLOAT32_64 = ("float32", "float64")  # the layers whose Fluid check refuses float16


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
        raise ArgumentTypeError(
            f"{layer}: {what} '{value.name}' is {value.dtype}; it must be one of {', '.join(dtypes)}"
        )
    return value


def check_dtype(dtype, what, dtypes, layer):
    """``dtype`` (any of Fluid's spellings) is one of ``dtypes``, else an ArgumentTypeError."""
    if isinstance(dtype, str) and dtype not in DTYPE_NAMES:  # Fluid's convert_dtype: no other spelling
        raise UnknownDtypeError(f"{layer}: {what} {dtype!r} is no dtype; it must be one of {', '.join(dtypes)}")
    try:
        name = convert_dtype(dtype)
    except UnknownDtypeError:
        raise  # a name no dtype has: a ValueError as Fluid's convert_dtype (and a TypeError)
    except ValueError:
        name = str(dtype)
    if name not in dtypes:
        raise ArgumentTypeError(f"{layer}: the data type of {what} is {name}; it must be one of {', '.join(dtypes)}")
    return name


class optional:  # noqa: N801 -- a marker read like a type: optional(FLOATS)
    """A ``fluid_checks`` spec that also takes None (Fluid's ``(Variable, type(None))``)."""

    def __init__(self, spec):
        self.spec = spec


class given:  # noqa: N801
    """A ``fluid_checks`` spec Fluid asserts first: None is an AssertionError (``assert x is not None``),
    anything else is checked by ``spec`` (None: not checked further)."""

    def __init__(self, spec=None):
        self.spec = spec


class each:  # noqa: N801
    """A ``fluid_checks`` spec of a Variable or a list / tuple of them, each checked by ``spec``."""

    def __init__(self, spec):
        self.spec = spec


def _check(value, what, spec, layer):
    if isinstance(spec, given):
        if value is None:
            raise ArgumentAssertionError(f"{layer}: {what} cannot be None")
        if spec.spec is not None:
            _check(value, what, spec.spec, layer)
    elif isinstance(spec, optional):
        if value is not None:
            _check(value, what, spec.spec, layer)
    elif isinstance(spec, each):
        check_type(value, what, (Variable, list, tuple), layer)
        for i, item in enumerate(value if isinstance(value, (list, tuple)) else [value]):
            _check(item, f"{what}[{i}]", spec.spec, layer)
    elif isinstance(spec, tuple) and spec and all(isinstance(d, str) for d in spec):
        check_variable_and_dtype(value, what, spec, layer)
    elif isinstance(spec, tuple) and any(isinstance(d, tuple) for d in spec):  # (list, tuple, dtypes)
        dtypes = next(d for d in spec if isinstance(d, tuple))
        if isinstance(value, Variable):
            check_variable_and_dtype(value, what, dtypes, layer)
        else:
            check_type(value, what, tuple(d for d in spec if not isinstance(d, tuple)), layer)
    else:
        check_type(value, what, spec, layer)


def fluid_checks(layer, **specs):
    """Decorates a layer function with Fluid 1.8's checks of its arguments, run before its body in the
    order given, in a Fluid 1.8 program (a Paddle 2.x one, ``Program._follows_paddle2``, has Paddle's
    own). ``name=spec``: a tuple of dtype names (``check_variable_and_dtype``), a type or tuple of types
    (``check_type``), both (``(list, tuple, ("int32",))``: a list, a tuple or an int32 Variable),
    ``optional(spec)`` (None passes too), ``given(spec)`` (None is an AssertionError), ``each(spec)`` (a
    list of Variables). An
    argument left out is checked at its default, as Fluid checks it."""

    def decorate(func):
        signature = inspect.signature(func)
        missing = set(specs) - set(signature.parameters)
        if missing:
            raise TypeError(f"fluid_checks({layer!r}): {func.__name__} has no argument(s) {sorted(missing)}")

        @functools.wraps(func)
        def checked(*args, **kwargs):
            if not default_main_program()._follows_paddle2:
                try:
                    bound = signature.bind(*args, **kwargs)
                except TypeError:
                    return func(*args, **kwargs)  # Python's own error of the call
                bound.apply_defaults()
                for name, spec in specs.items():
                    _check(bound.arguments[name], name, spec, layer)
            return func(*args, **kwargs)

        checked.fluid_checks = specs
        return checked

    return decorate


def check_recurrent_inputs(layer, input, **states):
    """Fluid's checks of a recurrent layer's input and initial states (h_0, c_0 of dynamic_lstm,
    dynamic_gru, dynamic_lstmp): Variables of float32 or float64 (a state may be None)."""
    check_variable_and_dtype(input, "input", FLOAT32_64, layer)
    for what, state in states.items():
        check_type(state, what, (Variable, type(None)), layer)
        if state is not None:
            check_variable_and_dtype(state, what, FLOAT32_64, layer)


def check_shape(
    shape,
    op_name,
    expected_shape_type=(list, tuple, Variable),
    expected_element_type=(int, Variable),
    expected_tensor_dtype=("int32", "int64"),
):
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
