"""RoI pooling layers of Fluid 1.8's ``fluid.layers`` with its signatures: roi_pool, roi_align,
psroi_pool, prroi_pool. ``rois`` [num_rois, 4] (x1, y1, x2, y2) is a LoDTensor whose one LoD level
gives the rois of each image of ``input`` [N, C, H, W]; ``rois_num`` / ``batch_roi_nums`` (a Variable
of rois per image) may say it instead. The outputs are [num_rois, C, pooled_height, pooled_width]
(deformable_roi_pooling: the deformable_psroi_pooling op, its bins moved by ``trans``)."""

__all__ = ["roi_pool", "roi_align", "psroi_pool", "prroi_pool", "deformable_roi_pooling", "roi_perspective_transform"]
import numbers

from ..base.errors import ArgumentTypeError
from .checks import check_type, check_variable_and_dtype, fluid_checks, optional
from .elementwise import elementwise_sub
from .helper import LayerHelper
from .manipulation import cast, slice


def _typed(layer, spatial_scale, **ints):
    """Fluid's psroi_pool and prroi_pool take a float spatial_scale and int sizes (TypeError else)."""
    if not isinstance(spatial_scale, float):
        raise ArgumentTypeError(f"{layer}: spatial_scale={spatial_scale!r} must be a float")
    for what, v in ints.items():
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise ArgumentTypeError(f"{layer}: {what}={v!r} must be an int")


def _roi_layer(op_type, input, rois, attrs, counts=None, name=None, argmax=False):
    helper = LayerHelper(op_type, input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    outputs = {"Out": [out]}
    if argmax:
        outputs["Argmax"] = [helper.create_variable_for_type_inference("int64", stop_gradient=True)]
    inputs = {"X": [input], "ROIs": [rois]}
    if counts is not None:
        inputs.update(counts)
    helper.append_op(op_type, inputs, outputs, attrs)
    return out


def _counts(slot, var):
    return None if var is None else {slot: [var]}


def _lod_counts(rois_lod):
    """Fluid 1.8's ``rois_lod``: the rois' LoD offsets [N + 1] (int64), as rois per image [N] (int32)."""
    if rois_lod is None:
        return None
    n = rois_lod.shape[0] - 1 if rois_lod.shape and rois_lod.shape[0] > 0 else -1
    ends = slice(rois_lod, [0], [1], [n + 1 if n >= 0 else 2**31 - 1])
    starts = slice(rois_lod, [0], [0], [n if n >= 0 else -1])
    return cast(elementwise_sub(ends, starts), "int32")


def _rois_per_image(rois_lod, rois_num):
    return _counts("RoisNum", rois_num if rois_num is not None else _lod_counts(rois_lod))


def roi_pool(
    input, rois, pooled_height=1, pooled_width=1, spatial_scale=1.0, rois_lod=None, *, rois_num=None, name=None
):
    """Max pooling of each roi (scaled by ``spatial_scale`` and rounded to whole cells) into a
    pooled_height x pooled_width grid. ``rois_lod`` (Fluid 1.8: the rois' LoD offsets, int64 [N + 1]) or
    ``rois_num`` (Paddle 2.x: rois per image) say which image each roi is of, else rois' LoD does."""
    check_variable_and_dtype(input, "input", ("float32",), "roi_pool")  # Fluid 1.8's checks
    check_variable_and_dtype(rois, "rois", ("float32",), "roi_pool")
    return _roi_layer(
        "roi_pool",
        input,
        rois,
        {"pooled_height": pooled_height, "pooled_width": pooled_width, "spatial_scale": float(spatial_scale)},
        _rois_per_image(rois_lod, rois_num),
        name,
        argmax=True,
    )


@fluid_checks("roi_align", input=("float32", "float64"), rois=("float32", "float64"))
def roi_align(
    input,
    rois,
    pooled_height=1,
    pooled_width=1,
    spatial_scale=1.0,
    sampling_ratio=-1,
    name=None,
    rois_lod=None,
    *,
    rois_num=None,
):
    """RoIAlign: each bin the mean of sampling_ratio^2 bilinear samples (sampling_ratio <= 0:
    ceil(bin size) per side), the roi scaled by ``spatial_scale`` and not rounded. ``rois_lod`` /
    ``rois_num`` as in roi_pool."""
    return _roi_layer(
        "roi_align",
        input,
        rois,
        {
            "pooled_height": pooled_height,
            "pooled_width": pooled_width,
            "spatial_scale": float(spatial_scale),
            "sampling_ratio": sampling_ratio,
        },
        _rois_per_image(rois_lod, rois_num),
        name,
    )


def psroi_pool(input, rois, output_channels, spatial_scale, pooled_height, pooled_width, name=None):
    """Position-sensitive RoI pooling (R-FCN): ``input`` has output_channels * pooled_height *
    pooled_width channels; bin (i, j) of output channel k averages input channel (k * PH + i) * PW + j."""
    _typed(
        "psroi_pool",
        spatial_scale,
        output_channels=output_channels,
        pooled_height=pooled_height,
        pooled_width=pooled_width,
    )
    return _roi_layer(
        "psroi_pool",
        input,
        rois,
        {
            "output_channels": output_channels,
            "spatial_scale": float(spatial_scale),
            "pooled_height": pooled_height,
            "pooled_width": pooled_width,
        },
        name=name,
    )


def prroi_pool(input, rois, spatial_scale=1.0, pooled_height=1, pooled_width=1, batch_roi_nums=None, name=None):
    """Precise RoI pooling: each bin the integral of the bilinear interpolation of ``input`` over the
    bin divided by its area (no sampling, no rounding)."""
    check_variable_and_dtype(input, "input", ("float32",), "prroi_pool")  # Fluid 1.8's checks
    check_variable_and_dtype(rois, "rois", ("float32",), "prroi_pool")
    _typed("prroi_pool", spatial_scale, pooled_height=pooled_height, pooled_width=pooled_width)
    return _roi_layer(
        "prroi_pool",
        input,
        rois,
        {"spatial_scale": float(spatial_scale), "pooled_height": pooled_height, "pooled_width": pooled_width},
        _counts("BatchRoINums", batch_roi_nums),
        name,
    )


def _pair(layer, what, v):
    v = list(v) if isinstance(v, (list, tuple)) else [v, v]
    if len(v) != 2 or not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in v):
        raise ArgumentTypeError(f"{layer}: {what}={v!r} must be an int or 2 ints")
    return [int(i) for i in v]


@fluid_checks(
    "deformable_roi_pooling",
    input=("float32", "float64"),
    rois=("float32", "float64"),
    trans=("float32", "float64"),
    group_size=(list, tuple),
    part_size=optional((list, tuple)),
)
def deformable_roi_pooling(
    input,
    rois,
    trans,
    no_trans=False,
    spatial_scale=1.0,
    group_size=(1, 1),
    pooled_height=1,
    pooled_width=1,
    part_size=None,
    sample_per_part=1,
    trans_std=0.1,
    position_sensitive=False,
    name=None,
):
    """Deformable (PS)RoI pooling: each bin of each roi moved by ``trans`` [num_rois, 2 * classes,
    part_h, part_w] (times trans_std and the roi's size) averages sample_per_part^2 bilinear samples;
    ``position_sensitive``: output channels C / (pooled_height * pooled_width), read as psroi_pool
    does with ``group_size`` [pooled_height, pooled_width]."""
    for what, value in (("input", input), ("rois", rois), ("trans", trans)):
        if value is not None or what != "trans":  # no trans (with no_trans=True) is pe's too
            check_variable_and_dtype(value, what, ("float32", "float64"), "deformable_roi_pooling")
    check_type(group_size, "group_size", (list, tuple), "deformable_roi_pooling")
    check_type(part_size, "part_size", (list, tuple, type(None)), "deformable_roi_pooling")
    channels = (input.shape or (0, 0))[1]
    output_dim = channels // (pooled_height * pooled_width) if position_sensitive else channels
    part = _pair(
        "deformable_roi_pooling", "part_size", [pooled_height, pooled_width] if part_size is None else part_size
    )
    helper = LayerHelper("deformable_psroi_pooling", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    count = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    inputs = {"Input": [input], "ROIs": [rois]}
    if trans is not None:
        inputs["Trans"] = [trans]
    helper.append_op(
        "deformable_psroi_pooling",
        inputs,
        {"Output": [out], "TopCount": [count]},
        {
            "no_trans": bool(no_trans),
            "spatial_scale": float(spatial_scale),
            "output_dim": output_dim,
            "group_size": _pair("deformable_roi_pooling", "group_size", group_size),
            "pooled_height": pooled_height,
            "pooled_width": pooled_width,
            "part_size": part,
            "sample_per_part": sample_per_part,
            "trans_std": float(trans_std),
        },
    )
    return out


def roi_perspective_transform(input, rois, transformed_height, transformed_width, spatial_scale=1.0, name=None):
    """Warps each quadrilateral roi [x0, y0, ..., x3, y3] (clockwise from the top left) of ``input``
    onto a transformed_height x transformed_width grid. Returns (out [R, C, th, tw], mask [R, 1, th,
    tw] int32: 1 where the pixel maps inside the roi and the map, transform_matrix [R, 9])."""
    check_variable_and_dtype(input, "input", ("float32",), "roi_perspective_transform")
    check_variable_and_dtype(rois, "rois", ("float32",), "roi_perspective_transform")
    check_type(transformed_height, "transformed_height", int, "roi_perspective_transform")
    check_type(transformed_width, "transformed_width", int, "roi_perspective_transform")
    check_type(spatial_scale, "spatial_scale", float, "roi_perspective_transform")
    helper = LayerHelper("roi_perspective_transform", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    mask = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    matrix = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "roi_perspective_transform",
        {"X": [input], "ROIs": [rois]},
        {"Out": [out], "Mask": [mask], "TransformMatrix": [matrix]},
        {
            "transformed_height": transformed_height,
            "transformed_width": transformed_width,
            "spatial_scale": float(spatial_scale),
        },
    )
    return out, mask, matrix
