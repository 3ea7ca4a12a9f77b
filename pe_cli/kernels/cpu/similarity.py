"""cos_sim, squared_l2_distance and dist on the CPU (numpy over whole rows)."""

import numpy as np

from ...base.errors import PeError
from .elementwise import unbroadcast
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


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
    return {
        "X@GRAD": dx.reshape(ins["X"].shape).astype(x.dtype, copy=False),
        "Y@GRAD": dy.reshape(ins["Y"].shape).astype(y.dtype, copy=False),
    }


def squared_l2_distance(ins, attrs):
    x, y = _rows(ins["X"]), _rows(ins["Y"])
    if x.shape[1] != y.shape[1] or y.shape[0] not in (1, x.shape[0]):
        raise PeError(
            f"squared_l2_distance: Y {list(ins['Y'].shape)} must have the rows of X "
            f"{list(ins['X'].shape)} (or one row) of X's size"
        )
    sub = (x - y).astype(x.dtype, copy=False)
    return {"sub_result": sub, "Out": (sub * sub).sum(axis=1, keepdims=True, dtype=x.dtype)}


def squared_l2_distance_grad(ins, attrs):
    sub, dout = ins["sub_result"], ins["Out@GRAD"]
    grad = (sub.dtype.type(2) * dout.reshape(-1, 1) * sub).astype(sub.dtype, copy=False)
    y_shape = ins["Y"].shape
    dy = -grad if y_shape[0] == grad.shape[0] else -grad.sum(axis=0, keepdims=True)
    return {"X@GRAD": grad.reshape(ins["X"].shape), "Y@GRAD": dy.reshape(y_shape)}


def dist(ins, attrs, ctx=NO_CONTEXT):
    x, y, p = ins["X"], ins["Y"], attrs["p"]
    z = np.abs(x - y)
    if p == 0:
        out = np.count_nonzero(z)
    elif p == np.inf:
        out = z.max() if z.size else 0
    elif p == -np.inf:
        out = z.min() if z.size else 0
    else:
        out = np.power(np.sum(np.power(z, x.dtype.type(p))), x.dtype.type(1.0 / p))
    return {"Out": np.full(scalar_shape(ctx.zero_dim), out, dtype=x.dtype)}


def dist_grad(ins, attrs, ctx=NO_CONTEXT):
    """Fluid 1.8's (|Z| / Out)^(p-1) sign(Z) dOut (NaN at Out = 0); in a Paddle 2.x program Paddle 2.6's, its
    p_norm_grad's |Z|^(p-1) / (Out^(p-1) + 1e-12) sign(Z) dOut (0 at Out = 0)."""
    x, y, out, dout, p = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"], attrs["p"]
    z, norm = x - y, out.reshape(-1)[0]
    d = dout.reshape(-1)[0]
    if p == 0:
        grad = np.zeros_like(z)
    elif p in (np.inf, -np.inf):
        grad = (np.abs(z) == norm) * np.sign(z) * d
    elif ctx.paddle2:
        one, eps = x.dtype.type(1), x.dtype.type(1e-12)
        q = x.dtype.type(p) - one
        grad = np.power(np.abs(z), q) / (np.power(norm, q) + eps) * np.sign(z) * d
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = np.power(np.abs(z) / norm, x.dtype.type(p - 1)) * np.sign(z) * d
    return {
        "X@GRAD": unbroadcast(grad, x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": (-unbroadcast(grad, y.shape)).astype(y.dtype, copy=False),
    }
