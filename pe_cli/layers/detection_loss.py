"""Fluid 1.8's detection losses (python/paddle/fluid/layers/detection.py): sigmoid_focal_loss
(RetinaNet's, one op) and ssd_loss, composed as Fluid composes it:
iou_similarity and bipartite_match find the matches, a first softmax cross-entropy ranks the
negatives for mine_hard_examples, target_assign gives the classification and regression targets,
and the loss is the weighted softmax cross-entropy plus smooth L1 per image."""

from ..base.errors import ArgumentValueError, PeError
from .detection_box import box_coder, float_input, iou_similarity
from .detection_match import bipartite_match, target_assign
from .checks import check_variable_and_dtype
from .helper import LayerHelper
from .loss_classification import softmax_with_cross_entropy
from .loss_regression import smooth_l1
from .manipulation import cast, flatten, reshape
from .reduction import reduce_sum

__all__ = ["ssd_loss", "sigmoid_focal_loss"]


def _mine(helper, conf_loss, matched, dist, neg_pos_ratio, neg_overlap, mining_type, sample_size):
    neg = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    updated = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "mine_hard_examples",
        {"ClsLoss": [conf_loss], "MatchIndices": [matched], "MatchDist": [dist]},
        {"NegIndices": [neg], "UpdatedMatchIndices": [updated]},
        {
            "neg_pos_ratio": float(neg_pos_ratio),
            "neg_dist_threshold": float(neg_overlap),
            "mining_type": mining_type,
            "sample_size": int(sample_size or 0),
        },
    )
    return neg, updated


def _num_prior(location, confidence, mining_type):
    """ssd_loss's inputs checked: the number of priors Np of confidence [N, Np, C], known when built."""
    if mining_type != "max_negative":
        raise ArgumentValueError(
            f"ssd_loss: mining_type={mining_type!r}; only 'max_negative' is supported (as in Fluid)"
        )
    float_input("ssd_loss", "location", location)
    float_input("ssd_loss", "confidence", confidence)
    num_prior = confidence.shape[1] if len(confidence.shape or ()) == 3 else None
    if num_prior is None or num_prior < 0:
        raise PeError(
            f"ssd_loss: confidence {list(confidence.shape or ())} must be [N, Np, C] with Np known when "
            "the program is built"
        )
    return num_prior


def ssd_loss(
    location,
    confidence,
    gt_box,
    gt_label,
    prior_box,
    prior_box_var=None,
    background_label=0,
    overlap_threshold=0.5,
    neg_pos_ratio=3.0,
    neg_overlap=0.5,
    loc_loss_weight=1.0,
    conf_loss_weight=1.0,
    match_type="per_prediction",
    mining_type="max_negative",
    normalize=True,
    sample_size=None,
):
    """SSD's multi-box loss [N, 1] per image: location [N, Np, 4] and confidence [N, Np, C] predictions,
    gt_box [Ng, 4] and gt_label [Ng, 1] (LoDTensors over the images), prior_box [Np, 4] and its
    variances (a Variable [Np, 4] or a list of 4)."""
    num_prior = _num_prior(location, confidence, mining_type)
    helper = LayerHelper("ssd_loss")
    # 1. match priors to ground-truth boxes
    iou = iou_similarity(x=gt_box, y=prior_box)
    matched, dist = bipartite_match(iou, match_type, overlap_threshold)
    # 2. the confidence loss that ranks the negatives
    gt_label = reshape(gt_label, shape=(len(gt_label.shape) - 1) * (0,) + (-1, 1))
    gt_label.stop_gradient = True
    target_label, _ = target_assign(gt_label, matched, mismatch_value=background_label)
    confidence = flatten(confidence, axis=2)
    target_label = flatten(cast(target_label, "int64"), axis=2)
    target_label.stop_gradient = True
    conf_loss = reshape(softmax_with_cross_entropy(confidence, target_label), shape=(-1, num_prior))
    conf_loss.stop_gradient = True
    # 3. hard negatives
    neg, updated = _mine(helper, conf_loss, matched, dist, neg_pos_ratio, neg_overlap, mining_type, sample_size)
    # 4. targets
    encoded = box_coder(
        prior_box=prior_box, prior_box_var=prior_box_var, target_box=gt_box, code_type="encode_center_size"
    )
    target_bbox, target_loc_weight = target_assign(encoded, updated, mismatch_value=background_label)
    target_label, target_conf_weight = target_assign(
        gt_label, updated, negative_indices=neg, mismatch_value=background_label
    )
    # 5. the loss
    target_label = cast(flatten(target_label, axis=2), "int64")
    target_conf_weight = flatten(target_conf_weight, axis=2)
    conf_loss = softmax_with_cross_entropy(confidence, target_label) * target_conf_weight
    target_bbox = flatten(target_bbox, axis=2)
    target_loc_weight = flatten(target_loc_weight, axis=2)
    loc_loss = smooth_l1(flatten(location, axis=2), target_bbox) * target_loc_weight
    for v in (target_label, target_conf_weight, target_bbox, target_loc_weight):
        v.stop_gradient = True
    loss = conf_loss_weight * conf_loss + loc_loss_weight * loc_loss
    loss = reduce_sum(reshape(loss, shape=(-1, num_prior)), dim=1, keep_dim=True)
    if normalize:
        loss = loss / reduce_sum(target_loc_weight)
    return loss


def sigmoid_focal_loss(x, label, fg_num, gamma=2.0, alpha=0.25):
    """RetinaNet's focal loss per sample and class: x [N, C] logits, label [N, 1] int32 (0: background,
    -1: ignored, d: class d - 1 of x), fg_num [1] int32 (the foreground count that normalizes it)."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "sigmoid_focal_loss")
    check_variable_and_dtype(label, "label", ("int32",), "sigmoid_focal_loss")
    check_variable_and_dtype(fg_num, "fg_num", ("int32",), "sigmoid_focal_loss")
    helper = LayerHelper("sigmoid_focal_loss")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "sigmoid_focal_loss",
        {"X": [x], "Label": [label], "FgNum": [fg_num]},
        {"Out": [out]},
        {"gamma": float(gamma), "alpha": float(alpha)},
    )
    return out
