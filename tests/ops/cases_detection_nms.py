"""Op cases for multiclass_nms, multiclass_nms2, matrix_nms, locality_aware_nms and
retinanet_detection_output, against plain Python references written from Fluid 1.8's kernels and unit
tests (test_multiclass_nms_op.py, test_matrix_nms_op.py, test_locality_aware_nms_op.py,
test_retinanet_detection_output.py: per level thresholded top-k, decoding against the anchors,
clipping to the original image, per-class greedy NMS with Fluid's pixel IoU, keep_top_k). None has a
gradient in Fluid. The output LoD is checked in tests/layers/test_detection.py."""

import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_detection_proposals import _nms

rng = np.random.default_rng(43)


def _iou(a, b, normalized):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    p = 0 if normalized else 1

    def area(r):
        return 0.0 if r[2] < r[0] or r[3] < r[1] else (r[2] - r[0] + p) * (r[3] - r[1] + p)

    inter = (min(a[2], b[2]) - max(a[0], b[0]) + p) * (min(a[3], b[3]) - max(a[1], b[1]) + p)
    return inter / (area(a) + area(b) - inter)


def _nms_one(boxes, scores, a):
    cand = sorted((i for i in range(len(scores)) if scores[i] > a["score_threshold"]), key=lambda i: -scores[i])
    if a["nms_top_k"] > -1:
        cand = cand[: a["nms_top_k"]]
    kept, thr = [], a["nms_threshold"]
    for i in cand:
        if all(_iou(boxes[i], boxes[k], a["normalized"]) <= thr for k in kept):
            kept.append(i)
            if a["nms_eta"] < 1 and thr > 0.5:
                thr *= a["nms_eta"]
    return kept


def _image(scores, boxes, a, per_box):
    """[(label, index, score, box)] of one image in Fluid's output order."""
    classes = scores.shape[1] if per_box else scores.shape[0]
    found = []
    for c in range(classes):
        if c == a["background_label"]:
            continue
        s = scores[:, c] if per_box else scores[c]
        b = boxes[:, c] if per_box else boxes
        kept = _nms_one(b, s, a)
        found += [(c, i, s[i], b[i]) for i in (sorted(kept) if per_box else kept)]
    if -1 < a["keep_top_k"] < len(found):
        best = sorted(range(len(found)), key=lambda k: -found[k][2])[: a["keep_top_k"]]
        by_class = {}
        for k in best:
            by_class.setdefault(found[k][0], []).append(found[k])
        found = [
            d for c in sorted(by_class) for d in (sorted(by_class[c], key=lambda d: d[1]) if per_box else by_class[c])
        ]
    return found


def nms_ref(i, a, with_index=False):
    scores, boxes = np.asarray(i["Scores"]), np.asarray(i["BBoxes"])
    if scores.ndim == 3:
        images = [(scores[n], boxes[n], n * scores.shape[2]) for n in range(len(scores))]
    else:
        offs = i["BBoxes"].lod()[-1]
        images = [(scores[s:e], boxes[s:e], s * scores.shape[1]) for s, e in zip(offs[:-1], offs[1:])]
    rows, index = [], []
    for s, b, off in images:
        for label, idx, score, box in _image(s, b, a, scores.ndim == 2):
            rows.append([label, score] + list(box))
            index.append(off + (idx * scores.shape[1] + label if scores.ndim == 2 else idx))
    if with_index:
        return {"Out": np.array(rows, boxes.dtype).reshape(-1, 6), "Index": np.array(index, np.int32).reshape(-1, 1)}
    return {"Out": np.array(rows, boxes.dtype) if rows else np.full((1, 1), -1, boxes.dtype)}


def _boxes(shape, scale=1.0):
    lo = rng.uniform(0, 0.5, shape + (2,))
    return np.concatenate([lo, lo + rng.uniform(0.2, 0.5, shape + (2,))], axis=-1) * scale


_NMS = {
    "background_label": 0,
    "score_threshold": 0.2,
    "nms_top_k": 8,
    "nms_threshold": 0.4,
    "nms_eta": 1.0,
    "keep_top_k": 10,
    "normalized": True,
}
_LOD_BOXES = LoDTensor(_boxes((12, 3)), [[0, 5, 12]])


CASES = [
    OpCase("multiclass_nms", {"BBoxes": _boxes((2, 12)), "Scores": rng.uniform(0, 1, (2, 3, 12))}, nms_ref, attrs=_NMS),
    OpCase(
        "multiclass_nms",
        {"BBoxes": _boxes((2, 15), 20), "Scores": rng.uniform(0, 1, (2, 4, 15))},
        nms_ref,
        attrs={
            **_NMS,
            "background_label": -1,
            "keep_top_k": 5,
            "nms_top_k": -1,
            "normalized": False,
            "nms_threshold": 0.7,
            "nms_eta": 0.8,
        },
        name="multiclass_nms_pixels_eta_keep_top_k",
    ),
    OpCase(
        "multiclass_nms",
        {"BBoxes": _LOD_BOXES, "Scores": LoDTensor(rng.uniform(0, 1, (12, 3)), [[0, 5, 12]])},
        nms_ref,
        attrs={**_NMS, "keep_top_k": 4},
        name="multiclass_nms_lod_per_class_boxes",
    ),
    OpCase(
        "multiclass_nms",
        {"BBoxes": _boxes((2, 6)), "Scores": rng.uniform(0, 1, (2, 3, 6))},
        nms_ref,
        attrs={**_NMS, "score_threshold": 2.0},
        name="multiclass_nms_nothing_kept",
    ),
    OpCase(
        "multiclass_nms2",
        {"BBoxes": _boxes((2, 12)), "Scores": rng.uniform(0, 1, (2, 3, 12))},
        lambda i, a: nms_ref(i, a, with_index=True),
        attrs=_NMS,
    ),
    OpCase(
        "multiclass_nms2",
        {"BBoxes": _LOD_BOXES, "Scores": rng.uniform(0, 1, (12, 3))},
        lambda i, a: nms_ref(i, a, with_index=True),
        attrs={**_NMS, "keep_top_k": 3},
        name="multiclass_nms2_lod",
    ),
    # nothing kept: Fluid 1.8's Out and Index of shape [0] (test_multiclass_nms_op.py's LoDNoOutput case)
    OpCase(
        "multiclass_nms2",
        {"BBoxes": _boxes((2, 6)), "Scores": rng.uniform(0, 1, (2, 3, 6))},
        lambda i, a: {"Out": np.empty(0), "Index": np.empty(0, np.int32)},
        attrs={**_NMS, "score_threshold": 2.0},
        name="multiclass_nms2_nothing_kept",
    ),
]


def _iou_matrix(a, b, normalized):
    return np.array([[_iou(x, y, normalized) for y in b] for x in a]).reshape(len(a), len(b))


def matrix_ref(i, a):
    """After test_matrix_nms_op.py: per class, decay = min over better boxes j of f(iou(j, i), j's
    max iou with a better box), at most 1; the image's detections sorted by decayed score."""
    scores, boxes = i["Scores"], i["BBoxes"]
    rows, index, counts = [], [], []
    for n in range(len(scores)):
        found = []
        for c in range(scores.shape[1]):
            if c == a["background_label"]:
                continue
            s = scores[n, c]
            order = sorted((m for m in range(len(s)) if s[m] > a["score_threshold"]), key=lambda m: -s[m])
            order = order[: a["nms_top_k"]] if a["nms_top_k"] > -1 else order
            iou = np.triu(_iou_matrix(boxes[n, order], boxes[n, order], a["normalized"]), k=1)
            cmax = iou.max(0) if len(order) else iou
            for k, m in enumerate(order):
                if a["use_gaussian"]:
                    f = [np.exp((cmax[j] ** 2 - iou[j, k] ** 2) * a["gaussian_sigma"]) for j in range(k)]
                else:
                    f = [(1 - iou[j, k]) / (1 - cmax[j]) for j in range(k)]
                score = s[m] * min([1.0] + f)
                if score > a["post_threshold"]:
                    found.append((score, c, m))
        found = sorted(found, key=lambda d: -d[0])
        found = found[: a["keep_top_k"]] if a["keep_top_k"] > -1 else found
        rows += [[c, v] + list(boxes[n, m]) for v, c, m in found]
        index += [n * scores.shape[2] + m for _, _, m in found]
        counts.append(len(found))
    return {
        "Out": np.array(rows, boxes.dtype).reshape(-1, 6),
        "Index": np.array(index, np.int32).reshape(-1, 1),
        "RoisNum": np.array(counts, np.int32),
    }


_MATRIX = {
    "background_label": 0,
    "score_threshold": 0.1,
    "post_threshold": 0.0,
    "nms_top_k": 6,
    "keep_top_k": 8,
    "normalized": True,
    "use_gaussian": False,
    "gaussian_sigma": 2.0,
}
CASES += [
    OpCase(
        "matrix_nms", {"BBoxes": _boxes((2, 10)), "Scores": rng.uniform(0, 1, (2, 3, 10))}, matrix_ref, attrs=_MATRIX
    ),
    OpCase(
        "matrix_nms",
        {"BBoxes": _boxes((2, 10), 20), "Scores": rng.uniform(0, 1, (2, 3, 10))},
        matrix_ref,
        attrs={
            **_MATRIX,
            "use_gaussian": True,
            "post_threshold": 0.3,
            "normalized": False,
            "keep_top_k": -1,
            "background_label": -1,
        },
        name="matrix_nms_gaussian_post_threshold",
    ),
]


def locality_ref(i, a):
    """After Fluid's locality_aware_nms kernel: per class, a merge pass in row order (which changes the
    image's boxes and that class's scores for what follows), then greedy NMS; [[-1]] when nothing is kept."""
    scores, boxes = np.array(i["Scores"]), np.array(i["BBoxes"])
    rows = []
    for n in range(len(scores)):
        s_all, b = scores[n], boxes[n]
        found = {}
        for c in range(s_all.shape[0]):
            if c == a["background_label"]:
                continue
            s, cur, survivors = s_all[c], None, []
            for r in range(len(s)):
                if cur is not None and _iou(b[r], b[cur], a["normalized"]) > a["nms_threshold"]:
                    b[cur] = (b[r] * s[r] + b[cur] * s[cur]) / (s[r] + s[cur])
                    s[cur] += s[r]
                else:
                    survivors += [cur] if cur is not None else []
                    cur = r
            survivors += [cur] if cur is not None else []
            masked = np.full(len(s), -np.inf)
            masked[survivors] = s[survivors]
            found[c] = _nms_one(b, masked, a)
        if -1 < a["keep_top_k"] < sum(len(v) for v in found.values()):
            pairs = sorted(((s_all[c, k], c, k) for c in sorted(found) for k in found[c]), key=lambda p: -p[0])
            found = {}
            for _, c, k in pairs[: a["keep_top_k"]]:
                found.setdefault(c, []).append(k)
        rows += [[c, s_all[c, k]] + list(b[k]) for c in sorted(found) for k in found[c]]
    return {"Out": np.array(rows, boxes.dtype) if rows else np.full((1, 1), -1, boxes.dtype)}


def _chain(n, images=2):
    """Boxes in runs of near neighbours (each a small shift of the last), so the merge pass merges."""
    start = rng.uniform(0, 0.5, (images, 1, 2))
    lo = start + np.cumsum(rng.uniform(-0.02, 0.08, (images, n, 2)), axis=1)
    return np.concatenate([lo, lo + 0.3], axis=-1)


_LOCALITY = {**_NMS, "background_label": -1, "nms_threshold": 0.5, "keep_top_k": -1, "nms_top_k": -1}
CASES += [
    OpCase(
        "locality_aware_nms",
        {"BBoxes": _chain(10), "Scores": rng.uniform(0, 1, (2, 2, 10))},
        locality_ref,
        attrs=_LOCALITY,
    ),
    OpCase(
        "locality_aware_nms",
        {"BBoxes": _chain(12, 1) * 30, "Scores": rng.uniform(0, 1, (1, 3, 12))},
        locality_ref,
        attrs={**_LOCALITY, "normalized": False, "keep_top_k": 3, "background_label": 0},
        name="locality_aware_nms_pixels_keep_top_k",
    ),
    OpCase(
        "locality_aware_nms",
        {"BBoxes": _chain(4), "Scores": rng.uniform(0, 0.1, (2, 1, 4))},
        locality_ref,
        attrs={**_LOCALITY, "score_threshold": 0.9},
        name="locality_aware_nms_nothing_kept",
    ),
]


def _as_quads(boxes, clockwise):
    """Boxes [.., 4] as the 4-point polygons [.., 8] of their corners (one start and orientation for all)."""
    x1, y1, x2, y2 = np.moveaxis(boxes, -1, 0)
    corners = [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]
    corners = corners[::-1] if clockwise else corners
    return np.stack([v for point in corners for v in point], axis=-1)


def locality_quads_ref(clockwise):
    """Axis-aligned rectangles as quadrilaterals: their polygon IoU is the boxes' (normalized) IoU and a
    score-weighted merge of corners the corners of the merged box, so the boxes' reference answers."""

    def ref(i, a):
        x1, y1 = i["BBoxes"][..., 0], i["BBoxes"][..., 1]
        x2, y2 = i["BBoxes"][..., 4], i["BBoxes"][..., 5]
        boxes = np.stack([np.minimum(x1, x2), np.minimum(y1, y2), np.maximum(x1, x2), np.maximum(y1, y2)], -1)
        out = locality_ref({"BBoxes": boxes, "Scores": i["Scores"]}, dict(a, normalized=True))["Out"]
        return {"Out": np.concatenate([out[:, :2], _as_quads(out[:, 2:], clockwise)], -1) if out.shape[1] > 1 else out}

    return ref


CASES += [
    OpCase(
        "locality_aware_nms",
        {"BBoxes": _as_quads(_chain(10), cw), "Scores": rng.uniform(0, 1, (2, 2, 10))},
        locality_quads_ref(cw),
        attrs={**_LOCALITY, "normalized": False},
        name=f"locality_aware_nms_quads_{'clockwise' if cw else 'counterclockwise'}",
    )
    for cw in (True, False)
]


_retinanet_rng = np.random.default_rng(83)


def retinanet_ref(i, a):
    out, offsets = [], [0]
    levels = len(i["Scores"])
    for im in range(i["Scores"][0].shape[0]):
        h, w, s = i["ImInfo"][im]
        im_h, im_w = math.floor(h / s + 0.5), math.floor(w / s + 0.5)
        preds = {}
        for lv, (sc, bb, an) in enumerate(zip(i["Scores"], i["BBoxes"], i["Anchors"])):
            thresh = a["score_threshold"] if lv < levels - 1 else 0.0
            flat = sc[im].reshape(-1)
            cand = sorted([k for k in range(flat.size) if flat[k] > thresh], key=lambda k: -flat[k])
            for k in cand[: a["nms_top_k"]] if a["nms_top_k"] > -1 else cand:
                anc, d = an[k // sc.shape[2]], bb[im, k // sc.shape[2]]
                aw, ah = anc[2] - anc[0] + 1, anc[3] - anc[1] + 1
                cx, cy = d[0] * aw + anc[0] + aw / 2, d[1] * ah + anc[1] + ah / 2
                bw, bh = math.exp(d[2]) * aw, math.exp(d[3]) * ah
                box = [(cx - bw / 2) / s, (cy - bh / 2) / s, (cx + bw / 2 - 1) / s, (cy + bh / 2 - 1) / s]
                box = [min(max(v, 0), (im_w if j % 2 == 0 else im_h) - 1) for j, v in enumerate(box)]
                preds.setdefault(k % sc.shape[2], []).append((flat[k], box))
        dets = []
        for c in sorted(preds):
            ranked = sorted(preds[c], key=lambda p: -p[0])
            dets += [
                (ranked[k][0], c, ranked[k][1]) for k in _nms([b for _, b in ranked], a["nms_threshold"], a["nms_eta"])
            ]
        dets = sorted(dets, key=lambda d: -d[0])[: a["keep_top_k"]]
        out += [[c + 1, score, *box] for score, c, box in dets]
        offsets.append(len(out))
    return {"Out": np.array(out, dtype=i["Scores"][0].dtype).reshape(-1, 6)}


def _retinanet_anchors(m, size):
    xy = _retinanet_rng.uniform(0, 60, (m, 2))
    return np.c_[xy, xy + size - 1]


RETINANET_CASES = [
    OpCase(
        "retinanet_detection_output",
        {
            "BBoxes": [_retinanet_rng.normal(0, 0.3, (2, 12, 4)), _retinanet_rng.normal(0, 0.3, (2, 6, 4))],
            "Scores": [_retinanet_rng.uniform(0, 1, (2, 12, 3)), _retinanet_rng.uniform(0, 0.3, (2, 6, 3))],
            "Anchors": [_retinanet_anchors(12, 16), _retinanet_anchors(6, 32)],
            "ImInfo": np.array([[64.0, 64.0, 1.0], [80.0, 72.0, 1.5]]),
        },
        retinanet_ref,
        attrs={"score_threshold": 0.3, "nms_top_k": 10, "nms_threshold": 0.4, "nms_eta": 1.0, "keep_top_k": 12},
    ),
]
CASES += RETINANET_CASES

# multiclass_nms3 (Paddle 2.x's): Paddle 2.6.2's recorded values
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("detection_nms")
