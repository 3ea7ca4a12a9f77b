"""Op cases for family metric: accuracy and auc (forward only: no gradients)."""
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
