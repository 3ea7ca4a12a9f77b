"""Op cases for multiclass_nms, multiclass_nms2, bipartite_match and target_assign, against plain
Python references written from Fluid 1.8's kernels and unit tests (test_multiclass_nms_op.py,
test_bipartite_match_op.py, test_target_assign_op.py). None has a gradient in Fluid. The output
LoD is checked in tests/test_layers_detection.py."""
import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

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
        cand = cand[:a["nms_top_k"]]
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
        best = sorted(range(len(found)), key=lambda k: -found[k][2])[:a["keep_top_k"]]
        by_class = {}
        for k in best:
            by_class.setdefault(found[k][0], []).append(found[k])
        found = [d for c in sorted(by_class) for d in (sorted(by_class[c], key=lambda d: d[1]) if per_box
                                                        else by_class[c])]
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


def match_ref(i, a):
    dist = np.asarray(i["DistMat"])
    offs = i["DistMat"].lod()[-1] if isinstance(i["DistMat"], LoDTensor) else [0, len(dist)]
    idx = np.full((len(offs) - 1, dist.shape[1]), -1, np.int32)
    out = np.zeros(idx.shape, dist.dtype)
    for n, (s, e) in enumerate(zip(offs[:-1], offs[1:])):
        d = dist[s:e].astype(np.float64)
        free_rows, free_cols = set(range(e - s)), set(range(dist.shape[1]))
        while True:        # the largest remaining pair (values are distinct here)
            pairs = [(d[r, c], r, c) for r in free_rows for c in free_cols if d[r, c] >= 1e-6]
            if not pairs:
                break
            v, r, c = max(pairs)
            idx[n, c], out[n, c] = r, dist[s + r, c]
            free_rows.discard(r)
            free_cols.discard(c)
        if a["match_type"] == "per_prediction":
            for c in range(dist.shape[1]):
                if idx[n, c] == -1 and len(d) and d[:, c].max() >= max(a["dist_threshold"], 1e-6):
                    idx[n, c] = int(np.argmax(d[:, c]))
                    out[n, c] = dist[s + idx[n, c], c]
    return {"ColToRowMatchIndices": idx, "ColToRowMatchDist": out}


def assign_ref(i, a):
    x, match = np.asarray(i["X"]), i["MatchIndices"]
    offs = i["X"].lod()[-1]
    n, m = match.shape
    out = np.full((n, m, x.shape[2]), a["mismatch_value"], x.dtype)
    weight = np.zeros((n, m, 1), np.float32)
    for r in range(n):
        for c in range(m):
            if match[r, c] > -1:
                out[r, c] = x[offs[r] + match[r, c], c % x.shape[1]]
                weight[r, c] = 1
    if "NegIndices" in i:
        noffs = i["NegIndices"].lod()[-1]
        neg = np.asarray(i["NegIndices"]).reshape(-1)
        for r in range(n):
            for c in neg[noffs[r]:noffs[r + 1]]:
                out[r, c] = a["mismatch_value"]
                weight[r, c] = 1
    return {"Out": out, "OutWeight": weight}


def _boxes(shape, scale=1.0):
    lo = rng.uniform(0, 0.5, shape + (2,))
    return np.concatenate([lo, lo + rng.uniform(0.2, 0.5, shape + (2,))], axis=-1) * scale


_NMS = {"background_label": 0, "score_threshold": 0.2, "nms_top_k": 8, "nms_threshold": 0.4, "nms_eta": 1.0,
        "keep_top_k": 10, "normalized": True}
_LOD_BOXES = LoDTensor(_boxes((12, 3)), [[0, 5, 12]])
_DIST = rng.uniform(0, 1, (7, 5)) * (rng.uniform(0, 1, (7, 5)) > 0.3)

CASES = [
    OpCase("multiclass_nms", {"BBoxes": _boxes((2, 12)), "Scores": rng.uniform(0, 1, (2, 3, 12))}, nms_ref,
           attrs=_NMS),
    OpCase("multiclass_nms", {"BBoxes": _boxes((2, 15), 20), "Scores": rng.uniform(0, 1, (2, 4, 15))}, nms_ref,
           attrs={**_NMS, "background_label": -1, "keep_top_k": 5, "nms_top_k": -1, "normalized": False,
                  "nms_threshold": 0.7, "nms_eta": 0.8}, name="multiclass_nms_pixels_eta_keep_top_k"),
    OpCase("multiclass_nms", {"BBoxes": _LOD_BOXES, "Scores": LoDTensor(rng.uniform(0, 1, (12, 3)), [[0, 5, 12]])},
           nms_ref, attrs={**_NMS, "keep_top_k": 4}, name="multiclass_nms_lod_per_class_boxes"),
    OpCase("multiclass_nms", {"BBoxes": _boxes((2, 6)), "Scores": rng.uniform(0, 1, (2, 3, 6))}, nms_ref,
           attrs={**_NMS, "score_threshold": 2.0}, name="multiclass_nms_nothing_kept"),
    OpCase("multiclass_nms2", {"BBoxes": _boxes((2, 12)), "Scores": rng.uniform(0, 1, (2, 3, 12))},
           lambda i, a: nms_ref(i, a, with_index=True), attrs=_NMS),
    OpCase("multiclass_nms2", {"BBoxes": _LOD_BOXES, "Scores": rng.uniform(0, 1, (12, 3))},
           lambda i, a: nms_ref(i, a, with_index=True), attrs={**_NMS, "keep_top_k": 3},
           name="multiclass_nms2_lod"),
    OpCase("bipartite_match", {"DistMat": _DIST}, match_ref),
    OpCase("bipartite_match", {"DistMat": LoDTensor(_DIST, [[0, 3, 3, 7]])}, match_ref,
           attrs={"match_type": "per_prediction", "dist_threshold": 0.3}, name="bipartite_match_lod_per_prediction"),
    OpCase("target_assign", {"X": LoDTensor(rng.normal(size=(5, 4, 3)), [[0, 2, 5]]),
                             "MatchIndices": np.array([[0, -1, 1, 1, -1, 0], [2, 0, -1, 1, -1, -1]], np.int32)},
           assign_ref, attrs={"mismatch_value": 7}),
    OpCase("target_assign", {"X": LoDTensor(rng.normal(size=(5, 1, 4)).astype("float32"), [[0, 2, 5]]),
                             "MatchIndices": np.array([[0, -1, 1, -1], [2, -1, -1, 1]], np.int32),
                             "NegIndices": LoDTensor(np.array([[1], [3], [2]], np.int32), [[0, 1, 3]])},
           assign_ref, name="target_assign_negatives"),
]


def mine_ref(i, a):
    loss, match, dist = i["ClsLoss"], i["MatchIndices"], i["MatchDist"]
    hard = a["mining_type"] == "hard_example"
    if hard and "LocLoss" in i:
        loss = loss + i["LocLoss"]
    updated, negs = match.copy(), []
    for n in range(len(match)):
        if hard:
            cand = list(range(match.shape[1]))
            k = a["sample_size"]
        else:
            cand = [m for m in range(match.shape[1]) if match[n, m] == -1 and dist[n, m] < a["neg_dist_threshold"]]
            k = int(sum(match[n] != -1) * a["neg_pos_ratio"])
        picked = sorted(sorted(cand, key=lambda m: -loss[n, m])[:k])
        if hard:
            updated[n] = [v if (v == -1 or m in picked) else -1 for m, v in enumerate(match[n])]
            picked = [m for m in picked if match[n, m] == -1]
        negs += picked
    return {"NegIndices": np.array(negs, np.int32).reshape(-1, 1), "UpdatedMatchIndices": updated}


_MATCH = np.array([[0, -1, -1, 1, -1, -1, -1, -1], [-1, -1, 0, -1, -1, -1, -1, -1]], np.int32)
CASES += [
    OpCase("mine_hard_examples", {"ClsLoss": rng.uniform(0, 2, (2, 8)), "MatchIndices": _MATCH,
                                  "MatchDist": rng.uniform(0, 1, (2, 8))}, mine_ref,
           attrs={"neg_pos_ratio": 2.0, "neg_dist_threshold": 0.6}),
    OpCase("mine_hard_examples", {"ClsLoss": rng.uniform(0, 2, (2, 8)), "LocLoss": rng.uniform(0, 1, (2, 8)),
                                  "MatchIndices": _MATCH, "MatchDist": rng.uniform(0, 1, (2, 8))}, mine_ref,
           attrs={"mining_type": "hard_example", "sample_size": 3}, name="mine_hard_examples_hard_example"),
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
            order = order[:a["nms_top_k"]] if a["nms_top_k"] > -1 else order
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
        found = found[:a["keep_top_k"]] if a["keep_top_k"] > -1 else found
        rows += [[c, v] + list(boxes[n, m]) for v, c, m in found]
        index += [n * scores.shape[2] + m for _, _, m in found]
        counts.append(len(found))
    return {"Out": np.array(rows, boxes.dtype).reshape(-1, 6), "Index": np.array(index, np.int32).reshape(-1, 1),
            "RoisNum": np.array(counts, np.int32)}


_MATRIX = {"background_label": 0, "score_threshold": 0.1, "post_threshold": 0.0, "nms_top_k": 6, "keep_top_k": 8,
           "normalized": True, "use_gaussian": False, "gaussian_sigma": 2.0}
CASES += [
    OpCase("matrix_nms", {"BBoxes": _boxes((2, 10)), "Scores": rng.uniform(0, 1, (2, 3, 10))}, matrix_ref,
           attrs=_MATRIX),
    OpCase("matrix_nms", {"BBoxes": _boxes((2, 10), 20), "Scores": rng.uniform(0, 1, (2, 3, 10))}, matrix_ref,
           attrs={**_MATRIX, "use_gaussian": True, "post_threshold": 0.3, "normalized": False, "keep_top_k": -1,
                  "background_label": -1}, name="matrix_nms_gaussian_post_threshold"),
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
            for _, c, k in pairs[:a["keep_top_k"]]:
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
    OpCase("locality_aware_nms", {"BBoxes": _chain(10), "Scores": rng.uniform(0, 1, (2, 2, 10))}, locality_ref,
           attrs=_LOCALITY),
    OpCase("locality_aware_nms", {"BBoxes": _chain(12, 1) * 30, "Scores": rng.uniform(0, 1, (1, 3, 12))},
           locality_ref, attrs={**_LOCALITY, "normalized": False, "keep_top_k": 3, "background_label": 0},
           name="locality_aware_nms_pixels_keep_top_k"),
    OpCase("locality_aware_nms", {"BBoxes": _chain(4), "Scores": rng.uniform(0, 0.1, (2, 1, 4))}, locality_ref,
           attrs={**_LOCALITY, "score_threshold": 0.9}, name="locality_aware_nms_nothing_kept"),
]
