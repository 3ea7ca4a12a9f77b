import numpy as np


def top_k(ins, attrs):
    x = ins["X"]
    k = attrs["k"]
    if k > x.shape[-1]:
        raise ValueError(f"k={k} is larger than the last dim of X {list(x.shape)}")
    if k == 1:
        idx = np.argmax(x, axis=-1)[..., None]
    else:
        # Stable sort of -x: the largest first and, among equal values, the lowest index first.
        idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return {"Out": np.take_along_axis(x, idx, axis=-1), "Indices": idx.astype(np.int64, copy=False)}


def _arg(fn):
    def kernel(ins, attrs):
        x = ins["X"]
        if attrs["flatten"]:
            return {"Out": np.array([fn(x)], dtype=np.int64)}
        axis = attrs["axis"] % x.ndim
        out = fn(x, axis=axis, keepdims=attrs["keepdims"]).astype(np.int64, copy=False)
        return {"Out": out.reshape(out.shape or (1,))}
    return kernel


arg_max = _arg(np.argmax)
arg_min = _arg(np.argmin)


def accuracy(ins, attrs):
    idx, label = ins["Indices"], ins["Label"]
    total = idx.shape[0]
    correct = int((idx == label.reshape(-1, 1)).any(axis=1).sum())
    acc = correct / total if total else 0.0
    return {"Accuracy": np.array([acc], dtype=np.float32), "Correct": np.array([correct], dtype=np.int32),
            "Total": np.array([total], dtype=np.int32)}
