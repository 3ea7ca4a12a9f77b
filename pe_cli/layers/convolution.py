"""Convolution layers of Fluid 1.8's ``fluid.layers``, with its signatures: conv2d (NCHW or NHWC),
conv2d_transpose (NCHW or NHWC) and deformable_conv. The padding and pair helpers here serve the
pooling and normalization layers too."""

__all__ = ["conv2d", "conv2d_transpose", "deformable_conv"]
from ..base.errors import ArgumentAssertionError, ArgumentValueError, PeError, ShapeError
from ..framework.source import current_source
from ..training.initializer import NormalInitializer
from ..ops.registry import fmt_shape
from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper
from .helper import _as_list, check_ints


def shape_error(helper, message):
    """A ShapeError naming the layer and the line that built it, like the ops' own checks."""
    where = current_source()
    return ShapeError(f"{helper.layer_type} layer '{helper.name}'{f' built at {where}' if where else ''}: {message}")


def fmt(shape):
    return fmt_shape(shape)


def _pair(value, name, helper):
    if isinstance(value, int):
        return [value, value]
    value = list(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ArgumentValueError(
            f"{helper.layer_type} layer '{helper.name}': {name} must be an int or a list of 2 ints, got {value!r}"
        )
    return value


def _paddings(padding, helper, name="padding", data_format="NCHW"):
    """Fluid 1.8 padding forms -> (paddings, padding_algorithm): 'SAME' / 'VALID', an int,
    [pad_h, pad_w], [top, bottom, left, right], or pairs per dim of ``data_format``: NCHW's
    [[0,0],[0,0],[t,b],[l,r]], NHWC's [[0,0],[t,b],[l,r],[0,0]]."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ("SAME", "VALID"):
            raise ArgumentValueError(
                f"{helper.layer_type} layer '{helper.name}': {name}={padding!r} must be "
                f"'SAME', 'VALID', an int or a list"
            )
        return [0, 0], algo
    if isinstance(padding, int):
        return [padding, padding], "EXPLICIT"
    padding = list(padding)
    if len(padding) == 4 and all(isinstance(p, (list, tuple)) for p in padding):
        spatial = (1, 2) if data_format == "NHWC" else (2, 3)
        if any(list(p) != [0, 0] for k, p in enumerate(padding) if k not in spatial):
            raise ArgumentValueError(
                f"{helper.layer_type} layer '{helper.name}': {name} {padding} pads the batch or "
                f"channel dim of {data_format} input; only H and W can be padded"
            )
        padding = list(padding[spatial[0]]) + list(padding[spatial[1]])
    if len(padding) == 4 and padding[0] == padding[1] and padding[2] == padding[3]:
        padding = [padding[0], padding[2]]
    if len(padding) not in (2, 4):
        raise ArgumentValueError(
            f"{helper.layer_type} layer '{helper.name}': {name} must be an int, 2 or 4 ints, got {padding!r}"
        )
    return padding, "EXPLICIT"


def _depthwise(input, data_format, groups, use_cudnn, num_filters, transpose=False):
    """Whether Fluid's layer builds the depthwise op (and names its helper, so its parameters,
    depthwise_conv2d_N): groups == C (== num_filters for the transpose, dividing it for conv2d),
    without cuDNN."""
    shape = getattr(input, "shape", None)
    if use_cudnn or shape is None or len(shape) != 4:
        return False
    channels = shape[3] if data_format == "NHWC" else shape[1]
    if transpose:
        return groups is not None and channels == groups and num_filters == channels
    return groups is not None and groups == channels and channels > 0 and num_filters % channels == 0


def _conv2d_channels(helper, input, num_filters, filter_size, groups, data_format):
    """The channel count of conv2d's ``input``: 4-D in ``data_format``, C known, and groups dividing it."""
    shape = input.shape
    expected = [num_filters, "C" if groups is None else f"C/{groups}"] + filter_size
    if shape is None or len(shape) != 4:
        raise shape_error(
            helper,
            f"input '{input.name}' {fmt(shape)} must be 4-D {data_format} to "
            f"convolve with a filter [{', '.join(map(str, expected))}]; reshape it first",
        )
    channels = shape[3] if data_format == "NHWC" else shape[1]
    if channels is None or channels < 0:
        raise shape_error(helper, f"input '{input.name}' {fmt(shape)} has an unknown channel count")
    if groups is not None and (groups < 1 or channels % groups):
        raise shape_error(
            helper, f"input '{input.name}' {fmt(shape)} has {channels} channels, which groups={groups} does not divide"
        )
    return channels


def conv2d(
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
    data_format="NCHW",
):
    """2-D convolution over NCHW (or NHWC) input: Out = act(conv(input, W) + b); W is [num_filters,
    C/groups, kh, kw] in both layouts, initialized from N(0, sqrt(2 / (kh*kw*C))) unless param_attr
    says otherwise."""
    op_type = "depthwise_conv2d" if _depthwise(input, data_format, groups, use_cudnn, num_filters) else "conv2d"
    helper = LayerHelper(
        op_type, input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name, use_cudnn=use_cudnn
    )
    check_variable_and_dtype(input, "input", ("float16", "float32", "float64"), "conv2d")  # Fluid 1.8's, first
    if not isinstance(use_cudnn, bool):  # ValueErrors, as Fluid's
        raise ArgumentValueError(f"conv2d layer '{helper.name}': use_cudnn should be True or False, got {use_cudnn!r}")
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentValueError(f"conv2d layer '{helper.name}': data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    filter_size = _pair(filter_size, "filter_size", helper)
    channels = _conv2d_channels(helper, input, num_filters, filter_size, groups, data_format)
    stride = _pair(stride, "stride", helper)
    dilation = _pair(dilation, "dilation", helper)
    paddings, algorithm = _paddings(padding, helper, data_format=data_format)
    dtype = helper.input_dtype()
    filter_shape = [num_filters, channels // (groups or 1)] + filter_size
    if filter_size[0] * filter_size[1] * channels <= 0:
        raise ArgumentValueError(
            f"conv2d layer '{helper.name}': filter_size {filter_size} over {channels} "
            f"channels has no elements; each must be > 0"
        )
    std = (2.0 / (filter_size[0] * filter_size[1] * channels)) ** 0.5
    w = helper.create_parameter(param_attr, filter_shape, dtype, default_initializer=NormalInitializer(0.0, std, 0))
    pre_bias = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        op_type,
        {"Input": [input], "Filter": [w]},
        {"Output": [pre_bias]},
        {
            "strides": stride,
            "paddings": paddings,
            "dilations": dilation,
            "groups": groups or 1,
            "use_cudnn": use_cudnn,
            "padding_algorithm": algorithm,
            "data_format": data_format,
        },
    )
    channel_axis = 3 if data_format == "NHWC" else 1
    pre_act = helper.append_bias_op(pre_bias, dim_start=channel_axis, dim_end=channel_axis + 1)
    return helper.append_activation(pre_act)


def _filter_size(helper, input, output_size, stride, paddings, dilation, data_format="NCHW"):
    """Fluid's filter size for a given output_size: the one whose least output is that size."""
    if output_size is None:
        raise PeError(f"conv2d_transpose layer '{helper.name}': give filter_size or output_size")
    p = paddings if len(paddings) == 4 else [paddings[0], paddings[0], paddings[1], paddings[1]]
    sizes = []
    for i in range(2):
        in_size = input.shape[(1 if data_format == "NHWC" else 2) + i]
        if in_size is None or in_size < 0:
            raise shape_error(helper, f"input '{input.name}' has an unknown size along dim {2 + i}; give filter_size")
        sizes.append((output_size[i] - (in_size - 1) * stride[i] + p[2 * i] + p[2 * i + 1] - 1) // dilation[i] + 1)
    return sizes


def _transpose_channels(helper, input, num_filters, groups, data_format):
    """(channels, groups) of conv2d_transpose's ``input``: 4-D in ``data_format`` with C known, and groups
    (None: 1) dividing both C and num_filters."""
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentValueError(
            f"conv2d_transpose layer '{helper.name}': data_format={data_format!r} must be 'NCHW' or 'NHWC'"
        )
    shape = input.shape
    channel_axis = 3 if data_format == "NHWC" else 1
    if shape is None or len(shape) != 4 or shape[channel_axis] is None or shape[channel_axis] < 0:
        raise shape_error(helper, f"input '{input.name}' {list(shape or [])} must be 4-D {data_format} with known C")
    channels, groups = shape[channel_axis], groups or 1
    if groups < 1 or channels % groups or num_filters % groups:
        raise shape_error(
            helper, f"groups={groups} must divide the input's {channels} channels and num_filters={num_filters}"
        )
    return channels, groups


def _transpose_window(helper, input, output_size, filter_size, padding, stride, dilation, data_format):
    """conv2d_transpose's (stride, dilation, paddings, padding algorithm, output_size, filter_size), each
    checked; a missing filter_size is the one that output_size asks for."""
    stride = _pair(stride, "stride", helper)
    dilation = _pair(dilation, "dilation", helper)
    paddings, algorithm = _paddings(padding, helper, data_format=data_format)
    if output_size is not None:
        output_size = _pair(output_size, "output_size", helper)
    if filter_size is None:
        if algorithm != "EXPLICIT":
            raise PeError(f"conv2d_transpose layer '{helper.name}': give filter_size with padding={padding!r}")
        filter_size = _filter_size(helper, input, output_size, stride, paddings, dilation, data_format)
    else:
        filter_size = _pair(filter_size, "filter_size", helper)
    return stride, dilation, paddings, algorithm, output_size, filter_size


def conv2d_transpose(
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
    data_format="NCHW",
):
    """The transposed 2-D convolution of NCHW (or NHWC) ``input`` (conv2d's input gradient): Out = act(
    conv2d_transpose(input, W) + b), W [C, num_filters/groups, kh, kw] in both layouts. ``output_size``
    picks one of the sizes conv2d would map back to the input's (and gives filter_size when that is
    None). As Fluid's, groups == C == num_filters without cuDNN builds depthwise_conv2d_transpose."""
    depthwise = _depthwise(input, data_format, groups, use_cudnn, num_filters, transpose=True)
    helper = LayerHelper(
        "depthwise_conv2d_transpose" if depthwise else "conv2d_transpose",
        input=input,
        param_attr=param_attr,
        bias_attr=bias_attr,
        act=act,
        name=name,
        use_cudnn=use_cudnn,
    )
    channels, groups = _transpose_channels(helper, input, num_filters, groups, data_format)
    channel_axis = 3 if data_format == "NHWC" else 1
    stride, dilation, paddings, algorithm, output_size, filter_size = _transpose_window(
        helper, input, output_size, filter_size, padding, stride, dilation, data_format
    )
    dtype = helper.input_dtype()
    w = helper.create_parameter(param_attr, [channels, num_filters // groups] + filter_size, dtype)
    pre_bias = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "depthwise_conv2d_transpose" if depthwise else "conv2d_transpose",
        {"Input": [input], "Filter": [w]},
        {"Output": [pre_bias]},
        {
            "output_size": output_size or [],
            "strides": stride,
            "paddings": paddings,
            "padding_algorithm": algorithm,
            "dilations": dilation,
            "groups": groups,
            "use_cudnn": use_cudnn,
            "data_format": data_format,
        },
    )
    pre_act = helper.append_bias_op(pre_bias, dim_start=channel_axis, dim_end=channel_axis + 1)
    return helper.append_activation(pre_act)


def _two(what, value):
    v = check_ints("deformable_conv", what, _as_list(value))
    v = v * 2 if len(v) == 1 else v
    if len(v) != 2:
        raise PeError(f"deformable_conv: {what}={value!r} must be an int or 2 ints")
    return v


def deformable_conv(
    input,
    offset,
    mask,
    num_filters,
    filter_size,
    stride=1,
    padding=0,
    dilation=1,
    groups=None,
    deformable_groups=None,
    im2col_step=None,
    param_attr=None,
    bias_attr=None,
    modulated=True,
    name=None,
):
    """Deformable convolution (v2 with ``modulated``, reading ``mask`` [N, dg * kh * kw, Ho, Wo]; v1
    without): ``offset`` [N, 2 * dg * kh * kw, Ho, Wo] moves each tap by (dy, dx); the filter is
    initialized N(0, sqrt(2 / (kh * kw * C))) as Fluid's; a bias [num_filters] is added unless
    ``bias_attr`` is False."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "deformable_conv")
    check_variable_and_dtype(offset, "offset", ("float32", "float64"), "deformable_conv")
    check_type(mask, "mask", (Variable, type(None)), "deformable_conv")
    helper = LayerHelper("deformable_conv", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    channels = (input.shape or (0, 0))[1]
    groups = groups or 1
    if channels is None or channels < 0 or channels % groups:
        raise PeError(f"deformable_conv: input channels {channels} must be known and divisible by groups={groups}")
    size = _two("filter_size", filter_size)
    if size[0] * size[1] * channels <= 0:
        raise ArgumentValueError(
            f"deformable_conv: filter_size {size} over {channels} channels has no elements; each must be > 0"
        )
    std = (2.0 / (size[0] * size[1] * channels)) ** 0.5
    weight = helper.create_parameter(
        param_attr,
        [num_filters, channels // groups] + size,
        input.dtype,
        default_initializer=NormalInitializer(0.0, std, 0),
    )
    attrs = {
        "strides": _two("stride", stride),
        "paddings": _two("padding", padding),
        "dilations": _two("dilation", dilation),
        "groups": groups,
        "deformable_groups": deformable_groups or 1,
        "im2col_step": im2col_step or 64,
    }
    inputs = {"Input": [input], "Offset": [offset], "Filter": [weight]}
    if modulated:
        if mask is None:
            raise ArgumentAssertionError("deformable_conv: modulated=True needs a mask")  # Fluid's Operator
        inputs["Mask"] = [mask]
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("deformable_conv" if modulated else "deformable_conv_v1", inputs, {"Output": [pre_bias]}, attrs)
    return helper.append_bias_op(pre_bias, dim_start=1, dim_end=2)
