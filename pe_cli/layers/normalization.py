"""prelu, instance_norm and group_norm of Fluid 1.8's ``fluid.layers``, with its signatures and
parameters (names, shapes and initial values as Fluid's)."""
__all__ = ["prelu", "instance_norm", "group_norm"]
from ..errors import PeError
from ..initializer import ConstantInitializer
from .helper import LayerHelper


def _known_shape(layer, input, dims):
    shape = input.shape
    if shape is None or len(shape) < 2 or any(d is None or d < 0 for d in shape[1:dims]):
        raise PeError(f"{layer}: input '{input.name}' {list(shape or [])} needs known dims after the batch dim")
    return list(shape)


def prelu(x, mode, param_attr=None, name=None):
    """Out = x where x > 0, else alpha * x, with alpha a parameter initialized to 0.25: one for all
    of x ('all'), one per channel of dim 1 ('channel'), or one per element of x's non-batch dims
    ('element')."""
    if mode not in ("all", "channel", "element"):
        raise PeError(f"prelu: mode={mode!r} must be 'all', 'channel' or 'element'")
    helper = LayerHelper("prelu", x=x, param_attr=param_attr, name=name)
    if mode == "all":
        alpha_shape = [1]
    else:
        shape = _known_shape("prelu", x, 2 if mode == "channel" else len(x.shape or ()))
        alpha_shape = [1, shape[1]] + [1] * (len(shape) - 2) if mode == "channel" else [1] + shape[1:]
    alpha = helper.create_parameter(param_attr, alpha_shape, x.dtype, default_initializer=ConstantInitializer(0.25))
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("prelu", {"X": [x], "Alpha": [alpha]}, {"Out": [out]}, {"mode": mode})
    return out


def _affine_params(helper, input, param_attr, bias_attr, channels):
    inputs = {"X": [input]}
    if param_attr is not False:
        inputs["Scale"] = [helper.create_parameter(param_attr, [channels], input.dtype,
                                                   default_initializer=ConstantInitializer(1.0))]
    if bias_attr is not False:
        inputs["Bias"] = [helper.create_parameter(bias_attr, [channels], input.dtype, is_bias=True,
                                                  default_initializer=ConstantInitializer(0.0))]
    return inputs


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Each (sample, channel) of ``input`` [N, C, ...] normalized over its other dims, then scaled
    and shifted per channel by parameters [C] initialized to 1 and 0 (False: none)."""
    helper = LayerHelper("instance_norm", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    shape = _known_shape("instance_norm", input, 2)
    if not 2 <= len(shape) <= 5:
        raise PeError(f"instance_norm: input '{input.name}' {shape} must be 2-D to 5-D [N, C, ...]")
    inputs = _affine_params(helper, input, param_attr, bias_attr, shape[1])
    dtype = input.dtype
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inv_std = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("instance_norm", inputs, {"Y": [out], "SavedMean": [mean], "SavedVariance": [inv_std]},
                     {"epsilon": epsilon})
    return out


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """``input`` [N, C, ...] normalized per sample over each of ``groups`` groups of channels (and
    the other dims), then scaled and shifted per channel by parameters [C] initialized to 1 and 0
    (False: none), then ``act``. NCHW only."""
    if data_layout != "NCHW":
        raise PeError(f"group_norm: data_layout={data_layout!r} is not supported by pe; transpose the input "
                      f"to NCHW and give data_layout='NCHW'")
    helper = LayerHelper("group_norm", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act,
                         name=name)
    shape = _known_shape("group_norm", input, 2)
    if not isinstance(groups, int) or groups < 1 or shape[1] % groups:
        raise PeError(f"group_norm: groups={groups!r} must be an int >= 1 dividing the {shape[1]} channels of "
                      f"input '{input.name}'")
    inputs = _affine_params(helper, input, param_attr, bias_attr, shape[1])
    dtype = input.dtype
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("group_norm", inputs, {"Y": [out], "Mean": [mean], "Variance": [variance]},
                     {"epsilon": epsilon, "groups": groups, "data_layout": data_layout})
    return helper.append_activation(out)
