"""cos_sim, squared_l2_distance, dist and their gradients on the CPU, structured kernels: numpy over whole rows,
the variants the meta rules in pe_cli/shapes/similarity.py chose (``fresh`` forms but dist's Out, written into
its buffer). dist_grad's "paddle2" and "fluid" variants are the two meanings of its gradient at a zero distance
(the op's facts decide: shapes/similarity.py)."""

import numpy as np

from .elementwise import unbroadcast
from .launches import by_variant
from .loss_classification import put


def _rows(a):
    return a.reshape(a.shape[0], -1)


def _cos_sim(ins, outs, attrs, meta):
    x, y = _rows(ins["X"]), _rows(ins["Y"])
    xn = np.sqrt((x * x).sum(axis=1, keepdims=True))
    yn = np.sqrt((y * y).sum(axis=1, keepdims=True))
    out = (x * y).sum(axis=1, keepdims=True) / (xn * yn)
    given = (ins["X"], ins["Y"])
    put(outs, "Out", out.astype(x.dtype, copy=False), meta, given)
    put(outs, "XNorm", xn, meta, given)
    put(outs, "YNorm", yn, meta, given)


def _cos_sim_grad(ins, outs, attrs, meta):
    x, y = _rows(ins["X"]), _rows(ins["Y"])
    out, xn, yn, dout = ins["Out"], ins["XNorm"], ins["YNorm"], ins["Out@GRAD"]
    dx = dout * (y / (xn * yn) - out * x / (xn * xn))
    dy = dout * (x / (xn * yn) - out * y / (yn * yn))
    if y.shape[0] == 1 and x.shape[0] != 1:
        dy = dy.sum(axis=0, keepdims=True)
    given = tuple(ins.values())
    put(outs, "X@GRAD", dx.reshape(ins["X"].shape).astype(x.dtype, copy=False), meta, given)
    put(outs, "Y@GRAD", dy.reshape(ins["Y"].shape).astype(y.dtype, copy=False), meta, given)


def _squared_l2(ins, outs, attrs, meta):
    """(Y's rows and width checked by the meta rule.)"""
    x, y = _rows(ins["X"]), _rows(ins["Y"])
    sub = (x - y).astype(x.dtype, copy=False)
    given = (ins["X"], ins["Y"])
    put(outs, "sub_result", sub, meta, given)
    put(outs, "Out", (sub * sub).sum(axis=1, keepdims=True, dtype=x.dtype), meta, given)


def _squared_l2_grad(ins, outs, attrs, meta):
    sub, dout = ins["sub_result"], ins["Out@GRAD"]
    grad = (sub.dtype.type(2) * dout.reshape(-1, 1) * sub).astype(sub.dtype, copy=False)
    y_shape = ins["Y"].shape
    dy = -grad if y_shape[0] == grad.shape[0] else -grad.sum(axis=0, keepdims=True)
    given = tuple(ins.values())
    put(outs, "X@GRAD", grad.reshape(ins["X"].shape), meta, given)
    put(outs, "Y@GRAD", dy.reshape(y_shape), meta, given)


def _dist(ins, outs, attrs, meta):
    """The p-distance of X and Y written into Out (0-D or [1]: the Meta's), as numpy's full would fill it."""
    x, y, p = ins["X"], ins["Y"], attrs["p"]
    z = np.abs(x - y)
    variant = meta.variant
    if variant == "count":
        out = np.count_nonzero(z)
    elif variant == "max":
        out = z.max() if z.size else 0
    elif variant == "min":
        out = z.min() if z.size else 0
    else:
        out = np.power(np.sum(np.power(z, x.dtype.type(p))), x.dtype.type(1.0 / p))
    np.copyto(outs["Out"], out, casting="unsafe")


def _dist_grad(ins, outs, attrs, meta):
    """ "zero" (p = 0), "extreme" (+-inf), and for another p "fluid": Fluid 1.8's (|Z| / Out)^(p-1) sign(Z) dOut
    (NaN at Out = 0), or "paddle2": Paddle 2.6's p_norm_grad, |Z|^(p-1) / (Out^(p-1) + 1e-12) sign(Z) dOut (0 at
    Out = 0)."""
    x, y, out, dout, p = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"], attrs["p"]
    z, norm = x - y, out.reshape(-1)[0]
    d = dout.reshape(-1)[0]
    variant = meta.variant
    if variant == "zero":
        grad = np.zeros_like(z)
    elif variant == "extreme":
        grad = (np.abs(z) == norm) * np.sign(z) * d
    elif variant == "paddle2":
        one, eps = x.dtype.type(1), x.dtype.type(1e-12)
        q = x.dtype.type(p) - one
        grad = np.power(np.abs(z), q) / (np.power(norm, q) + eps) * np.sign(z) * d
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = np.power(np.abs(z) / norm, x.dtype.type(p - 1)) * np.sign(z) * d
    given = tuple(ins.values())
    put(outs, "X@GRAD", unbroadcast(grad, x.shape).astype(x.dtype, copy=False), meta, given)
    put(outs, "Y@GRAD", (-unbroadcast(grad, y.shape)).astype(y.dtype, copy=False), meta, given)


COS_SIM = by_variant("cos_sim_out", None, rows=_cos_sim)
COS_SIM_GRAD = by_variant("cos_sim_grad_out", None, rows=_cos_sim_grad)
SQUARED_L2 = by_variant("squared_l2_distance_out", None, rows=_squared_l2)
SQUARED_L2_GRAD = by_variant("squared_l2_distance_grad_out", None, rows=_squared_l2_grad)
DIST = by_variant("dist_out", None, count=_dist, max=_dist, min=_dist, pnorm=_dist)
DIST_GRAD = by_variant("dist_grad_out", None, zero=_dist_grad, extreme=_dist_grad, paddle2=_dist_grad, fluid=_dist_grad)
