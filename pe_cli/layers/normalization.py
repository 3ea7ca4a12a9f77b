"""Normalization layers of Fluid 1.8's ``fluid.layers``: batch_norm, inplace_abn, layer_norm,
instance_norm, group_norm, affine_channel, lrn and l2_normalize, with its signatures and parameters
(names, shapes and initial values as Fluid's)."""

__all__ = [
    "batch_norm",
    "layer_norm",
    "instance_norm",
    "group_norm",
    "affine_channel",
    "lrn",
    "inplace_abn",
    "l2_normalize",
    "data_norm",
]
from ..base.errors import ArgumentAssertionError, ArgumentValueError, PeError
from ..framework.variable import Variable
from ..training.initializer import ConstantInitializer
from ..training.param_attr import ParamAttr
from ..framework import unique_name as unique_name
from .activation import known_shape, elu as elu, leaky_relu as leaky_relu
from .checks import FLOATS, check_type, check_variable_and_dtype, fluid_checks
from .convolution import fmt, shape_error
from .helper import LayerHelper
from .loss_classification import _outputs
from .helper import single


def batch_norm(
    input,
    act=None,
    is_test=False,
    momentum=0.9,
    epsilon=1e-05,
    param_attr=None,
    bias_attr=None,
    data_layout="NCHW",
    in_place=False,
    name=None,
    moving_mean_name=None,
    moving_variance_name=None,
    do_model_average_for_mean_and_var=False,
    use_global_stats=False,
):
    """Batch normalization. The moving mean and variance are persistable, non-trainable parameters
    (initialized to 0 and 1) that the op updates in place while training. ``in_place`` is accepted
    but Y is always a new variable (the gradient needs X)."""
    check_variable_and_dtype(input, "input", FLOATS, "batch_norm")
    helper = LayerHelper("batch_norm", input=input, act=act, name=name)
    shape = input.shape
    if shape is None or not 2 <= len(shape) <= 5:
        raise shape_error(helper, f"input '{input.name}' {fmt(shape)} must be [N, C] or [N, C, H, W]")
    channels = shape[-1] if data_layout == "NHWC" else shape[1]
    if channels is None or channels < 0:
        raise shape_error(helper, f"input '{input.name}' {fmt(shape)} has an unknown channel count")
    dtype = helper.input_dtype()
    inputs, outputs = _bn_variables(
        helper,
        input,
        "float32" if dtype == "float16" else dtype,
        channels,
        param_attr,
        bias_attr,
        moving_mean_name,
        moving_variance_name,
        do_model_average_for_mean_and_var,
    )
    out = outputs["Y"][0] = helper.create_variable_for_type_inference(input.dtype)
    attrs = {"epsilon": epsilon, "is_test": is_test, "data_layout": data_layout, "use_global_stats": use_global_stats}
    if isinstance(momentum, Variable):  # Fluid 1.8: a one-value Variable, read each step
        inputs["MomentumTensor"] = [momentum]
    else:
        attrs["momentum"] = momentum
    helper.append_op("batch_norm", inputs, outputs, attrs)
    return helper.append_activation(out)


def _bn_variables(
    helper, input, dtype, channels, param_attr, bias_attr, moving_mean_name, moving_variance_name, model_average
):
    """batch_norm's and inplace_abn's parameters (Scale 1, Bias 0, the moving Mean 0 and Variance 1, those two
    persistable and not trained) and outputs (MeanOut and VarianceOut the moving ones, SavedMean and
    SavedVariance new; Y None, for the layer to fill) as Fluid's layers make them."""
    scale = helper.create_parameter(param_attr, [channels], dtype, default_initializer=ConstantInitializer(1.0))
    bias = helper.create_parameter(bias_attr, [channels], dtype, is_bias=True)
    moving = []
    for name, value in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
        var = helper.create_parameter(
            ParamAttr(
                name=name, initializer=ConstantInitializer(value), trainable=False, do_model_average=model_average
            ),
            [channels],
            dtype,
        )
        var.stop_gradient = True
        moving.append(var)
    saved = [helper.create_variable_for_type_inference(dtype, stop_gradient=True) for _ in range(2)]
    return (
        {"X": [input], "Scale": [scale], "Bias": [bias], "Mean": moving[:1], "Variance": moving[1:]},
        {
            "Y": [None],
            "MeanOut": moving[:1],
            "VarianceOut": moving[1:],
            "SavedMean": saved[:1],
            "SavedVariance": saved[1:],
        },
    )


@fluid_checks("layer_norm", input=("float32", "float64"))
def layer_norm(
    input,
    scale=True,
    shift=True,
    begin_norm_axis=1,
    epsilon=1e-05,
    param_attr=None,
    bias_attr=None,
    act=None,
    name=None,
):
    """Layer normalization over the dims from begin_norm_axis on, with optional scale and shift."""
    helper = LayerHelper("layer_norm", input=input, act=act, name=name)
    shape = input.shape
    if shape is None or not 1 <= begin_norm_axis < len(shape):
        raise shape_error(
            helper,
            f"begin_norm_axis={begin_norm_axis} must be in [1, {len(shape or ()) - 1}] "
            f"for input '{input.name}' {fmt(shape)}",
        )
    size = 1
    for d in shape[begin_norm_axis:]:
        size *= d
    dtype = helper.input_dtype()
    inputs = {"X": [input]}
    if scale:
        inputs["Scale"] = [
            helper.create_parameter(param_attr, [size], dtype, default_initializer=ConstantInitializer(1.0))
        ]
    if shift:
        if bias_attr is False:
            raise PeError(
                f"layer_norm layer '{helper.name}': shift=True needs a bias; pass shift=False instead "
                f"of bias_attr=False"
            )
        inputs["Bias"] = [helper.create_parameter(bias_attr, [size], dtype, is_bias=True)]
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "layer_norm",
        inputs,
        {"Y": [out], "Mean": [mean], "Variance": [variance]},
        {"epsilon": epsilon, "begin_norm_axis": begin_norm_axis},
    )
    return helper.append_activation(out)


def _affine_params(helper, input, param_attr, bias_attr, channels):
    inputs = {"X": [input]}
    if param_attr is not False:
        inputs["Scale"] = [
            helper.create_parameter(param_attr, [channels], input.dtype, default_initializer=ConstantInitializer(1.0))
        ]
    if bias_attr is not False:
        inputs["Bias"] = [
            helper.create_parameter(
                bias_attr, [channels], input.dtype, is_bias=True, default_initializer=ConstantInitializer(0.0)
            )
        ]
    return inputs


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Each (sample, channel) of ``input`` [N, C, ...] normalized over its other dims, then scaled
    and shifted per channel by parameters [C] initialized to 1 and 0 (False: none)."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "instance_norm")
    helper = LayerHelper("instance_norm", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    shape = known_shape("instance_norm", input, 2)
    if not 2 <= len(shape) <= 5:
        raise PeError(f"instance_norm: input '{input.name}' {shape} must be 2-D to 5-D [N, C, ...]")
    inputs = _affine_params(helper, input, param_attr, bias_attr, shape[1])
    dtype = input.dtype
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inv_std = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "instance_norm", inputs, {"Y": [out], "SavedMean": [mean], "SavedVariance": [inv_std]}, {"epsilon": epsilon}
    )
    return out


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW", name=None):
    """``input`` [N, C, ...] normalized per sample over each of ``groups`` groups of channels (and
    the other dims), then scaled and shifted per channel by parameters [C] initialized to 1 and 0
    where ``param_attr`` / ``bias_attr`` are given (Fluid's: None, the default, makes none), then
    ``act``. NCHW, or NHWC ([N, ..., C])."""
    check_variable_and_dtype(input, "input", FLOATS[1:], "group_norm")
    if data_layout not in ("NCHW", "NHWC"):
        raise ArgumentValueError(f"group_norm: data_layout={data_layout!r} must be 'NCHW' or 'NHWC'")
    helper = LayerHelper("group_norm", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    shape = known_shape("group_norm", input, 2)
    channels = shape[-1] if data_layout == "NHWC" else shape[1]
    if channels is None or channels < 0:
        raise PeError(f"group_norm: input '{input.name}' {shape} needs a known channel count")
    if not isinstance(groups, int) or groups < 1 or channels % groups:
        raise PeError(
            f"group_norm: groups={groups!r} must be an int >= 1 dividing the {channels} channels of "
            f"input '{input.name}'"
        )
    # as Fluid's (and Paddle 2.6's static group_norm): a scale and a bias only where param_attr /
    # bias_attr is given (truthy); None, their default, makes none
    inputs = _affine_params(helper, input, param_attr or False, bias_attr or False, channels)
    dtype = input.dtype
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "group_norm",
        inputs,
        {"Y": [out], "Mean": [mean], "Variance": [variance]},
        {"epsilon": epsilon, "groups": groups, "data_layout": data_layout},
    )
    return helper.append_activation(out)


def affine_channel(x, scale=None, bias=None, data_layout="NCHW", name=None, act=None):
    """x * scale[c] + bias[c] per channel c (then ``act``); scale and bias are [C] Variables."""
    check_variable_and_dtype(x, "x", FLOATS[1:], "affine_channel")
    check_type(scale, "scale", (Variable, type(None)), "affine_channel")
    check_type(bias, "bias", (Variable, type(None)), "affine_channel")
    if scale is None or bias is None:
        raise ArgumentAssertionError("affine_channel needs both scale and bias ([C] Variables)")  # Fluid's Operator
    return single(
        "affine_channel",
        x,
        {"X": [x], "Scale": [scale], "Bias": [bias]},
        {"data_layout": data_layout},
        name=name,
        act=act,
    )


def lrn(input, n=5, k=1.0, alpha=1e-4, beta=0.75, name=None, data_format="NCHW"):
    """Local response normalization across channels: input / (k + alpha * sum of squares over n
    neighbouring channels) ^ beta."""
    check_variable_and_dtype(input, "input", ("float32",), "lrn")
    if input.shape is None or len(input.shape) != 4:
        raise ArgumentValueError(f"lrn: input '{input.name}' must be 4-D, got shape {input.shape}")
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentValueError(f"lrn: data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    helper = LayerHelper("lrn", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    mid = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "lrn",
        {"X": [input]},
        {"Out": [out], "MidOut": [mid]},
        {"n": n, "k": float(k), "alpha": float(alpha), "beta": float(beta), "data_format": data_format},
    )
    return out


def inplace_abn(
    input,
    act=None,
    is_test=False,
    momentum=0.9,
    epsilon=1e-05,
    param_attr=None,
    bias_attr=None,
    data_layout="NCHW",
    name=None,
    moving_mean_name=None,
    moving_variance_name=None,
    do_model_average_for_mean_and_var=True,
    use_global_stats=False,
    act_alpha=1.0,
):
    """batch_norm followed by ``act`` (None / 'identity', 'leaky_relu' or 'elu', with ``act_alpha``), as
    Fluid 1.8.5's layer: one inplace_abn op whose Y is ``input`` itself (written over it; the layer returns
    ``input``), SavedMean and SavedVariance named inplace_abn_<k>.tmp_0 / tmp_1. A Variable ``momentum`` is
    dropped, as Fluid's layer drops it (it passes it as 'MomemtumTensor', which the op lacks): 0.9 then."""
    if act not in (None, "identity", "leaky_relu", "elu"):
        raise ArgumentValueError("inplace_abn only support act as None, 'identity', 'leaky_relu', 'elu' currently")
    if bias_attr is False:
        raise ArgumentValueError("bias_attr should not be False in inplace_abn.")
    helper = LayerHelper("inplace_abn", input=input, name=name)
    check_variable_and_dtype(input, "input", ("float32", "float64"), "inplace_abn")
    if data_layout not in ("NCHW", "NHWC"):
        raise ArgumentValueError("unsupported data layout:" + data_layout)
    channels = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    inputs, outputs = _bn_variables(
        helper,
        input,
        helper.input_dtype(),
        channels,
        param_attr,
        bias_attr,
        moving_mean_name,
        moving_variance_name,
        do_model_average_for_mean_and_var,
    )
    outputs["Y"] = [input]
    attrs = {
        "epsilon": epsilon,
        "is_test": is_test,
        "data_layout": data_layout,
        "use_mkldnn": False,
        "fuse_with_relu": False,
        "use_global_stats": use_global_stats,
        "activation": act,
        "alpha": act_alpha,
    }
    if not isinstance(momentum, Variable):
        attrs["momentum"] = momentum
    helper.append_op("inplace_abn", inputs, outputs, attrs)
    return input


@fluid_checks("norm", x=("float32", "float64"))
def l2_normalize(x, axis, epsilon=1e-12, name=None):
    """x / sqrt(sum(x^2 along axis) + epsilon) (a 1-D x along its only dim)."""
    if len(x.shape or ()) == 1:
        axis = 0
    helper = LayerHelper("l2_normalize", x=x, name=name)
    out, norm = _outputs(helper, x.dtype, 2)
    helper.append_op(
        "norm", {"X": [x]}, {"Out": [out], "Norm": [norm]}, {"axis": 1 if axis is None else axis, "epsilon": epsilon}
    )
    return out


def _stat(helper, name, value, shape, dtype):
    attr = ParamAttr(name=name, initializer=ConstantInitializer(float(value)), trainable=True)
    return helper.create_parameter(attr, shape, dtype)


def data_norm(
    input,
    act=None,
    epsilon=1e-05,
    param_attr=None,
    data_layout="NCHW",
    in_place=False,
    name=None,
    moving_mean_name=None,
    moving_variance_name=None,
    do_model_average_for_mean_and_var=True,
    slot_dim=-1,
    sync_stats=False,
    summary_decay_rate=0.9999999,
    enable_scale_and_shift=False,
):
    """Normalizes [N, C] ``input`` by summary statistics kept in parameters ``<name>.batch_size``,
    ``.batch_sum`` and ``.batch_square_sum`` (name defaults to 'dn'; initial values 1e4, 0, 1e4 or
    ``param_attr``'s 'batch_size', 'batch_sum', 'batch_square'), which each backward pass updates by the
    summary rule (see the op data_norm). ``enable_scale_and_shift`` adds trainable ``.scale_w`` and ``.bias``
    (``param_attr``'s 'scale_w', 'bias')."""
    helper = LayerHelper("data_norm", input=input, act=act, name=name)
    if data_layout not in ("NCHW", "NHWC"):
        raise ArgumentValueError("unsupported data layout:" + str(data_layout))
    channels = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    defaults = dict(param_attr) if isinstance(param_attr, dict) else {}
    name = name or "dn"
    dtype = input.dtype
    inputs = {"X": [input]}
    if enable_scale_and_shift:
        inputs["scale_w"] = [_stat(helper, name + ".scale_w", defaults.get("scale_w", 1.0), [channels], dtype)]
        inputs["bias"] = [_stat(helper, name + ".bias", defaults.get("bias", 0.0), [channels], dtype)]
    stats = {
        "BatchSize": _stat(helper, name + ".batch_size", defaults.get("batch_size", 1e4), [channels], dtype),
        "BatchSum": _stat(helper, name + ".batch_sum", defaults.get("batch_sum", 0.0), [channels], dtype),
        "BatchSquareSum": _stat(
            helper, name + ".batch_square_sum", defaults.get("batch_square", 1e4), [channels], dtype
        ),
    }
    inputs.update({k: [v] for k, v in stats.items()})
    means = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    scales = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = input if in_place else helper.create_variable_for_type_inference(dtype)
    attrs = {
        "epsilon": epsilon,
        "sync_stats": sync_stats,
        "summary_decay_rate": summary_decay_rate,
        "slot_dim": slot_dim if slot_dim > 0 else -1,
        "enable_scale_and_shift": enable_scale_and_shift,
        "data_layout": data_layout,
    }
    outputs = {"Y": [out], "Means": [means], "Scales": [scales]}
    if helper.main_program._follows_paddle2:  # Paddle 2.6's lists the statistics among the outputs; Fluid's not
        outputs.update({k: [v] for k, v in stats.items()})
    helper.append_op("data_norm", inputs, outputs, attrs)
    return helper.append_activation(out)
