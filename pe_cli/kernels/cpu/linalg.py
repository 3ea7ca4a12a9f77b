"""Linear algebra kernels: matmul, matmul_v2 and their gradients, inverse, cholesky and its gradient, and
mul and its gradient (structured kernels: their out-kernels and the 2-D product, matmul2d, are gemm.py's).
matmul's products of two matrices are matmul2d's (a large GEMM split into blocks over the device's threads,
each block calling BLAS single-threaded; other GEMMs numpy's, with BLAS sized by ``threads.for_gemm``; an
inner dimension of 1 numpy's outer product); a stack of products of one batch shape is split over the
threads (_blas_loops.gemm_batch), other batched products are numpy's matmul."""

import numpy as np

from ...shapes import gemm as gemm_meta
from ...shapes.linalg import matmul_flag, matmul_v1_attrs
from ..common import conj
from ..fused_math import written_grads
from ..value_checks import not_invertible, not_positive_definite
from ..structured import adapter
from .runtime import cblas, threads
from . import gemm
from ._matmul_forms import fused_output, matmul_heads as _matmul_heads, product_grad
from .runtime.loops import is_float, lazy, parallel_threads, twin
from .elementwise import unbroadcast

_loops = lazy("_blas_loops")

# mul and its gradient are structured kernels: their meta rules shapes/gemm.py's, their out-kernels gemm.py's,
# which also holds the 2-D product that matmul's kernels below run (matmul2d: the same blocks and loops)
mul = adapter(gemm_meta.mul_meta, gemm.MUL, "mul")
mul_grad = adapter(gemm_meta.mul_grad_meta, gemm.MUL_GRAD, "mul_grad")
matmul2d = gemm.matmul2d


def _matmul_operands(x, y, attrs):
    """X as [..., M, K] and Y as [..., K, N] (views): a 1-D X is a row, a 1-D Y a column; the
    transpose flags swap the last two dims (of a 1-D operand's row or column too, in Fluid's matmul)."""
    xm = x.reshape(1, -1) if x.ndim == 1 else x
    ym = y.reshape(-1, 1) if y.ndim == 1 else y
    xm = np.swapaxes(xm, -1, -2) if matmul_flag(attrs, True) else xm
    ym = np.swapaxes(ym, -1, -2) if matmul_flag(attrs, False) else ym
    return xm, ym


def _product(a, b, trans_a=False, trans_b=False):
    """op(a) @ op(b), op swapping the last two axes where asked: of two matrices by matmul2d (large ones in
    blocks on the device's threads; a transposed view passed as its C-contiguous base with the flag
    flipped, not copied), a stack times one matrix as one product of the stack's rows, other batched
    products by numpy's matmul (BLAS at the device's share for a large one)."""
    if a.ndim > 2 and b.ndim == 2 and not trans_a and a.size:  # [..., M, K] @ [K, N]: one GEMM of the rows
        out = _product(a.reshape(-1, a.shape[-1]), b, False, trans_b)
        return out.reshape(a.shape[:-1] + out.shape[-1:])
    if a.ndim == 2 and b.ndim == 2:
        if not a.flags.c_contiguous and a.T.flags.c_contiguous:
            a, trans_a = a.T, not trans_a
        if not b.flags.c_contiguous and b.T.flags.c_contiguous:
            b, trans_b = b.T, not trans_b
        return matmul2d(a, b, trans_a, trans_b)
    out = _stacked_products(a, b, trans_a, trans_b)
    if out is not None:
        return out
    a, b = (np.swapaxes(a, -1, -2) if trans_a else a), (np.swapaxes(b, -1, -2) if trans_b else b)
    threads.for_gemm(a.shape[-2] * a.shape[-1] * b.shape[-1])
    return np.matmul(a, b)


def _stacked_products(a, b, trans_a, trans_b):
    """op(a[i]) @ op(b[i]) over a stack of float matrices of one batch shape, the products split over the
    device's threads (_blas_loops.gemm_batch, one BLAS call a product, as numpy's matmul); None where
    numpy's matmul is to do it (one thread, a small stack, broadcasting, another dtype)."""
    if a.ndim < 3 or a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2] or not is_float(a, b) or not a.size or not b.size:
        return None
    m, k = (a.shape[-1], a.shape[-2]) if trans_a else a.shape[-2:]
    n = b.shape[-2] if trans_b else b.shape[-1]
    batch = a.size // (a.shape[-2] * a.shape[-1])
    parts = min(parallel_threads(), batch) if batch * m * n * k >= threads.SPLIT_GEMM_MACS else 1
    gemm_fn = cblas.gemm(a.dtype) if parts > 1 else None
    if gemm_fn is None:
        return None
    # a transposed view goes as its C-contiguous base with the flag flipped
    if not a.flags.c_contiguous and np.swapaxes(a, -1, -2).flags.c_contiguous:
        a, trans_a = np.swapaxes(a, -1, -2), not trans_a
    if not b.flags.c_contiguous and np.swapaxes(b, -1, -2).flags.c_contiguous:
        b, trans_b = np.swapaxes(b, -1, -2), not trans_b
    a3 = np.ascontiguousarray(a).reshape((batch,) + a.shape[-2:])
    b3 = np.ascontiguousarray(b).reshape((batch,) + b.shape[-2:])
    out = np.empty(a.shape[:-2] + (m, n), dtype=a.dtype)
    ta, tb = cblas.TRANS if trans_a else cblas.NO_TRANS, cblas.TRANS if trans_b else cblas.NO_TRANS
    args, loops = (gemm_fn, ta, tb, a3, b3, out.reshape(batch, m, n), parts), _loops()
    twin(loops.gemm_batch, loops.gemm_batch_parallel, True, *args)(*args)
    return out


def matmul(ins, attrs):
    x, y = ins["X"], ins["Y"]
    if attrs.get("head_number", 1) > 1:
        return {"Out": _matmul_heads(ins, attrs, "Out", _matmul_operands(x, y, attrs))}
    xm, ym = _matmul_operands(x, y, attrs)
    out = _product(xm, ym)
    if attrs["alpha"] != 1.0:
        out = out * x.dtype.type(attrs["alpha"])
    if x.ndim == 1 and out.shape[-2] == 1:  # a 1-D operand's dim of 1 is dropped (Fluid's rule)
        out = out.reshape(out.shape[:-2] + out.shape[-1:])
    if y.ndim == 1 and out.shape[-1] == 1:
        out = out.reshape(out.shape[:-1])
    return {"Out": fused_output(out.reshape(out.shape or (1,)).astype(x.dtype, copy=False), attrs)}


def _matmul_dout(xm, ym, dout, attrs):
    """Out@GRAD as [..., M, N] (the dims a 1-D input dropped put back; a fused Out's transpose undone),
    times alpha."""
    shape = np.broadcast_shapes(xm.shape[:-2], ym.shape[:-2]) + (xm.shape[-2], ym.shape[-1])
    d = product_grad(dout, attrs, shape).reshape(shape)
    return d * d.dtype.type(attrs["alpha"]) if attrs["alpha"] != 1.0 else d


def matmul_v2(ins, attrs):
    return matmul(ins, matmul_v1_attrs(attrs, ins["X"].ndim, ins["Y"].ndim))


def matmul_grad_x(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    if attrs.get("head_number", 1) > 1:
        return {"X@GRAD": _matmul_heads(ins, attrs, "X", _matmul_operands(x, y, attrs))}
    xm, ym = _matmul_operands(x, y, attrs)
    d = _matmul_dout(xm, ym, dout, attrs)
    dxm = unbroadcast(_product(d, conj(ym), trans_b=True), xm.shape)  # d(Out)/d(xm): [..., M, K]
    if x.ndim > 1 and attrs["transpose_X"]:
        dxm = np.swapaxes(dxm, -1, -2)
    return {"X@GRAD": np.ascontiguousarray(dxm.reshape(x.shape), dtype=x.dtype)}


def matmul_grad_y(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    if attrs.get("head_number", 1) > 1:
        return {"Y@GRAD": _matmul_heads(ins, attrs, "Y", _matmul_operands(x, y, attrs))}
    xm, ym = _matmul_operands(x, y, attrs)
    d = _matmul_dout(xm, ym, dout, attrs)
    if ym.ndim == 2 and xm.ndim > 2 and xm.size and d.size:  # the sum over X's leading dims: one GEMM
        dym = _product(conj(xm).reshape(-1, xm.shape[-1]), d.reshape(-1, d.shape[-1]), trans_a=True)
    else:
        dym = unbroadcast(_product(conj(xm), d, trans_a=True), ym.shape)  # d(Out)/d(ym): [..., K, N]
    if y.ndim > 1 and attrs["transpose_Y"]:
        dym = np.swapaxes(dym, -1, -2)
    return {"Y@GRAD": np.ascontiguousarray(dym.reshape(y.shape), dtype=y.dtype)}


matmul_grad = written_grads({"X@GRAD": matmul_grad_x, "Y@GRAD": matmul_grad_y})


def inverse(ins, attrs):
    x = ins["Input"]
    try:
        out = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise not_invertible(x.shape) from None
    return {"Output": out.astype(x.dtype, copy=False)}


def cholesky(ins, attrs):
    x = ins["X"]
    try:
        lower = np.linalg.cholesky(0.5 * (x + np.swapaxes(x, -1, -2)))
    except np.linalg.LinAlgError:
        raise not_positive_definite(x.shape) from None
    out = np.swapaxes(lower, -1, -2) if attrs["upper"] else lower
    return {"Out": np.ascontiguousarray(out).astype(x.dtype, copy=False)}


def cholesky_grad(ins, attrs):
    """dX = sym(L^-T Phi(L^T dL) L^-1): L lower (Out, or Out^T when upper), Phi the lower triangle with
    its diagonal halved, sym(S) = (S + S^T) / 2 (Murray, 2016, as Fluid 1.8's cholesky_grad)."""
    out, dout = ins["Out"], ins["Out@GRAD"]
    lower, dlower = (np.swapaxes(v, -1, -2) for v in (out, dout)) if attrs["upper"] else (out, dout)
    prod = np.swapaxes(lower, -1, -2) @ dlower
    phi = np.tril(prod, -1) + 0.5 * np.tril(np.triu(prod))
    inv = np.linalg.inv(lower)
    s = np.swapaxes(inv, -1, -2) @ phi @ inv
    return {"X@GRAD": np.ascontiguousarray(0.5 * (s + np.swapaxes(s, -1, -2))).astype(out.dtype, copy=False)}


# -- spectral_norm ----------------------------------------------------------------------------------------


def _spectral(ins, attrs):
    """(W as a [h, w] matrix, its permutation, u, v, sigma) after Fluid's power iterations."""
    weight, dim = ins["Weight"], attrs["dim"] % ins["Weight"].ndim
    perm = [dim] + [i for i in range(weight.ndim) if i != dim]
    mat = weight.transpose(perm).reshape(weight.shape[dim], -1)
    u, v, eps = ins["U"].reshape(-1).copy(), ins["V"].reshape(-1).copy(), attrs["eps"]
    for _ in range(attrs["power_iters"]):
        v = mat.T @ u
        v = v / (np.sqrt((v * v).sum()) + eps)
        u = mat @ v
        u = u / (np.sqrt((u * u).sum()) + eps)
    return mat, perm, u, v, u @ (mat @ v)


def _unpermute(mat, weight, perm):
    return mat.reshape([weight.shape[i] for i in perm]).transpose(np.argsort(perm))


def spectral_norm(ins, attrs):
    mat, perm, _, _, sigma = _spectral(ins, attrs)
    return {"Out": _unpermute(mat / sigma, ins["Weight"], perm).astype(ins["Weight"].dtype, copy=False)}


def spectral_norm_grad(ins, attrs):
    mat, perm, u, v, sigma = _spectral(ins, attrs)
    dout = ins["Out@GRAD"].transpose(perm).reshape(mat.shape)
    dmat = (dout - (dout * (mat / sigma)).sum() * np.outer(u, v)) / sigma
    return {"Weight@GRAD": _unpermute(dmat, ins["Weight"], perm).astype(ins["Weight"].dtype, copy=False)}
