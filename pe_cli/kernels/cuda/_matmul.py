"""The matrix product: a tiled shared-memory kernel with register blocking.

A block computes a BM x BN tile of C = alpha * op(A) @ op(B), stepping through K in slabs of BK:
its threads copy the slab of A and of B into shared memory (reading along each matrix's
contiguous dim, so loads coalesce whether or not it is transposed), then each thread accumulates a
TM x TN block of outputs in registers (rows ty, ty+NY, ..., columns tx, tx+NX, ...: neighbouring
threads write neighbouring columns). Transposes are read in place, never materialized; a batch dim
(grid z) covers batched products, with a batch of 1 broadcast.

A product with few output tiles and a long K (a convolution's filter gradient: a few hundred
outputs, K = batch x output pixels) would leave all but a block or two of the GPU idle while they
walk K alone (29 ms of LeNet's 42 ms step on an H200). There grid z also splits K: each block sums
one slice of K into its own partial tile, and the partials are summed after (split-K).

On a real GPU with nvmath-python installed, ``matmul`` hands float32/float64 products to cuBLAS
first (_blas.py decides; ``PE_CUDA_GEMM=numba`` keeps this kernel for every product).
"""

import numpy as np
from numba import cuda

from . import _blas
from . import runtime as rt
from ._launch import SIM, full, per_dtype
from ._reduce import reduce
from .launcher import jit_kernel

# Tile sizes: a 64x64 tile per 256-thread block on a GPU; a tiny one under the simulator (where
# each thread is a Python thread).
if SIM:
    BM, BN, BK, TM, TN = 8, 8, 8, 4, 4
else:
    BM, BN, BK, TM, TN = 64, 64, 16, 4, 4
NX, NY = BN // TN, BM // TM


def _tile_loader(dt, span, k_major):
    """A device function copying one BK x ``span`` slab of a [batch, ., .] operand into a shared
    tile[kk, r] (r < span, the operand's M or N side), zero outside the matrix. ``k_major``: the
    operand is stored [., k, r] (else [., r, k]); neighbouring threads walk its contiguous dim."""
    nthreads = NX * NY
    zero = dt(0)

    @cuda.jit(device=True)
    def load(src, batch, r0, limit, k0, K, tile, tid):
        for e in range(tid, span * BK, nthreads):
            if k_major:
                kk = e // span
                r = e % span
            else:
                r = e // BK
                kk = e % BK
            gr = r0 + r
            gk = k0 + kk
            v = zero
            if gr < limit and gk < K:
                if k_major:
                    v = src[batch, gk, gr]
                else:
                    v = src[batch, gr, gk]
            tile[kk, r] = v

    return load


def _kernel(dt, trans_a, trans_b):
    zero = dt(0)
    a_width, b_width = BM + 1, BN + 1  # +1: no bank conflicts on transposing stores
    load_a = _tile_loader(dt, BM, trans_a)  # a[., k, m] when transposed, else a[., m, k]
    load_b = _tile_loader(dt, BN, not trans_b)  # b[., n, k] when transposed, else b[., k, n]

    @jit_kernel
    def matmul(a, b, c, M, N, K, alpha, splits, kc):
        As = cuda.shared.array((BK, a_width), dt)
        Bs = cuda.shared.array((BK, b_width), dt)
        acc = cuda.local.array((TM, TN), dt)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tid = ty * NX + tx
        row0 = cuda.blockIdx.y * BM
        col0 = cuda.blockIdx.x * BN
        bz = cuda.blockIdx.z  # batch * splits + the slice of K this block sums
        batch = bz // splits
        k_begin = (bz % splits) * kc
        k_end = min(K, k_begin + kc)
        ba = batch if a.shape[0] > 1 else 0
        bb = batch if b.shape[0] > 1 else 0
        for i in range(TM):
            for j in range(TN):
                acc[i, j] = zero
        for k0 in range(k_begin, k_end, BK):
            load_a(a, ba, row0, M, k0, k_end, As, tid)
            load_b(b, bb, col0, N, k0, k_end, Bs, tid)
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
        return full(shape, 0, a.dtype)
    if _blas.gemm(a3, b3, out.reshape((batch, M, N)), trans_a, trans_b, alpha):
        return out
    tiles = ((N + BN - 1) // BN, (M + BM - 1) // BM)
    splits, kc = split_k(tiles[0] * tiles[1] * batch, K)
    c3 = out.reshape((batch, M, N)) if splits == 1 else rt.empty((batch, splits, M, N), out.dtype)
    _kernels(a.dtype, bool(trans_a), bool(trans_b))[tiles + (batch * splits,), (NX, NY), rt.stream()](
        a3, b3, c3.reshape((batch * splits, M, N)), M, N, K, np.dtype(a.dtype).type(alpha), splits, kc
    )
    if splits > 1:
        reduce(c3, (1,), out=out.reshape((batch, M, N)))
    return out


# A block walks at least this many K elements when K is split, and the split aims at this many blocks.
K_SLICE = 16 * BK if SIM else 128 * BK
TARGET_BLOCKS = 8 if SIM else 512


def split_k(blocks, K):
    """(slices of K, K elements per slice) for a product of ``blocks`` output tiles: K is split
    only where the tiles alone leave the GPU mostly idle and each slice still walks K_SLICE."""
    if blocks >= TARGET_BLOCKS // 4 or K < 2 * K_SLICE:
        return 1, K
    splits = min(K // K_SLICE, max(1, TARGET_BLOCKS // blocks))
    kc = -(-K // splits)
    kc = -(-kc // BK) * BK
    return -(-K // kc), kc


def flops(M, N, K, batch=1):
    return 2.0 * M * N * K * batch
