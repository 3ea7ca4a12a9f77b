"""Linear algebra kernels: mul, matmul, matmul_v2 and their gradients, inverse, cholesky and its
gradient. A large 2-D GEMM (mul and its gradients) is split into as many blocks of rows, of columns or
of its inner dimension (split_mode) as its device has threads on a quiet machine (threads.work_parts),
run over the threads free now, each block calling BLAS single-threaded (_blas_loops.py; numpy's BLAS,
or MKL where runtime/cblas.py chose it, then on one thread too); other GEMMs are numpy's, with BLAS sized by
``threads.for_gemm``; an inner dimension of 1 is numpy's outer product."""

import math

import numpy as np

from ...shapes.linalg import matmul_flag, matmul_v1_attrs
from ..common import conj
from ..fused_math import written_grads
from ..value_checks import not_invertible, not_positive_definite
from .runtime import cblas, threads
from . import _replicas
from ._matmul_forms import fused_output, matmul_heads as _matmul_heads, product_grad
from .runtime.loops import is_float, lazy, loop_or, parallel_threads, twin
from .elementwise import unbroadcast
from ..context import NO_CONTEXT

_loops = lazy("_blas_loops")


def _as_matrix(a, num_col_dims):
    # (sizes, not -1: a tensor of no rows, an IfElse branch's, is a [0, n] matrix)
    return a.reshape(math.prod(a.shape[:num_col_dims]), math.prod(a.shape[num_col_dims:]))


ROWS, COLS, INNER = "rows", "cols", "inner"


def split_mode(m, n, k, weight_rows=None):
    """How a GEMM with an [m, n] result and inner dimension k splits over the threads: into blocks
    of rows of the result (ROWS), of its columns (COLS) or of k (INNER). ``weight_rows``: where op(b)
    is a weight, which of those blocks are blocks of the weight's rows: INNER for mul's forward
    (op(b) is the weight), COLS for its input gradient (op(b) is the weight transposed).

    - COLS where the result is at least 4x wider than tall. BLAS packs both operands; each block
      of rows packs all of op(b) again ([k, n]), each block of columns all of op(a) ([m, k]).
      Columns where op(b) is the much larger: the wide MLP's [256, 4096] x [4096, 4096] took
      0.91-0.93 of the rows' time by columns, its input gradient 0.88-0.92 (1 and 2 threads); at
      the MLP's n = 2m the two splits are within +-8% of each other, either way (2-core Zen 4 VM,
      2026-11-24, ``benchmarks/gemm_shapes.py --split``).
    - Blocks of the weight's rows where it has at least half as many rows as the batch (2k >= m
      for the forward, 2n >= m for the input gradient). For the forward, INNER: block p multiplies
      columns k_p of x by rows k_p of the weight, and a second pass adds the partial products.
      Each thread then reads its own rows of the weight and no other, the rows its input gradient
      (by blocks of columns), its weight gradient (by rows) and its update (optimizer.py: a
      parameter split into as many contiguous blocks) also give to that thread. Split by rows of
      x, both threads read the whole weight, and the update then writes lines that sit in the
      other core's cache: on the 2-core Xeon VM (2026-11-25) the MLP's first-layer momentum took
      174 us against 41 (a numba loop reading the weight on both cores: 107 against 26 us), and
      blocks of columns of the weight do not help (the hardware prefetcher pulls the other half of
      each row in: 177 us). The partial sums cost an [m, n] pass, which the update's saving pays
      for up to m = 2k. Forward, weight gradient and momentum of one layer, us, by rows / by blocks
      of k (``benchmarks/weight_rows.py --shape m,k,n``):

      | m, k, n | 128, 784, 256 | 512, 784, 256 | 512, 256, 256 | 64, 400, 120 | 1024, 256, 256 | 2048, 128, 256 |
      |---|---|---|---|---|---|---|
      | rows | 536 | 1411 | 532 | 130 | 997 | 996 |
      | k | 391 | 1312 | 513 | 86 | 1017 | 1162 |

      The input gradient by the weight's rows too made the second [256, 256] weight's update
      61 -> 23 us in the MLP's step, the step's median 1.08 -> 0.97-1.05 ms (three alternating runs).
    - Not INNER for a result 4x wider than tall of ``WIDE_PARTIALS`` values or more: the beam's
      [256, 256] x [256, 10,000] took 13.3-15.4 ms by blocks of k (two [256, 10,000] partial products)
      against 11.3-11.5 by columns; the wide MLP's first layer 58.9-63.9 either way (2026-11-27).
    - Not for a weight of fewer than ``WEIGHT_ROWS_MIN`` values (the MLP's last layer, [256, 10]):
      its update is a few microseconds however the threads share it, and the other splits are
      faster. Over [512, 256] by [256, 10] on 2 threads (2026-11-25, the Xeon VM): the forward by
      rows 27 us against 36 by blocks of k (the partial sums' extra pass), and the input gradient
      with relu's gate by rows 20-27 us against 54-80 by blocks of columns (each thread's epilogue
      then reads and writes half of every row of the result, and the cores pull each other's
      lines).
    """
    if k * n >= WEIGHT_ROWS_MIN:
        if weight_rows == INNER and 2 * k >= m and (n < 4 * m or m * n < WIDE_PARTIALS):
            return INNER
        if weight_rows == COLS and 2 * n >= m:
            return COLS
    return COLS if n >= 4 * m else ROWS


WEIGHT_ROWS_MIN = 1 << 15  # values of a weight (k * n) below which split_mode ignores weight_rows
WIDE_PARTIALS = 1 << 18  # values of a wide result (m * n) from which it is not split by k (1 MiB of float32)


# a GEMM's epilogue (_blas_loops.py): after the bias, nothing, relu, or relu's gradient (a gate)
NO_ACT, RELU, RELU_GRAD = 0, 1, 2


def matmul2d(a, b, trans_a=False, trans_b=False, weight_rows=None, bias=None, act=NO_ACT, gate=None):
    """op(a) @ op(b) for 2-D arrays, op being a transpose where asked; ``weight_rows``: see
    split_mode. Then the epilogue, on each block as its thread computes it: + ``bias`` (a row of
    n values), then ``act``: RELU, or RELU_GRAD (zero where ``gate``, [m, n], is not > 0)."""
    m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    n = b.shape[0] if trans_b else b.shape[1]
    macs = m * n * k
    if macs >= threads.SPLIT_GEMM_MACS and k > 1 and is_float(a, b):
        mode, parts, gemm = blocked_gemm(m, n, k, a.dtype, weight_rows)
        if gemm is not None:
            # the same blocks on however many threads are free now (the serial twin on one)
            a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
            out = np.empty((m, n), dtype=a.dtype)
            ta, tb = cblas.TRANS if trans_a else cblas.NO_TRANS, cblas.TRANS if trans_b else cblas.NO_TRANS
            epilogue = _epilogue_args(a.dtype, bias, act, gate)
            loops, parallel = _loops(), parallel_threads() > 1
            if mode == INNER and parts > 1:
                args = (gemm, ta, tb, a, b, out, np.empty((parts, m, n), dtype=a.dtype), *epilogue, parts)
                twin(
                    loops.gemm_k_blocks, loops.gemm_k_blocks_parallel, parallel, *args, replica=_replicas.gemm_k_blocks
                )(*args)
            else:
                args = (gemm, ta, tb, a, b, out, *epilogue, parts, mode == COLS)
                twin(loops.gemm_blocks, loops.gemm_blocks_parallel, parallel, *args, replica=_replicas.gemm_blocks)(
                    *args
                )
            return out
    threads.for_gemm(macs)
    if k == 1 and is_float(a, b):  # an outer product: 4x faster than BLAS's GEMM ([2,560] x [256]), same bits
        out = np.empty((m, n), dtype=a.dtype)
        args = (np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1), out)
        loop_or(_outer_numpy, _loops().outer, *args)(*args)  # the loop a planned step launches
    else:
        out = (a.T if trans_a else a) @ (b.T if trans_b else b)
    if (bias is not None or act != NO_ACT) and is_float(out):
        # the loops' epilogue on the whole result (its numpy replica while it compiles: the same bits)
        args = (out, 0, m, 0, n, *_epilogue_args(out.dtype, bias, act, gate))
        loop_or(_replicas.epilogue_rect, _loops()._epilogue, *args)(*args)
    elif bias is not None or act != NO_ACT:
        _replicas.epilogue(out, *_epilogue_args(out.dtype, bias, act, gate))
    return out


def blocked_gemm(m, n, k, dtype, weight_rows=None):
    """(mode, parts, gemm) of a float GEMM of at least SPLIT_GEMM_MACS: how matmul2d splits it
    (split_mode, into threads.work_parts() blocks at most) and the CBLAS GEMM its loop calls, None
    where numpy's product runs it (one part, numpy's BLAS). A planned step's launch (launch_forms.py)
    makes the same choice."""
    mode = split_mode(m, n, k, weight_rows)
    parts = min(threads.work_parts(), {ROWS: m, COLS: n, INNER: k}[mode])
    # on one thread too where the loops' GEMM is MKL (faster than numpy's OpenBLAS: runtime/cblas.py)
    gemm = cblas.gemm(dtype) if parts > 1 or cblas.source() == cblas.MKL else None
    return mode, parts, gemm


def _outer_numpy(a, b, out):
    """_blas_loops.outer's bits by numpy (while the loop compiles)."""
    np.multiply(a.reshape(-1, 1), b.reshape(1, -1), out=out)


_NONE = {}  # dtype -> (an empty bias, an empty gate): the epilogue that does nothing


def _epilogue_args(dtype, bias, act, gate):
    """(bias, gate, act) as the loops take them: empty arrays of ``dtype`` for those not given."""
    empty = _NONE.get(dtype)
    if empty is None:
        empty = _NONE[dtype] = (np.empty(0, dtype), np.empty((0, 0), dtype))
    bias = empty[0] if bias is None else np.ascontiguousarray(bias, dtype=dtype).reshape(-1)
    gate = empty[1] if gate is None else np.ascontiguousarray(gate, dtype=dtype)
    return bias, gate, act


def mul(ins, attrs):
    x, y = ins["X"], ins["Y"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    out = matmul2d(_as_matrix(x, xd), _as_matrix(y, yd), weight_rows=INNER)
    return {"Out": out.reshape(x.shape[:xd] + y.shape[yd:])}


def mul_grad(ins, attrs, ctx=NO_CONTEXT):
    """X@GRAD = dOut @ Y^T and Y@GRAD = X^T @ dOut (as matrices), the ones the op writes."""
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    wanted = ctx.wanted(("X@GRAD", "Y@GRAD"))
    outs = {}
    if "X@GRAD" in wanted:
        y2 = conj(_as_matrix(y, yd))
        dx = matmul2d(dout.reshape(dout.size // max(y2.shape[1], 1), y2.shape[1]), y2, trans_b=True, weight_rows=COLS)
        outs["X@GRAD"] = dx.reshape(x.shape)
    if "Y@GRAD" in wanted:
        x2 = conj(_as_matrix(x, xd))
        dy = matmul2d(x2, dout.reshape(x2.shape[0], math.prod(y.shape[yd:])), trans_a=True)
        # not a view where it has the shape already: the update that reads it then sees it own its data
        # (kernels/structured.allocate skips np.may_share_memory)
        outs["Y@GRAD"] = dy if dy.shape == y.shape else dy.reshape(y.shape)
    return outs


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
    gemm = cblas.gemm(a.dtype) if parts > 1 else None
    if gemm is None:
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
    args, loops = (gemm, ta, tb, a3, b3, out.reshape(batch, m, n), parts), _loops()
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
