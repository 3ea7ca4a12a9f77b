"""Kernels of ops/norm_extra.py: numpy."""
import numpy as np


# -- prelu ------------------------------------------------------------------------------------------

def alpha_view(alpha, x_shape, mode):
    """Alpha shaped to broadcast against X."""
    if mode == "all":
        return alpha.reshape(())
    if mode == "channel":
        return alpha.reshape((1, x_shape[1]) + (1,) * (len(x_shape) - 2))
    return alpha.reshape((1,) + tuple(x_shape[1:]))


def prelu(ins, attrs):
    x = ins["X"]
    a = alpha_view(ins["Alpha"], x.shape, attrs["mode"])
    return {"Out": np.where(x > 0, x, a * x).astype(x.dtype, copy=False)}


def prelu_grad(ins, attrs):
    x, alpha, dout = ins["X"], ins["Alpha"], ins["Out@GRAD"]
    mode = attrs["mode"]
    pos = x > 0
    dx = np.where(pos, dout, alpha_view(alpha, x.shape, mode) * dout).astype(x.dtype, copy=False)
    neg = np.where(pos, 0, x * dout)
    axes = {"all": None, "channel": (0,) + tuple(range(2, x.ndim)), "element": (0,)}[mode]
    dalpha = neg.sum(axis=axes).reshape(alpha.shape).astype(alpha.dtype, copy=False)
    return {"X@GRAD": dx, "Alpha@GRAD": dalpha}
