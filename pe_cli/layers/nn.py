"""Fluid 1.8's ``layers.nn``: the neural-network layers, which pe defines in its family modules
(convolution, pooling, normalization, activation, image, padding, embedding, dropout, the loss
families, tensor and math modules, ...)."""
from ..errors import PeError
from .fluid_module import resolver
from .helper import LayerHelper

__all__ = ["adaptive_pool2d", "adaptive_pool3d", "add_position_encoding", "affine_channel", "affine_grid",
           "autoincreased_step_counter", "batch_norm", "brelu", "chunk_eval", "clip", "clip_by_norm",
           "continuous_value_model", "conv2d", "conv2d_transpose", "cos_sim", "crf_decoding", "crop", "crop_tensor",
           "ctc_greedy_decoder", "deformable_conv", "deformable_roi_pooling", "dropout", "elementwise_add",
           "elementwise_div", "elementwise_floordiv", "elementwise_max", "elementwise_min", "elementwise_mod",
           "elementwise_mul", "elementwise_pow", "elementwise_sub", "elu", "embedding", "expand", "expand_as", "fc",
           "filter_by_instag", "flatten", "fsp_matrix", "gather", "gather_nd", "gather_tree", "gaussian_random",
           "gaussian_random_batch_size_like", "get_tensor_from_selected_rows", "grid_sampler", "group_norm",
           "hard_sigmoid", "hard_swish", "hash", "im2sequence", "image_resize", "image_resize_short", "inplace_abn",
           "instance_norm", "l2_normalize", "label_smooth", "layer_norm", "leaky_relu", "linear_chain_crf",
           "lod_append", "lod_reset", "log", "log_softmax", "logical_and", "logical_not", "logical_or",
           "logical_xor", "lrn", "matmul", "maxout", "mean", "merge_selected_rows", "mul", "one_hot", "pad",
           "pad2d", "pad_constant_like", "pixel_shuffle", "pool2d", "pool3d", "pow", "prelu", "prroi_pool",
           "psroi_pool", "py_func", "random_crop", "reduce_all", "reduce_any", "reduce_max", "reduce_mean",
           "reduce_min", "reduce_prod", "reduce_sum", "relu", "relu6", "reshape", "resize_bilinear",
           "resize_nearest", "resize_trilinear", "roi_align", "roi_pool", "row_conv", "sampling_id", "scale",
           "scatter", "selu", "shuffle_channel", "sign", "similarity_focus", "size", "slice", "smooth_l1",
           "soft_relu", "softmax", "space_to_depth", "split", "squeeze", "stack", "stanh", "strided_slice", "sum",
           "swish", "topk", "transpose", "uniform_random", "uniform_random_batch_size_like", "unique",
           "unique_with_counts", "unsqueeze", "where"]
__getattr__ = resolver(__name__, __all__)


# moved by H1 in a parallel branch
def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, is_test=False, name=None):
    """Fully connected: Out = act(sum_i flatten(input_i) @ W_i + b). Several inputs each get
    their own weight and are summed before the bias."""
    helper = LayerHelper("fc", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    inputs = input if isinstance(input, (list, tuple)) else [input]
    param_attrs = param_attr if isinstance(param_attr, (list, tuple)) else [param_attr] * len(inputs)
    dtype = helper.input_dtype()
    products = []
    for var, attr in zip(inputs, param_attrs):
        if var.shape is None or len(var.shape) <= num_flatten_dims:
            raise PeError(f"fc '{helper.name}': input '{var.name}' has shape {list(var.shape or [])}, "
                          f"which num_flatten_dims={num_flatten_dims} cannot split into rows and columns")
        in_features = 1
        for d in var.shape[num_flatten_dims:]:
            in_features *= d
        w = helper.create_parameter(attr, [in_features, size], dtype)
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op("mul", {"X": [var], "Y": [w]}, {"Out": [out]},
                         {"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1})
        products.append(out)
    if len(products) > 1:
        summed = helper.create_variable_for_type_inference(dtype)
        helper.append_op("sum", {"X": products}, {"Out": [summed]})
    else:
        summed = products[0]
    biased = helper.append_bias_op(summed, dim_start=num_flatten_dims)
    return helper.append_activation(biased)


def mean(x, name=None):
    helper = LayerHelper("mean", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("mean", {"X": [x]}, {"Out": [out]})
    return out


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    helper = LayerHelper("scale", x=x, act=act, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("scale", {"X": [x]}, {"Out": [out]},
                     {"scale": float(scale), "bias": float(bias), "bias_after_scale": bias_after_scale})
    return helper.append_activation(out)


def clip_by_norm(x, max_norm, name=None):
    """x * max_norm / ||x||_2 where the L2 norm of all of x exceeds ``max_norm``, else x (the
    ``clip_by_norm`` op, which gradient clipping uses too; no gradient flows through it, as in Fluid)."""
    helper = LayerHelper("clip_by_norm", input=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("clip_by_norm", {"X": [x]}, {"Out": [out]}, {"max_norm": float(max_norm)})
    return out
