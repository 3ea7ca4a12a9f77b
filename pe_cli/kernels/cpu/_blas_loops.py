"""A GEMM split into blocks of rows or of columns of the result, or of its inner dimension, over
numba's threads, each block calling BLAS single-threaded (see _cblas.py, _numba.py). Imported on
first use.

The serial loop and its parallel twin are two functions (two closures over ``range`` and
``prange``), never one function jitted twice: numba's cache keys a compiled loop by its code,
closure and signature, not by ``parallel=True``, so a twin made by jitting the serial loop's
function again loaded the serial machine code from the cache and ran its blocks one after the
other (2026-11-23: the MLP's GEMMs took as long on 2 threads as on 1; tests/kernels/test_twins.py
keeps every twin distinct)."""
import numba
from numba import prange, uintp


def _gemm_blocks(blocks):
    """The loop over the blocks ``blocks`` (range or prange): c [m, n] = op(a) @ op(b) for
    C-contiguous 2-D arrays (op: a transpose where trans_* is 112), in ``parts`` blocks of rows of c,
    or of columns where ``by_cols``. The arrays (not bare addresses) are passed so that their dtype
    is part of the compiled signature, with the GEMM that matches it. The blocks are the same
    whichever twin runs them, and how many threads: a BLAS may round a row differently at another
    block height (OpenBLAS 0.3.31's SGEMM does), never for another thread."""
    def loop(gemm, trans_a, trans_b, a, b, c, parts, by_cols):
        m, n = c.shape
        k = a.shape[0] if trans_a == 112 else a.shape[1]
        lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
        span = n if by_cols else m
        for p in blocks(parts):
            s0 = span * p // parts
            s1 = span * (p + 1) // parts
            if s1 <= s0:
                continue
            if by_cols:     # columns s0:s1 of op(b): columns of b, or rows
                first = s0 if trans_b == 111 else s0 * ldb
                gemm(101, trans_a, trans_b, m, s1 - s0, k, 1.0, a.ctypes.data, lda,
                     b.ctypes.data + uintp(first * size), ldb, 0.0, c.ctypes.data + uintp(s0 * size), n)
            else:           # rows s0:s1 of op(a): rows of a, or columns
                first = s0 * lda if trans_a == 111 else s0
                gemm(101, trans_a, trans_b, s1 - s0, n, k, 1.0, a.ctypes.data + uintp(first * size), lda,
                     b.ctypes.data, ldb, 0.0, c.ctypes.data + uintp(s0 * n * size), n)
    return loop


def _gemm_k_blocks(blocks):
    """The loop over the blocks of the inner dimension k (range or prange): c [m, n] = op(a) @ op(b)
    as ``parts`` products of k-blocks into ``partial`` [parts, m, n], then a second loop over blocks
    of rows of c adds them in order (c = P0 + P1 + ...). Each thread reads one block of rows of op(b)
    and no other (math.split_mode says why). The blocks and the order of the sums are the same
    whichever twin runs them, and on however many threads."""
    def loop(gemm, trans_a, trans_b, a, b, c, partial, parts):
        m, n = c.shape
        k = a.shape[0] if trans_a == 112 else a.shape[1]
        lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
        for p in blocks(parts):
            k0 = k * p // parts
            k1 = k * (p + 1) // parts
            first_a = k0 if trans_a == 111 else k0 * lda        # columns k0:k1 of op(a)
            first_b = k0 * ldb if trans_b == 111 else k0        # rows k0:k1 of op(b)
            gemm(101, trans_a, trans_b, m, n, k1 - k0, 1.0, a.ctypes.data + uintp(first_a * size), lda,
                 b.ctypes.data + uintp(first_b * size), ldb, 0.0, partial[p].ctypes.data, n)
        for p in blocks(parts):
            for i in range(m * p // parts, m * (p + 1) // parts):
                for j in range(n):
                    c[i, j] = partial[0, i, j]
                for q in range(1, parts):
                    for j in range(n):
                        c[i, j] += partial[q, i, j]
    return loop


gemm_blocks = numba.njit(cache=True, nogil=True)(_gemm_blocks(range))
gemm_blocks_parallel = numba.njit(cache=True, nogil=True, parallel=True)(_gemm_blocks(prange))
gemm_k_blocks = numba.njit(cache=True, nogil=True)(_gemm_k_blocks(range))
# its two loops never fused into one: numba sees no dependence between them (BLAS writes through
# addresses); a first version that wrote block 0's product into c gave wrong float64 sums in parallel
gemm_k_blocks_parallel = numba.njit(cache=True, nogil=True, parallel={"fusion": False})(_gemm_k_blocks(prange))
