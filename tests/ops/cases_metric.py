"""Op cases for family metric (forward only: no gradients): accuracy, and auc, whose reference follows
Fluid 1.8's auc kernel and test_auc_op.py in plain loops: bucket int(p * num_thresholds) of the
positive probability, counts accumulated (slide_steps 0) or kept for the last slide_steps batches with
their sum and a batch counter, and the trapezoid area from the highest bucket down divided by the totals."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(3)


def accuracy_ref(i, a):
    idx, label = i["Indices"], i["Label"]
    correct = sum(1 for row, lab in zip(idx, label[:, 0]) if lab in row)
    total = len(label)
    return {
        "Accuracy": np.array([correct / total], dtype=np.float32),
        "Correct": np.array([correct], dtype=np.int32),
        "Total": np.array([total], dtype=np.int32),
    }


ACC_INDICES = np.array([[0, 2], [1, 3], [4, 0], [2, 1], [3, 4], [0, 1]], dtype=np.int64)
ACC_LABEL = np.array([[2], [0], [4], [2], [1], [0]], dtype=np.int64)

CASES = [
    OpCase(
        "accuracy",
        {"Out": rng.normal(size=(6, 2)), "Indices": ACC_INDICES, "Label": ACC_LABEL},
        accuracy_ref,
        name="accuracy_top2",
    ),
    OpCase(
        "accuracy",
        {"Out": rng.normal(size=(6, 1)), "Indices": ACC_INDICES[:, :1], "Label": ACC_LABEL},
        accuracy_ref,
        name="accuracy_top1",
    ),
]


def _area(pos, neg):
    area = tot_pos = tot_neg = 0.0
    for idx in range(len(pos) - 1, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += pos[idx]
        tot_neg += neg[idx]
        area += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    return area / tot_pos / tot_neg if tot_pos > 0 and tot_neg > 0 else area


def _ref(i, a):
    n, steps = a["num_thresholds"], a["slide_steps"]
    pos, neg = i["StatPos"].reshape(-1).copy(), i["StatNeg"].reshape(-1).copy()
    size = n + 1
    base = 0 if steps == 0 else int(pos[(steps + 1) * size]) % steps * size
    total = 0 if steps == 0 else steps * size
    if steps:
        for b in range(size):
            pos[total + b] -= pos[base + b]
            neg[total + b] -= neg[base + b]
            pos[base + b] = neg[base + b] = 0
    for p, label in zip(i["Predict"][:, -1], i["Label"].reshape(-1)):
        b = int(np.float32(p) * np.float32(n))
        (pos if label else neg)[base + b] += 1
        if steps:
            (pos if label else neg)[total + b] += 1
    auc = _area(pos[total : total + size], neg[total : total + size])
    if steps:
        pos[(steps + 1) * size] += 1
        neg[(steps + 1) * size] += 1
    return {
        "AUC": np.array([auc]),
        "StatPosOut": pos.reshape(i["StatPos"].shape),
        "StatNegOut": neg.reshape(i["StatNeg"].shape),
    }


def _case(n_thresholds, steps, rows, name, prior=False):
    p = rng.uniform(0, 1, (rows, 1)).astype(np.float32)
    size = (n_thresholds + 1) if steps == 0 else (steps + 1) * (n_thresholds + 1) + 1
    shape = [1, n_thresholds + 1] if steps == 0 else [size]
    stats = [rng.integers(0, 4, shape).astype(np.int64) if prior else np.zeros(shape, np.int64) for _ in range(2)]
    if prior and steps:  # a consistent window: the sum bucket is the sum of the steps
        for s in stats:
            flat = s.reshape(-1)
            width = n_thresholds + 1
            flat[steps * width : (steps + 1) * width] = flat[: steps * width].reshape(steps, width).sum(axis=0)
            flat[-1] = 5
    return OpCase(
        "auc",
        {
            "Predict": np.hstack([1 - p, p]),
            "Label": rng.integers(0, 2, (rows, 1)).astype(np.int64),
            "StatPos": stats[0],
            "StatNeg": stats[1],
        },
        _ref,
        attrs={"num_thresholds": n_thresholds, "slide_steps": steps},
        name=name,
    )


CASES += [
    _case(200, 0, 64, "auc_global"),
    _case(50, 0, 32, "auc_global_accumulates", prior=True),
    _case(100, 1, 40, "auc_one_batch_window"),
    _case(30, 3, 48, "auc_sliding_window", prior=True),
]


def _mean_iou_ref(i, a):
    n, pred, label = a["num_classes"], i["Predictions"].reshape(-1), i["Labels"].reshape(-1)
    correct, wrong = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for p, t in zip(pred, label):
        if p == t:
            correct[p] += 1
        else:
            wrong[p] += 1
            wrong[t] += 1
    correct += sum(i.get("InCorrects", [np.zeros(n, np.int64)]))
    wrong += sum(i.get("InWrongs", [np.zeros(n, np.int64)]))
    seen = correct + wrong > 0
    iou = (correct[seen] / (correct + wrong)[seen]).mean() + sum(m[0] for m in i.get("InMeanIou", []))
    return {
        "OutMeanIou": np.array([iou], np.float32),
        "OutWrong": wrong.astype(np.int32),
        "OutCorrect": correct.astype(np.int32),
    }


_pred = np.array([[0, 1, 1], [2, 2, 4]], np.int32)
CASES += [
    OpCase(
        "mean_iou",
        {"Predictions": _pred, "Labels": np.array([[0, 1, 2], [2, 0, 4]], np.int32)},
        _mean_iou_ref,
        attrs={"num_classes": 5},
        rtol=1e-6,
    ),
    OpCase(
        "mean_iou",
        {
            "Predictions": _pred.astype(np.int64),
            "Labels": np.array([[0, 0, 1], [2, 2, 3]], np.int64),
            "InWrongs": [np.array([1, 0, 0, 2, 0], np.int32)],
            "InCorrects": [np.array([0, 3, 0, 1, 0], np.int32)],
            "InMeanIou": [np.array([0.25], np.float32)],
        },
        _mean_iou_ref,
        attrs={"num_classes": 5},
        rtol=1e-6,
        name="mean_iou_accumulated",
    ),
]


def _pairs(i, a):
    """Every pair of one query with different labels, by hand: score order agreeing with label order is
    positive, else negative (ties too, as Fluid's), ties also neutral; weight = the pair's mean weight."""
    s, lab, q, w = i["Score"][:, a["column"]], i["Label"][:, 0], i["QueryID"][:, 0], i["Weight"][:, 0]
    pos = neg = neu = 0.0
    for x in range(len(s)):
        for y in range(x + 1, len(s)):
            if q[x] != q[y] or lab[x] == lab[y]:
                continue
            wt = (w[x] + w[y]) / 2
            neu += wt if s[x] == s[y] else 0.0
            if (s[x] - s[y]) * (lab[x] - lab[y]) > 0:
                pos += wt
            else:
                neg += wt
    acc = [i[f"Accumulate{k}Pair"][0] for k in ("Positive", "Negative", "Neutral")]
    return {
        "PositivePair": np.array([pos + acc[0]]),
        "NegativePair": np.array([neg + acc[1]]),
        "NeutralPair": np.array([neu + acc[2]]),
    }


def _pr(i, a):
    """Per class TP, FP, TN, FN by hand, then macro and micro precision / recall / F1."""
    n, w = a["class_number"], i["Weights"][:, 0]
    states = np.zeros((n, 4))
    for p, lab, wt in zip(i["Indices"][:, 0], i["Labels"][:, 0], w):
        states[p, 0 if p == lab else 1] += wt
        if p != lab:
            states[lab, 3] += wt
        states[[c for c in range(n) if c not in (p, lab)], 2] += wt

    def metrics(st):
        prec = [t / (t + f) if t + f > 0 else 1.0 for t, f in zip(st[:, 0], st[:, 1])]
        rec = [t / (t + f) if t + f > 0 else 1.0 for t, f in zip(st[:, 0], st[:, 3])]
        mp, mr = np.mean(prec), np.mean(rec)
        tp, fp, fn = st[:, 0].sum(), st[:, 1].sum(), st[:, 3].sum()
        up, ur = tp / (tp + fp), tp / (tp + fn)
        return np.array([mp, mr, 2 * mp * mr / (mp + mr), up, ur, 2 * up * ur / (up + ur)])

    accum = states + i["StatesInfo"]
    return {"BatchMetrics": metrics(states), "AccumMetrics": metrics(accum), "AccumStatesInfo": accum}


CASES += [
    OpCase(
        "positive_negative_pair",
        {
            "Score": np.array([[0.1, 0.9], [0.4, 0.9], [0.3, 0.2], [0.5, 0.6], [0.7, 0.6]]),
            "Label": np.array([[1.0], [0.0], [2.0], [1.0], [0.0]]),
            "QueryID": np.array([[7], [7], [7], [3], [3]]),
            "AccumulatePositivePair": np.array([1.0]),
            "AccumulateNegativePair": np.array([2.0]),
            "AccumulateNeutralPair": np.array([0.5]),
            "Weight": np.array([[1.0], [2.0], [0.5], [1.0], [3.0]]),
        },
        _pairs,
        attrs={"column": 1},
    ),
    OpCase(
        "precision_recall",
        {
            "MaxProbs": np.full((6, 1), 0.5),
            "Indices": np.array([[0], [1], [2], [1], [0], [2]], np.int32),
            "Labels": np.array([[0], [2], [2], [1], [1], [0]], np.int32),
            "Weights": np.array([[1.0], [2.0], [1.0], [0.5], [1.0], [1.5]]),
            "StatesInfo": np.arange(12, dtype=np.float64).reshape(3, 4),
        },
        _pr,
        attrs={"class_number": 3},
    ),
]
