"""Image layers of Fluid 1.8's ``fluid.layers`` with its signatures: pixel_shuffle, space_to_depth,
shuffle_channel, fsp_matrix, similarity_focus (4-D feature maps), affine_grid and grid_sampler
(spatial transformers), resizing: image_resize (also named interpolate), resize_nearest,
resize_bilinear, resize_trilinear, image_resize_short; and unfold (im2col)."""

__all__ = [
    "pixel_shuffle",
    "space_to_depth",
    "shuffle_channel",
    "fsp_matrix",
    "affine_grid",
    "grid_sampler",
    "similarity_focus",
    "image_resize",
    "resize_nearest",
    "resize_bilinear",
    "resize_trilinear",
    "image_resize_short",
    "interpolate",
    "unfold",
]
import numbers

from ..base.errors import ArgumentTypeError, ArgumentValueError, PeError
from ..framework.variable import Variable
from .helper import LayerHelper
from .checks import FLOAT32_64, check_variable_and_dtype, fluid_checks
from .helper import _as_list, check_ints, single
from .shape_tensor import attr_shape, holds_variable, shape_tensor_list


@fluid_checks("pixel_shuffle", x=("float32", "float64"))
def pixel_shuffle(x, upscale_factor):
    """[N, C*r^2, H, W] -> [N, C, H*r, W*r] (r = upscale_factor), sub-pixel convolution's shuffle."""
    return single("pixel_shuffle", x, {"X": [x]}, {"upscale_factor": upscale_factor})


@fluid_checks("space_to_depth", x=("float16", "float32", "float64", "int32", "int64"))
def space_to_depth(x, blocksize, name=None):
    """[N, C, H, W] -> [N, C*b^2, H/b, W/b] (b = blocksize) in Fluid's (Darknet reorg) order."""
    return single("space_to_depth", x, {"X": [x]}, {"blocksize": blocksize}, name=name)


def shuffle_channel(x, group, name=None):
    """The channels of ``x`` [N, C, H, W] regrouped: [N, group, C/group, ...] transposed."""
    return single("shuffle_channel", x, {"X": [x]}, {"group": group}, name=name)


def fsp_matrix(x, y):
    """The flow of solution procedure matrix of two feature maps [N, C1, H, W] and [N, C2, H, W]:
    out[n, i, j] = mean over the H * W pixels of x[n, i] * y[n, j], shape [N, C1, C2] (Fluid's fsp op)."""
    check_variable_and_dtype(x, "x", FLOAT32_64, "fsp_matrix")
    check_variable_and_dtype(y, "y", FLOAT32_64, "fsp_matrix")
    helper = LayerHelper("fsp_matrix", x=x, y=y)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("fsp", {"X": [x], "Y": [y]}, {"Out": [out]}, {})
    return out


@fluid_checks("affine_grid", theta=("float32", "float64"))
def affine_grid(theta, out_shape, name=None):
    """The [N, H, W, 2] sampling grid of affine transforms ``theta`` [N, 2, 3] over an output of
    ``out_shape`` [N, C, H, W] (a list, or an int32 Variable read at run time)."""
    if not isinstance(out_shape, (list, tuple, Variable)):  # Fluid 1.8's ValueError
        raise ArgumentValueError(
            f"affine_grid: out_shape must be a list, a tuple or a Variable, got {type(out_shape).__name__}"
        )
    helper = LayerHelper("affine_grid", theta=theta, name=name)
    inputs, attrs = {"Theta": [theta]}, {}
    if isinstance(out_shape, Variable):
        check_variable_and_dtype(out_shape, "out_shape", ("int32",), "affine_grid")
        inputs["OutputShape"] = [out_shape]
    else:
        attrs["output_shape"] = check_ints("affine_grid", "out_shape", _as_list(out_shape))
    out = helper.create_variable_for_type_inference(theta.dtype)
    helper.append_op("affine_grid", inputs, {"Output": [out]}, attrs)
    return out


@fluid_checks("grid_sampler", x=("float32", "float64"), grid=("float32", "float64"))
def grid_sampler(x, grid, name=None):
    """``x`` [N, C, H, W] sampled bilinearly at ``grid`` [N, H_out, W_out, 2] ((x, y) in [-1, 1];
    outside points read zeros)."""
    helper = LayerHelper("grid_sampler", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("grid_sampler", {"X": [x], "Grid": [grid]}, {"Output": [out]})
    return out


@fluid_checks("similarity_focus", input=("float32", "float64"), axis=int, indexes=list)
def similarity_focus(input, axis, indexes, name=None):
    """A 0/1 mask shaped like ``input`` [N, A, B, C]: for each of ``indexes`` along ``axis`` (1, 2
    or 3), the largest values of that 2-D slice, taken greedily one per row and column, marked
    through the whole axis."""
    return single(
        "similarity_focus",
        input,
        {"X": [input]},
        {"axis": axis, "indexes": check_ints("similarity_focus", "indexes", _as_list(indexes))},
        name=name,
        stop_gradient=True,
    )


# -- resize -----------------------------------------------------------------------------------------

_METHODS = {"BILINEAR": "bilinear", "NEAREST": "nearest", "TRILINEAR": "trilinear", "BICUBIC": "bicubic"}
_LAYOUTS = {4: {"NCHW": "NCHW", "NHWC": "NHWC"}, 5: {"NCDHW": "NCHW", "NDHWC": "NHWC"}}


def image_resize(
    input,
    out_shape=None,
    scale=None,
    name=None,
    resample="BILINEAR",
    actual_shape=None,
    align_corners=True,
    align_mode=1,
    data_format="NCHW",
):
    """``input`` resized to ``out_shape`` ([out_h, out_w], or [out_d, out_h, out_w] for 'TRILINEAR'
    on a 5-D input) or by ``scale``, with 'BILINEAR', 'NEAREST', 'TRILINEAR' or 'BICUBIC' interpolation;
    ``actual_shape`` (an int32 Variable) overrides the size at run time. As Fluid 1.8's, out_shape may
    hold int Variables (or be one) and scale be a Variable; a wrong argument is its TypeError or
    ValueError."""
    _check_resize_args(input, resample, align_corners, align_mode, data_format, out_shape, scale)
    rank = 5 if resample == "TRILINEAR" else 4
    inputs = {"X": [input]}
    attrs = {
        "out_d": -1,
        "out_h": -1,
        "out_w": -1,
        "interp_method": _METHODS[resample],
        "align_corners": align_corners,
        "align_mode": align_mode,
        "data_layout": _LAYOUTS[rank][data_format],
    }
    if out_shape is not None:
        if isinstance(out_shape, Variable):
            out_shape.stop_gradient = True
            inputs["OutSize"] = [out_shape]
        else:
            keys = ("out_h", "out_w") if rank == 4 else ("out_d", "out_h", "out_w")
            if len(out_shape) != rank - 2:
                raise ArgumentValueError(f"image_resize: out_shape={list(out_shape)} must be [{', '.join(keys)}]")
            if holds_variable(out_shape):
                inputs["SizeTensor"] = shape_tensor_list("image_resize", out_shape)
            attrs.update(zip(keys, check_ints("image_resize", "out_shape", attr_shape(out_shape))))
    elif isinstance(scale, Variable):
        scale.stop_gradient = True
        inputs["Scale"] = [scale]
    else:
        attrs["scale"] = float(scale)
    if actual_shape is not None:
        actual_shape.stop_gradient = True
        inputs["OutSize"] = [actual_shape]
    return single(f"{_METHODS[resample]}_interp", input, inputs, attrs, name=name)


def _check_resize_args(input, resample, align_corners, align_mode, data_format, out_shape, scale):
    """Fluid 1.8's argument errors of image_resize (ValueError, or TypeError for a wrong type)."""
    if resample not in _METHODS:
        raise ArgumentValueError(f"image_resize: resample={resample!r} must be one of {sorted(_METHODS)}")
    rank = 5 if resample == "TRILINEAR" else 4
    if len(input.shape or ()) != rank:
        raise ArgumentValueError(
            f"image_resize: {resample} resizing takes a {rank}-D input, got {list(input.shape or ())}"
        )
    if not isinstance(align_corners, bool):
        raise ArgumentTypeError(f"image_resize: align_corners must be a bool, got {align_corners!r}")
    if align_mode not in (0, 1):
        raise ArgumentValueError(f"image_resize: align_mode must be 0 or 1, got {align_mode!r}")
    if data_format not in _LAYOUTS[rank]:
        raise ArgumentValueError(f"image_resize: data_format={data_format!r} must be one of {sorted(_LAYOUTS[rank])}")
    if out_shape is None and scale is None:
        raise ArgumentValueError("image_resize: give out_shape or scale")
    if out_shape is not None and not isinstance(out_shape, (list, tuple, Variable)):
        raise ArgumentTypeError(f"image_resize: out_shape must be a list, a tuple or a Variable, got {out_shape!r}")
    if out_shape is None and not isinstance(scale, Variable):
        if not isinstance(scale, numbers.Real) or isinstance(scale, bool):
            raise ArgumentTypeError(f"image_resize: scale must be a float, an int or a Variable, got {scale!r}")
        if scale <= 0:
            raise ArgumentValueError(f"image_resize: scale={scale!r} must be > 0")


def resize_bilinear(
    input,
    out_shape=None,
    scale=None,
    name=None,
    actual_shape=None,
    align_corners=True,
    align_mode=1,
    data_format="NCHW",
):
    """image_resize with bilinear interpolation."""
    return image_resize(input, out_shape, scale, name, "BILINEAR", actual_shape, align_corners, align_mode, data_format)


def resize_trilinear(
    input,
    out_shape=None,
    scale=None,
    name=None,
    actual_shape=None,
    align_corners=True,
    align_mode=1,
    data_format="NCDHW",
):
    """image_resize of a 5-D input [N, C, D, H, W] with trilinear interpolation."""
    return image_resize(
        input, out_shape, scale, name, "TRILINEAR", actual_shape, align_corners, align_mode, data_format
    )


def resize_nearest(
    input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True, data_format="NCHW"
):
    """image_resize with nearest-neighbour interpolation."""
    return image_resize(input, out_shape, scale, name, "NEAREST", actual_shape, align_corners, 1, data_format)


interpolate = image_resize  # Fluid 1.8's second name for it


def image_resize_short(input, out_short_len, resample="BILINEAR"):
    """``input`` [N, C, H, W] resized so its shorter side is ``out_short_len``, the other scaled alike
    (rounded), as Fluid 1.8 computes it from the build-time shape."""
    shape = list(input.shape or ())
    if len(shape) != 4 or min(shape[2:]) <= 0:
        raise PeError(f"image_resize_short: input {shape} must be 4-D with a known height and width")
    hw = shape[2:]
    short = hw.index(min(hw))
    out = list(hw)
    out[short] = out_short_len
    out[1 - short] = int(float(hw[1 - short]) * (float(out_short_len) / float(hw[short])) + 0.5)
    return image_resize(input, out_shape=out, resample=resample)


def _pair(what, v, n=2):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)] * n
    if not isinstance(v, list) or len(v) != n:
        raise AssertionError(f"unfold: {what} should either be an integer or a list of {n} integers, got {v!r}")
    return check_ints("unfold", what, v)


@fluid_checks("unfold", x=("float32", "float64"))
def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: each sliding block of x [N, C, H, W] as a column of the result [N, C * kh * kw, L].
    ``kernel_sizes``, ``strides`` and ``dilations``: an int or [h, w]; ``paddings``: an int, [h, w]
    or [up, left, down, right]."""
    if len(x.shape) != 4:
        raise AssertionError(f"unfold: input should be the format of [N, C, H, W], got {list(x.shape)}")
    if isinstance(paddings, list) and len(paddings) == 2:
        paddings = paddings * 2
    attrs = {
        "kernel_sizes": _pair("kernel_sizes", kernel_sizes),
        "strides": _pair("strides", strides),
        "paddings": _pair("paddings", paddings, 4),
        "dilations": _pair("dilations", dilations),
    }
    helper = LayerHelper("unfold", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("unfold", {"X": [x]}, {"Y": [out]}, attrs)
    return out
