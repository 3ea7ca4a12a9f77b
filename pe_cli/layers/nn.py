"""Neural-network layers: each appends its ops and parameters through LayerHelper."""
__all__ = []
from ..errors import PeError, ShapeError
from ..framework.source import current_source
from ..training.initializer import ConstantInitializer, NormalInitializer
from ..ops.registry import fmt_shape
from ..training.param_attr import ParamAttr
from .helper import LayerHelper


# -- convolution, pooling, normalization, dropout, embedding ---------------------------------------
__all__ += ["conv2d", "pool2d", "batch_norm", "layer_norm", "dropout", "embedding"]


def _shape_error(helper, message):
    """A ShapeError naming the layer and the line that built it, like the ops' own checks."""
    where = current_source()
    return ShapeError(f"{helper.layer_type} layer '{helper.name}'{f' built at {where}' if where else ''}: {message}")


def _fmt(shape):
    return fmt_shape(shape)


def _pair(value, name, helper):
    if isinstance(value, int):
        return [value, value]
    value = list(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise PeError(f"{helper.layer_type} layer '{helper.name}': {name} must be an int or a list of "
                      f"2 ints, got {value!r}")
    return value


def _paddings(padding, helper, name="padding"):
    """Fluid 1.8 padding forms -> (paddings, padding_algorithm): 'SAME' / 'VALID', an int,
    [pad_h, pad_w], [top, bottom, left, right], or NCHW pairs [[0,0],[0,0],[t,b],[l,r]]."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ("SAME", "VALID"):
            raise PeError(f"{helper.layer_type} layer '{helper.name}': {name}={padding!r} must be 'SAME', "
                          f"'VALID', an int or a list")
        return [0, 0], algo
    if isinstance(padding, int):
        return [padding, padding], "EXPLICIT"
    padding = list(padding)
    if len(padding) == 4 and all(isinstance(p, (list, tuple)) for p in padding):
        if any(list(p) != [0, 0] for p in padding[:2]):
            raise PeError(f"{helper.layer_type} layer '{helper.name}': {name} {padding} pads the batch or "
                          f"channel dim; only H and W can be padded")
        padding = list(padding[2]) + list(padding[3])
    if len(padding) == 4 and padding[0] == padding[1] and padding[2] == padding[3]:
        padding = [padding[0], padding[2]]
    if len(padding) not in (2, 4):
        raise PeError(f"{helper.layer_type} layer '{helper.name}': {name} must be an int, 2 or 4 ints, "
                      f"got {padding!r}")
    return padding, "EXPLICIT"


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """2-D convolution over NCHW (or NHWC) input: Out = act(conv(input, W) + b); W is [num_filters,
    C/groups, kh, kw] in both layouts, initialized from N(0, sqrt(2 / (kh*kw*C))) unless param_attr
    says otherwise."""
    helper = LayerHelper("conv2d", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    if data_format not in ("NCHW", "NHWC"):
        raise PeError(f"conv2d layer '{helper.name}': data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    filter_size = _pair(filter_size, "filter_size", helper)
    shape = input.shape
    expected = [num_filters, "C" if groups is None else f"C/{groups}"] + filter_size
    if shape is None or len(shape) != 4:
        raise _shape_error(helper, f"input '{input.name}' {_fmt(shape)} must be 4-D {data_format} to "
                                   f"convolve with a filter [{', '.join(map(str, expected))}]; reshape it first")
    channels = shape[3] if data_format == "NHWC" else shape[1]
    if channels is None or channels < 0:
        raise _shape_error(helper, f"input '{input.name}' {_fmt(shape)} has an unknown channel count")
    if groups is not None and (groups < 1 or channels % groups):
        raise _shape_error(helper, f"input '{input.name}' {_fmt(shape)} has {channels} channels, which "
                                   f"groups={groups} does not divide")
    stride = _pair(stride, "stride", helper)
    dilation = _pair(dilation, "dilation", helper)
    paddings, algorithm = _paddings(padding, helper)
    dtype = helper.input_dtype()
    filter_shape = [num_filters, channels // (groups or 1)] + filter_size
    std = (2.0 / (filter_size[0] * filter_size[1] * channels)) ** 0.5
    w = helper.create_parameter(param_attr, filter_shape, dtype, default_initializer=NormalInitializer(0.0, std, 0))
    op_type = "conv2d"
    if groups is not None and groups == channels and num_filters % channels == 0 and not use_cudnn:
        op_type = "depthwise_conv2d"
    pre_bias = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op_type, {"Input": [input], "Filter": [w]}, {"Output": [pre_bias]},
                     {"strides": stride, "paddings": paddings, "dilations": dilation, "groups": groups or 1,
                      "use_cudnn": use_cudnn, "padding_algorithm": algorithm, "data_format": data_format})
    channel_axis = 3 if data_format == "NHWC" else 1
    pre_act = helper.append_bias_op(pre_bias, dim_start=channel_axis, dim_end=channel_axis + 1)
    return helper.append_activation(pre_act)


def pool2d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0, global_pooling=False,
           use_cudnn=True, ceil_mode=False, name=None, exclusive=True, data_format="NCHW"):
    """Max or average pooling over NCHW (or NHWC) input."""
    helper = LayerHelper("pool2d", input=input, name=name)
    if pool_type not in ("max", "avg"):
        raise PeError(f"pool2d layer '{helper.name}': pool_type={pool_type!r} must be 'max' or 'avg'")
    if not global_pooling and pool_size == -1:
        raise PeError(f"pool2d layer '{helper.name}': pass pool_size (or global_pooling=True)")
    if data_format not in ("NCHW", "NHWC"):
        raise PeError(f"pool2d layer '{helper.name}': data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    if input.shape is None or len(input.shape) != 4:
        raise _shape_error(helper, f"input '{input.name}' {_fmt(input.shape)} must be 4-D {data_format} "
                                   f"for a {pool_size} pool window")
    ksize = _pair(pool_size, "pool_size", helper) if pool_size != -1 else [1, 1]
    paddings, algorithm = _paddings(pool_padding, helper, "pool_padding")
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op("pool2d", {"X": [input]}, {"Out": [out]},
                     {"pooling_type": pool_type, "ksize": ksize, "global_pooling": global_pooling,
                      "strides": _pair(pool_stride, "pool_stride", helper), "paddings": paddings,
                      "padding_algorithm": algorithm, "use_cudnn": use_cudnn, "ceil_mode": ceil_mode,
                      "exclusive": exclusive, "data_format": data_format})
    return out


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=False, use_global_stats=False):
    """Batch normalization. The moving mean and variance are persistable, non-trainable parameters
    (initialized to 0 and 1) that the op updates in place while training. ``in_place`` is accepted
    but Y is always a new variable (the gradient needs X)."""
    helper = LayerHelper("batch_norm", input=input, act=act, name=name)
    shape = input.shape
    if shape is None or not 2 <= len(shape) <= 5:
        raise _shape_error(helper, f"input '{input.name}' {_fmt(shape)} must be [N, C] or [N, C, H, W]")
    channels = shape[-1] if data_layout == "NHWC" else shape[1]
    if channels is None or channels < 0:
        raise _shape_error(helper, f"input '{input.name}' {_fmt(shape)} has an unknown channel count")
    dtype = helper.input_dtype()
    if dtype == "float16":
        dtype = "float32"
    scale = helper.create_parameter(param_attr, [channels], dtype, default_initializer=ConstantInitializer(1.0))
    bias = helper.create_parameter(bias_attr, [channels], dtype, is_bias=True)
    mean = helper.create_parameter(
        ParamAttr(name=moving_mean_name, initializer=ConstantInitializer(0.0), trainable=False,
                  do_model_average=do_model_average_for_mean_and_var), [channels], dtype)
    mean.stop_gradient = True
    variance = helper.create_parameter(
        ParamAttr(name=moving_variance_name, initializer=ConstantInitializer(1.0), trainable=False,
                  do_model_average=do_model_average_for_mean_and_var), [channels], dtype)
    variance.stop_gradient = True
    saved_mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("batch_norm",
                     {"X": [input], "Scale": [scale], "Bias": [bias], "Mean": [mean], "Variance": [variance]},
                     {"Y": [out], "MeanOut": [mean], "VarianceOut": [variance], "SavedMean": [saved_mean],
                      "SavedVariance": [saved_variance]},
                     {"momentum": momentum, "epsilon": epsilon, "is_test": is_test, "data_layout": data_layout,
                      "use_global_stats": use_global_stats})
    return helper.append_activation(out)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None, bias_attr=None,
               act=None, name=None):
    """Layer normalization over the dims from begin_norm_axis on, with optional scale and shift."""
    helper = LayerHelper("layer_norm", input=input, act=act, name=name)
    shape = input.shape
    if shape is None or not 1 <= begin_norm_axis < len(shape):
        raise _shape_error(helper, f"begin_norm_axis={begin_norm_axis} must be in [1, {len(shape or ()) - 1}] "
                                   f"for input '{input.name}' {_fmt(shape)}")
    size = 1
    for d in shape[begin_norm_axis:]:
        size *= d
    dtype = helper.input_dtype()
    inputs = {"X": [input]}
    if scale:
        inputs["Scale"] = [helper.create_parameter(param_attr, [size], dtype,
                                                   default_initializer=ConstantInitializer(1.0))]
    if shift:
        if bias_attr is False:
            raise PeError(f"layer_norm layer '{helper.name}': shift=True needs a bias; pass shift=False instead "
                          f"of bias_attr=False")
        inputs["Bias"] = [helper.create_parameter(bias_attr, [size], dtype, is_bias=True)]
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("layer_norm", inputs, {"Y": [out], "Mean": [mean], "Variance": [variance]},
                     {"epsilon": epsilon, "begin_norm_axis": begin_norm_axis})
    return helper.append_activation(out)


def dropout(x, dropout_prob, is_test=False, seed=None, name=None, dropout_implementation="downgrade_in_infer"):
    """Drops elements with probability dropout_prob while training (see the dropout op for the two
    implementations); a given seed (or the program's random_seed) fixes the mask."""
    helper = LayerHelper("dropout", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference("uint8", stop_gradient=True)
    if (seed is None or seed == 0) and helper.main_program.random_seed != 0:
        seed = helper.main_program.random_seed
    helper.append_op("dropout", {"X": [x]}, {"Out": [out], "Mask": [mask]},
                     {"dropout_prob": dropout_prob, "is_test": is_test, "fix_seed": seed is not None,
                      "seed": seed if seed is not None else 0, "dropout_implementation": dropout_implementation})
    return out


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """Looks up rows of a [vocab_size, emb_dim] table for int64 ids; padding_idx rows are zeros.
    is_sparse=True makes the table's gradient row-sparse (a SelectedRows of the ids looked up), which
    sgd, adagrad and lazy adam apply to those rows only (docs/SPARSE.md)."""
    return lookup("lookup_table", input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)


def lookup(op_type, input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype):
    """An embedding by ``op_type``: lookup_table (layers.embedding: Ids [..., 1] -> [..., D]) or
    lookup_table_v2 (fluid.embedding: Ids [...] -> [..., D])."""
    helper = LayerHelper("embedding", input=input, param_attr=param_attr)
    size = list(size)
    if len(size) != 2:
        raise PeError(f"embedding layer '{helper.name}': size must be [vocab_size, emb_dim], got {size!r}")
    w = helper.create_parameter(param_attr, size, dtype)
    out = helper.create_variable_for_type_inference(dtype)
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 else size[0] + padding_idx
    helper.append_op(op_type, {"Ids": [input], "W": [w]}, {"Out": [out]},
                     {"is_sparse": is_sparse, "is_distributed": is_distributed,
                      "remote_prefetch": is_sparse and not is_distributed, "padding_idx": padding_idx})
    return out


__all__ += ["merge_selected_rows", "get_tensor_from_selected_rows"]


def merge_selected_rows(x, name=None):
    """A row-sparse x (the gradient of embedding(is_sparse=True)) with each row once, ascending, the
    values of a repeated row summed (docs/SPARSE.md)."""
    helper = LayerHelper("merge_selected_rows", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("merge_selected_rows", {"X": [x]}, {"Out": [out]})
    return out


def get_tensor_from_selected_rows(x, name=None):
    """The values of a row-sparse x: a dense [rows listed, ...] tensor."""
    helper = LayerHelper("get_tensor_from_selected_rows", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("get_tensor_from_selected_rows", {"X": [x]}, {"Out": [out]})
    return out
