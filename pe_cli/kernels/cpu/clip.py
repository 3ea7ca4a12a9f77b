import numpy as np


def clip_by_norm(ins, attrs):
    x = ins["X"]
    norm = np.sqrt(np.sum(np.square(x, dtype=x.dtype), dtype=x.dtype))
    max_norm = x.dtype.type(attrs["max_norm"])
    if norm > max_norm:
        return {"Out": (x * (max_norm / norm)).astype(x.dtype, copy=False)}
    return {"Out": x.copy()}


def squared_l2_norm(ins, attrs):
    x = ins["X"]
    return {"Out": np.array([np.sum(np.square(x), dtype=x.dtype)], dtype=x.dtype)}


def squared_l2_norm_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": (x * (x.dtype.type(2) * dout.reshape(-1)[0].astype(x.dtype))).astype(x.dtype, copy=False)}
