"""The training-target ops of Fluid 1.8's two-stage detectors (kernels in
kernels/<device>/detection_target.py; no gradients): rpn_target_assign and retinanet_target_assign
(per image, anchors (inside the image by rpn_straddle_thresh) matched to the non-crowd gt boxes by
IoU, a sampled minibatch of foreground and background anchors, their labels and regression targets;
retinanet: every candidate anchor, labelled with its gt box's class), generate_proposal_labels
(Fast R-CNN's sampled rois with their class labels and box targets) and generate_mask_labels (Mask
R-CNN's mask targets: for each foreground roi (LabelsInt32 > 0) the gt object (GtSegms: polygons, a
3-level LoD images / objects / polygons) whose polygons' box overlaps it most, rasterized in the roi
at resolution x resolution into its class's slot)."""

from ..kernels.cpu import detection_target as cpu_target
from ..shapes import detection_targets as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, is_int, register


def _infer(ctx):
    """Both ops' outputs (retinanet's ForegroundNumber too)."""
    anchor, gt, info = ctx.shape("Anchor"), ctx.shape("GtBoxes"), ctx.shape("ImInfo")
    if len(anchor) != 2 or anchor[1] not in (4, -1):
        ctx.fail(f"Anchor {fmt_shape(anchor)} must be [H * W * A, 4]")
    if len(gt) != 2 or gt[1] not in (4, -1):
        ctx.fail(f"GtBoxes {fmt_shape(gt)} must be [G, 4] with a LoD sequence per image")
    if len(info) != 2:
        ctx.fail(f"ImInfo {fmt_shape(info)} must be [N, 3] (height, width, scale)")
    dtype = ctx.dtype("Anchor")
    ctx.set_output("LocationIndex", [-1], "int32", lod_level=1)
    ctx.set_output("ScoreIndex", [-1], "int32", lod_level=1)
    ctx.set_output("TargetBBox", [-1, 4], dtype, lod_level=1)
    ctx.set_output("TargetLabel", [-1, 1], "int32", lod_level=1)
    ctx.set_output("BBoxInsideWeight", [-1, 4], dtype, lod_level=1)
    ctx.set_output("ForegroundNumber", [info[0], 1], "int32", lod_level=1)


register(
    "rpn_target_assign",
    kernel_module="detection_target",
    inputs=["Anchor", "GtBoxes", "IsCrowd", "ImInfo"],
    outputs=["LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight"],
    attrs={
        "rpn_batch_size_per_im": Attr(256, lambda v: is_int(v) and v > 0, "an int > 0"),
        "rpn_straddle_thresh": 0.0,
        "rpn_positive_overlap": 0.7,
        "rpn_negative_overlap": 0.3,
        "rpn_fg_fraction": 0.25,
        "use_random": True,
    },
    infer=_infer,
    lod="drop",
    structured=Structured(meta=metas.rpn_target_assign_meta, cpu=cpu_target.rpn_target_assign_out),
    needs_lod=True,
    needs_rng=True,
    doc="Per image: foreground anchors (the best for some gt box, or IoU >= rpn_positive_overlap; at most "
    "rpn_fg_fraction of rpn_batch_size_per_im, reservoir-sampled when use_random) and background anchors "
    "(IoU < rpn_negative_overlap, the rest of the minibatch). ScoreIndex: their indexes in the batch's "
    "anchors (N * A), foreground first, with TargetLabel 1 / 0; LocationIndex, TargetBBox (box deltas "
    "to the best gt box) and BBoxInsideWeight for the foreground, each a LoD sequence per image.",
)
register(
    "retinanet_target_assign",
    kernel_module="detection_target",
    inputs=["Anchor", "GtBoxes", "GtLabels", "IsCrowd", "ImInfo"],
    outputs=["LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight", "ForegroundNumber"],
    attrs={"positive_overlap": 0.5, "negative_overlap": 0.4},
    infer=_infer,
    lod="drop",
    structured=Structured(meta=metas.retinanet_target_assign_meta, cpu=cpu_target.retinanet_target_assign_out),
    needs_lod=True,
    doc="As rpn_target_assign without sampling or the straddle filter: every anchor that is the best for a "
    "gt box or overlaps one by positive_overlap is foreground, labelled with that box's class (GtLabels), "
    "every anchor below negative_overlap background (label 0); ForegroundNumber [N, 1]: each image's "
    "location rows + 1 (the focal loss's normalizer, as Fluid's).",
)


def _infer_labels(ctx):
    for slot in ("RpnRois", "GtBoxes", "ImInfo"):
        if len(ctx.shape(slot)) != 2:
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} must be 2-D")
    width, dtype = 4 * ctx.attrs["class_nums"], ctx.dtype("RpnRois")
    ctx.set_output("Rois", [-1, 4], dtype, lod_level=1)
    ctx.set_output("LabelsInt32", [-1, 1], "int32", lod_level=1)
    for slot in ("BboxTargets", "BboxInsideWeights", "BboxOutsideWeights"):
        ctx.set_output(slot, [-1, width], dtype, lod_level=1)
    ctx.set_output("MaxOverlapWithGT", [-1], dtype, lod_level=1)


register(
    "generate_proposal_labels",
    kernel_module="detection_target",
    inputs=["RpnRois", "GtClasses", "IsCrowd", "GtBoxes", "ImInfo", "MaxOverlap?"],
    outputs=["Rois", "LabelsInt32", "BboxTargets", "BboxInsideWeights", "BboxOutsideWeights", "MaxOverlapWithGT?"],
    attrs={
        "batch_size_per_im": Attr(256, lambda v: is_int(v) and v > 0, "an int > 0"),
        "fg_fraction": 0.25,
        "fg_thresh": 0.25,
        "bg_thresh_hi": 0.5,
        "bg_thresh_lo": 0.0,
        "bbox_reg_weights": Attr(lambda: [0.1, 0.1, 0.2, 0.2], lambda v: len(v) == 4, "4 numbers"),
        "class_nums": Attr(81, lambda v: is_int(v) and v > 0, "an int > 0"),
        "use_random": True,
        "is_cls_agnostic": False,
        "is_cascade_rcnn": False,
    },
    infer=_infer_labels,
    lod="drop",
    structured=Structured(meta=metas.proposal_labels_meta, cpu=cpu_target.generate_proposal_labels_out),
    needs_lod=True,
    needs_rng=True,
    doc="Fast R-CNN's training rois per image: the gt boxes and RpnRois (over the image scale) matched to the "
    "gt boxes by IoU; foreground (IoU >= fg_thresh, at most fg_fraction of batch_size_per_im, labelled "
    "with its box's class) and background (IoU in [bg_thresh_lo, bg_thresh_hi), label 0) sampled; Rois "
    "scaled back; BboxTargets: the box deltas (over bbox_reg_weights) in the 4 columns of the label "
    "(column 1 when is_cls_agnostic), with inside and outside weights 1 there; MaxOverlapWithGT: the "
    "rois' best IoU. Each output a LoD sequence per image.",
)


_POS = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")


def _infer_mask(ctx):
    if len(ctx.shape("Rois")) != 2 or ctx.shape("Rois")[1] != 4:
        ctx.fail(f"Rois {fmt_shape(ctx.shape('Rois'))} must be [R, 4]")
    if list(ctx.shape("GtSegms")[-1:]) != [2]:
        ctx.fail(f"GtSegms {fmt_shape(ctx.shape('GtSegms'))} must be [S, 2] polygon points")
    width = ctx.attrs["num_classes"] * ctx.attrs["resolution"] ** 2
    ctx.set_output("MaskRois", [-1, 4], ctx.dtype("Rois"), lod_level=1)
    ctx.set_output("RoiHasMaskInt32", [-1, 1], "int32", lod_level=1)
    ctx.set_output("MaskInt32", [-1, width], "int32", lod_level=1)


register(
    "generate_mask_labels",
    kernel_module="detection_target",
    inputs=["ImInfo", "GtClasses", "IsCrowd", "GtSegms", "Rois", "LabelsInt32"],
    outputs=["MaskRois", "RoiHasMaskInt32", "MaskInt32"],
    attrs={"num_classes": _POS, "resolution": _POS},
    infer=_infer_mask,
    lod="drop",
    structured=Structured(meta=metas.mask_labels_meta, cpu=cpu_target.generate_mask_labels_out),
    needs_lod=True,
    doc="Per image: MaskRois, the foreground rois; RoiHasMaskInt32, their rows in Rois; MaskInt32 "
    "[P, num_classes * resolution^2], -1 everywhere but the roi's class, where the best-overlapping "
    "non-crowd object's polygons rasterized in the roi (COCO's rule) give 0 / 1. An image without "
    "foreground gives its first roi with all -1 (as Fluid).",
)
