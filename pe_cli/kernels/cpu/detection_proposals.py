"""CPU out-kernels (meta rules, which refuse the shapes that do not fit: shapes/detection_proposals.py) of
ops/detection_proposals.py: generate_proposals (decode anchors, clip, filter, NMS per image; the NMS a numba loop,
_proposal_loops.py), distribute_fpn_proposals and collect_fpn_proposals (numpy), each into new arrays (``fresh``
variants: their rows are the values'), the LoD on the call's context. Their output sizes depend on the data, so the
CUDA kernels run these (the kernels by name at the end: the adapters) on the host."""

import numpy as np

from ...shapes import detection_proposals as rules
from ..structured import adapter, fresh_output, fresh_outputs
from .runtime.loops import lazy

_loops = lazy("_proposal_loops")
_CLIP = np.log(1000.0 / 16.0)


def _offsets(lod, rows):
    """The last LoD level as int64 offsets, or one sequence of all rows."""
    return np.asarray(lod[-1], dtype=np.int64) if lod else np.array([0, rows], dtype=np.int64)


def _decode(anchors, deltas, variances):
    """Fluid's BoxCoder for proposals: boxes [n, 4] (x1, y1, x2, y2) from anchors and deltas."""
    w = anchors[:, 2] - anchors[:, 0] + 1.0
    h = anchors[:, 3] - anchors[:, 1] + 1.0
    cx = anchors[:, 0] + 0.5 * w + variances[:, 0] * deltas[:, 0] * w
    cy = anchors[:, 1] + 0.5 * h + variances[:, 1] * deltas[:, 1] * h
    bw = np.exp(np.minimum(variances[:, 2] * deltas[:, 2], _CLIP)) * w
    bh = np.exp(np.minimum(variances[:, 3] * deltas[:, 3], _CLIP)) * h
    return np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2 - 1.0, cy + bh / 2 - 1.0], axis=1)


def _one_image(scores, deltas, info, anchors, variances, attrs):
    """(boxes [k, 4], scores [k]) of one image: the top pre_nms_topN scores decoded, clipped to the
    image, boxes smaller than min_size (in the original image) or centred outside dropped, then NMS
    and the first post_nms_topN; no box left: one zero box with score 0, as Fluid."""
    order = np.argsort(-scores, kind="stable")
    pre = attrs["pre_nms_topN"]
    if 0 < pre < order.size:
        order = order[:pre]
    boxes = _decode(anchors[order], deltas[order], variances[order])
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, info[1] - 1.0)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, info[0] - 1.0)
    ws, hs = boxes[:, 2] - boxes[:, 0] + 1.0, boxes[:, 3] - boxes[:, 1] + 1.0
    min_size = max(attrs["min_size"], 1.0)
    keep = (
        ((boxes[:, 2] - boxes[:, 0]) / info[2] + 1 >= min_size)
        & ((boxes[:, 3] - boxes[:, 1]) / info[2] + 1 >= min_size)
        & (boxes[:, 0] + ws / 2 <= info[1])
        & (boxes[:, 1] + hs / 2 <= info[0])
    )
    boxes, kept_scores = boxes[keep], scores[order][keep]
    if not boxes.shape[0]:
        return np.zeros((1, 4)), np.zeros(1)
    if attrs["nms_thresh"] <= 0:
        return boxes, kept_scores
    picked = np.empty(boxes.shape[0], dtype=np.int64)
    n = _loops().nms(
        np.ascontiguousarray(boxes, dtype=np.float64), float(attrs["nms_thresh"]), float(attrs["eta"]), picked
    )
    post = attrs["post_nms_topN"]
    picked = picked[: min(n, post) if post > 0 else n]
    return boxes[picked], kept_scores[picked]


def _generate(ins, info, attrs, ctx):
    """generate_proposals' outputs of ImInfo ``info`` (slot -> a new array), its LoD set on ``ctx``."""
    scores, deltas = ins["Scores"], ins["BboxDeltas"]
    n = scores.shape[0]
    anchors = np.asarray(ins["Anchors"], dtype=np.float64).reshape(-1, 4)
    variances = np.asarray(ins["Variances"], dtype=np.float64).reshape(-1, 4)
    per_score = np.asarray(scores, dtype=np.float64).transpose(0, 2, 3, 1).reshape(n, -1)
    per_delta = np.asarray(deltas, dtype=np.float64).transpose(0, 2, 3, 1).reshape(n, -1, 4)
    rois, probs, counts = [], [], []
    for i in range(n):
        b, s = _one_image(per_score[i], per_delta[i], np.asarray(info[i], dtype=np.float64), anchors, variances, attrs)
        rois.append(b)
        probs.append(s)
        counts.append(len(s))
    offsets = [0] + np.cumsum(counts).tolist()
    dtype = scores.dtype
    outs = {
        "RpnRois": np.concatenate(rois).astype(dtype).reshape(-1, 4),
        "RpnRoiProbs": np.concatenate(probs).astype(dtype).reshape(-1, 1),
        "RpnRoisNum": np.asarray(counts, dtype=np.int32),
    }
    ctx.set_lod_map({"RpnRois": [offsets], "RpnRoiProbs": [offsets]})
    return outs


def generate_proposals_out(ins, outs, attrs, meta, ctx):
    results = _generate(ins, ins["ImInfo"], attrs, ctx)
    results["RpnRoisLod"] = results["RpnRoisNum"]  # Fluid 1.8's name of the same counts
    fresh_outputs(results, ins, outs, meta)


def fpn_levels(rois, attrs):
    """The FPN level of each roi: floor(log2(sqrt(area) / refer_scale) + refer_level), clipped; the
    area counts the corner pixels (+ 1) unless the attribute ``pixel_offset`` is false."""
    one = 1.0 if attrs.get("pixel_offset", True) else 0.0
    w, h = rois[:, 2] - rois[:, 0] + one, rois[:, 3] - rois[:, 1] + one
    area = np.where((rois[:, 2] < rois[:, 0]) | (rois[:, 3] < rois[:, 1]), 0.0, w * h)
    with np.errstate(divide="ignore"):
        lvl = np.floor(np.log2(np.sqrt(area) / attrs["refer_scale"]) + attrs["refer_level"])
    return np.clip(lvl, attrs["min_level"], attrs["max_level"]).astype(np.int64)


def distribute_fpn_proposals_out(ins, outs, attrs, meta, ctx):
    rois = ins["FpnRois"]
    offs = _offsets(ctx.lod.get("FpnRois"), rois.shape[0])
    lvl = fpn_levels(np.asarray(rois, dtype=np.float64), attrs)
    image = np.repeat(np.arange(offs.size - 1), np.diff(offs))
    order = np.argsort(lvl, kind="stable")
    restore = np.empty(rois.shape[0], dtype=np.int32)
    restore[order] = np.arange(rois.shape[0], dtype=np.int32)
    levels, lods = [], []
    for level in range(attrs["min_level"], attrs["max_level"] + 1):
        mine = lvl == level
        levels.append(np.ascontiguousarray(rois[mine]).reshape(-1, 4))
        counts = np.bincount(image[mine], minlength=offs.size - 1)
        lods.append([[0] + np.cumsum(counts).tolist()])
    ctx.set_lods("MultiFpnRois", lods)
    inputs = tuple(v for v in ins.values() if type(v) is np.ndarray)
    outs["MultiFpnRois"] = [
        fresh_output(v, (v.shape, spec[1]), inputs) for v, spec in zip(levels, meta.outputs["MultiFpnRois"])
    ]
    fresh_outputs({"RestoreIndex": restore.reshape(-1, 1)}, ins, outs, meta)


def collect_fpn_proposals_out(ins, outs, attrs, meta, ctx):
    rois, scores = ins["MultiLevelRois"], ins["MultiLevelScores"]
    lods = ctx.lod.get("MultiLevelRois") or [None] * len(rois)
    images, batch = [], None
    for r, lod in zip(rois, lods):
        offs = _offsets(lod, r.shape[0])
        batch = offs.size - 1
        images.append(np.repeat(np.arange(batch), np.diff(offs)))
    all_rois = np.concatenate([np.asarray(r).reshape(-1, 4) for r in rois])
    all_scores = np.concatenate([np.asarray(s).reshape(-1) for s in scores])
    image = np.concatenate(images)
    top = np.argsort(-all_scores, kind="stable")[: max(attrs["post_nms_topN"], 0)]
    top = top[np.argsort(image[top], kind="stable")]
    counts = np.bincount(image[top], minlength=batch or 0)
    out = np.ascontiguousarray(all_rois[top]).reshape(-1, 4).astype(rois[0].dtype)
    ctx.set_lod_map({"FpnRois": [[0] + np.cumsum(counts).tolist()]})
    fresh_outputs({"FpnRois": out}, ins, outs, meta)


def generate_proposals_v2_out(ins, outs, attrs, meta, ctx):
    """generate_proposals with ImInfo (height, width, scale 1) from ImShape."""
    shape = np.asarray(ins["ImShape"], dtype=np.float64).reshape(-1, 2)
    info = np.concatenate([shape, np.ones((shape.shape[0], 1))], axis=1).astype(np.asarray(ins["ImShape"]).dtype)
    fresh_outputs(_generate(ins, info, attrs, ctx), ins, outs, meta)


# (the LoD each sets on the call's context)
generate_proposals_out.takes_context = generate_proposals_v2_out.takes_context = True
distribute_fpn_proposals_out.takes_context = collect_fpn_proposals_out.takes_context = True

# the kernels by name CUDA's kernels are given (kernels/cuda/detection_proposals.py's HOST_OPS): the adapters
generate_proposals = adapter(rules.generate_proposals_meta, generate_proposals_out, "generate_proposals")
generate_proposals_v2 = adapter(rules.generate_proposals_v2_meta, generate_proposals_v2_out, "generate_proposals_v2")
distribute_fpn_proposals = adapter(
    rules.distribute_fpn_proposals_meta, distribute_fpn_proposals_out, "distribute_fpn_proposals"
)
collect_fpn_proposals = adapter(rules.collect_fpn_proposals_meta, collect_fpn_proposals_out, "collect_fpn_proposals")
