"""The meta rules of the region proposal ops (ops/detection_proposals.py): generate_proposals, generate_proposals_v2,
distribute_fpn_proposals and collect_fpn_proposals. How many rois they keep the values decide: ``fresh`` variants
whose rows are -1 (the arrays' own, their LoD the out-kernel's on the call's context, kernels/structured.fresh_outputs);
the rules refuse the inputs' shapes (and the levels' LoDs) that do not fit, as the kernels did."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

_INT32 = np.dtype(np.int32)


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _check_proposal_inputs(ins, info_shape):
    """generate_proposals' refusals: BboxDeltas [N, 4 * A, H, W] and ImInfo [N, 3] for Scores [N, A, H, W];
    Anchors and Variances of H * W * A boxes (a size that is no multiple of 4 numpy's reshape refuses, in the
    out-kernel, as before)."""
    scores, deltas = tuple(ins["Scores"].shape), tuple(ins["BboxDeltas"].shape)
    n, a, h, w = scores
    if deltas != (n, 4 * a, h, w) or info_shape[0] != n:
        raise PeError(
            f"generate_proposals: BboxDeltas {list(deltas)} must be [N, 4 * A, H, W] = "
            f"{[n, 4 * a, h, w]} and ImInfo {list(info_shape)} [N, 3] for Scores {list(scores)}"
        )
    anchors, variances = _size(ins["Anchors"].shape), _size(ins["Variances"].shape)
    if anchors % 4 or variances % 4:
        return
    if anchors // 4 != h * w * a or variances != anchors:
        raise PeError(
            f"generate_proposals: Anchors and Variances must hold H * W * A = {h * w * a} boxes "
            f"[H, W, A, 4] for Scores {list(scores)}, not {anchors // 4} and {variances // 4}"
        )


def _proposals(ins, lod_counts):
    dtype, images = np.dtype(ins["Scores"].dtype), ins["Scores"].shape[0]
    outputs = {"RpnRois": ((-1, 4), dtype), "RpnRoiProbs": ((-1, 1), dtype), "RpnRoisNum": ((images,), _INT32)}
    if lod_counts:
        outputs["RpnRoisLod"] = ((images,), _INT32)
    return Meta(outputs, "fresh", fresh=True)


def generate_proposals_meta(attrs, ins, facts):
    """generate_proposals: RpnRois [-1, 4] and RpnRoiProbs [-1, 1] in Scores' dtype, RpnRoisNum and RpnRoisLod
    (Fluid 1.8's name of the same counts) int32 [N]."""
    _check_proposal_inputs(ins, tuple(ins["ImInfo"].shape))
    return _proposals(ins, True)


def generate_proposals_v2_meta(attrs, ins, facts):
    """generate_proposals_v2: generate_proposals' outputs but RpnRoisLod, ImInfo [N, 3] from ImShape [N, 2] (a
    size that is no multiple of 2 numpy's reshape refuses, in the out-kernel, as before)."""
    size = _size(ins["ImShape"].shape)
    if size % 2 == 0:
        _check_proposal_inputs(ins, (size // 2, 3))
    return _proposals(ins, False)


def distribute_fpn_proposals_meta(attrs, ins, facts):
    """distribute_fpn_proposals: MultiFpnRois, a [-1, 4] list of FpnRois' dtype per level from min_level to
    max_level; RestoreIndex int32 [R, 1]."""
    rois = ins["FpnRois"]
    levels = attrs["max_level"] - attrs["min_level"] + 1
    spec = ((-1, 4), np.dtype(rois.dtype))
    return Meta(
        {"MultiFpnRois": [spec] * max(levels, 0), "RestoreIndex": ((rois.shape[0], 1), _INT32)}, "fresh", fresh=True
    )


def collect_fpn_proposals_meta(attrs, ins, facts):
    """collect_fpn_proposals: FpnRois [-1, 4] of the first level's dtype; refused: levels of rois and scores that
    differ in number, LoDs of other counts of images, rois and scores of other counts."""
    rois, scores = ins["MultiLevelRois"], ins["MultiLevelScores"]
    if len(rois) != len(scores):
        raise PeError(f"collect_fpn_proposals: {len(rois)} levels of rois but {len(scores)} of scores")
    lods = facts.lod.get("MultiLevelRois") or [None] * len(rois)
    batch, counted = None, 0
    for r, lod in zip(rois, lods):
        offs = [int(v) for v in lod[-1]] if lod else [0, r.shape[0]]
        if batch is not None and len(offs) - 1 != batch:
            raise PeError(f"collect_fpn_proposals: the levels' rois hold {batch} and {len(offs) - 1} images (LoD)")
        batch, counted = len(offs) - 1, counted + offs[-1] - offs[0]
    given = sum(_size(s.shape) for s in scores)
    if rois and all(_size(r.shape) % 4 == 0 for r in rois) and given != counted:
        raise PeError(f"collect_fpn_proposals: {counted} rois but {given} scores")
    return Meta({"FpnRois": ((-1, 4), np.dtype(rois[0].dtype) if rois else _INT32)}, "fresh", fresh=True)
