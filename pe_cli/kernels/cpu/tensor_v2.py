"""Kernels of ops/tensor_v2.py (where, tril_triu, shape, inverse): numpy, one vectorised pass each."""
import numpy as np

from ...errors import PeError


def where(ins, attrs):
    return {"Out": np.where(ins["Condition"], ins["X"], ins["Y"])}


def where_grad(ins, attrs):
    cond, dout = ins["Condition"], ins["Out@GRAD"]
    zero = np.zeros((), dtype=dout.dtype)
    return {"X@GRAD": np.where(cond, dout, zero), "Y@GRAD": np.where(cond, zero, dout)}


def triangle(shape, attrs):
    """The bool mask [rows, cols] of the kept triangle."""
    rows, cols = shape[-2], shape[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return offset <= attrs["diagonal"] if attrs["lower"] else offset >= attrs["diagonal"]


def tril_triu(ins, attrs):
    x = ins["X"]
    return {"Out": np.where(triangle(x.shape, attrs), x, np.zeros((), dtype=x.dtype))}


def tril_triu_grad(ins, attrs):
    dout = ins["Out@GRAD"]
    return {"X@GRAD": np.where(triangle(dout.shape, attrs), dout, np.zeros((), dtype=dout.dtype))}


def shape(ins, attrs):
    return {"Out": np.asarray(ins["Input"].shape, dtype=np.int32).reshape(-1)}


def inverse(ins, attrs):
    x = ins["Input"]
    try:
        out = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise PeError(f"inverse: a matrix of Input {list(x.shape)} is singular (it has no inverse)") from None
    return {"Output": out.astype(x.dtype, copy=False)}


def cholesky(ins, attrs):
    x = ins["X"]
    try:
        lower = np.linalg.cholesky(0.5 * (x + np.swapaxes(x, -1, -2)))
    except np.linalg.LinAlgError:
        raise PeError(f"cholesky: a matrix of X {list(x.shape)} is not positive definite") from None
    out = np.swapaxes(lower, -1, -2) if attrs["upper"] else lower
    return {"Out": np.ascontiguousarray(out).astype(x.dtype, copy=False)}
