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
    return {"Accuracy": np.array([correct / total], dtype=np.float32),
            "Correct": np.array([correct], dtype=np.int32), "Total": np.array([total], dtype=np.int32)}


ACC_INDICES = np.array([[0, 2], [1, 3], [4, 0], [2, 1], [3, 4], [0, 1]], dtype=np.int64)
ACC_LABEL = np.array([[2], [0], [4], [2], [1], [0]], dtype=np.int64)

CASES = [
    OpCase("accuracy", {"Out": rng.normal(size=(6, 2)), "Indices": ACC_INDICES, "Label": ACC_LABEL}, accuracy_ref,
           name="accuracy_top2"),
    OpCase("accuracy", {"Out": rng.normal(size=(6, 1)), "Indices": ACC_INDICES[:, :1], "Label": ACC_LABEL},
           accuracy_ref, name="accuracy_top1"),
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
    auc = _area(pos[total:total + size], neg[total:total + size])
    if steps:
        pos[(steps + 1) * size] += 1
        neg[(steps + 1) * size] += 1
    return {"AUC": np.array([auc]), "StatPosOut": pos.reshape(i["StatPos"].shape),
            "StatNegOut": neg.reshape(i["StatNeg"].shape)}


def _case(n_thresholds, steps, rows, name, prior=False):
    p = rng.uniform(0, 1, (rows, 1)).astype(np.float32)
    size = (n_thresholds + 1) if steps == 0 else (steps + 1) * (n_thresholds + 1) + 1
    shape = [1, n_thresholds + 1] if steps == 0 else [size]
    stats = [rng.integers(0, 4, shape).astype(np.int64) if prior else np.zeros(shape, np.int64) for _ in range(2)]
    if prior and steps:                     # a consistent window: the sum bucket is the sum of the steps
        for s in stats:
            flat = s.reshape(-1)
            width = n_thresholds + 1
            flat[steps * width:(steps + 1) * width] = flat[:steps * width].reshape(steps, width).sum(axis=0)
            flat[-1] = 5
    return OpCase("auc", {"Predict": np.hstack([1 - p, p]), "Label": rng.integers(0, 2, (rows, 1)).astype(np.int64),
                          "StatPos": stats[0], "StatNeg": stats[1]}, _ref,
                  attrs={"num_thresholds": n_thresholds, "slide_steps": steps}, name=name)


CASES += [
    _case(200, 0, 64, "auc_global"),
    _case(50, 0, 32, "auc_global_accumulates", prior=True),
    _case(100, 1, 40, "auc_one_batch_window"),
    _case(30, 3, 48, "auc_sliding_window", prior=True),
]
