"""Kernel of ops/detection_retinanet.py (retinanet_detection_output): numpy per image, the per-class
NMS the numba loop of generate_proposals (_proposal_loops.nms). Its output size depends on the data,
so the CUDA kernel runs this on the host."""
import numpy as np

from ._numba import lazy

_loops = lazy("_proposal_loops")


def _level(scores, deltas, anchors, info, threshold, top_k):
    """(labels, scores, boxes) of one level of one image: scores above threshold, best first (at most
    top_k), decoded from their anchors and clipped to the original image."""
    flat = scores.reshape(-1)
    picked = np.nonzero(flat > threshold)[0]
    picked = picked[np.argsort(-flat[picked], kind="stable")]
    if top_k > -1:
        picked = picked[:top_k]
    a, label = picked // scores.shape[1], picked % scores.shape[1]
    anc, d = anchors[a], deltas[a]
    w, h = anc[:, 2] - anc[:, 0] + 1, anc[:, 3] - anc[:, 1] + 1
    cx, cy = d[:, 0] * w + anc[:, 0] + w / 2, d[:, 1] * h + anc[:, 1] + h / 2
    bw, bh = np.exp(d[:, 2]) * w, np.exp(d[:, 3]) * h
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2 - 1, cy + bh / 2 - 1], axis=1) / info[2]
    im_h, im_w = np.floor(info[0] / info[2] + 0.5), np.floor(info[1] / info[2] + 0.5)
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, max(im_w - 1, 0))
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, max(im_h - 1, 0))
    return label, flat[picked], boxes


def _image(levels, attrs):
    """Rows [label + 1, score, x1, y1, x2, y2] of one image: per class NMS, then the keep_top_k best."""
    labels = np.concatenate([lv[0] for lv in levels])
    scores = np.concatenate([lv[1] for lv in levels])
    boxes = np.concatenate([lv[2] for lv in levels]).reshape(-1, 4)
    rows = []
    for c in np.unique(labels):
        mine = np.nonzero(labels == c)[0]
        mine = mine[np.argsort(-scores[mine], kind="stable")]
        keep = np.empty(mine.size, dtype=np.int64)
        n = _loops().nms(np.ascontiguousarray(boxes[mine], dtype=np.float64), float(attrs["nms_threshold"]),
                         float(attrs["nms_eta"]), keep)
        rows += [(scores[k], c, k) for k in mine[keep[:n]]]
    order = sorted(range(len(rows)), key=lambda j: -rows[j][0])        # stable: class order, then NMS order
    if attrs["keep_top_k"] > -1:
        order = order[:attrs["keep_top_k"]]
    return [[rows[j][1] + 1, rows[j][0], *boxes[rows[j][2]]] for j in order]


def retinanet_detection_output(ins, attrs):
    deltas, scores, anchors, info = ins["BBoxes"], ins["Scores"], ins["Anchors"], ins["ImInfo"]
    out, offsets = [], [0]
    last = len(scores) - 1
    for i in range(scores[0].shape[0]):
        levels = [_level(np.asarray(s[i], dtype=np.float64), np.asarray(d[i], dtype=np.float64).reshape(-1, 4),
                         np.asarray(a, dtype=np.float64).reshape(-1, 4), np.asarray(info[i], dtype=np.float64),
                         attrs["score_threshold"] if k < last else 0.0, attrs["nms_top_k"])
                  for k, (s, d, a) in enumerate(zip(scores, deltas, anchors))]
        rows = _image(levels, attrs)
        out += rows
        offsets.append(offsets[-1] + len(rows))
    result = np.asarray(out, dtype=scores[0].dtype).reshape(-1, 6)
    return {"Out": result, "@LOD": {"Out": [offsets]}}
