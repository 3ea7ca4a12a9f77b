"""The matrix family on the CPU (ops/matrix.py): addmm through matmul's kernels (linalg.py's adapters of
matmul.py's structured kernels; bmm and bmm_grad are those structured kernels, ops/matrix.py), dot, cross, kron, trace and bilinear_tensor_product with numpy."""

import numpy as np

from ...base.errors import PeError
from ...shapes.matrix import addmm_mismatch, cross_dim, cross_mismatch, diagonal
from ..common import conj
from . import linalg
from .elementwise import unbroadcast
from ..context import NO_CONTEXT

_PLAIN = {"transpose_X": False, "transpose_Y": False, "alpha": 1.0}


def addmm(ins, attrs):
    inp, x, y = ins["Input"], ins["X"], ins["Y"]
    if error := addmm_mismatch(tuple(inp.shape), tuple(x.shape), tuple(y.shape)):
        raise PeError(f"addmm: {error}")
    product = linalg.matmul({"X": x, "Y": y}, dict(_PLAIN, alpha=float(attrs["Alpha"])))["Out"]
    return {"Out": (product + x.dtype.type(attrs["Beta"]) * inp).astype(x.dtype, copy=False)}


def addmm_grad(ins, attrs):
    inp, x, y, dout = ins["Input"], ins["X"], ins["Y"], ins["Out@GRAD"]
    scaled = dict(_PLAIN, alpha=float(attrs["Alpha"]))
    pair = {"X": x, "Y": y, "Out@GRAD": dout}
    return {
        "Input@GRAD": (unbroadcast(dout, inp.shape) * dout.dtype.type(attrs["Beta"])).astype(inp.dtype),
        "X@GRAD": linalg.matmul_grad_x(pair, scaled)["X@GRAD"],
        "Y@GRAD": linalg.matmul_grad_y(pair, scaled)["Y@GRAD"],
    }


def dot(ins, attrs, ctx=NO_CONTEXT):
    x, y = ins["X"], ins["Y"]
    return {"Out": np.asarray((x * y).sum(axis=-1, keepdims=not ctx.paddle2, dtype=x.dtype))}


def dot_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    dout = dout.reshape(x.shape[:-1] + (1,))
    dx, dy = dout * conj(y), dout * conj(x)  # complex: the other factor's conjugate, as Paddle 2.6's
    return {"X@GRAD": dx.astype(x.dtype, copy=False), "Y@GRAD": dy.astype(y.dtype, copy=False)}


def cross(ins, attrs):
    x, y = ins["X"], ins["Y"]
    if error := cross_mismatch(tuple(x.shape), tuple(y.shape)):
        raise PeError(f"cross: {error}")
    return {"Out": np.cross(x, y, axis=cross_dim(x.shape, attrs["dim"])).astype(x.dtype, copy=False)}


def cross_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    axis = cross_dim(x.shape, attrs["dim"])
    return {
        "X@GRAD": np.cross(y, dout, axis=axis).astype(x.dtype, copy=False),
        "Y@GRAD": np.cross(dout, x, axis=axis).astype(y.dtype, copy=False),
    }


def _kron_operands(x, y):
    rank = max(x.ndim, y.ndim)
    return x.reshape((1,) * (rank - x.ndim) + x.shape), y.reshape((1,) * (rank - y.ndim) + y.shape)


def kron(ins, attrs):
    x, y = _kron_operands(ins["X"], ins["Y"])
    out = x.reshape([d for a in x.shape for d in (a, 1)]) * y.reshape([d for b in y.shape for d in (1, b)])
    return {"Out": out.reshape([a * b for a, b in zip(x.shape, y.shape)]).astype(ins["X"].dtype, copy=False)}


def kron_grad(ins, attrs):
    x, y = _kron_operands(ins["X"], ins["Y"])
    d = ins["Out@GRAD"].reshape([n for a, b in zip(x.shape, y.shape) for n in (a, b)])
    xs = x.reshape([n for a in x.shape for n in (a, 1)])
    ys = y.reshape([n for b in y.shape for n in (1, b)])
    rank = x.ndim
    if np.iscomplexobj(xs) or np.iscomplexobj(ys):  # (Paddle's complex gradient: the other factor's conjugate)
        xs, ys = np.conj(xs), np.conj(ys)
    dx = (d * ys).sum(axis=tuple(2 * i + 1 for i in range(rank)))
    dy = (d * xs).sum(axis=tuple(2 * i for i in range(rank)))
    return {
        "X@GRAD": dx.reshape(ins["X"].shape).astype(x.dtype, copy=False),
        "Y@GRAD": dy.reshape(ins["Y"].shape).astype(y.dtype, copy=False),
    }


def _diagonal_index(x_shape, attrs):
    """(the planes' dims, the row and column indices of the diagonal's elements in them)."""
    dims, row, col, n = diagonal(x_shape, attrs)
    k = np.arange(n)
    return dims, k + row, k + col


def trace(ins, attrs, ctx=NO_CONTEXT):
    x = ins["Input"]
    dims, rows, cols = _diagonal_index(x.shape, attrs)
    planes = np.moveaxis(x, dims, (-2, -1))
    out = planes[..., rows, cols].sum(axis=-1, dtype=x.dtype)
    return {"Out": np.asarray(out, dtype=x.dtype).reshape(planes.shape[:-2] or (() if ctx.paddle2 else (1,)))}


def trace_grad(ins, attrs):
    x_shape, dout = ins["Input"].shape, ins["Out@GRAD"]
    dims, rows, cols = _diagonal_index(x_shape, attrs)
    dx = np.zeros(x_shape, dtype=dout.dtype)
    planes = np.moveaxis(dx, dims, (-2, -1))
    planes[..., rows, cols] = dout.reshape(planes.shape[:-2] + (1,))
    return {"Input@GRAD": dx}


# -- bilinear_tensor_product --------------------------------------------------------------------------------


def bilinear_tensor_product(ins, attrs):
    x, y, w = ins["X"], ins["Y"], ins["Weight"]
    out = np.einsum("bm,kmn,bn->bk", x, w, y)
    if ins.get("Bias") is not None:
        out = out + ins["Bias"].reshape(1, -1)
    return {"Out": out.astype(x.dtype, copy=False)}


def bilinear_tensor_product_grad(ins, attrs, ctx=NO_CONTEXT):
    x, y, w, d = ins["X"], ins["Y"], ins["Weight"], ins["Out@GRAD"]
    wanted = ctx.wanted({"X@GRAD", "Y@GRAD", "Weight@GRAD", "Bias@GRAD"})
    grads = {
        "X@GRAD": lambda: np.einsum("bk,kmn,bn->bm", d, w, y),
        "Y@GRAD": lambda: np.einsum("bk,kmn,bm->bn", d, w, x),
        "Weight@GRAD": lambda: np.einsum("bk,bm,bn->kmn", d, x, y),
        "Bias@GRAD": lambda: d.sum(axis=0, keepdims=True),
    }
    return {k: f().astype(x.dtype, copy=False) for k, f in grads.items() if k in wanted}
