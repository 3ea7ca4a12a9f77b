"""A GEMM split into blocks of rows of the result, over numba's threads, each block calling numpy's BLAS
single-threaded (see _cblas.py, _numba.py). Imported on first use.

The serial loop and its parallel twin are two functions (two closures over ``range`` and
``prange``), never one function jitted twice: numba's cache keys a compiled loop by its code,
closure and signature, not by ``parallel=True``, so a twin made by jitting the serial loop's
function again loaded the serial machine code from the cache and ran its blocks one after the
other (2026-11-23: the MLP's GEMMs took as long on 2 threads as on 1; tests/kernels/test_twins.py
keeps every twin distinct)."""
import numba
from numba import prange, uintp


def _gemm_rows(blocks):
    """The loop over the blocks ``blocks`` (range or prange): c [m, n] = op(a) @ op(b) for
    C-contiguous 2-D arrays (op: a transpose where trans_* is 112), the rows of c in ``parts``
    blocks. The arrays (not bare addresses) are passed so that their dtype is part of the compiled
    signature, with the GEMM that matches it. The blocks are the same whichever twin runs them, and
    how many threads: a BLAS may round a row differently at another block height (OpenBLAS
    0.3.31's SGEMM does), never for another thread."""
    def loop(gemm, trans_a, trans_b, a, b, c, parts):
        m, n = c.shape
        k = a.shape[0] if trans_a == 112 else a.shape[1]
        lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
        for p in blocks(parts):
            r0 = m * p // parts
            r1 = m * (p + 1) // parts
            if r1 > r0:
                first = r0 * lda if trans_a == 111 else r0       # row r0 of op(a): a row of a, or a column
                gemm(101, trans_a, trans_b, r1 - r0, n, k, 1.0, a.ctypes.data + uintp(first * size), lda,
                     b.ctypes.data, ldb, 0.0, c.ctypes.data + uintp(r0 * n * size), n)
    return loop


gemm_rows = numba.njit(cache=True, nogil=True)(_gemm_rows(range))
gemm_rows_parallel = numba.njit(cache=True, nogil=True, parallel=True)(_gemm_rows(prange))
