"""cos_sim on the CPU (numpy over whole rows)."""
import numpy as np


def _rows(a):
    return a.reshape(a.shape[0], -1)


def cos_sim(ins, attrs):
    x, y = _rows(ins["X"]), _rows(ins["Y"])
    xn = np.sqrt((x * x).sum(axis=1, keepdims=True))
    yn = np.sqrt((y * y).sum(axis=1, keepdims=True))
    out = (x * y).sum(axis=1, keepdims=True) / (xn * yn)
    return {"Out": out.astype(x.dtype, copy=False), "XNorm": xn, "YNorm": yn}


def cos_sim_grad(ins, attrs):
    x, y = _rows(ins["X"]), _rows(ins["Y"])
    out, xn, yn, dout = ins["Out"], ins["XNorm"], ins["YNorm"], ins["Out@GRAD"]
    dx = dout * (y / (xn * yn) - out * x / (xn * xn))
    dy = dout * (x / (xn * yn) - out * y / (yn * yn))
    if y.shape[0] == 1 and x.shape[0] != 1:
        dy = dy.sum(axis=0, keepdims=True)
    return {"X@GRAD": dx.reshape(ins["X"].shape).astype(x.dtype, copy=False),
            "Y@GRAD": dy.reshape(ins["Y"].shape).astype(y.dtype, copy=False)}
