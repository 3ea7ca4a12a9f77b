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
