"""Meta rules of the detectors' training-target ops (ops/detection_target.py: rpn_target_assign,
retinanet_target_assign, generate_proposal_labels, generate_mask_labels), SSD's matching ops
(ops/detection_match.py: bipartite_match, target_assign, mine_hard_examples) and sigmoid_focal_loss with its
gradient (ops/detection_loss.py). The sampled targets' and the mined negatives' lengths are the values' (-1 in a
``fresh`` Meta, their LoD the out-kernel's, set on the call's context); bipartite_match's rows are the call's LoD's
sequences (``facts.lod``), target_assign's and the focal loss's outputs their inputs' shapes."""

import numpy as np

from .structured import Meta

_INT32 = np.dtype(np.int32)
_FLOAT32 = np.dtype(np.float32)


def _fresh(outputs):
    return Meta(outputs, "fresh", fresh=True)


def _assign_outputs(dtype):
    return {
        "LocationIndex": ((-1,), _INT32),
        "ScoreIndex": ((-1,), _INT32),
        "TargetBBox": ((-1, 4), dtype),
        "TargetLabel": ((-1, 1), _INT32),
        "BBoxInsideWeight": ((-1, 4), dtype),
    }


def rpn_target_assign_meta(attrs, ins, facts):
    """rpn_target_assign: the sampled anchors' indexes (int32), labels (int32 [., 1]) and box targets and inside
    weights ([., 4] of Anchor's dtype); how many, the values'."""
    return _fresh(_assign_outputs(np.dtype(ins["Anchor"].dtype)))


def retinanet_target_assign_meta(attrs, ins, facts):
    """retinanet_target_assign: rpn_target_assign's outputs and ForegroundNumber (int32 [images, 1])."""
    outputs = _assign_outputs(np.dtype(ins["Anchor"].dtype))
    return _fresh({**outputs, "ForegroundNumber": ((-1, 1), _INT32)})


def proposal_labels_meta(attrs, ins, facts):
    """generate_proposal_labels: the sampled rois [., 4], their labels (int32 [., 1]), box targets and weights
    [., 4 * class_nums] and best overlaps [.], of RpnRois' dtype but the labels; how many, the values'."""
    dtype, width = np.dtype(ins["RpnRois"].dtype), 4 * attrs["class_nums"]
    outputs = {"Rois": ((-1, 4), dtype), "LabelsInt32": ((-1, 1), _INT32)}
    for slot in ("BboxTargets", "BboxInsideWeights", "BboxOutsideWeights"):
        outputs[slot] = ((-1, width), dtype)
    return _fresh({**outputs, "MaxOverlapWithGT": ((-1,), dtype)})


def mask_labels_meta(attrs, ins, facts):
    """generate_mask_labels: the foreground rois [., 4] (Rois' dtype), their rows (int32 [., 1]) and mask targets
    (int32 [., num_classes * resolution^2]); how many, the values'."""
    width = attrs["num_classes"] * attrs["resolution"] ** 2
    outputs = {"MaskRois": ((-1, 4), np.dtype(ins["Rois"].dtype)), "RoiHasMaskInt32": ((-1, 1), _INT32)}
    return _fresh({**outputs, "MaskInt32": ((-1, width), _INT32)})


def match_offsets(facts, rows):
    """bipartite_match's instances: DistMat's LoD (last level), or all of its rows one instance."""
    lod = facts.lod.get("DistMat")
    return [int(v) for v in lod[-1]] if lod else [0, rows]


def bipartite_match_meta(attrs, ins, facts):
    """bipartite_match: ColToRowMatchIndices (int32) and ColToRowMatchDist (DistMat's dtype), [instances, M];
    the instances' row offsets in ``args``."""
    dist = ins["DistMat"]
    offs = match_offsets(facts, dist.shape[0])
    shape = (len(offs) - 1, dist.shape[1])
    outputs = {"ColToRowMatchIndices": (shape, _INT32), "ColToRowMatchDist": (shape, np.dtype(dist.dtype))}
    return Meta(outputs, "loop", args=(offs,))


def target_assign_meta(attrs, ins, facts):
    """target_assign: Out [N, M, K] of X's dtype (N, M: MatchIndices'; K: X's last), OutWeight float32 [N, M, 1]."""
    x, match = ins["X"], ins["MatchIndices"]
    n, m = match.shape
    return Meta({"Out": ((n, m, x.shape[2]), np.dtype(x.dtype)), "OutWeight": ((n, m, 1), _FLOAT32)}, "gather")


def mine_hard_examples_meta(attrs, ins, facts):
    """mine_hard_examples: NegIndices (int32 [negatives, 1]; how many, the values') and UpdatedMatchIndices (int32,
    MatchIndices' shape)."""
    shape = tuple(ins["MatchIndices"].shape)
    return _fresh({"NegIndices": ((-1, 1), _INT32), "UpdatedMatchIndices": (shape, _INT32)})


def focal_meta(attrs, ins, facts):
    """sigmoid_focal_loss: Out of X's shape and dtype."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "numpy")


def focal_grad_meta(attrs, ins, facts):
    """sigmoid_focal_loss_grad: X@GRAD of X's shape and dtype."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "numpy")
