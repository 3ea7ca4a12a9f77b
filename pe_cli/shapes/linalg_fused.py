"""fusion_repeated_fc_relu's and fusion_squared_mat_sub's meta rules (structured kernels, shapes/structured.py; the
out-kernels: kernels/cpu/linalg_fused.py). Variants: "out" where the values share one float dtype (numpy's GEMMs
and ufuncs written through their out= into the buffers handed), "fresh" otherwise (the numpy form in the dtypes
numpy promotes to: each layer's output cast to X's dtype, fusion_squared_mat_sub's products in numpy's)."""

import numpy as np

from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _one_float(*dtypes):
    dtypes = {np.dtype(d) for d in dtypes}
    return len(dtypes) == 1 and dtypes.pop() in _FLOATS


def repeated_fc_relu_meta(attrs, ins, facts):
    """ReluOut (a [batch, width] per layer before the last) and Out, of X's dtype."""
    x, ws, bs = ins["X"], ins["W"], ins["Bias"]
    dtype = np.dtype(x.dtype)
    layers = [((x.shape[0], w.shape[1]), dtype) for w in ws]
    outputs = {"ReluOut": layers[:-1], "Out": layers[-1]}
    if _one_float(x.dtype, *(w.dtype for w in ws), *(b.dtype for b in bs)):
        return Meta(outputs, "out")
    return Meta(outputs, "fresh", fresh=True)


def squared_mat_sub_meta(attrs, ins, facts):
    """SquaredX, SquaredY of X's and Y's dtypes; SquaredXY and Out [M, N] of the dtype numpy's products give."""
    x, y = ins["X"], ins["Y"]
    xy = np.result_type(np.empty(0, x.dtype) @ np.empty(0, y.dtype))  # (matmul's promotion)
    scalar = np.dtype(x.dtype).type(0) if np.dtype(x.dtype).kind == "f" else np.float32(0)
    out = (np.empty(0, xy) * scalar).dtype
    mn = (x.shape[0], y.shape[1])
    outputs = {
        "SquaredX": (tuple(x.shape), np.dtype(x.dtype)),
        "SquaredY": (tuple(y.shape), np.dtype(y.dtype)),
        "SquaredXY": (mn, xy),
        "Out": (mn, out),
    }
    if _one_float(x.dtype, y.dtype):
        return Meta(outputs, "out")
    return Meta(outputs, "fresh", fresh=True)
