"""Sequence layers that pool or normalise each LoD sequence, with Fluid's signatures: sequence_pool
(and its first and last steps) and sequence_softmax."""

from ..base.errors import PeError
from .helper import LayerHelper
from .checks import fluid_checks

__all__ = ["sequence_pool", "sequence_first_step", "sequence_last_step", "sequence_softmax"]

_POOL_TYPES = ("average", "sum", "sqrt", "max", "last", "first")


@fluid_checks("sequence_pool", input=("float32",))
def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):
    """One row per sequence of the input's last LoD level: its average, sum, sum / sqrt(length),
    max, last or first row (pad_value for an empty sequence); the output has the LoD levels above."""
    helper = LayerHelper("sequence_pool", input=input)
    if str(pool_type).lower() not in _POOL_TYPES:
        raise PeError(f"sequence_pool layer '{helper.name}': pool_type {pool_type!r} is not one of {list(_POOL_TYPES)}")
    out = helper.create_variable_for_type_inference(input.dtype)
    # (declared as Fluid's layer declares it, of the input's dtype; the kernel writes int32 indices)
    max_index = helper.create_variable_for_type_inference(input.dtype, stop_gradient=str(pool_type).lower() == "max")
    helper.append_op(
        "sequence_pool",
        {"X": [input]},
        {"Out": [out], "MaxIndex": [max_index]},
        {"pooltype": pool_type.upper(), "is_test": is_test, "pad_value": pad_value},
    )
    return out


@fluid_checks("sequence_first_step", input=("float32", "float64"))
def sequence_first_step(input):
    """The first time step of each sequence."""
    return sequence_pool(input, "first")


@fluid_checks("sequence_last_step", input=("float32", "float64"))
def sequence_last_step(input):
    """The last time step of each sequence."""
    return sequence_pool(input, "last")


@fluid_checks("sequence_softmax", input=("float32", "float64"))
def sequence_softmax(input, use_cudnn=False, name=None):
    """Softmax over the time steps of each sequence ([N, 1] or [N] scores); keeps the LoD."""
    helper = LayerHelper("sequence_softmax", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("sequence_softmax", {"X": [input]}, {"Out": [out]})
    return out
