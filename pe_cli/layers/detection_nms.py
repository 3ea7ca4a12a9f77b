"""Fluid 1.8's NMS layers of ``fluid.layers`` (python/paddle/fluid/layers/detection.py), with its
signatures: multiclass_nms, matrix_nms, locality_aware_nms, detection_output (box_coder + softmax +
transpose + multiclass_nms, composed as Fluid does) and retinanet_detection_output (RetinaNet's
decoding and NMS over the FPN levels)."""

from .detection_box import box_coder, float_input
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper
from .activation import softmax
from .manipulation import transpose

__all__ = ["multiclass_nms", "matrix_nms", "locality_aware_nms", "detection_output", "retinanet_detection_output"]


def nms(helper, op, bboxes, scores, attrs, with_index):
    out = helper.create_variable_for_type_inference(bboxes.dtype, stop_gradient=True)
    outputs = {"Out": [out]}
    if with_index:
        index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
        outputs["Index"] = [index]
    helper.append_op(op, {"BBoxes": [bboxes], "Scores": [scores]}, outputs, attrs)
    return (out, index) if with_index else out


def multiclass_nms(
    bboxes,
    scores,
    score_threshold,
    nms_top_k,
    keep_top_k,
    nms_threshold=0.3,
    normalized=True,
    nms_eta=1.0,
    background_label=0,
    name=None,
):
    """Per image and class, greedy NMS of the boxes above score_threshold; a LoDTensor [No, 6] of
    (label, score, xmin, ymin, xmax, ymax) rows with a LoD over the images, or [[-1]] when nothing is
    kept. bboxes [N, M, 4] with scores [N, C, M], or bboxes [M, C, 4] with scores [M, C] (LoD)."""
    float_input("multiclass_nms", "bboxes", bboxes)
    float_input("multiclass_nms", "scores", scores)
    helper = LayerHelper("multiclass_nms", name=name)
    attrs = {
        "background_label": int(background_label),
        "score_threshold": float(score_threshold),
        "nms_top_k": int(nms_top_k),
        "nms_threshold": float(nms_threshold),
        "nms_eta": float(nms_eta),
        "keep_top_k": int(keep_top_k),
        "normalized": bool(normalized),
    }
    return nms(helper, "multiclass_nms", bboxes, scores, attrs, False)


def locality_aware_nms(
    bboxes,
    scores,
    score_threshold,
    nms_top_k,
    keep_top_k,
    nms_threshold=0.3,
    normalized=True,
    nms_eta=1.0,
    background_label=-1,
    name=None,
):
    """EAST's locality-aware NMS per image and class: consecutive overlapping boxes merge (weighted by
    score) before multiclass_nms's greedy NMS; a LoDTensor [No, 6] over the images, [[-1]] when nothing
    is kept. bboxes [N, M, 4] (boxes) or [N, M, 8|16|24|32] (polygons), scores [N, C, M]."""
    float_input("locality_aware_nms", "bboxes", bboxes)
    float_input("locality_aware_nms", "scores", scores)
    for what, value, kind in (
        ("background_label", background_label, int),
        ("score_threshold", score_threshold, float),
        ("nms_top_k", nms_top_k, int),
        ("nms_eta", nms_eta, float),
        ("nms_threshold", nms_threshold, float),
        ("keep_top_k", keep_top_k, int),
        ("normalized", normalized, bool),
    ):  # Fluid 1.8's TypeErrors
        check_type(value, what, kind, "locality_aware_nms")
    helper = LayerHelper("locality_aware_nms", name=name)
    attrs = {
        "background_label": int(background_label),
        "score_threshold": float(score_threshold),
        "nms_top_k": int(nms_top_k),
        "nms_threshold": float(nms_threshold),
        "nms_eta": float(nms_eta),
        "keep_top_k": int(keep_top_k),
        "normalized": bool(normalized),
    }
    return nms(helper, "locality_aware_nms", bboxes, scores, attrs, False)


def matrix_nms(
    bboxes,
    scores,
    score_threshold,
    post_threshold,
    nms_top_k,
    keep_top_k,
    use_gaussian=False,
    gaussian_sigma=2.0,
    background_label=0,
    normalized=True,
    return_index=False,
    name=None,
):
    """Matrix NMS (SOLOv2's) per image and class: scores decay with the overlaps instead of boxes being
    dropped; a LoDTensor [No, 6] of (label, decayed score, box) rows over the images, best first (and
    Index [No, 1] with return_index). bboxes [N, M, 4], scores [N, C, M]."""
    float_input("matrix_nms", "bboxes", bboxes)
    float_input("matrix_nms", "scores", scores)
    helper = LayerHelper("matrix_nms", name=name)
    out = helper.create_variable_for_type_inference(bboxes.dtype, stop_gradient=True)
    index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "matrix_nms",
        {"BBoxes": [bboxes], "Scores": [scores]},
        {"Out": [out], "Index": [index]},
        {
            "background_label": int(background_label),
            "score_threshold": float(score_threshold),
            "post_threshold": float(post_threshold),
            "nms_top_k": int(nms_top_k),
            "keep_top_k": int(keep_top_k),
            "normalized": bool(normalized),
            "use_gaussian": bool(use_gaussian),
            "gaussian_sigma": float(gaussian_sigma),
        },
    )
    return (out, index) if return_index else out


def detection_output(
    loc,
    scores,
    prior_box,
    prior_box_var,
    background_label=0,
    nms_threshold=0.3,
    nms_top_k=400,
    keep_top_k=200,
    score_threshold=0.01,
    nms_eta=1.0,
    return_index=False,
):
    """SSD's detections: loc [N, M, 4] decoded against the priors [M, 4], scores [N, M, C] through
    softmax, then multiclass_nms. Returns the LoDTensor [No, 6] (and Index [No, 1] with return_index)."""
    helper = LayerHelper("detection_output")
    decoded = box_coder(
        prior_box=prior_box, prior_box_var=prior_box_var, target_box=loc, code_type="decode_center_size"
    )
    probs = transpose(softmax(input=scores), perm=[0, 2, 1])
    probs.stop_gradient = True
    attrs = {
        "background_label": int(background_label),
        "nms_threshold": float(nms_threshold),
        "nms_top_k": int(nms_top_k),
        "keep_top_k": int(keep_top_k),
        "score_threshold": float(score_threshold),
        "nms_eta": float(nms_eta),
        "normalized": True,
    }
    op = "multiclass_nms2" if return_index else "multiclass_nms"
    return nms(helper, op, decoded, probs, attrs, return_index)


def retinanet_detection_output(
    bboxes,
    scores,
    anchors,
    im_info,
    score_threshold=0.05,
    nms_top_k=1000,
    keep_top_k=100,
    nms_threshold=0.3,
    nms_eta=1.0,
):
    """RetinaNet's detections: ``bboxes`` [N, Mi, 4] deltas, ``scores`` [N, Mi, C] and ``anchors``
    [Mi, 4] per FPN level (lists), ``im_info`` [N, 3]. Returns [K, 6] rows [label, score, x1, y1,
    x2, y2] (labels from 1) with a LoD sequence per image."""
    for what, values in (("bboxes", bboxes), ("scores", scores), ("anchors", anchors)):
        check_type(values, what, list, "retinanet_detection_output")
        for i, value in enumerate(values):
            check_variable_and_dtype(value, f"{what[:-1]}{i}", ("float32", "float64"), "retinanet_detection_output")
    check_variable_and_dtype(im_info, "im_info", ("float32", "float64"), "retinanet_detection_output")
    bboxes, scores, anchors = list(bboxes), list(scores), list(anchors)
    helper = LayerHelper("retinanet_detection_output")
    out = helper.create_variable_for_type_inference(scores[0].dtype if scores else "float32", stop_gradient=True)
    helper.append_op(
        "retinanet_detection_output",
        {"BBoxes": bboxes, "Scores": scores, "Anchors": anchors, "ImInfo": [im_info]},
        {"Out": [out]},
        {
            "score_threshold": float(score_threshold),
            "nms_top_k": nms_top_k,
            "keep_top_k": keep_top_k,
            "nms_threshold": float(nms_threshold),
            "nms_eta": float(nms_eta),
        },
    )
    return out
