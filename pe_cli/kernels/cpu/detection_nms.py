"""Kernels of ops/detection_nms.py on the CPU: multiclass_nms (and multiclass_nms2, with Index),
bipartite_match, target_assign and mine_hard_examples. The per-class NMS and the greedy matching are numba loops
(cpu/_detection_loops.py); the rest arranges their results as Fluid 1.8's kernels do."""
import numpy as np

from ...errors import PeError
from ._numba import lazy

_loops = lazy("_detection_loops")


def _images(ins, attrs):
    """Per image: (scores [C, M] or [M', C], boxes [M, 4] or [M', C, 4], index offset)."""
    scores, boxes = np.ascontiguousarray(ins["Scores"]), np.ascontiguousarray(ins["BBoxes"])
    if scores.ndim == 3:
        return [(scores[i], boxes[i], i * scores.shape[2]) for i in range(scores.shape[0])]
    lod = (attrs.get("_lod") or {}).get("BBoxes") or (attrs.get("_lod") or {}).get("Scores")
    if not lod:
        raise PeError("multiclass_nms: 2-D Scores [M, C] need BBoxes [M, C, 4] with a LoD (boxes per image)")
    offs = [int(v) for v in lod[-1]]
    return [(scores[a:b], boxes[a:b], a * scores.shape[1]) for a, b in zip(offs[:-1], offs[1:])]


def _class_nms(scores, boxes, attrs):
    """{label: kept indices} of one image, after keep_top_k, in Fluid's order."""
    per_box = scores.ndim == 2 and boxes.ndim == 3            # [M', C] scores, [M', C, 4] boxes
    classes = scores.shape[1] if per_box else scores.shape[0]
    dt = scores.dtype.type
    out = {}
    for c in range(classes):
        if c == attrs["background_label"]:
            continue
        s = np.ascontiguousarray(scores[:, c] if per_box else scores[c])
        b = np.ascontiguousarray(boxes[:, c, :] if per_box else boxes)
        kept = np.empty(s.shape[0], np.int64)
        n = _loops().nms_fast(b, s, dt(attrs["score_threshold"]), dt(attrs["nms_threshold"]), dt(attrs["nms_eta"]),
                              int(attrs["nms_top_k"]), bool(attrs["normalized"]), kept)
        out[c] = sorted(kept[:n].tolist()) if per_box else kept[:n].tolist()
    total = sum(len(v) for v in out.values())
    keep_top_k = int(attrs["keep_top_k"])
    if -1 < keep_top_k < total:
        pairs = [(_score(scores, per_box, c, i), c, i) for c in sorted(out) for i in out[c]]
        order = sorted(range(len(pairs)), key=lambda k: -pairs[k][0])[:keep_top_k]   # stable
        regrouped = {}
        for k in order:
            regrouped.setdefault(pairs[k][1], []).append(pairs[k][2])
        out = {c: sorted(v) if per_box else v for c, v in regrouped.items()}
    return out, per_box


def _score(scores, per_box, label, i):
    return scores[i, label] if per_box else scores[label, i]


def _nms(ins, attrs):
    """(Out rows, Index rows, LoD offsets) over the batch."""
    rows, index, starts = [], [], [0]
    for scores, boxes, offset in _images(ins, attrs):
        kept, per_box = _class_nms(scores, boxes, attrs)
        for label in sorted(kept):
            for i in kept[label]:
                box = boxes[i, label] if per_box else boxes[i]
                rows.append(np.concatenate([[label, _score(scores, per_box, label, i)], box]))
                index.append(offset + (i * scores.shape[1] + label if per_box else i))
        starts.append(len(rows))
    return rows, index, starts


def multiclass_nms(ins, attrs):
    rows, _, starts = _nms(ins, attrs)
    dtype = ins["BBoxes"].dtype
    if not rows:            # nothing kept anywhere: Fluid's one row [-1] and the LoD [0, 1]
        return {"Out": np.full((1, 1), -1, dtype), "@LOD": {"Out": [[0, 1]]}}
    return {"Out": np.asarray(rows, dtype), "@LOD": {"Out": [starts]}}


def multiclass_nms2(ins, attrs):
    rows, index, starts = _nms(ins, attrs)
    dtype, width = ins["BBoxes"].dtype, ins["BBoxes"].shape[-1] + 2
    out = np.asarray(rows, dtype).reshape(-1, width)
    return {"Out": out, "Index": np.asarray(index, np.int32).reshape(-1, 1),
            "@LOD": {"Out": [starts], "Index": [starts]}}


def bipartite_match(ins, attrs):
    dist = np.ascontiguousarray(ins["DistMat"])
    lod = (attrs.get("_lod") or {}).get("DistMat")
    offs = [int(v) for v in lod[-1]] if lod else [0, dist.shape[0]]
    n, cols = len(offs) - 1, dist.shape[1]
    idx, out = np.full((n, cols), -1, np.int32), np.zeros((n, cols), dist.dtype)
    loops = _loops()
    for i in range(n):
        if offs[i + 1] > offs[i]:
            loops.bipartite(dist, offs[i], offs[i + 1], idx[i], out[i])
            if attrs["match_type"] == "per_prediction":
                loops.argmax_match(dist, offs[i], offs[i + 1], dist.dtype.type(attrs["dist_threshold"]), idx[i], out[i])
    return {"ColToRowMatchIndices": idx, "ColToRowMatchDist": out}


def target_rows(ins, attrs):
    """(rows of X each output takes, or -1, and the (image, column) pairs NegIndices names)."""
    lod = (attrs.get("_lod") or {}).get("X")
    if not lod:
        raise PeError("target_assign: X needs a LoD (its rows per image)")
    offs = np.asarray(lod[-1], np.int64)
    match = np.asarray(ins["MatchIndices"]).astype(np.int64)
    n, m = match.shape
    if offs.size - 1 != n:
        raise PeError(f"target_assign: X's LoD holds {offs.size - 1} images but MatchIndices has {n} rows")
    src = np.where(match > -1, offs[:-1, None] + match, -1)
    neg_img = neg_col = np.zeros(0, np.int64)
    if "NegIndices" in ins:
        neg_lod = (attrs.get("_lod") or {}).get("NegIndices")
        if not neg_lod:
            raise PeError("target_assign: NegIndices needs a LoD (its indices per image)")
        noffs = np.asarray(neg_lod[-1], np.int64)
        neg_img = np.repeat(np.arange(noffs.size - 1), np.diff(noffs))
        neg_col = np.asarray(ins["NegIndices"]).reshape(-1).astype(np.int64)
    if (src >= offs[-1]).any() or (neg_col >= m).any() or (neg_col < 0).any():
        raise PeError("target_assign: an index lies outside X's rows of its image or MatchIndices' columns")
    return src, neg_img, neg_col


def target_assign(ins, attrs):
    x = ins["X"]
    src, neg_img, neg_col = target_rows(ins, attrs)
    n, m = src.shape
    p = x.shape[1]
    cols = np.arange(m) % p
    out = np.where((src > -1)[..., None], x[np.maximum(src, 0), cols[None, :]], x.dtype.type(attrs["mismatch_value"]))
    weight = (src > -1).astype(np.float32)[..., None]
    out[neg_img, neg_col] = attrs["mismatch_value"]
    weight[neg_img, neg_col] = 1.0
    return {"Out": out.astype(x.dtype, copy=False), "OutWeight": weight}


def mine_hard_examples(ins, attrs):
    cls = np.asarray(ins["ClsLoss"])
    loss = cls + np.asarray(ins["LocLoss"]) if "LocLoss" in ins and attrs["mining_type"] == "hard_example" else cls
    match = np.asarray(ins["MatchIndices"]).astype(np.int32)
    dist = np.asarray(ins["MatchDist"])
    updated = match.copy()
    negs, starts = [], [0]
    hard = attrs["mining_type"] == "hard_example"
    for n in range(match.shape[0]):
        if hard:
            eligible = np.arange(match.shape[1])
            count = min(int(attrs["sample_size"]), eligible.size)
        else:
            eligible = np.flatnonzero((match[n] == -1) & (dist[n] < dist.dtype.type(attrs["neg_dist_threshold"])))
            count = min(int((match[n] != -1).sum() * attrs["neg_pos_ratio"]), eligible.size)
        order = np.argsort(-loss[n, eligible], kind="stable")[:count]
        chosen = np.sort(eligible[order])
        if hard:
            picked = np.zeros(match.shape[1], bool)
            picked[chosen] = True
            updated[n, (match[n] > -1) & ~picked] = -1
            chosen = chosen[match[n, chosen] == -1]
        negs.append(chosen)
        starts.append(starts[-1] + chosen.size)
    neg = np.concatenate(negs).astype(np.int32).reshape(-1, 1) if negs else np.zeros((0, 1), np.int32)
    return {"NegIndices": neg, "UpdatedMatchIndices": updated, "@LOD": {"NegIndices": [starts]}}


def _matrix_image(scores, boxes, attrs):
    """[(decayed score, label, index)] of one image, best first, at most keep_top_k."""
    found = []
    dt = scores.dtype.type
    for c in range(scores.shape[0]):
        if c == attrs["background_label"]:
            continue
        s = scores[c]
        cand = np.flatnonzero(s > dt(attrs["score_threshold"]))
        order = cand[np.argsort(-s[cand], kind="stable")]
        if -1 < attrs["nms_top_k"] < order.size:
            order = order[:attrs["nms_top_k"]]
        decay = np.empty(order.size, np.float64)
        _loops().matrix_decay(boxes, order.astype(np.int64), bool(attrs["normalized"]), bool(attrs["use_gaussian"]),
                              float(attrs["gaussian_sigma"]), decay)
        decayed = (s[order] * decay).astype(scores.dtype)
        found += [(v, c, i) for v, i in zip(decayed, order) if v > attrs["post_threshold"]]
    best = sorted(range(len(found)), key=lambda k: -found[k][0])          # stable
    if attrs["keep_top_k"] > -1:
        best = best[:attrs["keep_top_k"]]
    return [found[k] for k in best]


def matrix_nms(ins, attrs):
    scores, boxes = np.ascontiguousarray(ins["Scores"]), np.ascontiguousarray(ins["BBoxes"])
    rows, index, counts = [], [], []
    for n in range(scores.shape[0]):
        kept = _matrix_image(scores[n], boxes[n], attrs)
        rows += [np.concatenate([[label, score], boxes[n, i]]) for score, label, i in kept]
        index += [n * scores.shape[2] + i for _, _, i in kept]
        counts.append(len(kept))
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64).tolist()
    return {"Out": np.asarray(rows, boxes.dtype).reshape(-1, boxes.shape[2] + 2),
            "Index": np.asarray(index, np.int32).reshape(-1, 1), "RoisNum": np.asarray(counts, np.int32),
            "@LOD": {"Out": [starts], "Index": [starts]}}


def _locality_image(scores, boxes, attrs):
    """{label: kept indices} of one image; scores and boxes (copies) change as Fluid's kernel changes them."""
    dt = scores.dtype.type
    out = {}
    for c in range(scores.shape[0]):
        if c == attrs["background_label"]:
            continue
        s = scores[c]                                  # a view: merged scores stay for the output
        kept_mask = np.zeros(s.shape[0], np.bool_)
        _loops().locality_merge(boxes, s, dt(attrs["nms_threshold"]), bool(attrs["normalized"]), kept_mask)
        masked = np.where(kept_mask, s, -np.inf).astype(s.dtype)
        kept = np.empty(s.shape[0], np.int64)
        n = _loops().nms_fast(boxes, masked, dt(attrs["score_threshold"]), dt(attrs["nms_threshold"]),
                              dt(attrs["nms_eta"]), int(attrs["nms_top_k"]), bool(attrs["normalized"]), kept)
        out[c] = kept[:n].tolist()
    total = sum(len(v) for v in out.values())
    if -1 < attrs["keep_top_k"] < total:
        pairs = [(scores[c, i], c, i) for c in sorted(out) for i in out[c]]
        regrouped = {}
        for k in sorted(range(len(pairs)), key=lambda k: -pairs[k][0])[:attrs["keep_top_k"]]:
            regrouped.setdefault(pairs[k][1], []).append(pairs[k][2])
        out = regrouped
    return out


def locality_aware_nms(ins, attrs):
    scores, boxes = np.array(ins["Scores"]), np.array(ins["BBoxes"])        # copies: the merge changes them
    rows, starts = [], [0]
    for n in range(scores.shape[0]):
        kept = _locality_image(scores[n], boxes[n], attrs)
        rows += [np.concatenate([[c, scores[n, c, i]], boxes[n, i]]) for c in sorted(kept) for i in kept[c]]
        starts.append(len(rows))
    if not rows:
        return {"Out": np.full((1, 1), -1, boxes.dtype), "@LOD": {"Out": [[0, 1]]}}
    return {"Out": np.asarray(rows, boxes.dtype), "@LOD": {"Out": [starts]}}
