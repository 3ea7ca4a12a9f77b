"""Op cases for generate_proposals, distribute_fpn_proposals and collect_fpn_proposals: numpy
references written from Fluid 1.8's test_generate_proposals_op.py, test_distribute_fpn_proposals_op.py
and test_collect_fpn_proposals_op.py (box decoding, clipping, the size filter, greedy NMS as loops)."""

import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(31)


def _area(b, one=1):
    return 0.0 if b[2] < b[0] or b[3] < b[1] else (b[2] - b[0] + one) * (b[3] - b[1] + one)


def _overlap(a, b):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + 1) * (min(a[3], b[3]) - max(a[1], b[1]) + 1)
    return inter / (_area(a) + _area(b) - inter)


def _nms(boxes, thresh, eta):
    keep, t = [], thresh
    for i, box in enumerate(boxes):
        if all(_overlap(box, boxes[k]) <= t for k in keep):
            keep.append(i)
            if eta < 1 and t > 0.5:
                t *= eta
    return keep


def _proposals_ref(i, a):
    scores, deltas, info = i["Scores"], i["BboxDeltas"], i["ImInfo"]
    n, na, h, w = scores.shape
    anchors, var = i["Anchors"].reshape(-1, 4), i["Variances"].reshape(-1, 4)
    rois, probs, counts = [], [], []
    for im in range(n):
        s = scores[im].transpose(1, 2, 0).reshape(-1)
        d = deltas[im].reshape(na, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
        order = sorted(range(s.size), key=lambda k: -s[k])
        if 0 < a["pre_nms_topN"] < len(order):
            order = order[: a["pre_nms_topN"]]
        kept = []
        for k in order:
            x1, y1, x2, y2 = anchors[k]
            aw, ah = x2 - x1 + 1, y2 - y1 + 1
            cx, cy = x1 + aw / 2 + var[k, 0] * d[k, 0] * aw, y1 + ah / 2 + var[k, 1] * d[k, 1] * ah
            bw = math.exp(min(var[k, 2] * d[k, 2], math.log(1000 / 16))) * aw
            bh = math.exp(min(var[k, 3] * d[k, 3], math.log(1000 / 16))) * ah
            box = np.array([cx - bw / 2, cy - bh / 2, cx + bw / 2 - 1, cy + bh / 2 - 1])
            box[0::2] = np.clip(box[0::2], 0, info[im, 1] - 1)
            box[1::2] = np.clip(box[1::2], 0, info[im, 0] - 1)
            big = min((box[2] - box[0]) / info[im, 2] + 1, (box[3] - box[1]) / info[im, 2] + 1) >= max(a["min_size"], 1)
            inside = (
                box[0] + (box[2] - box[0] + 1) / 2 <= info[im, 1] and box[1] + (box[3] - box[1] + 1) / 2 <= info[im, 0]
            )
            if big and inside:
                kept.append((box, s[k]))
        if not kept:
            kept = [(np.zeros(4), 0.0)]
        elif a["nms_thresh"] > 0:
            picked = _nms([b for b, _ in kept], a["nms_thresh"], a["eta"])
            kept = [kept[k] for k in picked][: a["post_nms_topN"] if a["post_nms_topN"] > 0 else None]
        rois += [b for b, _ in kept]
        probs += [p for _, p in kept]
        counts.append(len(kept))
    return {
        "RpnRois": np.array(rois).reshape(-1, 4),
        "RpnRoiProbs": np.array(probs).reshape(-1, 1),
        "RpnRoisNum": np.array(counts, np.int32),
        "RpnRoisLod": np.array(counts, np.int32),
    }  # Fluid 1.8's name (test_generate_proposals_op.py)


def _anchors(h, w, sizes, stride=16):
    """[H, W, A, 4] square anchors of the given sizes centred on each cell (anchor_generator's layout)."""
    out = np.zeros((h, w, len(sizes), 4))
    for y in range(h):
        for x in range(w):
            cx, cy = x * stride + stride / 2, y * stride + stride / 2
            for k, s in enumerate(sizes):
                out[y, x, k] = [cx - s / 2, cy - s / 2, cx + s / 2 - 1, cy + s / 2 - 1]
    return out


def _proposal_inputs(n, sizes, h, w, info):
    a = len(sizes)
    anchors = _anchors(h, w, sizes)
    return {
        "Scores": rng.uniform(0, 1, (n, a, h, w)),
        "BboxDeltas": rng.normal(0, 0.5, (n, 4 * a, h, w)),
        "ImInfo": np.array(info, np.float64),
        "Anchors": anchors,
        "Variances": np.tile([0.1, 0.1, 0.2, 0.2], anchors.shape[:3] + (1,)),
    }


def _levels(rois, a):
    out = []
    for b in rois:
        scale = math.sqrt(_area(b, 1 if a.get("pixel_offset", True) else 0))
        lvl = math.floor(math.log2(scale / a["refer_scale"]) + a["refer_level"]) if scale > 0 else a["min_level"]
        out.append(min(max(lvl, a["min_level"]), a["max_level"]))
    return np.array(out)


def _distribute_ref(i, a):
    rois = np.asarray(i["FpnRois"])
    lvl = _levels(rois, a)
    multi = [rois[lvl == level].reshape(-1, 4) for level in range(a["min_level"], a["max_level"] + 1)]
    order = [k for level in range(a["min_level"], a["max_level"] + 1) for k in range(len(rois)) if lvl[k] == level]
    restore = np.zeros((len(rois), 1), np.int32)
    for pos, k in enumerate(order):
        restore[k] = pos
    return {"MultiFpnRois": multi, "RestoreIndex": restore}


def _collect_ref(i, a):
    entries = []  # (score, image, roi) in level order
    for rois, scores in zip(i["MultiLevelRois"], i["MultiLevelScores"]):
        offs = rois.lod()[0]
        for img in range(len(offs) - 1):
            for k in range(offs[img], offs[img + 1]):
                entries.append((float(np.asarray(scores)[k, 0]), img, np.asarray(rois)[k]))
    top = sorted(entries, key=lambda e: -e[0])[: a["post_nms_topN"]]
    top = sorted(top, key=lambda e: e[1])
    return {"FpnRois": np.array([e[2] for e in top]).reshape(-1, 4)}


def _boxes(n, lo=0, hi=400):
    xy = rng.uniform(lo, hi, (n, 2))
    return np.c_[xy, xy + rng.uniform(1, 300, (n, 2))]


_GP = {"pre_nms_topN": 30, "post_nms_topN": 10, "nms_thresh": 0.5, "min_size": 3.0, "eta": 1.0}
_SPLITS = ((2, 5), (0, 3), (4, 4))  # per level: image 0 has j rois of k
_DIST = {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224}

CASES = [
    OpCase(
        "generate_proposals",
        _proposal_inputs(2, [16, 32, 64], 4, 5, [[64, 80, 1.0], [60, 70, 2.0]]),
        _proposals_ref,
        attrs=dict(_GP),
    ),
    OpCase(
        "generate_proposals",
        _proposal_inputs(2, [24, 48], 3, 3, [[48, 48, 1.0], [40, 44, 1.0]]),
        _proposals_ref,
        attrs=dict(_GP, pre_nms_topN=0, post_nms_topN=0, nms_thresh=0.7, eta=0.9),
        name="generate_proposals_adaptive_nms",
    ),
    OpCase(
        "generate_proposals",
        _proposal_inputs(2, [16], 2, 3, [[32, 48, 1.0], [32, 48, 1.0]]),
        _proposals_ref,
        attrs=dict(_GP, nms_thresh=0.0, min_size=8.0),
        name="generate_proposals_no_nms_filtered",
    ),
    OpCase(
        "distribute_fpn_proposals",
        {"FpnRois": LoDTensor(np.r_[_boxes(9), [[5, 5, 4, 4]]], [[0, 4, 10]])},
        _distribute_ref,
        attrs=dict(_DIST),
        num_outputs={"MultiFpnRois": 4},
    ),
    OpCase(
        "distribute_fpn_proposals",  # a 223-wide box: level 4 counting the + 1, level 3 without
        {"FpnRois": LoDTensor(np.r_[_boxes(9), [[5, 5, 4, 4], [0, 0, 223, 223]]], [[0, 4, 11]])},
        _distribute_ref,
        attrs=dict(_DIST, pixel_offset=False),
        num_outputs={"MultiFpnRois": 4},
        name="distribute_fpn_proposals_no_pixel_offset",
    ),
    OpCase(
        "collect_fpn_proposals",
        {
            "MultiLevelRois": [LoDTensor(_boxes(k), [[0, j, k]]) for j, k in _SPLITS],
            "MultiLevelScores": [LoDTensor(rng.uniform(0, 1, (k, 1)), [[0, j, k]]) for j, k in _SPLITS],
        },
        _collect_ref,
        attrs={"post_nms_topN": 7},
    ),
]

# generate_proposals_v2 (Paddle 2.x's): Paddle 2.6.2's recorded values
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("detection_proposals")
