"""The CPU out-kernel (meta rule: shapes/detection_metric.py) of ops/detection_metric.py:
detection_map in numpy, per image and class as Fluid's kernel (matching by IoU, integral or 11-point average
precision, states carried as (score, flag) lists), into new arrays (a ``fresh`` variant: the lists' lengths are the
values'), their LoD on the call's context. CUDA's kernel runs it (``detection_map``, the adapter) on the host."""

import numpy as np

from ...shapes import detection_metric as rules
from ..structured import adapter, fresh_outputs


def _groups(array, lod):
    offs = [int(v) for v in lod[-1]] if lod else [0, len(array)]
    return [array[a:b] for a, b in zip(offs[:-1], offs[1:])]


def _iou(box, boxes):
    """Jaccard overlap of one normalized box with rows of boxes (0 where they do not meet)."""
    w = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    h = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    inter = w * h
    area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])  # noqa: E731
    union = area(box) + area(boxes) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _state(ins, attrs, ctx, classes):
    """(positives per class, {class: [(score, flag)]} true and false positives) carried in from earlier batches."""
    pos, tp, fp = np.zeros(classes, np.int64), {}, {}
    if ins.get("HasState") is None or int(np.asarray(ins["HasState"]).reshape(-1)[0]) == 0:
        return pos, tp, fp
    pos[:] = np.asarray(ins["PosCount"]).reshape(-1)[:classes]
    lods = ctx.lod
    for slot, table in (("TruePos", tp), ("FalsePos", fp)):
        for c, rows in enumerate(_groups(np.asarray(ins[slot]), lods.get(slot))):
            table[c] = [(float(s), int(f)) for s, f in rows]
    return pos, tp, fp


def _match_image(dets, gts, attrs, pos, tp, fp):
    has_difficult = gts.shape[1] == 6
    labels = gts[:, 0].astype(np.int64)
    difficult = gts[:, 1].astype(bool) if has_difficult else np.zeros(len(gts), bool)
    boxes = gts[:, 2:] if has_difficult else gts[:, 1:]
    for c in labels[attrs["evaluate_difficult"] | ~difficult]:
        pos[c] += 1
    for c in np.unique(dets[:, 0].astype(np.int64)):
        mine = dets[dets[:, 0].astype(np.int64) == c]
        mine = mine[np.argsort(-mine[:, 1], kind="stable")]
        gt_rows = np.flatnonzero(labels == c)
        visited = np.zeros(len(gt_rows), bool)
        for det in mine:
            score, hit = float(det[1]), None
            if len(gt_rows):
                overlaps = _iou(det[2:6], boxes[gt_rows])
                best = int(np.argmax(overlaps))
                if overlaps[best] > attrs["overlap_threshold"]:
                    if not attrs["evaluate_difficult"] and difficult[gt_rows[best]]:
                        continue  # a match with a difficult box counts for nothing
                    hit = not visited[best]
                    visited[best] = True
            tp.setdefault(int(c), []).append((score, 1 if hit else 0))
            fp.setdefault(int(c), []).append((score, 0 if hit else 1))


def _average_precision(tps, fps, positives, ap_type):
    order = np.argsort(-np.array([s for s, _ in tps]), kind="stable")
    tp_sum = np.cumsum(np.array([f for _, f in tps], np.float64)[order])
    fp_sum = np.cumsum(np.array([f for _, f in fps], np.float64)[order])
    precision, recall = tp_sum / np.maximum(tp_sum + fp_sum, 1e-12), tp_sum / positives
    if ap_type == "11point":
        return float(
            np.mean([precision[recall >= t].max() if np.any(recall >= t) else 0.0 for t in np.arange(11) / 10.0])
        )
    steps = np.diff(np.concatenate([[0.0], recall]))
    return float(np.sum(precision * np.where(np.abs(steps) > 1e-6, np.abs(steps), 0.0)))


def _mean_ap(pos, tp, fp, attrs, carried):
    """The mean of the classes' average precisions as Fluid's kernel takes it: over the classes its count of
    positives holds (all, with a carried state; else those with positives in this batch), a class without
    detections counting 0; it skips a class whose count equals background_label (it compares the count)."""
    counted = range(len(pos)) if carried else [c for c in range(len(pos)) if pos[c] > 0]
    total, n = 0.0, 0
    for c in counted:
        if pos[c] == attrs["background_label"]:
            continue
        n += 1
        if c in tp:
            total += _average_precision(tp[c], fp[c], pos[c], attrs["ap_type"])
    return total / n if n else 0.0


def detection_map_out(ins, outs, attrs, meta, ctx):
    classes, lods = attrs["class_num"], ctx.lod
    pos, tp, fp = _state(ins, attrs, ctx, classes)
    carried = ins.get("HasState") is not None and int(np.asarray(ins["HasState"]).reshape(-1)[0]) != 0
    dets = _groups(np.asarray(ins["DetectRes"], np.float64), lods.get("DetectRes"))
    gts = _groups(np.asarray(ins["Label"], np.float64), lods.get("Label"))
    for image_dets, image_gts in zip(dets, gts):
        _match_image(image_dets.reshape(-1, 6), image_gts, attrs, pos, tp, fp)
    dtype = np.asarray(ins["DetectRes"]).dtype
    rows = lambda table: [table.get(c, []) for c in range(classes)]  # noqa: E731
    offsets = lambda table: [int(v) for v in np.cumsum([0] + [len(r) for r in rows(table)])]  # noqa: E731
    flat = lambda table: np.array([p for r in rows(table) for p in r], dtype).reshape(-1, 2)  # noqa: E731
    ctx.set_lod_map({"AccumTruePos": [offsets(tp)], "AccumFalsePos": [offsets(fp)]})
    results = {
        "AccumPosCount": pos.astype(np.int32).reshape(-1, 1),
        "AccumTruePos": flat(tp),
        "AccumFalsePos": flat(fp),
        "MAP": np.array([_mean_ap(pos, tp, fp, attrs, carried)], np.float32),
    }
    fresh_outputs(results, ins, outs, meta)


detection_map_out.takes_context = True  # (the LoD it sets on the call's context)
detection_map = adapter(rules.detection_map_meta, detection_map_out, "detection_map")  # (CUDA's host kernel)
