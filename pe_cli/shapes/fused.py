"""The meta rules of the fused ops of ops/fused.py (structured kernels, shapes/structured.py; the out-kernels:
kernels/cpu/fused.py).

fc: Out [d0, ..., d(k-1), N] of Input's dtype; "out" where Input, W and Bias share one float dtype (np.matmul, the
bias add and relu written through their out=), "fresh" otherwise (the numpy form, cast to Input's dtype).
``Meta.args``: (rows, K, N), W's weighing part [K, N] (its first K rows and N columns with padding_weights)."""

import numpy as np

from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _one_float(*dtypes):
    dtypes = {np.dtype(d) for d in dtypes}
    return len(dtypes) == 1 and dtypes.pop() in _FLOATS


def fc_meta(attrs, ins, facts):
    x, w, bias = ins["Input"], ins["W"], ins.get("Bias")
    cols = attrs["in_num_col_dims"]
    k, n = (w.shape[0] - 4, w.shape[1] - 4) if attrs["padding_weights"] else tuple(w.shape)
    rows = 1
    for d in x.shape[:cols]:
        rows *= d
    outputs = {"Out": (tuple(x.shape[:cols]) + (n,), np.dtype(x.dtype))}
    dtypes = (x.dtype, w.dtype) + (() if bias is None else (bias.dtype,))
    if _one_float(*dtypes):
        return Meta(outputs, "out", args=(rows, k, n))
    return Meta(outputs, "fresh", fresh=True, args=(rows, k, n))
