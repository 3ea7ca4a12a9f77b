"""The sequence convolution layer, with Fluid's signature: sequence_conv (a window of rows of each
LoD sequence through one filter parameter)."""

from ..base.errors import PeError
from .helper import LayerHelper
from .checks import fluid_checks

__all__ = ["sequence_conv"]


@fluid_checks("sequence_conv", input=("float32", "float64"))
def sequence_conv(
    input,
    num_filters,
    filter_size=3,
    filter_stride=1,
    padding=True,
    padding_start=None,
    bias_attr=None,
    param_attr=None,
    act=None,
    name=None,
):
    """A convolution along each sequence's steps: each step sees filter_size steps from
    padding_start (default -(filter_size // 2), centred), zeros outside its sequence; then bias
    and act. The output [T, num_filters] keeps the input's LoD."""
    helper = LayerHelper("sequence_conv", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    if filter_stride != 1:
        raise PeError(f"sequence_conv layer '{helper.name}': filter_stride must be 1 (as in Fluid)")
    width = input.shape[-1] if input.shape else -1
    w = helper.create_parameter(param_attr, [filter_size * width, num_filters], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    start = -(filter_size // 2) if padding_start is None else padding_start
    helper.append_op(
        "sequence_conv",
        {"X": [input], "Filter": [w]},
        {"Out": [out]},
        {"contextLength": filter_size, "contextStart": start, "contextStride": 1},
    )
    return helper.append_activation(helper.append_bias_op(out))
