"""Kernels of ops/metric.py: accuracy and auc."""
import numpy as np

from ...base.errors import PeError


def accuracy(ins, attrs):
    idx, label = ins["Indices"], ins["Label"]
    total = idx.shape[0]
    correct = int((idx == label.reshape(-1, 1)).any(axis=1).sum())
    acc = correct / total if total else 0.0
    return {"Accuracy": np.array([acc], dtype=np.float32), "Correct": np.array([correct], dtype=np.int32),
            "Total": np.array([total], dtype=np.int32)}


def auc_area(pos, neg):
    """Fluid's calcAuc: trapezoids under (false positives, true positives) from the highest bucket
    down, divided by the totals (0 when either total is 0)."""
    tp, fp = np.cumsum(pos[::-1], dtype=np.float64), np.cumsum(neg[::-1], dtype=np.float64)
    tp_prev, fp_prev = np.concatenate([[0.0], tp[:-1]]), np.concatenate([[0.0], fp[:-1]])
    area = float(np.sum(np.abs(fp - fp_prev) * (tp + tp_prev) / 2.0))
    return area / tp[-1] / fp[-1] if tp[-1] > 0 and fp[-1] > 0 else area


def auc(ins, attrs):
    """Fluid 1.8's auc kernel: this batch's counts per bucket added to the stats (in a ring of
    slide_steps batches plus their sum and the batch counter, or accumulated when slide_steps is 0),
    then the area of the summed counts."""
    pred, label = ins["Predict"], ins["Label"].reshape(-1)
    n, steps = attrs["num_thresholds"], attrs["slide_steps"]
    p = pred[:, -1]
    if p.size and (p.min() < 0 or p.max() > 1):
        raise PeError(f"auc: Predict's probabilities must lie in [0, 1], got [{p.min()}, {p.max()}]")
    bins = (p * n).astype(np.uint32)
    positives = np.bincount(bins[label != 0], minlength=n + 1).astype(np.int64)
    negatives = np.bincount(bins[label == 0], minlength=n + 1).astype(np.int64)
    stat_pos, stat_neg = ins["StatPos"].reshape(-1).copy(), ins["StatNeg"].reshape(-1).copy()
    size = n + 1
    if steps == 0:
        stat_pos += positives
        stat_neg += negatives
        total = (stat_pos, stat_neg)
    else:
        cur = int(stat_pos[(steps + 1) * size]) % steps
        window, total_at = slice(cur * size, (cur + 1) * size), slice(steps * size, (steps + 1) * size)
        for stat, new in ((stat_pos, positives), (stat_neg, negatives)):
            stat[total_at] += new - stat[window]
            stat[window] = new
            stat[(steps + 1) * size] += 1
        total = (stat_pos[total_at], stat_neg[total_at])
    return {"AUC": np.array([auc_area(*total)], dtype=np.float64),
            "StatPosOut": stat_pos.reshape(ins["StatPos"].shape), "StatNegOut": stat_neg.reshape(ins["StatNeg"].shape)}


def _groups(array, lod):
    offs = [int(v) for v in lod[-1]] if lod else [0, len(array)]
    return [array[a:b] for a, b in zip(offs[:-1], offs[1:])]


def _iou(box, boxes):
    """Jaccard overlap of one normalized box with rows of boxes (0 where they do not meet)."""
    w = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    h = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    inter = w * h
    area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])   # noqa: E731
    union = area(box) + area(boxes) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _state(ins, attrs, classes):
    """(positives per class, {class: [(score, flag)]} true and false positives) carried in from earlier batches."""
    pos, tp, fp = np.zeros(classes, np.int64), {}, {}
    if ins.get("HasState") is None or int(np.asarray(ins["HasState"]).reshape(-1)[0]) == 0:
        return pos, tp, fp
    pos[:] = np.asarray(ins["PosCount"]).reshape(-1)[:classes]
    lods = attrs.get("_lod") or {}
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
                        continue                         # a match with a difficult box counts for nothing
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
        return float(np.mean([precision[recall >= t].max() if np.any(recall >= t) else 0.0
                              for t in np.arange(11) / 10.0]))
    steps = np.diff(np.concatenate([[0.0], recall]))
    return float(np.sum(precision * np.where(np.abs(steps) > 1e-6, np.abs(steps), 0.0)))


def detection_map(ins, attrs):
    classes, lods = attrs["class_num"], attrs.get("_lod") or {}
    pos, tp, fp = _state(ins, attrs, classes)
    dets = _groups(np.asarray(ins["DetectRes"], np.float64), lods.get("DetectRes"))
    gts = _groups(np.asarray(ins["Label"], np.float64), lods.get("Label"))
    if len(dets) != len(gts):
        raise PeError(f"detection_map: DetectRes holds {len(dets)} images, Label {len(gts)}")
    for image_dets, image_gts in zip(dets, gts):
        _match_image(image_dets.reshape(-1, 6), image_gts, attrs, pos, tp, fp)
    aps = [_average_precision(tp[c], fp[c], pos[c], attrs["ap_type"]) for c in range(classes)
           if c != attrs["background_label"] and pos[c] > 0 and tp.get(c)]
    dtype = np.asarray(ins["DetectRes"]).dtype
    rows = lambda table: [table.get(c, []) for c in range(classes)]     # noqa: E731
    offsets = lambda table: [int(v) for v in np.cumsum([0] + [len(r) for r in rows(table)])]   # noqa: E731
    flat = lambda table: np.array([p for r in rows(table) for p in r], dtype).reshape(-1, 2)  # noqa: E731
    return {"AccumPosCount": pos.astype(np.int32).reshape(-1, 1), "AccumTruePos": flat(tp),
            "AccumFalsePos": flat(fp), "MAP": np.array([np.mean(aps) if aps else 0.0], np.float32),
            "@LOD": {"AccumTruePos": [offsets(tp)], "AccumFalsePos": [offsets(fp)]}}
