"""CPU out-kernels (meta rules: shapes/detection_nms.py) of ops/detection_nms.py: multiclass_nms (and
multiclass_nms2 and multiclass_nms3, with Index), matrix_nms, locality_aware_nms, retinanet_detection_output and nms.
The per-class NMS is a numba loop (cpu/_detection_loops.py; retinanet_detection_output's, numpy per image around it,
the loop of generate_proposals, _proposal_loops.nms); the rest arranges their results as Fluid 1.8's kernels do, in
new arrays (``fresh`` variants: their rows are the values'), the LoD on the call's context. Their output sizes depend
on the data, so the CUDA kernels run these (the kernels by name at the end: the adapters) on the host."""

import numpy as np

from ...shapes import detection_nms as rules
from ..structured import adapter, fresh_outputs
from .runtime.loops import lazy

_loops = lazy("_detection_loops")
_proposal_loops = lazy("_proposal_loops")


def _images(ins, offs):
    """Per image: (scores [C, M] or [M', C], boxes [M, 4] or [M', C, 4], index offset); ``offs``: the rows of
    each image of 2-D Scores."""
    scores, boxes = np.ascontiguousarray(ins["Scores"]), np.ascontiguousarray(ins["BBoxes"])
    if scores.ndim == 3:
        return [(scores[i], boxes[i], i * scores.shape[2]) for i in range(scores.shape[0])]
    return [(scores[a:b], boxes[a:b], a * scores.shape[1]) for a, b in zip(offs[:-1], offs[1:])]


def _class_nms(scores, boxes, attrs):
    """{label: kept indices} of one image, after keep_top_k, in Fluid's order."""
    per_box = scores.ndim == 2 and boxes.ndim == 3  # [M', C] scores, [M', C, 4] boxes
    classes = scores.shape[1] if per_box else scores.shape[0]
    dt = scores.dtype.type
    out = {}
    for c in range(classes):
        if c == attrs["background_label"]:
            continue
        s = np.ascontiguousarray(scores[:, c] if per_box else scores[c])
        b = np.ascontiguousarray(boxes[:, c, :] if per_box else boxes)
        kept = np.empty(s.shape[0], np.int64)
        n = _loops().nms_fast(
            b,
            s,
            dt(attrs["score_threshold"]),
            dt(attrs["nms_threshold"]),
            dt(attrs["nms_eta"]),
            int(attrs["nms_top_k"]),
            bool(attrs["normalized"]),
            kept,
        )
        out[c] = sorted(kept[:n].tolist()) if per_box else kept[:n].tolist()
    total = sum(len(v) for v in out.values())
    keep_top_k = int(attrs["keep_top_k"])
    if -1 < keep_top_k < total:
        pairs = [(_score(scores, per_box, c, i), c, i) for c in sorted(out) for i in out[c]]
        order = sorted(range(len(pairs)), key=lambda k: -pairs[k][0])[:keep_top_k]  # stable
        regrouped = {}
        for k in order:
            regrouped.setdefault(pairs[k][1], []).append(pairs[k][2])
        out = {c: sorted(v) if per_box else v for c, v in regrouped.items()}
    return out, per_box


def _score(scores, per_box, label, i):
    return scores[i, label] if per_box else scores[label, i]


def _nms(ins, attrs, offs):
    """(Out rows, Index rows, LoD offsets) over the batch."""
    rows, index, starts = [], [], [0]
    for scores, boxes, offset in _images(ins, offs):
        kept, per_box = _class_nms(scores, boxes, attrs)
        for label in sorted(kept):
            for i in kept[label]:
                box = boxes[i, label] if per_box else boxes[i]
                rows.append(np.concatenate([[label, _score(scores, per_box, label, i)], box]))
                index.append(offset + (i * scores.shape[1] + label if per_box else i))
        starts.append(len(rows))
    return rows, index, starts


def _offsets(ins, ctx):
    """The rows of each image of 2-D Scores (the meta rule refused them without a LoD); None for 3-D."""
    if ins["Scores"].ndim == 3:
        return None
    lod = ctx.lod.get("BBoxes") or ctx.lod.get("Scores")
    return [int(v) for v in lod[-1]]


def multiclass_nms_out(ins, outs, attrs, meta, ctx):
    rows, _, starts = _nms(ins, attrs, _offsets(ins, ctx))
    dtype = ins["BBoxes"].dtype
    if not rows:  # nothing kept anywhere: Fluid's one row [-1] and the LoD [0, 1]
        ctx.set_lod_map({"Out": [[0, 1]]})
        fresh_outputs({"Out": np.full((1, 1), -1, dtype)}, ins, outs, meta)
        return
    ctx.set_lod_map({"Out": [starts]})
    fresh_outputs({"Out": np.asarray(rows, dtype)}, ins, outs, meta)


def multiclass_nms2_out(ins, outs, attrs, meta, ctx):
    rows, index, starts = _nms(ins, attrs, _offsets(ins, ctx))
    dtype, width = ins["BBoxes"].dtype, ins["BBoxes"].shape[-1] + 2
    ctx.set_lod_map({"Out": [starts], "Index": [starts]})
    if not rows:  # nothing kept anywhere: Fluid 1.8.5's Out and Index hold no dims but [0]; Paddle 2.6's [0, 6], [0, 1]
        if meta.variant == "paddle2":
            results = {"Out": np.empty((0, width), dtype), "Index": np.empty((0, 1), np.int32)}
        else:
            results = {"Out": np.empty(0, dtype), "Index": np.empty(0, np.int32)}
    else:
        results = {
            "Out": np.asarray(rows, dtype).reshape(-1, width),
            "Index": np.asarray(index, np.int32).reshape(-1, 1),
        }
    fresh_outputs(results, ins, outs, meta)


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
            order = order[: attrs["nms_top_k"]]
        decay = np.empty(order.size, np.float64)
        _loops().matrix_decay(
            boxes,
            order.astype(np.int64),
            bool(attrs["normalized"]),
            bool(attrs["use_gaussian"]),
            float(attrs["gaussian_sigma"]),
            decay,
        )
        decayed = (s[order] * decay).astype(scores.dtype)
        found += [(v, c, i) for v, i in zip(decayed, order) if v > attrs["post_threshold"]]
    best = sorted(range(len(found)), key=lambda k: -found[k][0])  # stable
    if attrs["keep_top_k"] > -1:
        best = best[: attrs["keep_top_k"]]
    return [found[k] for k in best]


def matrix_nms_out(ins, outs, attrs, meta, ctx):
    scores, boxes = np.ascontiguousarray(ins["Scores"]), np.ascontiguousarray(ins["BBoxes"])
    rows, index, counts = [], [], []
    for n in range(scores.shape[0]):
        kept = _matrix_image(scores[n], boxes[n], attrs)
        rows += [np.concatenate([[label, score], boxes[n, i]]) for score, label, i in kept]
        index += [n * scores.shape[2] + i for _, _, i in kept]
        counts.append(len(kept))
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64).tolist()
    ctx.set_lod_map({"Out": [starts], "Index": [starts]})
    results = {
        "Out": np.asarray(rows, boxes.dtype).reshape(-1, boxes.shape[2] + 2),
        "Index": np.asarray(index, np.int32).reshape(-1, 1),
        "RoisNum": np.asarray(counts, np.int32),
    }
    fresh_outputs(results, ins, outs, meta)


def _locality_image(scores, boxes, attrs):
    """{label: kept indices} of one image; scores and boxes (copies) change as Fluid's kernel changes them."""
    dt = scores.dtype.type
    out = {}
    for c in range(scores.shape[0]):
        if c == attrs["background_label"]:
            continue
        s = scores[c]  # a view: merged scores stay for the output
        kept_mask = np.zeros(s.shape[0], np.bool_)
        _loops().locality_merge(boxes, s, dt(attrs["nms_threshold"]), bool(attrs["normalized"]), kept_mask)
        masked = np.where(kept_mask, s, -np.inf).astype(s.dtype)
        kept = np.empty(s.shape[0], np.int64)
        n = _loops().nms_fast(
            boxes,
            masked,
            dt(attrs["score_threshold"]),
            dt(attrs["nms_threshold"]),
            dt(attrs["nms_eta"]),
            int(attrs["nms_top_k"]),
            bool(attrs["normalized"]),
            kept,
        )
        out[c] = kept[:n].tolist()
    total = sum(len(v) for v in out.values())
    if -1 < attrs["keep_top_k"] < total:
        pairs = [(scores[c, i], c, i) for c in sorted(out) for i in out[c]]
        regrouped = {}
        for k in sorted(range(len(pairs)), key=lambda k: -pairs[k][0])[: attrs["keep_top_k"]]:
            regrouped.setdefault(pairs[k][1], []).append(pairs[k][2])
        out = regrouped
    return out


def locality_aware_nms_out(ins, outs, attrs, meta, ctx):
    scores, boxes = np.array(ins["Scores"]), np.array(ins["BBoxes"])  # copies: the merge changes them
    rows, starts = [], [0]
    for n in range(scores.shape[0]):
        kept = _locality_image(scores[n], boxes[n], attrs)
        rows += [np.concatenate([[c, scores[n, c, i]], boxes[n, i]]) for c in sorted(kept) for i in kept[c]]
        starts.append(len(rows))
    if not rows:
        ctx.set_lod_map({"Out": [[0, 1]]})
        fresh_outputs({"Out": np.full((1, 1), -1, boxes.dtype)}, ins, outs, meta)
        return
    ctx.set_lod_map({"Out": [starts]})
    fresh_outputs({"Out": np.asarray(rows, boxes.dtype)}, ins, outs, meta)


def _retinanet_level(scores, deltas, anchors, info, threshold, top_k):
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


def _retinanet_image(levels, attrs):
    """Rows [label + 1, score, x1, y1, x2, y2] of one image: per class NMS, then the keep_top_k best."""
    labels = np.concatenate([lv[0] for lv in levels])
    scores = np.concatenate([lv[1] for lv in levels])
    boxes = np.concatenate([lv[2] for lv in levels]).reshape(-1, 4)
    rows = []
    for c in np.unique(labels):
        mine = np.nonzero(labels == c)[0]
        mine = mine[np.argsort(-scores[mine], kind="stable")]
        keep = np.empty(mine.size, dtype=np.int64)
        n = _proposal_loops().nms(
            np.ascontiguousarray(boxes[mine], dtype=np.float64),
            float(attrs["nms_threshold"]),
            float(attrs["nms_eta"]),
            keep,
        )
        rows += [(scores[k], c, k) for k in mine[keep[:n]]]
    order = sorted(range(len(rows)), key=lambda j: -rows[j][0])  # stable: class order, then NMS order
    if attrs["keep_top_k"] > -1:
        order = order[: attrs["keep_top_k"]]
    return [[rows[j][1] + 1, rows[j][0], *boxes[rows[j][2]]] for j in order]


def retinanet_detection_output_out(ins, outs, attrs, meta, ctx):
    deltas, scores, anchors, info = ins["BBoxes"], ins["Scores"], ins["Anchors"], ins["ImInfo"]
    out, offsets = [], [0]
    last = len(scores) - 1
    for i in range(scores[0].shape[0]):
        levels = [
            _retinanet_level(
                np.asarray(s[i], dtype=np.float64),
                np.asarray(d[i], dtype=np.float64).reshape(-1, 4),
                np.asarray(a, dtype=np.float64).reshape(-1, 4),
                np.asarray(info[i], dtype=np.float64),
                attrs["score_threshold"] if k < last else 0.0,
                attrs["nms_top_k"],
            )
            for k, (s, d, a) in enumerate(zip(scores, deltas, anchors))
        ]
        rows = _retinanet_image(levels, attrs)
        out += rows
        offsets.append(offsets[-1] + len(rows))
    result = np.asarray(out, dtype=scores[0].dtype).reshape(-1, 6)
    ctx.set_lod_map({"Out": [offsets]})
    fresh_outputs({"Out": result}, ins, outs, meta)


def multiclass_nms3_out(ins, outs, attrs, meta, ctx):
    """multiclass_nms2's rows; RoisNum, where given, the images' rows of 2-D Scores; NmsRoisNum per image."""
    if ins.get("RoisNum") is not None and ins["Scores"].ndim != 3:
        counts = np.asarray(ins["RoisNum"]).reshape(-1).astype(np.int64)
        offs = [0] + np.cumsum(counts).tolist()
    else:
        offs = _offsets(ins, ctx)
    rows, index, starts = _nms(ins, attrs, offs)
    width = ins["BBoxes"].shape[-1] + 2
    ctx.set_lod_map({"Out": [starts], "Index": [starts]})
    results = {
        "Out": np.asarray(rows, ins["BBoxes"].dtype).reshape(-1, width),
        "Index": np.asarray(index, np.int32).reshape(-1, 1),
        "NmsRoisNum": np.diff(np.asarray(starts)).astype(np.int32),
    }
    fresh_outputs(results, ins, outs, meta)


def nms_out(ins, outs, attrs, meta):
    """Paddle 2.6's NMSKernel: boxes in their order, IoU of unnormalized corner boxes (no +1), strictly above
    iou_threshold drops."""
    b = np.asarray(ins["Boxes"], np.float64)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    thr = float(np.float32(attrs["iou_threshold"]))
    kept, dead = [], np.zeros(len(b), bool)
    for i in range(len(b)):
        if dead[i]:
            continue
        kept.append(i)
        w = np.maximum(0, np.minimum(b[i, 2], b[i + 1 :, 2]) - np.maximum(b[i, 0], b[i + 1 :, 0]))
        h = np.maximum(0, np.minimum(b[i, 3], b[i + 1 :, 3]) - np.maximum(b[i, 1], b[i + 1 :, 1]))
        inter = w * h
        iou = inter / (area[i] + area[i + 1 :] - inter)
        dead[i + 1 :] |= iou > thr
    fresh_outputs({"KeepBoxesIdxs": np.array(kept, np.int64)}, ins, outs, meta)


# (the LoD each sets on the call's context)
multiclass_nms_out.takes_context = multiclass_nms2_out.takes_context = multiclass_nms3_out.takes_context = True
matrix_nms_out.takes_context = locality_aware_nms_out.takes_context = True
retinanet_detection_output_out.takes_context = True

# the kernels by name CUDA's kernels are given (kernels/cuda/detection_nms.py's HOST_OPS): the adapters
multiclass_nms = adapter(rules.multiclass_nms_meta, multiclass_nms_out, "multiclass_nms")
multiclass_nms2 = adapter(rules.multiclass_nms2_meta, multiclass_nms2_out, "multiclass_nms2")
multiclass_nms3 = adapter(rules.multiclass_nms3_meta, multiclass_nms3_out, "multiclass_nms3")
matrix_nms = adapter(rules.matrix_nms_meta, matrix_nms_out, "matrix_nms")
locality_aware_nms = adapter(rules.locality_aware_nms_meta, locality_aware_nms_out, "locality_aware_nms")
retinanet_detection_output = adapter(
    rules.retinanet_detection_output_meta, retinanet_detection_output_out, "retinanet_detection_output"
)
nms = adapter(rules.nms_meta, nms_out, "nms")
