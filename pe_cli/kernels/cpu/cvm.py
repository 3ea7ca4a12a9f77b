"""Kernels of ops/cvm.py (numpy); ``cvm_rows`` is shared with the CUDA kernels."""

import numpy as np

from ...shapes.sequence import cvm_rows


def cvm(ins, attrs):
    x = ins["X"]
    if not attrs["use_cvm"]:
        return {"Y": np.ascontiguousarray(x[:, 2:])}
    y = x.copy()
    y[:, 0] = np.log(x[:, 0] + 1)
    y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]
    return {"Y": y}


def cvm_grad(ins, attrs, ctx):
    x, c, dy = ins["X"], ins["CVM"], ins["Y@GRAD"]
    dx = np.empty(x.shape, dtype=x.dtype)
    dx[:, 2:] = dy[:, 2:] if attrs["use_cvm"] else dy
    dx[:, :2] = c[cvm_rows(x.shape[0], c.shape[0], ctx)]
    return {"X@GRAD": dx}
