"""Fluid 1.8's argument checks of its layers (``data_feeder.check_variable_and_dtype``, ``check_type``):
the wrong type or dtype is a TypeError (pe's ArgumentTypeError), as Fluid's, raised where the layer is
built, naming the layer and the argument."""
from ..base.errors import ArgumentTypeError
from ..framework.variable import Variable

FLOATS = ("float32", "float64")


def check_type(value, what, types, layer):
    """``value`` must be an instance of ``types`` (a type or a tuple of them)."""
    if not isinstance(value, types):
        names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise ArgumentTypeError(f"{layer}: the type of '{what}' must be {names}, but received "
                                f"{type(value).__name__}")
    return value


def check_variable_and_dtype(value, what, dtypes, layer):
    """``value`` must be a Variable whose dtype is one of ``dtypes``."""
    check_type(value, what, Variable, layer)
    if value.dtype not in dtypes:
        raise ArgumentTypeError(f"{layer}: the dtype of '{what}' ({value.name}) must be one of {list(dtypes)}, "
                                f"but received {value.dtype}")
    return value
