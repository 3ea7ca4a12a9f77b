"""Fluid 1.8's box layers of ``fluid.layers`` (python/paddle/fluid/layers/detection.py), with its
signatures: prior_box, density_prior_box, anchor_generator, iou_similarity, box_coder, box_clip,
polygon_box_transform, box_decoder_and_assign."""

from ..base.errors import ArgumentTypeError, ArgumentValueError
from ..framework.variable import Variable
from .checks import check_variable_and_dtype, fluid_checks
from .helper import LayerHelper

__all__ = [
    "prior_box",
    "density_prior_box",
    "anchor_generator",
    "iou_similarity",
    "box_coder",
    "box_clip",
    "polygon_box_transform",
    "box_decoder_and_assign",
]


def float_input(layer, what, v):
    """Fluid's check_variable_and_dtype for a float32/float64 input: an ArgumentTypeError (a TypeError)."""
    return check_variable_and_dtype(v, what, ("float32", "float64"), layer)


def _listed(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _floats(v):
    return [float(i) for i in _listed(v)]


def _steps(layer, steps):
    if not isinstance(steps, (list, tuple)) or len(steps) != 2:
        raise ArgumentValueError(f"{layer}: steps={steps!r} must be a list or tuple of 2 (step_w, step_h)")
    return float(steps[0]), float(steps[1])


def _two_outputs(helper, op, inputs, attrs, names):
    dtype = inputs["Input"][0].dtype
    outs = [helper.create_variable_for_type_inference(dtype, stop_gradient=True) for _ in names]
    helper.append_op(op, inputs, {n: [o] for n, o in zip(names, outs)}, attrs)
    return outs[0], outs[1]


def prior_box(
    input,
    image,
    min_sizes,
    max_sizes=None,
    aspect_ratios=[1.0],
    variance=[0.1, 0.1, 0.2, 0.2],
    flip=False,
    clip=False,
    steps=[0.0, 0.0],
    offset=0.5,
    name=None,
    min_max_aspect_ratios_order=False,
):
    """SSD prior boxes for each cell of ``input`` (NCHW), normalized by ``image``'s size: (boxes,
    variances), each [H, W, num_priors, 4]."""
    step_w, step_h = _steps("prior_box", steps)
    attrs = {
        "min_sizes": _floats(min_sizes),
        "aspect_ratios": _floats(aspect_ratios),
        "variances": _floats(variance),
        "flip": bool(flip),
        "clip": bool(clip),
        "step_w": step_w,
        "step_h": step_h,
        "offset": float(offset),
        "min_max_aspect_ratios_order": bool(min_max_aspect_ratios_order),
    }
    max_sizes = _floats(max_sizes) if max_sizes is not None else []
    if max_sizes and max_sizes[0] > 0:
        attrs["max_sizes"] = max_sizes
    helper = LayerHelper("prior_box", name=name)
    return _two_outputs(helper, "prior_box", {"Input": [input], "Image": [image]}, attrs, ("Boxes", "Variances"))


def density_prior_box(
    input,
    image,
    densities=None,
    fixed_sizes=None,
    fixed_ratios=None,
    variance=[0.1, 0.1, 0.2, 0.2],
    clip=False,
    steps=[0.0, 0.0],
    offset=0.5,
    flatten_to_2d=False,
    name=None,
):
    """Density prior boxes for each cell of ``input``: for each fixed size (with its density d) and
    ratio, a d x d grid of boxes; (boxes, variances) [H, W, num_priors, 4], or [H*W*num_priors, 4]
    with ``flatten_to_2d``."""
    for what, v in (("densities", densities), ("fixed_sizes", fixed_sizes), ("fixed_ratios", fixed_ratios)):
        if not isinstance(v, (list, tuple)):
            raise ArgumentTypeError(f"density_prior_box: {what}={v!r} must be a list or tuple")
    if len(densities) != len(fixed_sizes):
        raise ArgumentValueError(
            f"density_prior_box: densities {list(densities)} and fixed_sizes {list(fixed_sizes)} must be as long"
        )
    step_w, step_h = _steps("density_prior_box", steps)
    attrs = {
        "variances": _floats(variance),
        "clip": bool(clip),
        "step_w": step_w,
        "step_h": step_h,
        "offset": float(offset),
        "densities": [int(d) for d in densities],
        "fixed_sizes": _floats(fixed_sizes),
        "fixed_ratios": _floats(fixed_ratios),
        "flatten_to_2d": bool(flatten_to_2d),
    }
    helper = LayerHelper("density_prior_box", name=name)
    return _two_outputs(
        helper, "density_prior_box", {"Input": [input], "Image": [image]}, attrs, ("Boxes", "Variances")
    )


def anchor_generator(
    input, anchor_sizes=None, aspect_ratios=None, variance=[0.1, 0.1, 0.2, 0.2], stride=None, offset=0.5, name=None
):
    """Faster R-CNN anchors for each cell of ``input``, in input pixels: (anchors, variances), each
    [H, W, len(anchor_sizes) * len(aspect_ratios), 4]."""
    if not (isinstance(stride, (list, tuple)) and len(stride) == 2):
        raise ArgumentValueError(
            f"anchor_generator: stride={stride!r} must be a list or tuple of 2 (stride_width, stride_height)"
        )
    attrs = {
        "anchor_sizes": _floats(anchor_sizes),
        "aspect_ratios": _floats(aspect_ratios),
        "variances": _floats(variance),
        "stride": _floats(stride),
        "offset": float(offset),
    }
    helper = LayerHelper("anchor_generator", name=name)
    return _two_outputs(helper, "anchor_generator", {"Input": [input]}, attrs, ("Anchors", "Variances"))


def iou_similarity(x, y, box_normalized=True, name=None):
    """[N, M]: the intersection over union of each box of x [N, 4] with each box of y [M, 4]."""
    helper = LayerHelper("iou_similarity", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("iou_similarity", {"X": [x], "Y": [y]}, {"Out": [out]}, {"box_normalized": bool(box_normalized)})
    return out


def box_coder(
    prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, name=None, axis=0
):
    """Encodes target boxes [N, 4] against prior boxes [M, 4] (-> [N, M, 4]) or decodes offsets
    [N, M, 4] into boxes. ``prior_box_var``: a Variable [M, 4], or a list of 4 variances."""
    float_input("box_coder", "prior_box", prior_box)
    float_input("box_coder", "target_box", target_box)
    helper = LayerHelper("box_coder", name=name)
    inputs = {"PriorBox": [prior_box], "TargetBox": [target_box]}
    attrs = {"code_type": code_type, "box_normalized": bool(box_normalized), "axis": axis}
    if isinstance(prior_box_var, Variable):
        inputs["PriorBoxVar"] = [prior_box_var]
    elif isinstance(prior_box_var, (list, tuple)):
        attrs["variance"] = _floats(prior_box_var)
    else:
        raise ArgumentTypeError(
            f"box_coder: prior_box_var must be a Variable or a list of 4 floats, not {type(prior_box_var).__name__}"
        )
    out = helper.create_variable_for_type_inference(target_box.dtype)
    helper.append_op("box_coder", inputs, {"OutputBox": [out]}, attrs)
    return out


@fluid_checks("box_clip", input=("float32", "float64"), im_info=("float32", "float64"))
def box_clip(input, im_info, name=None):
    """Clips each image's boxes (input [..., 4], a LoDTensor over the images) to its size: [0, w - 1]
    x [0, h - 1], from im_info [N, 3] (height, width, scale) as round(size / scale)."""
    helper = LayerHelper("box_clip", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("box_clip", {"Input": [input], "ImInfo": [im_info]}, {"Output": [out]})
    return out


def polygon_box_transform(input, name=None):
    """EAST's geometry map [N, 2k, H, W] to absolute coordinates: 4 * (column, row) - input."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "polygon_box_transform")
    helper = LayerHelper("polygon_box_transform", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("polygon_box_transform", {"Input": [input]}, {"Output": [out]})
    return out


def box_decoder_and_assign(prior_box, prior_box_var, target_box, box_score, box_clip, name=None):
    """Decodes each RoI's per-class deltas target_box [N, 4 * C] against prior_box [N, 4] with the 4
    variances prior_box_var: (decoded boxes [N, 4 * C], the best non-background class's box [N, 4])."""
    for what, v in (
        ("prior_box", prior_box),
        ("prior_box_var", prior_box_var),
        ("target_box", target_box),
        ("box_score", box_score),
    ):
        float_input("box_decoder_and_assign", what, v)
    helper = LayerHelper("box_decoder_and_assign", name=name)
    decoded = helper.create_variable_for_type_inference(prior_box.dtype)
    assigned = helper.create_variable_for_type_inference(prior_box.dtype)
    helper.append_op(
        "box_decoder_and_assign",
        {"PriorBox": [prior_box], "PriorBoxVar": [prior_box_var], "TargetBox": [target_box], "BoxScore": [box_score]},
        {"DecodeBox": [decoded], "OutputAssignBox": [assigned]},
        {"box_clip": float(box_clip)},
    )
    return decoded, assigned
