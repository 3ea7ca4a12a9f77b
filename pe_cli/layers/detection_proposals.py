"""Region proposal layers of Fluid 1.8's ``fluid.layers`` with its signatures: generate_proposals,
distribute_fpn_proposals, collect_fpn_proposals; and retinanet_detection_output (RetinaNet's decoding
and NMS over the FPN levels)."""
__all__ = ["generate_proposals", "distribute_fpn_proposals", "collect_fpn_proposals", "retinanet_detection_output",
           "rpn_target_assign", "retinanet_target_assign", "generate_proposal_labels",
           "generate_mask_labels"]
from ..errors import ArgumentTypeError, PeError
from .helper import LayerHelper
from .indexing import gather
from .manipulation import reshape


def _float_var(layer, what, var):
    """Fluid's check_variable_and_dtype: a float32 or float64 Variable (TypeError else)."""
    if getattr(var, "dtype", None) not in ("float32", "float64"):
        raise ArgumentTypeError(f"{layer}: {what} must be a float32 or float64 Variable, not "
                                f"{getattr(var, 'dtype', type(var).__name__)}")


def generate_proposals(scores, bbox_deltas, im_info, anchors, variances, pre_nms_top_n=6000, post_nms_top_n=1000,
                       nms_thresh=0.5, min_size=0.1, eta=1.0, name=None, return_rois_num=False):
    """Faster R-CNN's proposals: per image the best-scored anchors (``scores`` [N, A, H, W]) moved by
    ``bbox_deltas`` [N, 4A, H, W], clipped to ``im_info`` [N, 3] (height, width, scale), small ones
    dropped, then NMS. Returns (rpn_rois [R, 4], rpn_roi_probs [R, 1]), a LoD sequence per image, and
    with ``return_rois_num`` the rois per image [N] (int32)."""
    helper = LayerHelper("generate_proposals", name=name)
    rois = helper.create_variable_for_type_inference(scores.dtype, stop_gradient=True)
    probs = helper.create_variable_for_type_inference(scores.dtype, stop_gradient=True)
    outputs = {"RpnRois": [rois], "RpnRoiProbs": [probs]}
    if return_rois_num:
        outputs["RpnRoisNum"] = [helper.create_variable_for_type_inference("int32", stop_gradient=True)]
    helper.append_op("generate_proposals", {"Scores": [scores], "BboxDeltas": [bbox_deltas], "ImInfo": [im_info],
                                            "Anchors": [anchors], "Variances": [variances]}, outputs,
                     {"pre_nms_topN": pre_nms_top_n, "post_nms_topN": post_nms_top_n, "nms_thresh": float(nms_thresh),
                      "min_size": float(min_size), "eta": float(eta)})
    return (rois, probs, outputs["RpnRoisNum"][0]) if return_rois_num else (rois, probs)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale, name=None):
    """Splits ``fpn_rois`` [R, 4] (a LoD sequence per image) over the FPN levels min_level..max_level
    by size; returns (the list of the levels' rois, restore_ind [R, 1]: where each roi went in the
    levels' outputs concatenated, for gather to put their features back in order)."""
    _float_var("distribute_fpn_proposals", "fpn_rois", fpn_rois)
    if max_level < min_level:
        raise PeError(f"distribute_fpn_proposals: max_level={max_level} is below min_level={min_level}")
    helper = LayerHelper("distribute_fpn_proposals", name=name)
    multi = [helper.create_variable_for_type_inference(fpn_rois.dtype, stop_gradient=True)
             for _ in range(max_level - min_level + 1)]
    restore = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("distribute_fpn_proposals", {"FpnRois": [fpn_rois]},
                     {"MultiFpnRois": multi, "RestoreIndex": [restore]},
                     {"min_level": min_level, "max_level": max_level, "refer_level": refer_level,
                      "refer_scale": refer_scale})
    return multi, restore


def collect_fpn_proposals(multi_rois, multi_scores, min_level, max_level, post_nms_top_n, name=None):
    """The post_nms_top_n best-scored rois of levels min_level..max_level (``multi_rois`` and
    ``multi_scores`` lists, one per level), grouped by image: [K, 4] with a LoD sequence per image."""
    for what, value in (("multi_rois", multi_rois), ("multi_scores", multi_scores)):
        if not isinstance(value, (list, tuple)):
            raise ArgumentTypeError(f"collect_fpn_proposals: {what} must be a list of Variables (one per level), "
                                    f"not {type(value).__name__}")
        for var in value:
            _float_var("collect_fpn_proposals", what, var)
    levels = max_level - min_level + 1
    rois, scores = list(multi_rois)[:levels], list(multi_scores)[:levels]
    helper = LayerHelper("collect_fpn_proposals", name=name)
    out = helper.create_variable_for_type_inference(rois[0].dtype if rois else "float32", stop_gradient=True)
    helper.append_op("collect_fpn_proposals", {"MultiLevelRois": rois, "MultiLevelScores": scores},
                     {"FpnRois": [out]}, {"post_nms_topN": post_nms_top_n})
    return out


def retinanet_detection_output(bboxes, scores, anchors, im_info, score_threshold=0.05, nms_top_k=1000,
                               keep_top_k=100, nms_threshold=0.3, nms_eta=1.0):
    """RetinaNet's detections: ``bboxes`` [N, Mi, 4] deltas, ``scores`` [N, Mi, C] and ``anchors``
    [Mi, 4] per FPN level (lists), ``im_info`` [N, 3]. Returns [K, 6] rows [label, score, x1, y1,
    x2, y2] (labels from 1) with a LoD sequence per image."""
    bboxes, scores, anchors = list(bboxes), list(scores), list(anchors)
    helper = LayerHelper("retinanet_detection_output")
    out = helper.create_variable_for_type_inference(scores[0].dtype if scores else "float32", stop_gradient=True)
    helper.append_op("retinanet_detection_output", {"BBoxes": bboxes, "Scores": scores, "Anchors": anchors,
                                                    "ImInfo": [im_info]}, {"Out": [out]},
                     {"score_threshold": float(score_threshold), "nms_top_k": nms_top_k, "keep_top_k": keep_top_k,
                      "nms_threshold": float(nms_threshold), "nms_eta": float(nms_eta)})
    return out


def rpn_target_assign(bbox_pred, cls_logits, anchor_box, anchor_var, gt_boxes, is_crowd, im_info,
                      rpn_batch_size_per_im=256, rpn_straddle_thresh=0.0, rpn_fg_fraction=0.5,
                      rpn_positive_overlap=0.7, rpn_negative_overlap=0.3, use_random=True):
    """Faster R-CNN's RPN targets: samples foreground and background anchors per image against
    ``gt_boxes`` (a LoD sequence per image; ``is_crowd`` boxes ignored) and returns
    (the sampled cls_logits [F + B, 1], the sampled bbox_pred [F, 4], target_label [F + B, 1] int32,
    target_bbox [F, 4], bbox_inside_weight [F, 4]). ``anchor_var`` is not read, as in Fluid."""
    helper = LayerHelper("rpn_target_assign")
    outs = {slot: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
            for slot, dtype in (("LocationIndex", "int32"), ("ScoreIndex", "int32"), ("TargetLabel", "int32"),
                                ("TargetBBox", anchor_box.dtype), ("BBoxInsideWeight", anchor_box.dtype))}
    helper.append_op("rpn_target_assign", {"Anchor": [anchor_box], "GtBoxes": [gt_boxes], "IsCrowd": [is_crowd],
                                           "ImInfo": [im_info]}, {k: [v] for k, v in outs.items()},
                     {"rpn_batch_size_per_im": rpn_batch_size_per_im, "rpn_straddle_thresh": float(rpn_straddle_thresh),
                      "rpn_positive_overlap": float(rpn_positive_overlap),
                      "rpn_negative_overlap": float(rpn_negative_overlap), "rpn_fg_fraction": float(rpn_fg_fraction),
                      "use_random": bool(use_random)})
    scores = gather(reshape(cls_logits, [-1, 1]), outs["ScoreIndex"])
    boxes = gather(reshape(bbox_pred, [-1, 4]), outs["LocationIndex"])
    return scores, boxes, outs["TargetLabel"], outs["TargetBBox"], outs["BBoxInsideWeight"]


def retinanet_target_assign(bbox_pred, cls_logits, anchor_box, anchor_var, gt_boxes, gt_labels, is_crowd, im_info,
                            num_classes=1, positive_overlap=0.5, negative_overlap=0.4):
    """RetinaNet's targets: every foreground anchor (best for a gt box, or overlapping one by
    positive_overlap) labelled with its box's class, every background anchor (below
    negative_overlap) 0. Returns (the sampled cls_logits [F + B, num_classes], the sampled bbox_pred
    [F, 4], target_label [F + B, 1] int32, target_bbox [F, 4], bbox_inside_weight [F, 4],
    fg_num [N, 1] int32)."""
    helper = LayerHelper("retinanet_target_assign")
    outs = {slot: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
            for slot, dtype in (("LocationIndex", "int32"), ("ScoreIndex", "int32"), ("TargetLabel", "int32"),
                                ("TargetBBox", anchor_box.dtype), ("BBoxInsideWeight", anchor_box.dtype),
                                ("ForegroundNumber", "int32"))}
    helper.append_op("retinanet_target_assign", {"Anchor": [anchor_box], "GtBoxes": [gt_boxes],
                                                 "GtLabels": [gt_labels], "IsCrowd": [is_crowd], "ImInfo": [im_info]},
                     {k: [v] for k, v in outs.items()},
                     {"positive_overlap": float(positive_overlap), "negative_overlap": float(negative_overlap)})
    scores = gather(reshape(cls_logits, [-1, num_classes]), outs["ScoreIndex"])
    boxes = gather(reshape(bbox_pred, [-1, 4]), outs["LocationIndex"])
    return (scores, boxes, outs["TargetLabel"], outs["TargetBBox"], outs["BBoxInsideWeight"],
            outs["ForegroundNumber"])


def generate_proposal_labels(rpn_rois, gt_classes, is_crowd, gt_boxes, im_info, batch_size_per_im=256,
                             fg_fraction=0.25, fg_thresh=0.25, bg_thresh_hi=0.5, bg_thresh_lo=0.0,
                             bbox_reg_weights=(0.1, 0.1, 0.2, 0.2), class_nums=None, use_random=True,
                             is_cls_agnostic=False, is_cascade_rcnn=False, max_overlap=None,
                             return_max_overlap=False):
    """Fast R-CNN's sampled training rois per image with their labels and per-class box targets.
    Returns (rois, labels_int32, bbox_targets, bbox_inside_weights, bbox_outside_weights) and, with
    ``return_max_overlap``, each roi's best IoU with a gt box. ``is_cascade_rcnn`` is not supported."""
    if class_nums is None:
        raise PeError("generate_proposal_labels: class_nums is needed (the number of classes, background included)")
    helper = LayerHelper("generate_proposal_labels")
    dtype = rpn_rois.dtype
    slots = (("Rois", dtype), ("LabelsInt32", "int32"), ("BboxTargets", dtype), ("BboxInsideWeights", dtype),
             ("BboxOutsideWeights", dtype), ("MaxOverlapWithGT", dtype))
    outs = {slot: helper.create_variable_for_type_inference(t, stop_gradient=True) for slot, t in slots}
    inputs = {"RpnRois": [rpn_rois], "GtClasses": [gt_classes], "IsCrowd": [is_crowd], "GtBoxes": [gt_boxes],
              "ImInfo": [im_info]}
    if max_overlap is not None:
        inputs["MaxOverlap"] = [max_overlap]
    helper.append_op("generate_proposal_labels", inputs, {k: [v] for k, v in outs.items()},
                     {"batch_size_per_im": batch_size_per_im, "fg_fraction": float(fg_fraction),
                      "fg_thresh": float(fg_thresh), "bg_thresh_hi": float(bg_thresh_hi),
                      "bg_thresh_lo": float(bg_thresh_lo), "bbox_reg_weights": [float(w) for w in bbox_reg_weights],
                      "class_nums": class_nums, "use_random": bool(use_random),
                      "is_cls_agnostic": bool(is_cls_agnostic), "is_cascade_rcnn": bool(is_cascade_rcnn)})
    result = tuple(outs[slot] for slot, _ in slots[:5])
    return result + (outs["MaxOverlapWithGT"],) if return_max_overlap else result


def generate_mask_labels(im_info, gt_classes, is_crowd, gt_segms, rois, labels_int32, num_classes, resolution):
    """Mask R-CNN's mask targets for the foreground rois of ``rois`` / ``labels_int32`` (from
    generate_proposal_labels): ``gt_segms`` [S, 2] polygon points with a 3-level LoD (images, objects,
    polygons). Returns (mask_rois [P, 4], roi_has_mask_int32 [P, 1], mask_int32 [P, num_classes *
    resolution^2]), each a LoD sequence per image."""
    helper = LayerHelper("generate_mask_labels")
    outs = {slot: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
            for slot, dtype in (("MaskRois", rois.dtype), ("RoiHasMaskInt32", "int32"), ("MaskInt32", "int32"))}
    helper.append_op("generate_mask_labels", {"ImInfo": [im_info], "GtClasses": [gt_classes], "IsCrowd": [is_crowd],
                                              "GtSegms": [gt_segms], "Rois": [rois], "LabelsInt32": [labels_int32]},
                     {k: [v] for k, v in outs.items()}, {"num_classes": num_classes, "resolution": resolution})
    return outs["MaskRois"], outs["RoiHasMaskInt32"], outs["MaskInt32"]
