"""The training-target layers of Fluid 1.8's two-stage detectors (``fluid.layers``, with its
signatures): rpn_target_assign and retinanet_target_assign (anchors matched to the gt boxes, a sampled
minibatch, their labels and regression targets, and the predictions gathered at the sampled anchors),
generate_proposal_labels (Fast R-CNN's sampled rois with their labels and box targets) and
generate_mask_labels (Mask R-CNN's mask targets)."""

__all__ = ["rpn_target_assign", "retinanet_target_assign", "generate_proposal_labels", "generate_mask_labels"]
from ..base.errors import PeError
from .checks import check_variable_and_dtype, fluid_checks
from .helper import LayerHelper
from .indexing import gather
from .manipulation import reshape


@fluid_checks(
    "rpn_target_assign",
    bbox_pred=("float32", "float64"),
    cls_logits=("float32", "float64"),
    anchor_box=("float32", "float64"),
    anchor_var=("float32", "float64"),
    gt_boxes=("float32", "float64"),
    is_crowd=("int32",),
    im_info=("float32", "float64"),
)
def rpn_target_assign(
    bbox_pred,
    cls_logits,
    anchor_box,
    anchor_var,
    gt_boxes,
    is_crowd,
    im_info,
    rpn_batch_size_per_im=256,
    rpn_straddle_thresh=0.0,
    rpn_fg_fraction=0.5,
    rpn_positive_overlap=0.7,
    rpn_negative_overlap=0.3,
    use_random=True,
):
    """Faster R-CNN's RPN targets: samples foreground and background anchors per image against
    ``gt_boxes`` (a LoD sequence per image; ``is_crowd`` boxes ignored) and returns
    (the sampled cls_logits [F + B, 1], the sampled bbox_pred [F, 4], target_label [F + B, 1] int32,
    target_bbox [F, 4], bbox_inside_weight [F, 4]). ``anchor_var`` is not read, as in Fluid."""
    helper = LayerHelper("rpn_target_assign")
    outs = {
        slot: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
        for slot, dtype in (
            ("LocationIndex", "int32"),
            ("ScoreIndex", "int32"),
            ("TargetLabel", "int32"),
            ("TargetBBox", anchor_box.dtype),
            ("BBoxInsideWeight", anchor_box.dtype),
        )
    }
    helper.append_op(
        "rpn_target_assign",
        {"Anchor": [anchor_box], "GtBoxes": [gt_boxes], "IsCrowd": [is_crowd], "ImInfo": [im_info]},
        {k: [v] for k, v in outs.items()},
        {
            "rpn_batch_size_per_im": rpn_batch_size_per_im,
            "rpn_straddle_thresh": float(rpn_straddle_thresh),
            "rpn_positive_overlap": float(rpn_positive_overlap),
            "rpn_negative_overlap": float(rpn_negative_overlap),
            "rpn_fg_fraction": float(rpn_fg_fraction),
            "use_random": bool(use_random),
        },
    )
    scores = gather(reshape(cls_logits, [-1, 1]), outs["ScoreIndex"])
    boxes = gather(reshape(bbox_pred, [-1, 4]), outs["LocationIndex"])
    return scores, boxes, outs["TargetLabel"], outs["TargetBBox"], outs["BBoxInsideWeight"]


@fluid_checks(
    "retinanet_target_assign",
    bbox_pred=("float32", "float64"),
    cls_logits=("float32", "float64"),
    anchor_box=("float32", "float64"),
    anchor_var=("float32", "float64"),
    gt_boxes=("float32", "float64"),
    gt_labels=("int32",),
    is_crowd=("int32",),
    im_info=("float32", "float64"),
)
def retinanet_target_assign(
    bbox_pred,
    cls_logits,
    anchor_box,
    anchor_var,
    gt_boxes,
    gt_labels,
    is_crowd,
    im_info,
    num_classes=1,
    positive_overlap=0.5,
    negative_overlap=0.4,
):
    """RetinaNet's targets: every foreground anchor (best for a gt box, or overlapping one by
    positive_overlap) labelled with its box's class, every background anchor (below
    negative_overlap) 0. Returns (the sampled cls_logits [F + B, num_classes], the sampled bbox_pred
    [F, 4], target_label [F + B, 1] int32, target_bbox [F, 4], bbox_inside_weight [F, 4],
    fg_num [N, 1] int32)."""
    for what, value in (
        ("bbox_pred", bbox_pred),
        ("cls_logits", cls_logits),
        ("anchor_box", anchor_box),
        ("anchor_var", anchor_var),
        ("gt_boxes", gt_boxes),
        ("im_info", im_info),
    ):
        if value is not None or what != "anchor_var":  # pe reads no anchor_var: None is accepted
            check_variable_and_dtype(value, what, ("float32", "float64"), "retinanet_target_assign")
    check_variable_and_dtype(gt_labels, "gt_labels", ("int32",), "retinanet_target_assign")
    check_variable_and_dtype(is_crowd, "is_crowd", ("int32",), "retinanet_target_assign")
    helper = LayerHelper("retinanet_target_assign")
    outs = {
        slot: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
        for slot, dtype in (
            ("LocationIndex", "int32"),
            ("ScoreIndex", "int32"),
            ("TargetLabel", "int32"),
            ("TargetBBox", anchor_box.dtype),
            ("BBoxInsideWeight", anchor_box.dtype),
            ("ForegroundNumber", "int32"),
        )
    }
    helper.append_op(
        "retinanet_target_assign",
        {
            "Anchor": [anchor_box],
            "GtBoxes": [gt_boxes],
            "GtLabels": [gt_labels],
            "IsCrowd": [is_crowd],
            "ImInfo": [im_info],
        },
        {k: [v] for k, v in outs.items()},
        {"positive_overlap": float(positive_overlap), "negative_overlap": float(negative_overlap)},
    )
    scores = gather(reshape(cls_logits, [-1, num_classes]), outs["ScoreIndex"])
    boxes = gather(reshape(bbox_pred, [-1, 4]), outs["LocationIndex"])
    return (scores, boxes, outs["TargetLabel"], outs["TargetBBox"], outs["BBoxInsideWeight"], outs["ForegroundNumber"])


def _proposal_label_inputs(rpn_rois, gt_classes, is_crowd, gt_boxes, im_info, max_overlap):
    """The generate_proposal_labels op's inputs (MaxOverlap: the rois' IoUs a cascade stage passes on)."""
    inputs = {
        "RpnRois": [rpn_rois],
        "GtClasses": [gt_classes],
        "IsCrowd": [is_crowd],
        "GtBoxes": [gt_boxes],
        "ImInfo": [im_info],
    }
    if max_overlap is not None:
        inputs["MaxOverlap"] = [max_overlap]
    return inputs


@fluid_checks("generate_proposal_labels", rpn_rois=("float32", "float64"), gt_classes=("int32",), is_crowd=("int32",))
def generate_proposal_labels(
    rpn_rois,
    gt_classes,
    is_crowd,
    gt_boxes,
    im_info,
    batch_size_per_im=256,
    fg_fraction=0.25,
    fg_thresh=0.25,
    bg_thresh_hi=0.5,
    bg_thresh_lo=0.0,
    bbox_reg_weights=(0.1, 0.1, 0.2, 0.2),
    class_nums=None,
    use_random=True,
    is_cls_agnostic=False,
    is_cascade_rcnn=False,
    *,
    max_overlap=None,
    return_max_overlap=False,
):
    """Fast R-CNN's sampled training rois per image with their labels and per-class box targets.
    Returns (rois, labels_int32, bbox_targets, bbox_inside_weights, bbox_outside_weights) and, with
    ``return_max_overlap``, each roi's best IoU with a gt box. With ``is_cascade_rcnn`` (Fluid's), the rois
    after each image's gt boxes' count, of positive size, all foreground and background ones kept."""
    if class_nums is None:
        raise PeError("generate_proposal_labels: class_nums is needed (the number of classes, background included)")
    helper = LayerHelper("generate_proposal_labels")
    dtype = rpn_rois.dtype
    slots = (
        ("Rois", dtype),
        ("LabelsInt32", "int32"),
        ("BboxTargets", dtype),
        ("BboxInsideWeights", dtype),
        ("BboxOutsideWeights", dtype),
        ("MaxOverlapWithGT", dtype),
    )
    outs = {slot: helper.create_variable_for_type_inference(t, stop_gradient=True) for slot, t in slots}
    helper.append_op(
        "generate_proposal_labels",
        _proposal_label_inputs(rpn_rois, gt_classes, is_crowd, gt_boxes, im_info, max_overlap),
        {k: [v] for k, v in outs.items()},
        {
            "batch_size_per_im": batch_size_per_im,
            "fg_fraction": float(fg_fraction),
            "fg_thresh": float(fg_thresh),
            "bg_thresh_hi": float(bg_thresh_hi),
            "bg_thresh_lo": float(bg_thresh_lo),
            "bbox_reg_weights": [float(w) for w in bbox_reg_weights],
            "class_nums": class_nums,
            "use_random": bool(use_random),
            "is_cls_agnostic": bool(is_cls_agnostic),
            "is_cascade_rcnn": bool(is_cascade_rcnn),
        },
    )
    result = tuple(outs[slot] for slot, _ in slots[:5])
    return result + (outs["MaxOverlapWithGT"],) if return_max_overlap else result


def generate_mask_labels(im_info, gt_classes, is_crowd, gt_segms, rois, labels_int32, num_classes, resolution):
    """Mask R-CNN's mask targets for the foreground rois of ``rois`` / ``labels_int32`` (from
    generate_proposal_labels): ``gt_segms`` [S, 2] polygon points with a 3-level LoD (images, objects,
    polygons). Returns (mask_rois [P, 4], roi_has_mask_int32 [P, 1], mask_int32 [P, num_classes *
    resolution^2]), each a LoD sequence per image."""
    helper = LayerHelper("generate_mask_labels")
    outs = {
        slot: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
        for slot, dtype in (("MaskRois", rois.dtype), ("RoiHasMaskInt32", "int32"), ("MaskInt32", "int32"))
    }
    helper.append_op(
        "generate_mask_labels",
        {
            "ImInfo": [im_info],
            "GtClasses": [gt_classes],
            "IsCrowd": [is_crowd],
            "GtSegms": [gt_segms],
            "Rois": [rois],
            "LabelsInt32": [labels_int32],
        },
        {k: [v] for k, v in outs.items()},
        {"num_classes": num_classes, "resolution": resolution},
    )
    return outs["MaskRois"], outs["RoiHasMaskInt32"], outs["MaskInt32"]
