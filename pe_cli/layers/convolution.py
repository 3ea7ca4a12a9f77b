"""conv2d_transpose of Fluid 1.8's ``fluid.layers``, with its signature (NCHW only)."""
__all__ = ["conv2d_transpose"]
from ..errors import PeError
from .helper import LayerHelper
from .nn import _pair, _paddings, _shape_error


def _filter_size(helper, input, output_size, stride, paddings, dilation):
    """Fluid's filter size for a given output_size: the one whose least output is that size."""
    if output_size is None:
        raise PeError(f"conv2d_transpose layer '{helper.name}': give filter_size or output_size")
    p = paddings if len(paddings) == 4 else [paddings[0], paddings[0], paddings[1], paddings[1]]
    sizes = []
    for i in range(2):
        in_size = input.shape[2 + i]
        if in_size is None or in_size < 0:
            raise _shape_error(helper, f"input '{input.name}' has an unknown size along dim {2 + i}; give "
                                       f"filter_size")
        sizes.append((output_size[i] - (in_size - 1) * stride[i] + p[2 * i] + p[2 * i + 1] - 1) // dilation[i] + 1)
    return sizes


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCHW"):
    """The transposed 2-D convolution of NCHW ``input`` (conv2d's input gradient): Out = act(
    conv2d_transpose(input, W) + b), W [C, num_filters/groups, kh, kw]. ``output_size`` picks one of
    the sizes conv2d would map back to the input's (and gives filter_size when that is None)."""
    helper = LayerHelper("conv2d_transpose", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act,
                         name=name)
    if data_format != "NCHW":
        raise PeError(f"conv2d_transpose layer '{helper.name}': data_format={data_format!r} is not supported; "
                      f"use NCHW")
    shape = input.shape
    if shape is None or len(shape) != 4 or shape[1] is None or shape[1] < 0:
        raise _shape_error(helper, f"input '{input.name}' {list(shape or [])} must be 4-D NCHW [N, C, H, W] "
                                   f"with known C")
    channels, groups = shape[1], groups or 1
    if groups < 1 or channels % groups or num_filters % groups:
        raise _shape_error(helper, f"groups={groups} must divide the input's {channels} channels and "
                                   f"num_filters={num_filters}")
    stride = _pair(stride, "stride", helper)
    dilation = _pair(dilation, "dilation", helper)
    paddings, algorithm = _paddings(padding, helper)
    if output_size is not None:
        output_size = _pair(output_size, "output_size", helper)
    if filter_size is None:
        if algorithm != "EXPLICIT":
            raise PeError(f"conv2d_transpose layer '{helper.name}': give filter_size with padding={padding!r}")
        filter_size = _filter_size(helper, input, output_size, stride, paddings, dilation)
    else:
        filter_size = _pair(filter_size, "filter_size", helper)
    dtype = helper.input_dtype()
    w = helper.create_parameter(param_attr, [channels, num_filters // groups] + filter_size, dtype)
    pre_bias = helper.create_variable_for_type_inference(dtype)
    helper.append_op("conv2d_transpose", {"Input": [input], "Filter": [w]}, {"Output": [pre_bias]},
                     {"output_size": output_size or [], "strides": stride, "paddings": paddings,
                      "padding_algorithm": algorithm, "dilations": dilation, "groups": groups,
                      "use_cudnn": use_cudnn, "data_format": "NCHW"})
    pre_act = helper.append_bias_op(pre_bias, dim_start=1, dim_end=2)
    return helper.append_activation(pre_act)
