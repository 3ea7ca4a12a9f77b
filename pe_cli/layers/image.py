"""Image layers of Fluid 1.8's ``fluid.layers`` with its signatures: pixel_shuffle, space_to_depth,
shuffle_channel, affine_channel, maxout, lrn, adaptive_pool2d, fsp_matrix (4-D feature maps), inplace_abn, affine_grid and
grid_sampler (spatial transformers), similarity_focus."""
__all__ = ["pixel_shuffle", "space_to_depth", "shuffle_channel", "affine_channel", "maxout", "lrn", "adaptive_pool2d",
           "inplace_abn", "fsp_matrix", "affine_grid", "grid_sampler", "similarity_focus"]
from ..errors import PeError
from ..framework import unique_name
from ..framework.variable import Variable
from .activation import elu, leaky_relu
from .helper import LayerHelper
from .normalization import batch_norm
from .tensor import _as_list, _check_ints, _single, matmul, reshape


def pixel_shuffle(x, upscale_factor):
    """[N, C*r^2, H, W] -> [N, C, H*r, W*r] (r = upscale_factor), sub-pixel convolution's shuffle."""
    return _single("pixel_shuffle", x, {"X": [x]}, {"upscale_factor": upscale_factor})


def space_to_depth(x, blocksize, name=None):
    """[N, C, H, W] -> [N, C*b^2, H/b, W/b] (b = blocksize) in Fluid's (Darknet reorg) order."""
    return _single("space_to_depth", x, {"X": [x]}, {"blocksize": blocksize}, name=name)


def shuffle_channel(x, group, name=None):
    """The channels of ``x`` [N, C, H, W] regrouped: [N, group, C/group, ...] transposed."""
    return _single("shuffle_channel", x, {"X": [x]}, {"group": group}, name=name)


def affine_channel(x, scale=None, bias=None, data_layout="NCHW", name=None, act=None):
    """x * scale[c] + bias[c] per channel c (then ``act``); scale and bias are [C] Variables."""
    if scale is None or bias is None:
        raise PeError("affine_channel needs both scale and bias ([C] Variables)")
    return _single("affine_channel", x, {"X": [x], "Scale": [scale], "Bias": [bias]},
                   {"data_layout": data_layout}, name=name, act=act)


def maxout(x, groups, name=None, axis=1):
    """The max over each run of ``groups`` channels (axis 1: NCHW, -1 or 3: NHWC)."""
    return _single("maxout", x, {"X": [x]}, {"groups": groups, "axis": axis}, name=name)


def lrn(input, n=5, k=1.0, alpha=1e-4, beta=0.75, name=None, data_format="NCHW"):
    """Local response normalization across channels: input / (k + alpha * sum of squares over n
    neighbouring channels) ^ beta."""
    if data_format not in ("NCHW", "NHWC"):
        raise PeError(f"lrn: data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    helper = LayerHelper("lrn", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    mid = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op("lrn", {"X": [input]}, {"Out": [out], "MidOut": [mid]},
                     {"n": n, "k": float(k), "alpha": float(alpha), "beta": float(beta), "data_format": data_format})
    return out


def adaptive_pool2d(input, pool_size, pool_type="max", require_index=False, name=None):
    """Max or avg pooling of [N, C, H, W] to [N, C, pool_size...]: window i along H spans
    floor(i * H / size) to ceil((i + 1) * H / size). ``require_index`` (max_pool2d_with_index) is
    not supported by pe."""
    if pool_type not in ("max", "avg"):
        raise PeError(f"adaptive_pool2d: pool_type={pool_type!r} must be 'max' or 'avg'")
    if require_index:
        raise PeError("adaptive_pool2d: require_index=True (the max positions) is not supported by pe")
    size = _check_ints("adaptive_pool2d", "pool_size", _as_list(pool_size))
    size = size * 2 if len(size) == 1 else size
    if len(size) != 2 or min(size) <= 0:
        raise PeError(f"adaptive_pool2d: pool_size={pool_size!r} must be an int or two ints > 0")
    return _single("pool2d", input, {"X": [input]}, {"pooling_type": pool_type, "ksize": size, "adaptive": True},
                   name=name)


def inplace_abn(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
                data_layout="NCHW", name=None, moving_mean_name=None, moving_variance_name=None,
                do_model_average_for_mean_and_var=True, use_global_stats=False, act_alpha=1.0):
    """batch_norm followed by ``act`` (None / 'identity', 'leaky_relu' or 'elu', with ``act_alpha``):
    Fluid's in-place activated batch norm computes the same values and gradients (pe keeps X rather
    than recomputing it from the output); its parameters are named after 'inplace_abn'."""
    if act not in (None, "identity", "leaky_relu", "elu"):
        raise PeError(f"inplace_abn: act={act!r} must be None, 'identity', 'leaky_relu' or 'elu'")
    out = batch_norm(input, None, is_test, momentum, epsilon, param_attr, bias_attr, data_layout,
                     name=name or unique_name.generate("inplace_abn"), moving_mean_name=moving_mean_name,
                     moving_variance_name=moving_variance_name,
                     do_model_average_for_mean_and_var=do_model_average_for_mean_and_var,
                     use_global_stats=use_global_stats)
    if act == "leaky_relu":
        return leaky_relu(out, alpha=act_alpha)
    if act == "elu":
        return elu(out, alpha=act_alpha)
    return out


def fsp_matrix(x, y):
    """The flow of solution procedure matrix of two feature maps [N, C1, H, W] and [N, C2, H, W]:
    out[n, i, j] = mean over the H * W pixels of x[n, i] * y[n, j], shape [N, C1, C2]. Built as
    Fluid's fsp op computes it: a batched product of the maps flattened to [N, C, H * W], scaled by
    1 / (H * W) (which must be known when the layer is built)."""
    xs, ys = list(x.shape or ()), list(y.shape or ())
    if len(xs) != 4 or len(ys) != 4 or xs[2:] != ys[2:] or min(xs[2:]) <= 0:
        raise PeError(f"fsp_matrix: x {xs} and y {ys} must be [N, C, H, W] with one known height and width")
    hw = xs[2] * xs[3]
    return matmul(reshape(x, [0, xs[1], hw]), reshape(y, [0, ys[1], hw]), transpose_y=True, alpha=1.0 / hw)


def affine_grid(theta, out_shape, name=None):
    """The [N, H, W, 2] sampling grid of affine transforms ``theta`` [N, 2, 3] over an output of
    ``out_shape`` [N, C, H, W] (a list, or an int32 Variable read at run time)."""
    helper = LayerHelper("affine_grid", theta=theta, name=name)
    inputs, attrs = {"Theta": [theta]}, {}
    if isinstance(out_shape, Variable):
        inputs["OutputShape"] = [out_shape]
    else:
        attrs["output_shape"] = _check_ints("affine_grid", "out_shape", _as_list(out_shape))
    out = helper.create_variable_for_type_inference(theta.dtype)
    helper.append_op("affine_grid", inputs, {"Output": [out]}, attrs)
    return out


def grid_sampler(x, grid, name=None):
    """``x`` [N, C, H, W] sampled bilinearly at ``grid`` [N, H_out, W_out, 2] ((x, y) in [-1, 1];
    outside points read zeros)."""
    helper = LayerHelper("grid_sampler", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("grid_sampler", {"X": [x], "Grid": [grid]}, {"Output": [out]})
    return out


def similarity_focus(input, axis, indexes, name=None):
    """A 0/1 mask shaped like ``input`` [N, A, B, C]: for each of ``indexes`` along ``axis`` (1, 2
    or 3), the largest values of that 2-D slice, taken greedily one per row and column, marked
    through the whole axis."""
    return _single("similarity_focus", input, {"X": [input]},
                   {"axis": axis, "indexes": _check_ints("similarity_focus", "indexes", _as_list(indexes))},
                   name=name, stop_gradient=True)
