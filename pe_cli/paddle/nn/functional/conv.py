"""``paddle.nn.functional``'s convolutions (conv1d, conv2d, conv3d and their transposes) over pe's
conv2d / depthwise_conv2d / conv2d_transpose / conv3d / conv3d_transpose ops with the weight and bias
given as Tensors. A 1-D convolution is the 2-D one over [N, C, 1, L]; unfold/fold (im2col and its
adjoint) are depthwise convolutions by one-hot kernels. Padding: an int, one per spatial dim, two per
spatial dim, or 'SAME' / 'VALID'."""

import numpy as np

from ....base.errors import PeError
from ....layers.convolution import _pair, _paddings
from ....layers.convolution3d import _padding as _paddings3d, _three
from ....layers.helper import LayerHelper
from ... import tensor_create as TC
from ... import tensor_manip as TM

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose", "unfold", "fold"]


def add_channel_bias(helper, out, bias, channel_last):
    if bias is None:
        return out
    res = helper.create_variable_for_type_inference(out.dtype)
    helper.append_op(
        "elementwise_add",
        {"X": [out], "Y": [bias]},
        {"Out": [res]},
        {"axis": len(out.shape) - 1 if channel_last else 1},
    )
    return res


def _check_format(fn, data_format, allowed):
    if data_format not in allowed:
        raise ValueError(f"{fn}: data_format={data_format!r} must be one of {list(allowed)}")
    return data_format in ("NHWC", "NLC", "NDHWC")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    """2-D convolution of x [N, C, H, W] (or NHWC) by weight [C_out, C/groups, kh, kw], plus bias [C_out]."""
    helper = LayerHelper("conv2d", name=name)
    channel_last = _check_format("conv2d", data_format, ("NCHW", "NHWC"))
    channels = x.shape[-1 if channel_last else 1]
    if len(x.shape) != 4 or len(weight.shape) != 4:
        raise ValueError(f"conv2d: x {list(x.shape)} and weight {list(weight.shape)} must both be 4-D")
    if channels is not None and channels > 0 and channels != weight.shape[1] * groups:
        raise ValueError(
            f"conv2d: x has {channels} channels, the weight {list(weight.shape)} with groups={groups} "
            f"takes {weight.shape[1] * groups}"
        )
    paddings, algorithm = _paddings(padding, helper, data_format=data_format)
    op_type = "depthwise_conv2d" if groups > 1 and groups == channels and weight.shape[0] % channels == 0 else "conv2d"
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        op_type,
        {"Input": [x], "Filter": [weight]},
        {"Output": [out]},
        {
            "strides": _pair(stride, "stride", helper),
            "paddings": paddings,
            "dilations": _pair(dilation, "dilation", helper),
            "groups": int(groups),
            "padding_algorithm": algorithm,
            "data_format": data_format,
        },
    )
    return add_channel_bias(helper, out, bias, channel_last)


def conv2d_transpose(
    x,
    weight,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    dilation=1,
    groups=1,
    output_size=None,
    data_format="NCHW",
    name=None,
):
    """Transposed 2-D convolution of x [N, C, H, W] (or NHWC) by weight [C, C_out/groups, kh, kw], plus bias [C_out]."""
    helper = LayerHelper("conv2d_transpose", name=name)
    channel_last = _check_format("conv2d_transpose", data_format, ("NCHW", "NHWC"))
    paddings, algorithm = _paddings(padding, helper, data_format=data_format)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "conv2d_transpose",
        {"Input": [x], "Filter": [weight]},
        {"Output": [out]},
        {
            "output_size": _pair(output_size, "output_size", helper) if output_size is not None else [],
            "output_padding": _pair(output_padding, "output_padding", helper) if output_padding else [],
            "strides": _pair(stride, "stride", helper),
            "paddings": paddings,
            "padding_algorithm": algorithm,
            "dilations": _pair(dilation, "dilation", helper),
            "groups": int(groups),
            "data_format": data_format,
        },
    )
    return add_channel_bias(helper, out, bias, channel_last)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    """3-D convolution of x [N, C, D, H, W] (or NDHWC) by weight [C_out, C/groups, kd, kh, kw], plus bias [C_out]."""
    helper = LayerHelper("conv3d", name=name)
    channel_last = _check_format("conv3d", data_format, ("NCDHW", "NDHWC"))
    if len(x.shape) != 5 or len(weight.shape) != 5:
        raise ValueError(f"conv3d: x {list(x.shape)} and weight {list(weight.shape)} must both be 5-D")
    channels = x.shape[-1 if channel_last else 1]
    if channels is not None and channels > 0 and channels != weight.shape[1] * groups:
        raise ValueError(
            f"conv3d: x has {channels} channels, the weight {list(weight.shape)} with groups={groups} "
            f"takes {weight.shape[1] * groups}"
        )
    paddings, algorithm = _paddings3d(padding, data_format, "conv3d")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "conv3d",
        {"Input": [x], "Filter": [weight]},
        {"Output": [out]},
        {
            "strides": _three(stride, "stride", "conv3d"),
            "paddings": paddings,
            "dilations": _three(dilation, "dilation", "conv3d"),
            "groups": int(groups),
            "padding_algorithm": algorithm,
            "data_format": data_format,
        },
    )
    return add_channel_bias(helper, out, bias, channel_last)


def conv3d_transpose(
    x,
    weight,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
    output_size=None,
    data_format="NCDHW",
    name=None,
):
    """Transposed 3-D convolution of x [N, C, D, H, W] (or NDHWC) by weight [C, C_out/groups, kd, kh, kw],
    plus bias [C_out]; ``output_padding`` adds to the least output size (the input's spatial size must
    then be known when the program is built)."""
    helper = LayerHelper("conv3d_transpose", name=name)
    channel_last = _check_format("conv3d_transpose", data_format, ("NCDHW", "NDHWC"))
    if len(x.shape) != 5 or len(weight.shape) != 5:
        raise ValueError(f"conv3d_transpose: x {list(x.shape)} and weight {list(weight.shape)} must both be 5-D")
    strides, dilations = _three(stride, "stride", "conv3d_transpose"), _three(dilation, "dilation", "conv3d_transpose")
    paddings, algorithm = _paddings3d(padding, data_format, "conv3d_transpose")
    sizes = [] if output_size is None else _three(output_size, "output_size", "conv3d_transpose")
    extra = _three(output_padding, "output_padding", "conv3d_transpose")
    if any(extra) and not sizes:
        spatial = x.shape[1:4] if channel_last else x.shape[2:5]
        if algorithm != "EXPLICIT" or any(d is None or d < 0 for d in spatial):
            raise ValueError(
                "conv3d_transpose: output_padding needs explicit paddings and the input's spatial "
                f"size known when the program is built (x {list(x.shape)})"
            )
        pads = paddings if len(paddings) == 6 else [v for q in paddings for v in (q, q)]
        sizes = [
            (spatial[i] - 1) * strides[i]
            - pads[2 * i]
            - pads[2 * i + 1]
            + dilations[i] * (weight.shape[2 + i] - 1)
            + 1
            + extra[i]
            for i in range(3)
        ]
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "conv3d_transpose",
        {"Input": [x], "Filter": [weight]},
        {"Output": [out]},
        {
            "output_size": sizes,
            "strides": strides,
            "paddings": paddings,
            "padding_algorithm": algorithm,
            "dilations": dilations,
            "groups": int(groups),
            "data_format": data_format,
        },
    )
    return add_channel_bias(helper, out, bias, channel_last)


def one_d(value, fill):
    """A 1-D conv argument (an int or a list of one) as the 2-D pair [fill, value]."""
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise ValueError(f"expected an int or a list of 1 int, got {value!r}")
        value = value[0]
    return [fill, int(value)]


def one_d_padding(padding):
    """A 1-D padding as the 2-D one: 'SAME'/'VALID', p, [p], [left, right]."""
    if isinstance(padding, str):
        return padding
    if isinstance(padding, (list, tuple)) and len(padding) == 2:
        return [0, 0, int(padding[0]), int(padding[1])]
    return one_d(padding, 0)


def _to_2d(x, data_format):
    channel_last = _check_format("conv1d", data_format, ("NCL", "NLC"))
    return TM.unsqueeze(x, 1 if channel_last else 2), ("NHWC" if channel_last else "NCHW"), (1 if channel_last else 2)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL", name=None):
    """1-D convolution of x [N, C, L] (or NLC) by weight [C_out, C/groups, k], plus bias [C_out]."""
    x2, fmt, axis = _to_2d(x, data_format)
    out = conv2d(
        x2,
        TM.unsqueeze(weight, 2),
        bias,
        one_d(stride, 1),
        one_d_padding(padding),
        one_d(dilation, 1),
        groups,
        fmt,
        name,
    )
    return TM.squeeze(out, axis)


def conv1d_transpose(
    x,
    weight,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
    output_size=None,
    data_format="NCL",
    name=None,
):
    """Transposed 1-D convolution of NCL x by weight [C, C_out/groups, k], plus bias [C_out]."""
    if data_format != "NCL":
        raise PeError(f"conv1d_transpose: data_format={data_format!r}: pe's op takes NCL only")
    size = None if output_size is None else one_d(output_size, 1)
    out = conv2d_transpose(
        TM.unsqueeze(x, 2),
        TM.unsqueeze(weight, 2),
        bias,
        one_d(stride, 1),
        one_d_padding(padding),
        one_d(output_padding, 0) if output_padding else 0,
        one_d(dilation, 1),
        groups,
        size,
        "NCHW",
        name,
    )
    return TM.squeeze(out, 2)


def _four(value, what):
    """unfold/fold's paddings (int, [h, w] or [top, left, bottom, right]) as conv's [top, bottom, left, right]."""
    v = [int(value)] * 2 if isinstance(value, int) else [int(p) for p in value]
    if len(v) == 2:
        return [v[0], v[0], v[1], v[1]]
    if len(v) == 4:
        return [v[0], v[2], v[1], v[3]]
    raise ValueError(f"{what}: paddings={value!r} must be an int, 2 or 4 ints")


def _patch_kernel(channels, kernel, dtype):
    """[channels * kh * kw, 1, kh, kw]: per channel, one one-hot kernel per patch position."""
    kh, kw = kernel
    if channels is None or channels < 0:
        raise ValueError("unfold/fold: the channel count must be known when the program is built")
    eye = np.eye(kh * kw, dtype=dtype).reshape(kh * kw, 1, kh, kw)
    return TC.assign(np.tile(eye, (channels, 1, 1, 1)))


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """The sliding patches of x [N, C, H, W] as columns: [N, C * kh * kw, L] (channel-major, as
    Paddle's), a depthwise convolution by one-hot kernels."""
    kernel = _pair(kernel_sizes, "kernel_sizes", LayerHelper("unfold"))
    channels = x.shape[1]
    cols = conv2d(
        x,
        _patch_kernel(channels, kernel, x.dtype),
        None,
        strides,
        _four(paddings, "unfold"),
        dilations,
        channels,
        name=name,
    )
    return TM.reshape(cols, [0, channels * kernel[0] * kernel[1], -1])


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """unfold's adjoint: columns [N, C * kh * kw, L] summed back into [N, C, H, W] (``output_sizes``)."""
    helper = LayerHelper("fold")
    kernel, size = _pair(kernel_sizes, "kernel_sizes", helper), _pair(output_sizes, "output_sizes", helper)
    stride, dilation = _pair(strides, "strides", helper), _pair(dilations, "dilations", helper)
    pad = _four(paddings, "fold")
    blocks = [
        (size[i] + pad[2 * i] + pad[2 * i + 1] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1 for i in range(2)
    ]
    channels = x.shape[1] // (kernel[0] * kernel[1])
    grid = TM.reshape(x, [0, x.shape[1]] + blocks)
    return conv2d_transpose(
        grid, _patch_kernel(channels, kernel, x.dtype), None, stride, pad, 0, dilation, channels, size, name=name
    )
