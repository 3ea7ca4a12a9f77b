"""3-D convolution layers of Fluid 1.8's ``fluid.layers`` (python/paddle/fluid/layers/nn.py), with its
signatures: conv3d and conv3d_transpose over NCDHW (or NDHWC) input, the ops of ops/convolution3d.py."""

from ..base.errors import ArgumentTypeError, ArgumentValueError
from ..framework.variable import Variable
from ..training.initializer import NormalInitializer
from .helper import LayerHelper

__all__ = ["conv3d", "conv3d_transpose"]


def _three(value, what, layer):
    """Fluid's convert_to_list(value, 3): an int for all three dims, or three ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * 3
    if isinstance(value, (list, tuple)) and len(value) == 3 and all(isinstance(v, int) for v in value):
        return list(value)
    raise ArgumentValueError(f"{layer}: the {what} must be an int or a list/tuple of 3 ints, got {value!r}")


def _padding(padding, data_format, layer):
    """(paddings, padding_algorithm) from Fluid's forms: 'SAME' / 'VALID', an int, 3 ints, 6 ints
    (before and after each of D, H, W), or 5 pairs, one per dim of the layout (0 for batch and channels)."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise ArgumentValueError(f"{layer}: unknown padding '{padding}'; it can only be 'SAME' or 'VALID'")
        return [0, 0, 0], algorithm
    if isinstance(padding, (list, tuple)) and len(padding) == 5 and isinstance(padding[0], (list, tuple)):
        spatial = padding[2:5] if data_format == "NCDHW" else padding[1:4]
        fixed = [padding[0], padding[1]] if data_format == "NCDHW" else [padding[0], padding[4]]
        if any(list(p) != [0, 0] for p in fixed):
            raise ArgumentValueError(
                f"{layer}: non-zero padding {padding} in the batch or channel dimensions is not supported"
            )
        padding = [v for pair in spatial for v in pair]
    if isinstance(padding, (list, tuple)) and len(padding) == 6:
        padding = [int(v) for v in padding]
        symmetric = padding[0::2] == padding[1::2]
        return (padding[0::2] if symmetric else padding), "EXPLICIT"
    return _three(padding, "padding", layer), "EXPLICIT"


def _check(input, data_format, use_cudnn, layer):
    if not isinstance(input, Variable):
        raise ArgumentTypeError(f"{layer}: input must be a Variable, got {type(input).__name__}")
    if not isinstance(use_cudnn, bool):
        raise ArgumentValueError(f"{layer}: use_cudnn should be True or False, got {use_cudnn!r}")
    if data_format not in ("NCDHW", "NDHWC"):
        raise ArgumentValueError(f"{layer}: data_format should be 'NCDHW' or 'NDHWC', got {data_format!r}")
    if input.shape is None or len(input.shape) != 5:
        raise ArgumentValueError(f"{layer}: input '{input.name}' {list(input.shape or [])} must be 5-D ({data_format})")
    channels = input.shape[1] if data_format == "NCDHW" else input.shape[4]
    if channels is None or channels < 0:
        raise ArgumentValueError(
            f"{layer}: the channel dimension of the input {list(input.shape)} should be defined, got {channels}"
        )
    return channels


def _finish(helper, pre_bias, data_format):
    axis = 1 if data_format in ("NCDHW", "NCHW") else 4
    return helper.append_activation(helper.append_bias_op(pre_bias, dim_start=axis, dim_end=axis + 1))


def conv3d(
    input,
    num_filters,
    filter_size,
    stride=1,
    padding=0,
    dilation=1,
    groups=None,
    param_attr=None,
    bias_attr=None,
    use_cudnn=True,
    act=None,
    name=None,
    data_format="NCDHW",
):
    """3-D convolution: Out = act(conv3d(input, W) + b), W [num_filters, C/groups, kd, kh, kw] initialized
    from N(0, sqrt(2 / (kd kh kw C))) unless param_attr says otherwise."""
    if param_attr is False:
        raise AssertionError("param_attr should not be False here.")
    channels = _check(input, data_format, use_cudnn, "conv3d")
    if groups is not None and channels % groups:
        raise ArgumentValueError(
            f"conv3d: the number of input channels must be divisible by groups; got "
            f"{channels} channels, groups={groups}"
        )
    helper = LayerHelper(
        "conv3d", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name, use_cudnn=use_cudnn
    )
    size = _three(filter_size, "filter_size", "conv3d")
    paddings, algorithm = _padding(padding, data_format, "conv3d")
    if size[0] * size[1] * size[2] * channels <= 0:  # (Paddle 2.6's ValueError; Fluid 1.8 divided by zero)
        raise ArgumentValueError(
            f"conv3d: filter_size {size} over {channels} channels has no elements; each must be > 0"
        )
    std = (2.0 / (size[0] * size[1] * size[2] * channels)) ** 0.5
    w = helper.create_parameter(
        param_attr,
        [num_filters, channels // (groups or 1)] + size,
        input.dtype,
        default_initializer=NormalInitializer(0.0, std, 0),
    )
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "conv3d",
        {"Input": [input], "Filter": [w]},
        {"Output": [pre_bias]},
        {
            "strides": _three(stride, "stride", "conv3d"),
            "paddings": paddings,
            "dilations": _three(dilation, "dilation", "conv3d"),
            "groups": groups or 1,
            "use_cudnn": use_cudnn,
            "padding_algorithm": algorithm,
            "data_format": data_format,
        },
    )
    return _finish(helper, pre_bias, data_format)


def _filter_size(input, output_size, stride, paddings, dilation, data_format):
    """Fluid's filter size for ``output_size``: the one whose least output is that size."""
    if output_size is None:
        raise ArgumentValueError("conv3d_transpose: output_size must be set when filter_size is None")
    output_size = _three(output_size, "output_size", "conv3d_transpose")
    spatial = input.shape[2:5] if data_format == "NCDHW" else input.shape[1:4]
    p = paddings if len(paddings) == 6 else [v for q in paddings for v in (q, q)]
    return [
        (output_size[i] - (spatial[i] - 1) * stride[i] + p[2 * i] + p[2 * i + 1] - 1) // dilation[i] + 1
        for i in range(3)
    ]


def _transpose_sizes(input, output_size, filter_size, stride, paddings, dilation, data_format):
    """conv3d_transpose's (output_size: [] when not given, filter_size), checked; a missing filter_size
    is the one output_size asks for."""
    if filter_size is None:
        filter_size = _filter_size(input, output_size, stride, paddings, dilation, data_format)
    else:
        filter_size = _three(filter_size, "filter_size", "conv3d_transpose")
    if output_size is not None and not isinstance(output_size, (list, tuple, int)):
        raise ArgumentValueError("conv3d_transpose: output_size should be int, list[int] or tuple[int]")
    output_size = [] if output_size is None else _three(output_size, "output_size", "conv3d_transpose")
    return output_size, filter_size


def conv3d_transpose(
    input,
    num_filters,
    output_size=None,
    filter_size=None,
    padding=0,
    stride=1,
    dilation=1,
    groups=None,
    param_attr=None,
    bias_attr=None,
    use_cudnn=True,
    act=None,
    name=None,
    data_format="NCDHW",
):
    """The transposed 3-D convolution (conv3d's input gradient): Out = act(conv3d_transpose(input, W) + b),
    W [C, num_filters/groups, kd, kh, kw]; ``output_size`` picks one of the sizes conv3d maps back to the
    input's, and gives filter_size when that is None."""
    if param_attr is False:
        raise AssertionError("param_attr should not be False in conv3d_transpose.")
    if data_format not in ("NCDHW", "NDHWC"):
        raise ArgumentValueError(f"conv3d_transpose: data_format should be 'NCDHW' or 'NDHWC', got {data_format!r}")
    if not isinstance(input, Variable):
        raise ArgumentTypeError("Input of conv3d_transpose must be Variable")
    channels = _check(input, data_format, use_cudnn, "conv3d_transpose")
    helper = LayerHelper(
        "conv3d_transpose",
        input=input,
        param_attr=param_attr,
        bias_attr=bias_attr,
        act=act,
        name=name,
        use_cudnn=use_cudnn,
    )
    stride, dilation = _three(stride, "stride", "conv3d_transpose"), _three(dilation, "dilation", "conv3d_transpose")
    paddings, algorithm = _padding(padding, data_format, "conv3d_transpose")
    output_size, filter_size = _transpose_sizes(
        input, output_size, filter_size, stride, paddings, dilation, data_format
    )
    groups = 1 if groups is None else groups
    w = helper.create_parameter(param_attr, [channels, num_filters // groups] + filter_size, input.dtype)
    layout = "NCHW" if data_format == "NCDHW" else "NHWC"  # the op's attribute, as Fluid writes it
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "conv3d_transpose",
        {"Input": [input], "Filter": [w]},
        {"Output": [pre_bias]},
        {
            "output_size": output_size,
            "strides": stride,
            "paddings": paddings,
            "padding_algorithm": algorithm,
            "dilations": dilation,
            "groups": groups,
            "use_cudnn": use_cudnn,
            "data_format": layout,
        },
    )
    return _finish(helper, pre_bias, layout)
