"""Fluid 1.8's box ops (paddle/fluid/operators/detection): prior_box, density_prior_box and
anchor_generator (boxes over a feature map's cells, from its shape and the attributes alone),
iou_similarity, box_coder (encode_center_size / decode_center_size), box_clip,
polygon_box_transform (EAST's geometry map to absolute coordinates) and box_decoder_and_assign
(Faster R-CNN's per-class decoding and the best class's box). None has a gradient in Fluid (each
registers an empty grad maker), so none has one here. Structured kernels: meta rules in shapes/detection_boxes.py,
CPU out-kernels in kernels/cpu/detection_box.py."""

import numbers

from ..kernels.cpu import detection_box as cpu_box
from ..shapes import detection_boxes as box_rules
from ..shapes.detection import density_priors, expand_aspect_ratios
from .define import Attr, Structured, backend_attrs, fmt_shape, int_list, register


def _floats(v):
    return isinstance(v, (list, tuple)) and all(isinstance(i, numbers.Real) and not isinstance(i, bool) for i in v)


def _four_positive(v):
    return _floats(v) and (len(v) == 0 or len(v) == 4)


def _feature_map(ctx, slot="Input"):
    shape = ctx.shape(slot)
    if len(shape) != 4:
        ctx.fail(f"{slot} {fmt_shape(shape)} must be a 4-D NCHW feature map")
    return shape


def _set_boxes(ctx, h, w, priors, names=("Boxes", "Variances"), flatten=False):
    shape = [h * w * priors if h >= 0 and w >= 0 else -1, 4] if flatten else [h, w, priors, 4]
    for name in names:
        ctx.set_output(name, shape, ctx.dtype("Input"), lod_level=0)


# -- prior_box -----------------------------------------------------------------------------------


def _infer_prior_box(ctx):
    shape = _feature_map(ctx)
    _feature_map(ctx, "Image")
    a = ctx.attrs
    if not a["min_sizes"]:
        ctx.fail("min_sizes is empty; give at least one prior size")
    if any(s <= 0 for s in a["min_sizes"]):
        ctx.fail(f"min_sizes {list(a['min_sizes'])} must be > 0")
    if a["max_sizes"]:
        if len(a["max_sizes"]) != len(a["min_sizes"]):
            ctx.fail(f"max_sizes {list(a['max_sizes'])} needs one size per min_sizes {list(a['min_sizes'])}")
        if any(mx <= mn for mn, mx in zip(a["min_sizes"], a["max_sizes"])):
            ctx.fail(f"each of max_sizes {list(a['max_sizes'])} must exceed its min_sizes {list(a['min_sizes'])}")
    if len(a["variances"]) != 4:
        ctx.fail(f"variances {list(a['variances'])} must hold 4 values")
    priors = len(expand_aspect_ratios(a["aspect_ratios"], a["flip"])) * len(a["min_sizes"]) + len(a["max_sizes"])
    _set_boxes(ctx, shape[2], shape[3], priors)


_STEP = Attr(0.0, lambda v: v >= 0, ">= 0 (0: the image size over the feature map's)")

register(
    "prior_box",
    structured=Structured(meta=box_rules.prior_box_meta, cpu=cpu_box.PRIOR_BOX),
    kernel_module="detection_box",
    inputs=["Input", "Image"],
    outputs=["Boxes", "Variances"],
    attrs={
        "min_sizes": Attr([], _floats, "a list of floats"),
        "max_sizes": Attr([], _floats, "a list of floats"),
        "aspect_ratios": Attr([], _floats, "a list of floats"),
        "variances": Attr([], _floats, "4 floats"),
        "flip": True,
        "clip": True,
        "step_w": _STEP,
        "step_h": _STEP,
        "offset": 0.5,
        "min_max_aspect_ratios_order": False,
        **backend_attrs("use_quantizer", "use_mkldnn"),
    },
    infer=_infer_prior_box,
    lod="drop",
    doc="SSD prior boxes [H, W, num_priors, 4] (normalized xmin, ymin, xmax, ymax) per cell of Input, "
    "and their variances of the same shape. use_quantizer (Fluid's oneDNN int8) changes nothing.",
)


# -- density_prior_box ---------------------------------------------------------------------------


def _infer_density(ctx):
    shape, image = _feature_map(ctx), _feature_map(ctx, "Image")
    a = ctx.attrs
    if len(a["fixed_sizes"]) != len(a["densities"]):
        ctx.fail(f"fixed_sizes {list(a['fixed_sizes'])} and densities {list(a['densities'])} must be as long")
    if (
        any(d <= 0 for d in a["densities"])
        or any(s <= 0 for s in a["fixed_sizes"])
        or any(r <= 0 for r in a["fixed_ratios"])
    ):
        ctx.fail("densities, fixed_sizes and fixed_ratios must all be > 0")
    if len(a["variances"]) != 4 or any(v <= 0 for v in a["variances"]):
        ctx.fail(f"variances {list(a['variances'])} must be 4 values > 0")
    for i, what in ((2, "height"), (3, "width")):
        if ctx.is_runtime and shape[i] >= image[i]:  # (Fluid compares them when it runs)
            ctx.fail(f"Input's {what} {shape[i]} must be smaller than Image's {image[i]}")
    _set_boxes(ctx, shape[2], shape[3], density_priors(a), flatten=a["flatten_to_2d"])


register(
    "density_prior_box",
    structured=Structured(meta=box_rules.density_prior_box_meta, cpu=cpu_box.DENSITY_PRIOR_BOX),
    kernel_module="detection_box",
    inputs=["Input", "Image"],
    outputs=["Boxes", "Variances"],
    attrs={
        "variances": Attr([], _floats, "4 floats > 0"),
        "clip": True,
        "flatten_to_2d": False,
        "step_w": _STEP,
        "step_h": _STEP,
        "offset": 0.5,
        "fixed_sizes": Attr([], _floats, "a list of floats > 0"),
        "fixed_ratios": Attr([], _floats, "a list of floats > 0"),
        "densities": Attr([], int_list, "a list of ints > 0"),
    },
    infer=_infer_density,
    lod="drop",
    run_infer=True,
    doc="Density prior boxes [H, W, num_priors, 4] (or [H*W*num_priors, 4] with flatten_to_2d): per size, "
    "ratio and density d, a d x d grid of boxes in each cell; and their variances.",
)


# -- anchor_generator ----------------------------------------------------------------------------


def _infer_anchor(ctx):
    shape = _feature_map(ctx)
    a = ctx.attrs
    if len(a["stride"]) != 2 or any(s <= 0 for s in a["stride"]):
        ctx.fail(f"stride {list(a['stride'])} must be 2 values > 0 (stride_width, stride_height)")
    if len(a["variances"]) != 4:
        ctx.fail(f"variances {list(a['variances'])} must hold 4 values")
    if any(s <= 0 for s in a["anchor_sizes"]) or any(r <= 0 for r in a["aspect_ratios"]):
        ctx.fail("anchor_sizes and aspect_ratios must be > 0")
    _set_boxes(
        ctx, shape[2], shape[3], len(a["anchor_sizes"]) * len(a["aspect_ratios"]), names=("Anchors", "Variances")
    )


register(
    "anchor_generator",
    structured=Structured(meta=box_rules.anchor_generator_meta, cpu=cpu_box.ANCHOR_GENERATOR),
    kernel_module="detection_box",
    inputs=["Input"],
    outputs=["Anchors", "Variances"],
    attrs={
        "anchor_sizes": Attr([64.0, 128.0, 256.0, 512.0], _floats, "a list of floats > 0"),
        "aspect_ratios": Attr([0.5, 1.0, 2.0], _floats, "a list of floats > 0"),
        "variances": Attr([0.1, 0.1, 0.2, 0.2], _floats, "4 floats"),
        "stride": Attr([16.0, 16.0], _floats, "2 floats"),
        "offset": 0.5,
    },
    infer=_infer_anchor,
    lod="drop",
    doc="Faster R-CNN anchors [H, W, num_anchors, 4] in input pixels (per aspect ratio, per size) and their variances.",
)


# -- iou_similarity ------------------------------------------------------------------------------


def _boxes(ctx, slot):
    shape = ctx.shape(slot)
    if len(shape) != 2 or shape[1] not in (4, -1):
        ctx.fail(f"{slot} {fmt_shape(shape)} must be boxes [N, 4] (xmin, ymin, xmax, ymax)")
    return shape


def _infer_iou(ctx):
    x, y = _boxes(ctx, "X"), _boxes(ctx, "Y")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    ctx.set_output("Out", [x[0], y[0]], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "iou_similarity",
    structured=Structured(meta=box_rules.iou_similarity_meta, cpu=cpu_box.IOU_SIMILARITY),
    kernel_module="detection_box",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs={"box_normalized": True},
    infer=_infer_iou,
    doc="Out[i, j] = the intersection over union of box X[i] and box Y[j] (+1 on widths and heights "
    "unless box_normalized); Out keeps X's LoD.",
)


# -- box_coder -----------------------------------------------------------------------------------


def _infer_box_coder(ctx):
    # (Fluid checks PriorBox, PriorBoxVar, the variance and the sizes decoding compares when it runs)
    prior, target = _boxes(ctx, "PriorBox") if ctx.is_runtime else ctx.shape("PriorBox"), ctx.shape("TargetBox")
    a = ctx.attrs
    if ctx.is_runtime and ctx.has_input("PriorBoxVar"):
        if a["variance"]:
            ctx.fail("give the variance as PriorBoxVar or as the variance attribute, not both")
        if list(ctx.shape("PriorBoxVar")) != list(prior):
            ctx.fail(f"PriorBoxVar {fmt_shape(ctx.shape('PriorBoxVar'))} must have PriorBox's shape {fmt_shape(prior)}")
    elif ctx.is_runtime and a["variance"] and len(a["variance"]) != 4:
        ctx.fail(f"variance {list(a['variance'])} must hold 4 values")
    if a["code_type"] == "encode_center_size":
        if len(target) != 2 or target[1] not in (4, -1):
            ctx.fail(f"TargetBox {fmt_shape(target)} must be boxes [N, 4] to encode")
        out = [target[0], prior[0] if prior else -1, 4]
    else:
        if len(target) != 3 or (ctx.is_runtime and target[2] != 4):
            ctx.fail(f"TargetBox {fmt_shape(target)} must be [N, M, 4] to decode")
        along = target[1] if a["axis"] == 0 else target[0]
        if ctx.is_runtime and along != prior[0]:
            ctx.fail(
                f"PriorBox has {prior[0]} boxes but TargetBox {fmt_shape(target)} has {along} along "
                f"axis {1 - a['axis']} (axis={a['axis']})"
            )
        out = list(target)
    ctx.set_output("OutputBox", out, ctx.dtype("TargetBox"), lod_level=ctx.input_var("TargetBox").lod_level)


register(
    "box_coder",
    structured=Structured(meta=box_rules.box_coder_meta, cpu=cpu_box.BOX_CODER),
    kernel_module="detection_box",
    inputs=["PriorBox", "PriorBoxVar?", "TargetBox"],
    run_infer=True,
    outputs=["OutputBox"],
    attrs={
        "code_type": Attr("encode_center_size", choices=("encode_center_size", "decode_center_size")),
        "box_normalized": True,
        "axis": Attr(0, choices=(0, 1)),
        "variance": Attr([], _four_positive, "4 floats, or none"),
    },
    infer=_infer_box_coder,
    doc="Encodes boxes [N, 4] against M priors ([N, M, 4] offsets: center over prior size over "
    "variance, log of size ratios over variance) or decodes offsets [N, M, 4] back to boxes; priors "
    "broadcast along axis 0 ([M, 4]) or 1 ([N, 4]).",
)


# -- box_clip ------------------------------------------------------------------------------------


def _infer_box_clip(ctx):
    shape, info = ctx.shape("Input"), ctx.shape("ImInfo")
    # (Fluid checks both when it runs)
    if ctx.is_runtime and (not shape or shape[-1] != 4):
        ctx.fail(f"Input {fmt_shape(shape)} must end in 4 (xmin, ymin, xmax, ymax)")
    if ctx.is_runtime and (len(info) != 2 or info[1] != 3):
        ctx.fail(f"ImInfo {fmt_shape(info)} must be [N, 3] (height, width, scale)")
    ctx.set_output("Output", shape, ctx.dtype("Input"), lod_level=ctx.input_var("Input").lod_level)


register(
    "box_clip",
    structured=Structured(meta=box_rules.box_clip_meta, cpu=cpu_box.BOX_CLIP),
    kernel_module="detection_box",
    inputs=["Input", "ImInfo"],
    outputs=["Output"],
    infer=_infer_box_clip,
    needs_lod=True,
    run_infer=True,
    doc="Clips each image's boxes (a sequence of Input's LoD, or a row without one) to [0, w - 1] x "
    "[0, h - 1], w and h its ImInfo width and height over scale, rounded.",
)


def _infer_polygon(ctx):
    x = ctx.shape("Input")
    if len(x) != 4 or (x[1] >= 0 and x[1] % 2):
        ctx.fail(f"Input {fmt_shape(x)} must be [N, geo_channels, H, W] with an even geo_channels")
    ctx.set_output("Output", x, ctx.dtype("Input"), lod_level=0)


register(
    "polygon_box_transform",
    structured=Structured(meta=box_rules.polygon_box_transform_meta, cpu=cpu_box.POLYGON_BOX_TRANSFORM),
    kernel_module="detection_box",
    inputs=["Input"],
    outputs=["Output"],
    infer=_infer_polygon,
    lod="drop",
    doc="Output = 4 * (the cell's column on even channels, its row on odd ones) - Input.",
)


def _infer_decode_assign(ctx):
    prior, target, score = ctx.shape("PriorBox"), ctx.shape("TargetBox"), ctx.shape("BoxScore")
    if len(prior) != 2 or prior[1] != 4:
        ctx.fail(f"PriorBox {fmt_shape(prior)} must be boxes [N, 4]")
    if not ctx.has_input("PriorBoxVar") or list(ctx.shape("PriorBoxVar")) not in ([4], [1, 4]):  # (Fluid's kernel
        ctx.fail(f"PriorBoxVar must hold 4 variances, got {ctx.op.input('PriorBoxVar') or 'none'}")  # reads it too)
    # (Fluid compares their sizes when it runs)
    if (
        len(score) != 2
        or len(target) != 2
        or ctx.is_runtime
        and (target[1] != 4 * score[1] or not prior[0] == target[0] == score[0])
    ):
        ctx.fail(
            f"TargetBox {fmt_shape(target)} must be [N, 4 * C] for BoxScore {fmt_shape(score)} [N, C] "
            f"and PriorBox {fmt_shape(prior)} [N, 4]"
        )
    ctx.set_output("DecodeBox", target, ctx.dtype("TargetBox"), lod_level=ctx.input_var("TargetBox").lod_level)
    ctx.set_output("OutputAssignBox", prior, ctx.dtype("TargetBox"), lod_level=ctx.input_var("TargetBox").lod_level)


register(
    "box_decoder_and_assign",
    structured=Structured(meta=box_rules.box_decoder_and_assign_meta, cpu=cpu_box.BOX_DECODER_AND_ASSIGN),
    kernel_module="detection_box",
    run_infer=True,
    inputs=["PriorBox", "PriorBoxVar?", "TargetBox", "BoxScore"],
    outputs=["DecodeBox", "OutputAssignBox"],
    attrs={"box_clip": 4.135},
    infer=_infer_decode_assign,
    doc="Decodes each RoI's per-class deltas (pixel boxes, log sizes clipped at box_clip); OutputAssignBox is "
    "the box of the best scoring class but class 0 (the RoI itself when there is only class 0).",
)
