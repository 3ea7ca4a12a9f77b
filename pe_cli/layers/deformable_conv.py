"""deformable_conv of Fluid 1.8's ``fluid.layers``, with its signature: a convolution whose taps read
the input at learned offsets (and, modulated, scale each tap by a mask)."""
__all__ = ["deformable_conv"]
from ..errors import PeError
from ..training.initializer import NormalInitializer
from .helper import LayerHelper
from .helper import _as_list, _check_ints


def _two(what, value):
    v = _check_ints("deformable_conv", what, _as_list(value))
    v = v * 2 if len(v) == 1 else v
    if len(v) != 2:
        raise PeError(f"deformable_conv: {what}={value!r} must be an int or 2 ints")
    return v


def deformable_conv(input, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
                    deformable_groups=None, im2col_step=None, param_attr=None, bias_attr=None, modulated=True,
                    name=None):
    """Deformable convolution (v2 with ``modulated``, reading ``mask`` [N, dg * kh * kw, Ho, Wo]; v1
    without): ``offset`` [N, 2 * dg * kh * kw, Ho, Wo] moves each tap by (dy, dx); the filter is
    initialized N(0, sqrt(2 / (kh * kw * C))) as Fluid's; a bias [num_filters] is added unless
    ``bias_attr`` is False."""
    helper = LayerHelper("deformable_conv", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    channels = (input.shape or (0, 0))[1]
    groups = groups or 1
    if channels is None or channels < 0 or channels % groups:
        raise PeError(f"deformable_conv: input channels {channels} must be known and divisible by groups={groups}")
    size = _two("filter_size", filter_size)
    std = (2.0 / (size[0] * size[1] * channels)) ** 0.5
    weight = helper.create_parameter(param_attr, [num_filters, channels // groups] + size, input.dtype,
                                     default_initializer=NormalInitializer(0.0, std, 0))
    attrs = {"strides": _two("stride", stride), "paddings": _two("padding", padding),
             "dilations": _two("dilation", dilation), "groups": groups,
             "deformable_groups": deformable_groups or 1, "im2col_step": im2col_step or 64}
    inputs = {"Input": [input], "Offset": [offset], "Filter": [weight]}
    if modulated:
        if mask is None:
            raise PeError("deformable_conv: modulated=True needs a mask")
        inputs["Mask"] = [mask]
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("deformable_conv" if modulated else "deformable_conv_v1", inputs, {"Output": [pre_bias]}, attrs)
    return helper.append_bias_op(pre_bias, dim_start=1, dim_end=2)
