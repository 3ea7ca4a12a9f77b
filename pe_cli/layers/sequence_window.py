"""Sequence layers over windows of steps, with Fluid 1.x's signatures: sequence_enumerate,
sequence_scatter, row_conv."""

from ..base.errors import PeError
from .helper import LayerHelper
from .sequence_rows import _one
from .checks import fluid_checks

__all__ = ["sequence_enumerate", "sequence_scatter", "row_conv"]


@fluid_checks("sequence_enumerate", input=("int32", "int64"))
def sequence_enumerate(input, win_size, pad_value=0, name=None):
    """For each step of an id sequence ([steps, 1], int), the ids of the win_size steps from it,
    pad_value past its sequence's end: [steps, win_size], with the input's LoD."""
    out = _one("sequence_enumerate", {"X": input}, attrs={"win_size": win_size, "pad_value": pad_value}, name=name)
    out.stop_gradient = True
    return out


@fluid_checks(
    "sequence_scatter",
    input=("float32", "float64", "int32", "int64"),
    index=("int32", "int64"),
    updates=("float32", "float64", "int32", "int64"),
)
def sequence_scatter(input, index, updates, name=None):
    """A copy of input where, for sequence i of index (int ids, a LoDTensor) and each of its steps
    j, input[i, index[j]] += updates[j] (updates has index's LoD)."""
    return _one("sequence_scatter", {"X": input, "Ids": index, "Updates": updates}, name=name)


@fluid_checks("row_conv", input=("float32",))
def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead convolution (DeepSpeech2): each step is the elementwise-weighted sum of itself and
    the next future_context_size steps of its sequence, through a [future_context_size + 1, D]
    filter parameter; then act."""
    helper = LayerHelper("row_conv", input=input, param_attr=param_attr, act=act)
    if not isinstance(future_context_size, int) or future_context_size < 0:
        raise PeError(
            f"row_conv layer '{helper.name}': future_context_size must be an int >= 0, got {future_context_size!r}"
        )
    width = input.shape[-1] if input.shape else -1
    w = helper.create_parameter(param_attr, [future_context_size + 1, width], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("row_conv", {"X": [input], "Filter": [w]}, {"Out": [out]})
    return helper.append_activation(out)
