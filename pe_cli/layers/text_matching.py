"""Fluid 1.8's ``contrib.layers`` match_matrix_tensor, var_conv_2d and sequence_topk_avg_pooling
(ops/text_matching.py)."""

from ..base.errors import ArgumentTypeError
from .helper import LayerHelper

__all__ = ["match_matrix_tensor", "var_conv_2d", "sequence_topk_avg_pooling"]


def _pair(value, what):
    value = [value, value] if isinstance(value, int) else list(value)
    if len(value) != 2 or not all(isinstance(v, int) and v > 0 for v in value):
        raise ArgumentTypeError(f"var_conv_2d: {what} must be an int or two ints > 0, got {value!r}")
    return value


def match_matrix_tensor(x, y, channel_num, act=None, param_attr=None, dtype="float32", name=None):
    """(out, tmp): per pair of sequences of x [lx, h] and y [ly, h], channel_num matching
    matrices x W_t y^T (W [h, channel_num, h] a parameter), flattened into a LoDTensor [.., 1]."""
    helper = LayerHelper("match_matrix_tensor", name=name, act=act)
    x_shape, y_shape = list(x.shape), list(y.shape)
    assert len(x_shape) == 2 and len(y_shape) == 2 and x_shape[-1] == y_shape[-1]
    w = helper.create_parameter(param_attr, [x_shape[-1], channel_num, y_shape[-1]], dtype)
    out = helper.create_variable_for_type_inference(dtype)
    tmp = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "match_matrix_tensor", {"X": [x], "Y": [y], "W": [w]}, {"Out": [out], "Tmp": [tmp]}, {"dim_t": channel_num}
    )
    return helper.append_activation(out), tmp


def var_conv_2d(
    input,
    row,
    col,
    input_channel,
    output_channel,
    filter_size,
    stride=1,
    param_attr=None,
    act=None,
    dtype="float32",
    name=None,
):
    """A convolution of each pair's image [input_channel, rows, columns] (input's sequence; rows and
    columns: the pair's sequence lengths in row and col) by a centred filter; a LoDTensor [.., 1]."""
    helper = LayerHelper("var_conv_2d", name=name, act=act)
    assert len(input.shape) == 2
    kernel, strides = _pair(filter_size, "filter_size"), _pair(stride, "stride")
    w = helper.create_parameter(param_attr, [int(output_channel), int(input_channel) * kernel[0] * kernel[1]], dtype)
    out = helper.create_variable_for_type_inference(dtype)
    col_out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "var_conv_2d",
        {"X": [input], "ROW": [row], "COLUMN": [col], "W": [w]},
        {"Out": [out], "Col": [col_out]},
        {
            "InputChannel": int(input_channel),
            "OutputChannel": int(output_channel),
            "StrideH": strides[0],
            "StrideW": strides[1],
            "KernelH": kernel[0],
            "KernelW": kernel[1],
        },
    )
    return helper.append_activation(out)


def sequence_topk_avg_pooling(input, row, col, topks, channel_num):
    """Per row of each pair's [channel_num, rows, columns] block, the averages of its top k values
    for each k in topks: [total rows, channel_num * len(topks)] with row's LoD."""
    helper = LayerHelper("sequence_topk_avg_pooling")
    out = helper.create_variable_for_type_inference(input.dtype)
    pos = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "sequence_topk_avg_pooling",
        {"X": [input], "ROW": [row], "COLUMN": [col]},
        {"Out": [out], "pos": [pos]},
        {"topks": list(topks), "channel_num": int(channel_num)},
    )
    return out
