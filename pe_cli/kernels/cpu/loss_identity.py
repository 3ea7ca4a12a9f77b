"""identity_loss's kernels (numpy)."""

import numpy as np


def identity_loss(ins, attrs):
    x, r = ins["X"], attrs["reduction"]
    return {"Out": x if r == 2 else np.asarray(x.sum() if r == 0 else x.mean(), dtype=x.dtype).reshape(())}


def identity_loss_grad(ins, attrs):
    x, d, r = ins["X"], ins["Out@GRAD"], attrs["reduction"]
    if r == 2:
        return {"X@GRAD": d}
    value = d.reshape(-1)[0] / (x.size if r == 1 else 1)
    return {"X@GRAD": np.full(x.shape, value, d.dtype)}
