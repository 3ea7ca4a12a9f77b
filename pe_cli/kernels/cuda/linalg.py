"""CUDA twins of kernels/cpu/linalg.py: products (the tiled matmul); inverse runs Gauss-Jordan
elimination and cholesky the Cholesky-Banachiewicz loop, one thread per matrix (the small matrices
paddle.inverse and paddle.cholesky are used on)."""

import math

import numpy as np
from numba import cuda

from ...base.dims import numel
from ...shapes.linalg import matmul_flag, matmul_v1_attrs
from ..fused_math import written_grads
from . import runtime as rt
from ..value_checks import not_invertible, not_positive_definite
from ._elementwise import conj, expand_to
from ._host import host_ops, on_host_when
from ._launch import copy, flat, grid, scalar, zeros
from ._matmul import matmul as _matmul
from ._reduce import sum_to_shape
from .launcher import jit_kernel
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


def _rows(shape, num_col_dims):
    n = 1
    for d in shape[:num_col_dims]:
        n *= d
    return n


def _as_matrix(a, num_col_dims):
    # (the columns from the shape: a tensor of no rows, an IfElse branch's, is a [0, n] matrix)
    return a.reshape((_rows(a.shape, num_col_dims), _rows(a.shape[num_col_dims:], len(a.shape))))


def mul(ins, attrs):
    x, y = ins["X"], ins["Y"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    out = _matmul(_as_matrix(x, xd), _as_matrix(y, yd))
    return {"Out": out.reshape(tuple(x.shape[:xd]) + tuple(y.shape[yd:]))}


def mul_grad(ins, attrs, ctx=NO_CONTEXT):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    wanted = ctx.wanted(("X@GRAD", "Y@GRAD"))
    outs = {}
    if "X@GRAD" in wanted:
        y2 = conj(_as_matrix(y, attrs["y_num_col_dims"]))
        dx = _matmul(dout.reshape((dout.size // max(y2.shape[1], 1), y2.shape[1])), y2, trans_b=True)
        outs["X@GRAD"] = dx.reshape(x.shape)
    if "Y@GRAD" in wanted:
        x2 = conj(_as_matrix(x, attrs["x_num_col_dims"]))
        dy = _matmul(
            x2, dout.reshape((x2.shape[0], _rows(y.shape[attrs["y_num_col_dims"] :], len(y.shape)))), trans_a=True
        )
        outs["Y@GRAD"] = dy.reshape(y.shape)
    return outs


# -- reductions ---------------------------------------------------------------------------------


# -- matmul ---------------------------------------------------------------------------------------


def _batch_shape(shape):
    return tuple(shape[:-2])


def _operand(a, attrs, is_x):
    """(stored array as [batch..., r, c] view, transposed?) with a 1-D X a row, a 1-D Y a column."""
    trans = matmul_flag(attrs, is_x)
    if a.ndim == 1:
        return (a.reshape((1, a.shape[0])) if is_x else a.reshape((a.shape[0], 1))), trans
    return a, trans


def _as_batches(a, batch):
    """``a`` ([b..., r, c]) as a 3-D [B, r, c] array for the common ``batch`` shape: a view when
    its batch is all of it or none of it, else a broadcast copy."""
    own = _batch_shape(a.shape)
    rc = tuple(a.shape[-2:])
    if own == batch or numel(own) == numel(batch):
        return a.reshape((numel(batch),) + rc)
    if numel(own) == 1:
        return a.reshape((1,) + rc)
    full = expand_to(a, batch + rc)
    return full.reshape((numel(batch),) + rc)


def _product(a, ta, b, tb, alpha, batch):
    """alpha * op(a) @ op(b) over the common batch shape, as [batch..., M, N]."""
    a3, b3 = _as_batches(a, batch), _as_batches(b, batch)
    c = _matmul(a3, b3, ta, tb, alpha)
    return c.reshape(batch + tuple(c.shape[-2:]))


def _math_shapes(x, y, attrs):
    xs, tx = _operand(x, attrs, True)
    ys, ty = _operand(y, attrs, False)
    batch = tuple(np.broadcast_shapes(_batch_shape(xs.shape), _batch_shape(ys.shape)))
    return xs, tx, ys, ty, batch


def matmul(ins, attrs, ctx=NO_CONTEXT):
    x, y = ins["X"], ins["Y"]
    xs, tx, ys, ty, batch = _math_shapes(x, y, attrs)
    out = _product(xs, tx, ys, ty, attrs["alpha"], batch)
    shape = tuple(out.shape)
    if x.ndim == 1 and shape[-2] == 1:  # a 1-D operand's dim of 1 is dropped (Fluid's rule)
        shape = shape[:-2] + shape[-1:]
    if y.ndim == 1 and shape[-1] == 1:
        shape = shape[:-1]
    return {"Out": out.reshape(shape or scalar_shape(ctx.zero_dim))}  # (matmul_v2's vectors: 0-D in 2.x)


def _dout(dout, xs, tx, ys, ty, batch):
    M = tuple(xs.shape)[-1] if tx else tuple(xs.shape)[-2]
    N = tuple(ys.shape)[-2] if ty else tuple(ys.shape)[-1]
    return dout.reshape(batch + (M, N))


def matmul_v2(ins, attrs, ctx=NO_CONTEXT):
    return matmul(ins, matmul_v1_attrs(attrs, ins["X"].ndim, ins["Y"].ndim), ctx)


def matmul_grad_x(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xs, tx, ys, ty, batch = _math_shapes(x, y, attrs)
    d = _dout(dout, xs, tx, ys, ty, batch)
    alpha, ys = attrs["alpha"], conj(ys)  # complex: dX = dOut @ conj(Y)^T, as Paddle 2.6's
    if tx:  # X stored [K, M]: dX = alpha * op(Y) @ d^T
        dx = _product(ys, ty, d, True, alpha, batch)
    else:  # dX = alpha * d @ op(Y)^T
        dx = _product(d, False, ys, not ty, alpha, batch)
    return {"X@GRAD": sum_to_shape(dx, xs.shape).reshape(x.shape)}


def matmul_grad_y(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xs, tx, ys, ty, batch = _math_shapes(x, y, attrs)
    d = _dout(dout, xs, tx, ys, ty, batch)
    alpha, xs = attrs["alpha"], conj(xs)  # complex: dY = conj(X)^T @ dOut
    if ty:  # Y stored [N, K]: dY = alpha * d^T @ op(X)
        dy = _product(d, True, xs, tx, alpha, batch)
    else:  # dY = alpha * op(X)^T @ d
        dy = _product(xs, not tx, d, False, alpha, batch)
    return {"Y@GRAD": sum_to_shape(dy, ys.shape).reshape(y.shape)}


matmul_grad = written_grads({"X@GRAD": matmul_grad_x, "Y@GRAD": matmul_grad_y})


# -- clip -----------------------------------------------------------------------------------------


@jit_kernel
def _gauss_jordan(a, out, n, batch, singular):
    """One thread per matrix: reduces a (a copy of the input) to I while applying the same row
    operations to out (starting as I), with partial pivoting."""
    b = cuda.grid(1)
    if b >= batch:
        return
    base = b * n * n
    for col in range(n):
        pivot = col
        for r in range(col + 1, n):
            if abs(a[base + r * n + col]) > abs(a[base + pivot * n + col]):
                pivot = r
        if a[base + pivot * n + col] == 0:
            singular[0] = 1
            return
        if pivot != col:
            for k in range(n):
                i, j = base + col * n + k, base + pivot * n + k
                a[i], a[j] = a[j], a[i]
                out[i], out[j] = out[j], out[i]
        scale = 1 / a[base + col * n + col]
        for k in range(n):
            a[base + col * n + k] *= scale
            out[base + col * n + k] *= scale
        for r in range(n):
            f = a[base + r * n + col]
            if r != col and f != 0:
                for k in range(n):
                    a[base + r * n + k] -= f * a[base + col * n + k]
                    out[base + r * n + k] -= f * out[base + col * n + k]


@jit_kernel
def _identity(out, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if (i // n) % n == i % n else 0
        i += step


def inverse(ins, attrs):
    x = ins["Input"]
    n = tuple(x.shape)[-1]
    out = rt.empty(x.shape, x.dtype)
    if not out.size:
        return {"Output": out}
    work = copy(x)
    _identity[grid(out.size)](flat(out), n)
    singular = zeros((1,), np.int32)
    batch = out.size // (n * n)
    _gauss_jordan[grid(batch)](flat(work), flat(out), n, batch, singular)
    if scalar(singular):
        raise not_invertible(x.shape)
    return {"Output": out}


@jit_kernel
def _cholesky(a, out, n, batch, upper, failed):
    """One thread per matrix (Cholesky-Banachiewicz over (A + A^T) / 2); out starts as zeros."""
    b = cuda.grid(1)
    if b >= batch:
        return
    base = b * n * n
    for i in range(n):
        for j in range(i + 1):
            acc = 0.5 * (a[base + i * n + j] + a[base + j * n + i])
            for k in range(j):
                li = out[base + k * n + i] if upper else out[base + i * n + k]
                lj = out[base + k * n + j] if upper else out[base + j * n + k]
                acc -= li * lj
            if i == j:
                if acc <= 0:
                    failed[0] = 1
                    return
                value = math.sqrt(acc)
            else:
                value = acc / (out[base + j * n + j])
            if upper:
                out[base + j * n + i] = value
            else:
                out[base + i * n + j] = value


def cholesky(ins, attrs):
    x = ins["X"]
    n = tuple(x.shape)[-1]
    out = zeros(tuple(x.shape), x.dtype)
    if not out.size:
        return {"Out": out}
    failed = zeros((1,), np.int32)
    batch = out.size // (n * n)
    _cholesky[grid(batch)](flat(x), flat(out), n, batch, bool(attrs["upper"]), failed)
    if scalar(failed):
        raise not_positive_definite(x.shape)
    return {"Out": out}


def _on_host_form(attrs):
    """Fluid 1.8's multi-head matmul and the oneDNN fused transpose + reshape of Out (kernels/cpu/matmul.py):
    the CPU kernels, on the host."""
    return attrs.get("head_number", 1) > 1 or bool(attrs.get("fused_transpose_Out") and attrs.get("fused_reshape_Out"))


HOST_OPS = {
    "matmul": on_host_when(_on_host_form, matmul),
    "matmul_grad": on_host_when(_on_host_form, matmul_grad),
    "matmul_grad_x": on_host_when(_on_host_form, matmul_grad_x),
    "matmul_grad_y": on_host_when(_on_host_form, matmul_grad_y),
    # cholesky_grad and spectral_norm: the CPU kernels on the host (device twins are not written yet)
    **host_ops("cholesky_grad", "spectral_norm", "spectral_norm_grad"),
}
