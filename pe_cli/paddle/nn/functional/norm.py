"""``paddle.nn.functional``'s normalizations with the statistics and affine parameters given as
Tensors: batch_norm (pe's batch_norm op; ``training`` False uses the running statistics), layer_norm
(over the trailing ``normalized_shape``), instance_norm, group_norm, local_response_norm (pe's lrn op
with 2.x's alpha / size) and normalize (x / max(||x||_p, epsilon))."""

from ....base.errors import PeError
from ....layers.helper import LayerHelper
from ... import tensor_create as TC
from ... import tensor_manip as TM
from ... import tensor_math as TMa

__all__ = ["batch_norm", "layer_norm", "instance_norm", "group_norm", "local_response_norm", "normalize"]

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")
_CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")


def _layout(fn, data_format):
    if data_format not in _CHANNEL_LAST + _CHANNEL_FIRST:
        raise ValueError(f"{fn}: data_format={data_format!r} must be one of {list(_CHANNEL_FIRST + _CHANNEL_LAST)}")
    return "NHWC" if data_format in _CHANNEL_LAST else "NCHW"


def batch_norm(
    x,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.9,
    epsilon=1e-05,
    data_format="NCHW",
    use_global_stats=None,
    name=None,
):
    """Normalizes by the batch's statistics while ``training`` (updating running_mean/var in place with
    ``momentum``), else by the running ones (or always by them with use_global_stats). No weight: 1, no bias:
    0, as Paddle's kernel takes them."""
    helper = LayerHelper("batch_norm", name=name)
    layout = _layout("batch_norm", data_format)
    if weight is None or bias is None:  # (the op's Scale and Bias, of running_mean's shape)
        like = running_mean
        weight = TC.ones_like(like) if weight is None else weight
        bias = TC.zeros_like(like) if bias is None else bias
    use_global = (not training) if use_global_stats is None else bool(use_global_stats)
    saved_mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    saved_var = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "batch_norm",
        {"X": [x], "Scale": [weight], "Bias": [bias], "Mean": [running_mean], "Variance": [running_var]},
        {
            "Y": [out],
            "MeanOut": [running_mean],
            "VarianceOut": [running_var],
            "SavedMean": [saved_mean],
            "SavedVariance": [saved_var],
        },
        {
            "momentum": float(momentum),
            "epsilon": float(epsilon),
            "is_test": not training,
            "data_layout": layout,
            "use_global_stats": use_global,
        },
    )
    return out


def _flat(v):
    return v if v is None or len(v.shape) == 1 else TM.reshape(v, [-1])


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalizes over the trailing dims ``normalized_shape``, then * weight + bias (of that shape)."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if list(x.shape[len(x.shape) - len(shape) :]) != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} is not the trailing shape of x {list(x.shape)}")
    return _append_norm(
        "layer_norm",
        x,
        _flat(weight),
        _flat(bias),
        ("Mean", "Variance"),
        {"begin_norm_axis": len(x.shape) - len(shape), "epsilon": float(epsilon)},
        name,
    )


def _append_norm(op_type, x, weight, bias, statistics, attrs, name):
    """Appends a normalization op (X, optional Scale and Bias -> Y and its statistics); returns Y."""
    helper = LayerHelper(op_type, name=name)
    inputs = {"X": [x]}
    if weight is not None:
        inputs["Scale"] = [weight]
    if bias is not None:
        inputs["Bias"] = [bias]
    outputs = {slot: [helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)] for slot in statistics}
    out = helper.create_variable_for_type_inference(x.dtype)
    outputs["Y"] = [out]
    helper.append_op(op_type, inputs, outputs, attrs)
    return out


def instance_norm(
    x,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.9,
    eps=1e-05,
    data_format="NCHW",
    name=None,
):
    """Normalizes each sample's channel over its spatial dims (the input's statistics always: pe's
    instance_norm op keeps no running ones), then * weight + bias per channel."""
    if not use_input_stats:
        raise PeError("instance_norm(use_input_stats=False): pe's op normalizes by the input's statistics only")
    if _layout("instance_norm", data_format) != "NCHW":
        raise PeError(f"instance_norm: data_format={data_format!r}: pe's op takes channels first")
    return _append_norm("instance_norm", x, weight, bias, ("SavedMean", "SavedVariance"), {"epsilon": float(eps)}, name)


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW", name=None):
    """Normalizes each group of channels of a sample, then * weight + bias per channel."""
    return _append_norm(
        "group_norm",
        x,
        weight,
        bias,
        ("Mean", "Variance"),
        {"epsilon": float(epsilon), "groups": int(num_groups), "data_layout": _layout("group_norm", data_format)},
        name,
    )


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """x / (k + alpha / size * sum over ``size`` neighbouring channels of x^2) ^ beta (4-D only)."""
    if len(x.shape) != 4:
        raise PeError(f"local_response_norm: x {list(x.shape)}: pe's lrn op takes 4-D input")
    helper = LayerHelper("lrn", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mid = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op(
        "lrn",
        {"X": [x]},
        {"Out": [out], "MidOut": [mid]},
        {
            "n": int(size),
            "k": float(k),
            "alpha": float(alpha) / size,
            "beta": float(beta),
            "data_format": _layout("local_response_norm", data_format),
        },
    )
    return out


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p along ``axis``, epsilon)."""
    TM.no_axis_of_0d(x, "nn.functional.normalize")
    norm = TMa.norm(x, p, axis=axis, keepdim=True)
    return TMa.divide(x, TMa.maximum(norm, TC.full([1], epsilon, x.dtype)), name=name)
