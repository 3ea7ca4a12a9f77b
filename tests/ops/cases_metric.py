"""Op cases for the metric ops: top_k, arg_max, arg_min, accuracy (forward only: no gradients)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(3)


def topk_ref(i, a):
    x, k = i["X"], a["k"]
    flat = x.reshape(-1, x.shape[-1])
    vals, idx = [], []
    for row in flat:
        order = sorted(range(len(row)), key=lambda j: (-row[j], j))[:k]
        idx.append(order)
        vals.append([row[j] for j in order])
    shape = x.shape[:-1] + (k,)
    return {"Out": np.array(vals).reshape(shape), "Indices": np.array(idx, dtype=np.int64).reshape(shape)}


def accuracy_ref(i, a):
    idx, label = i["Indices"], i["Label"]
    correct = sum(1 for row, lab in zip(idx, label[:, 0]) if lab in row)
    total = len(label)
    return {"Accuracy": np.array([correct / total], dtype=np.float32),
            "Correct": np.array([correct], dtype=np.int32), "Total": np.array([total], dtype=np.int32)}


TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, 2.0, 2.0]])
ACC_INDICES = np.array([[0, 2], [1, 3], [4, 0], [2, 1], [3, 4], [0, 1]], dtype=np.int64)
ACC_LABEL = np.array([[2], [0], [4], [2], [1], [0]], dtype=np.int64)

CASES = [
    OpCase("top_k", {"X": rng.normal(size=(3, 6))}, topk_ref, attrs={"k": 2}, name="top_k"),
    OpCase("top_k", {"X": rng.normal(size=(4, 5))}, topk_ref, name="top_k_k1"),
    OpCase("top_k", {"X": rng.normal(size=(2, 3, 5))}, topk_ref, attrs={"k": 5}, name="top_k_3d_full"),
    OpCase("top_k", {"X": TIES}, topk_ref, attrs={"k": 3}, name="top_k_ties"),
    OpCase("arg_max", {"X": rng.normal(size=(4, 5))}, lambda i, a: {"Out": i["X"].argmax(axis=0)},
           name="arg_max_axis0"),
    OpCase("arg_max", {"X": rng.normal(size=(2, 3, 4))}, lambda i, a: {"Out": i["X"].argmax(axis=-1)},
           attrs={"axis": -1}, name="arg_max_last"),
    OpCase("arg_max", {"X": rng.normal(size=(2, 3, 4))},
           lambda i, a: {"Out": i["X"].argmax(axis=1)[:, None, :]}, attrs={"axis": 1, "keepdims": True},
           name="arg_max_keepdims"),
    OpCase("arg_max", {"X": TIES}, lambda i, a: {"Out": np.array([1, 0])}, attrs={"axis": 1}, name="arg_max_ties"),
    OpCase("arg_min", {"X": rng.normal(size=(3, 4))}, lambda i, a: {"Out": i["X"].argmin(axis=1)},
           attrs={"axis": 1}, name="arg_min"),
    OpCase("accuracy", {"Out": rng.normal(size=(6, 2)), "Indices": ACC_INDICES, "Label": ACC_LABEL}, accuracy_ref,
           name="accuracy_top2"),
    OpCase("accuracy", {"Out": rng.normal(size=(6, 1)), "Indices": ACC_INDICES[:, :1], "Label": ACC_LABEL},
           accuracy_ref, name="accuracy_top1"),
]
