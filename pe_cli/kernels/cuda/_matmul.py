"""The matrix product: a tiled shared-memory kernel with register blocking.

A block computes a BM x BN tile of C = alpha * op(A) @ op(B), stepping through K in slabs of BK:
its threads copy the slab of A and of B into shared memory (reading along each matrix's
contiguous dim, so loads coalesce whether or not it is transposed), then each thread accumulates a
TM x TN block of outputs in registers (rows ty, ty+NY, ..., columns tx, tx+NX, ...: neighbouring
threads write neighbouring columns). Transposes are read in place, never materialized; a batch dim
(grid z) covers batched products, with a batch of 1 broadcast.
"""
import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import SIM, per_dtype

# Tile sizes: a 64x64 tile per 256-thread block on a GPU; a tiny one under the simulator (where
# each thread is a Python thread).
if SIM:
    BM, BN, BK, TM, TN = 8, 8, 8, 4, 4
else:
    BM, BN, BK, TM, TN = 64, 64, 16, 4, 4
NX, NY = BN // TN, BM // TM


def _kernel(dt, trans_a, trans_b):
    nthreads = NX * NY
    zero = dt(0)
    a_width, b_width = BM + 1, BN + 1       # +1: no bank conflicts on transposing stores

    @cuda.jit
    def matmul(a, b, c, M, N, K, alpha):
        As = cuda.shared.array((BK, a_width), dt)
        Bs = cuda.shared.array((BK, b_width), dt)
        acc = cuda.local.array((TM, TN), dt)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tid = ty * NX + tx
        row0 = cuda.blockIdx.y * BM
        col0 = cuda.blockIdx.x * BN
        bz = cuda.blockIdx.z
        ba = bz if a.shape[0] > 1 else 0
        bb = bz if b.shape[0] > 1 else 0
        for i in range(TM):
            for j in range(TN):
                acc[i, j] = zero
        for k0 in range(0, K, BK):
            for e in range(tid, BM * BK, nthreads):
                if trans_a:                 # a[., k, m]: neighbouring threads walk m
                    kk = e // BM
                    i = e % BM
                else:                       # a[., m, k]: neighbouring threads walk k
                    i = e // BK
                    kk = e % BK
                gi = row0 + i
                gk = k0 + kk
                v = zero
                if gi < M and gk < K:
                    if trans_a:
                        v = a[ba, gk, gi]
                    else:
                        v = a[ba, gi, gk]
                As[kk, i] = v
            for e in range(tid, BN * BK, nthreads):
                if trans_b:                 # b[., n, k]
                    j = e // BK
                    kk = e % BK
                else:                       # b[., k, n]
                    kk = e // BN
                    j = e % BN
                gj = col0 + j
                gk = k0 + kk
                v = zero
                if gj < N and gk < K:
                    if trans_b:
                        v = b[bb, gj, gk]
                    else:
                        v = b[bb, gk, gj]
                Bs[kk, j] = v
            cuda.syncthreads()
            for kk in range(BK):
                for i in range(TM):
                    av = As[kk, ty + i * NY]
                    for j in range(TN):
                        acc[i, j] += av * Bs[kk, tx + j * NX]
            cuda.syncthreads()
        for i in range(TM):
            gi = row0 + ty + i * NY
            if gi < M:
                for j in range(TN):
                    gj = col0 + tx + j * NX
                    if gj < N:
                        c[bz, gi, gj] = acc[i, j] * alpha
    return matmul


_kernels = per_dtype(_kernel)


def _as3d(x):
    return x.reshape((1,) + tuple(x.shape)) if x.ndim == 2 else x


def matmul(a, b, trans_a=False, trans_b=False, alpha=1.0, out=None):
    """alpha * op(a) @ op(b) for 2-D arrays, or 3-D ones [batch, ., .] (a batch of 1 broadcasts).
    op transposes the last two dims when asked. Returns a new contiguous array."""
    a3, b3 = _as3d(a), _as3d(b)
    M = a3.shape[2] if trans_a else a3.shape[1]
    K = a3.shape[1] if trans_a else a3.shape[2]
    kb = b3.shape[2] if trans_b else b3.shape[1]
    N = b3.shape[1] if trans_b else b3.shape[2]
    if K != kb:
        raise ValueError(f"matmul: inner dims differ ({K} vs {kb})")
    batch = max(a3.shape[0], b3.shape[0])
    squeeze = a.ndim == 2 and b.ndim == 2
    shape = (M, N) if squeeze else (batch, M, N)
    if out is None:
        out = rt.empty(shape, a.dtype)
    if out.size == 0:
        return out
    if K == 0:
        from ._launch import full
        return full(shape, 0, a.dtype)
    c3 = out.reshape((batch, M, N))
    grid = ((N + BN - 1) // BN, (M + BM - 1) // BM, batch)
    _kernels(a.dtype, bool(trans_a), bool(trans_b))[grid, (NX, NY), rt.stream()](
        a3, b3, c3, M, N, K, np.dtype(a.dtype).type(alpha))
    return out


def flops(M, N, K, batch=1):
    return 2.0 * M * N * K * batch
