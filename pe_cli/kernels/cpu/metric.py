"""Kernels of ops/metric.py: accuracy, auc, mean_iou, positive_negative_pair and precision_recall, structured kernels
(meta rules: shapes/metric.py): each counts over the batch with numpy (the forms below, slot -> the values it made)
and writes those few values into the buffers it is handed (the "counts" variant: ``_filling``; a 0-D or [1] buffer
of accuracy's and auc's, as the rule decided). The kernels by name are the same through kernels/structured.adapter
(CUDA's host ops, kernels/cuda/metric.py)."""

import math

import numpy as np

from ...base.errors import PeError
from ...shapes import metric as rules
from ..structured import adapter
from .launches import Launch, one
from .runtime.loops import lazy

_metric_loops = lazy("_metric_loops")


def _accuracy(ins, attrs):
    idx, label = ins["Indices"], ins["Label"]
    total = idx.shape[0]
    correct = int((idx == label.reshape(-1, 1)).any(axis=1).sum())
    acc = correct / total if total else 0.0
    return {"Accuracy": np.float32(acc), "Correct": np.int32(correct), "Total": np.int32(total)}


def auc_area(pos, neg):
    """Fluid's calcAuc: trapezoids under (false positives, true positives) from the highest bucket
    down, divided by the totals (0 when either total is 0)."""
    tp, fp = np.cumsum(pos[::-1], dtype=np.float64), np.cumsum(neg[::-1], dtype=np.float64)
    tp_prev, fp_prev = np.concatenate([[0.0], tp[:-1]]), np.concatenate([[0.0], fp[:-1]])
    area = float(np.sum(np.abs(fp - fp_prev) * (tp + tp_prev) / 2.0))
    return area / tp[-1] / fp[-1] if tp[-1] > 0 and fp[-1] > 0 else area


def _auc(ins, attrs):
    """Fluid 1.8's auc kernel: this batch's counts per bucket added to the stats (in a ring of
    slide_steps batches plus their sum and the batch counter, or accumulated when slide_steps is 0),
    then the area of the summed counts."""
    pred, label = ins["Predict"], ins["Label"].reshape(-1)
    n, steps = attrs["num_thresholds"], attrs["slide_steps"]
    p = pred[:, -1]  # (Predict's shape: the rule checked it)
    if p.size and (p.min() < 0 or p.max() > 1):
        raise PeError(f"auc: Predict's probabilities must lie in [0, 1], got [{p.min()}, {p.max()}]")
    bins = (p * n).astype(np.uint32)
    positives = np.bincount(bins[label > 0], minlength=n + 1).astype(np.int64)
    negatives = np.bincount(bins[label == 0], minlength=n + 1).astype(np.int64)
    size = n + 1
    want = (steps + 1) * size + 1 if steps else size
    stat_pos, stat_neg = _counts(ins["StatPos"], want), _counts(ins["StatNeg"], want)
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
    shape = (want,) if steps else (1, size)
    return {
        "AUC": np.float64(auc_area(*total)),
        "StatPosOut": stat_pos.reshape(shape),
        "StatNegOut": stat_neg.reshape(shape),
    }


def _counts(stat, want):
    """The first ``want`` counts of a state variable, as Fluid's kernel reads them (a longer one: the
    window Fluid's layer declares for slide_steps=0 too), zeros after a shorter one's end."""
    flat = stat.reshape(-1)[:want].astype(np.int64)
    return np.concatenate([flat, np.zeros(want - flat.size, np.int64)]) if flat.size < want else flat.copy()


def _mean_iou(ins, attrs):
    """Fluid's mean_iou kernel (float32 mean, int32 counts)."""
    n = attrs["num_classes"]
    pred, label = ins["Predictions"].reshape(-1).astype(np.int64), ins["Labels"].reshape(-1).astype(np.int64)
    if pred.size and (min(pred.min(), label.min()) < 0 or max(pred.max(), label.max()) >= n):
        raise PeError(f"mean_iou: a class id in Predictions or Labels lies outside [0, {n}) (num_classes)")
    hit = pred == label
    correct = np.bincount(pred[hit], minlength=n)
    wrong = np.bincount(label[~hit], minlength=n) + np.bincount(pred[~hit], minlength=n)
    for extra in ins.get("InCorrects") or []:
        correct = correct + np.asarray(extra).reshape(-1)
    for extra in ins.get("InWrongs") or []:
        wrong = wrong + np.asarray(extra).reshape(-1)
    denominator = wrong + correct
    valid = int((denominator != 0).sum())
    with np.errstate(invalid="ignore"):  # no class seen: NaN, as Fluid's 0 / 0
        iou = (correct / np.maximum(denominator, 1)).astype(np.float32).sum() / np.float32(valid)
    iou = iou + sum(np.float32(np.asarray(m).reshape(-1)[0]) for m in (ins.get("InMeanIou") or []))
    return {
        "OutMeanIou": np.array([iou], dtype=np.float32),
        "OutWrong": wrong.astype(np.int32),
        "OutCorrect": correct.astype(np.int32),
    }


def _one(ins, slot, dtype):
    return dtype.type(np.asarray(ins[slot]).reshape(-1)[0]) if slot in ins else dtype.type(0)


def _positive_negative_pair(ins, attrs):
    score, label, query = ins["Score"], np.asarray(ins["Label"]).reshape(-1), np.asarray(ins["QueryID"]).reshape(-1)
    dt = score.dtype
    column = attrs["column"] + score.shape[1] if attrs["column"] < 0 else attrs["column"]
    s = score[:, column]
    w = np.asarray(ins["Weight"]).reshape(-1).astype(dt) if "Weight" in ins else np.ones(len(s), dt)
    pos, neg, neu = (_one(ins, f"Accumulate{k}Pair", dt) for k in ("Positive", "Negative", "Neutral"))
    for q in dict.fromkeys(query.tolist()):  # each query's documents in their batch order
        docs = np.flatnonzero(query == q)
        for a, i in enumerate(docs):
            for j in docs[a + 1 :]:
                if label[i] == label[j]:
                    continue
                weight = (w[i] + w[j]) * dt.type(0.5)
                if s[i] == s[j]:
                    neu += weight
                if (s[i] - s[j]) * (label[i] - label[j]) > 0:
                    pos += weight
                else:
                    neg += weight
    return {
        "PositivePair": np.array([pos], dt),
        "NegativePair": np.array([neg], dt),
        "NeutralPair": np.array([neu], dt),
    }


def _pr_metrics(states):
    tp, fp, fn = states[:, 0], states[:, 1], states[:, 3]

    def ratio(a, b):
        return np.where((a > 0) | (b > 0), a / np.where(a + b == 0, 1, a + b), 1.0)

    def f1(p, r):
        return 2 * p * r / (p + r) if p > 0 or r > 0 else 0.0

    macro_p, macro_r = ratio(tp, fp).mean(), ratio(tp, fn).mean()
    micro_p, micro_r = float(ratio(tp.sum(), fp.sum())), float(ratio(tp.sum(), fn.sum()))
    return np.array([macro_p, macro_r, f1(macro_p, macro_r), micro_p, micro_r, f1(micro_p, micro_r)], np.float64)


def _precision_recall(ins, attrs):
    idx, labels = np.asarray(ins["Indices"]).reshape(-1), np.asarray(ins["Labels"]).reshape(-1)
    n, dt = attrs["class_number"], ins["MaxProbs"].dtype
    bad = (idx < 0) | (idx >= n) | (labels < 0) | (labels >= n)
    if bad.any():
        raise PeError(
            f"precision_recall: class ids and labels must be in [0, {n}), got "
            f"{idx[bad][:3].tolist()} and {labels[bad][:3].tolist()}"
        )
    w = np.asarray(ins["Weights"]).reshape(-1).astype(dt) if "Weights" in ins else np.ones(len(idx), dt)
    states = np.zeros((n, 4), dt)
    np.add.at(states[:, 0], idx[idx == labels], w[idx == labels])
    np.add.at(states[:, 1], idx[idx != labels], w[idx != labels])
    np.add.at(states[:, 3], labels[idx != labels], w[idx != labels])
    states[:, 2] = w.sum() - states[:, 0] - states[:, 1] - states[:, 3]
    batch = _pr_metrics(states)
    if "StatesInfo" in ins:
        states = states + np.asarray(ins["StatesInfo"], dt).reshape(n, 4)
    return {"BatchMetrics": batch, "AccumMetrics": _pr_metrics(states), "AccumStatesInfo": states}


def _filling(form, name):
    """The "counts" out-kernel of ``form(ins, attrs)``: each value it made written into its output's buffer."""

    def out(ins, outs, attrs, meta):
        for slot, value in form(ins, attrs).items():
            np.copyto(outs[slot], value)

    out.__name__ = out.__qualname__ = name
    return out


_FORMS = {  # op type -> (its meta rule, its numpy form)
    "accuracy": (rules.accuracy_meta, _accuracy),
    "auc": (rules.auc_meta, _auc),
    "mean_iou": (rules.mean_iou_meta, _mean_iou),
    "positive_negative_pair": (rules.positive_negative_pair_meta, _positive_negative_pair),
    "precision_recall": (rules.precision_recall_meta, _precision_recall),
}
OUT = {op: _filling(form, f"{op}_out") for op, (_, form) in _FORMS.items()}


def _accuracy_launches(op, table, meta):
    """A planned step's launch of accuracy's counts: _metric_loops.accuracy_counts over Indices [N, k] and Label (N
    integers), what _accuracy computes; None where the values are of other kinds (a Python launch)."""
    idx, label = one(op, "Indices"), one(op, "Label")
    outs = [one(op, slot, "outputs") for slot in ("Accuracy", "Correct", "Total")]
    if meta.variant != "counts" or None in (idx, label, *outs) or len(op.output_arg_names) != 3:
        return None
    if any(n not in table for n in (idx, label, *outs)) or len(table[idx][0]) != 2:
        return None
    (rows, _), kinds = table[idx][0], (table[idx][1].kind, table[label][1].kind)
    if math.prod(table[label][0]) != rows or any(kind not in "iu" for kind in kinds):
        return None
    args = [("var", idx, None), ("var", label, (rows,)), *(("var", name, (1,)) for name in outs)]
    return [Launch(_metric_loops().accuracy_counts, args, writes=outs)]


OUT["accuracy"].launches = _accuracy_launches
accuracy, auc, mean_iou, positive_negative_pair, precision_recall = (
    adapter(_FORMS[op][0], OUT[op], op) for op in _FORMS
)
