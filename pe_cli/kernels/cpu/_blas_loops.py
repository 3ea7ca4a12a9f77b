"""A GEMM split into blocks of rows or of columns of the result, or of its inner dimension, over
numba's threads, each block calling BLAS single-threaded (see runtime/cblas.py, runtime/loops.py). Imported on
first use.

The serial loop and its parallel twin are two functions (two closures over ``range`` and
``prange``), never one function jitted twice: numba's cache keys a compiled loop by its code,
closure and signature, not by ``parallel=True``, so a twin made by jitting the serial loop's
function again loaded the serial machine code from the cache and ran its blocks one after the
other (2026-11-23: the MLP's GEMMs took as long on 2 threads as on 1; tests/kernels/test_twins.py
keeps every twin distinct).

Each loop takes an epilogue (math.py's epilogue codes), applied to each block of c by the thread
that computed it, while it is in that core's cache: ``bias`` (n values, or none) added to every
row, then ``act`` 1: relu, or 2: relu's gradient, c zeroed where ``gate`` (relu's output, [m, n])
is not > 0; 0: nothing more. The fused_gemm_epilogue ops (kernels/cpu/fused.py) use them; mul
passes an empty bias and 0."""

import numba
from numba import prange, uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@numba.njit(cache=True, nogil=True)
def _epilogue(c, i0, i1, j0, j1, bias, gate, act):
    """Rows i0:i1, columns j0:j1 of c: + bias, then the activation ``act`` (see above), as
    elementwise_add, relu and relu_grad compute them (_pointwise_loops.py, _activation_row_loops.py): the same numbers. One
    simple loop a row for each, so that each vectorises: its index cast to ``uintp``, as in
    _conv_loops.py. A signed index from j0 may be negative, and numba's wraparound for it kept LLVM
    from vectorising relu's gradient except where j0 was the constant 0 (a block of columns: 95 us
    against 14 over [512, 256], 2026-11-25)."""
    if bias.size == 0 and act == 0:
        return
    zero = c.dtype.type(0)
    for i in range(i0, i1):
        row = c[i]
        if bias.size:
            for j in range(j0, j1):
                row[uintp(j)] += bias[uintp(j)]
        if act == 1:
            for j in range(j0, j1):
                v = row[uintp(j)]
                row[uintp(j)] = v if (v > zero or v != v) else zero
        elif act == 2:
            mask = gate[i]
            for j in range(j0, j1):
                u = uintp(j)
                row[u] = row[u] if mask[u] > zero else row[u] * zero


def _gemm_blocks(blocks):
    """The loop over the blocks ``blocks`` (range or prange): c [m, n] = op(a) @ op(b) for
    C-contiguous 2-D arrays (op: a transpose where trans_* is 112), in ``parts`` blocks of rows of c,
    or of columns where ``by_cols``, each block then given the epilogue. The arrays (not bare addresses) are passed so that their dtype
    is part of the compiled signature, with the GEMM that matches it. The blocks are the same
    whichever twin runs them, and how many threads: a BLAS may round a row differently at another
    block height (OpenBLAS 0.3.31's SGEMM does), never for another thread."""

    def loop(gemm, trans_a, trans_b, a, b, c, bias, gate, act, parts, by_cols):
        m, n = c.shape
        k = a.shape[0] if trans_a == 112 else a.shape[1]
        lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
        span = n if by_cols else m
        for p in blocks(parts):
            s0 = span * p // parts
            s1 = span * (p + 1) // parts
            if s1 <= s0:
                continue
            if by_cols:  # columns s0:s1 of op(b): columns of b, or rows
                first = s0 if trans_b == 111 else s0 * ldb
                gemm(
                    101,
                    trans_a,
                    trans_b,
                    m,
                    s1 - s0,
                    k,
                    1.0,
                    a.ctypes.data,
                    lda,
                    b.ctypes.data + uintp(first * size),
                    ldb,
                    0.0,
                    c.ctypes.data + uintp(s0 * size),
                    n,
                )
                _epilogue(c, 0, m, s0, s1, bias, gate, act)
            else:  # rows s0:s1 of op(a): rows of a, or columns
                first = s0 * lda if trans_a == 111 else s0
                gemm(
                    101,
                    trans_a,
                    trans_b,
                    s1 - s0,
                    n,
                    k,
                    1.0,
                    a.ctypes.data + uintp(first * size),
                    lda,
                    b.ctypes.data,
                    ldb,
                    0.0,
                    c.ctypes.data + uintp(s0 * n * size),
                    n,
                )
                _epilogue(c, s0, s1, 0, n, bias, gate, act)

    return loop


def _gemm_k_blocks(blocks):
    """The loop over the blocks of the inner dimension k (range or prange): c [m, n] = op(a) @ op(b)
    as ``parts`` products of k-blocks into ``partial`` [parts, m, n], then a second loop over blocks
    of rows of c adds them in order (c = P0 + P1 + ...) and applies the epilogue to each row. Each thread reads one block of rows of op(b)
    and no other (math.split_mode says why). The blocks and the order of the sums are the same
    whichever twin runs them, and on however many threads."""

    def loop(gemm, trans_a, trans_b, a, b, c, partial, bias, gate, act, parts):
        m, n = c.shape
        k = a.shape[0] if trans_a == 112 else a.shape[1]
        lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
        for p in blocks(parts):
            k0 = k * p // parts
            k1 = k * (p + 1) // parts
            first_a = k0 if trans_a == 111 else k0 * lda  # columns k0:k1 of op(a)
            first_b = k0 * ldb if trans_b == 111 else k0  # rows k0:k1 of op(b)
            gemm(
                101,
                trans_a,
                trans_b,
                m,
                n,
                k1 - k0,
                1.0,
                a.ctypes.data + uintp(first_a * size),
                lda,
                b.ctypes.data + uintp(first_b * size),
                ldb,
                0.0,
                partial[p].ctypes.data,
                n,
            )
        for p in blocks(parts):
            for i in range(m * p // parts, m * (p + 1) // parts):
                for j in range(n):
                    c[i, j] = partial[0, i, j]
                for q in range(1, parts):
                    for j in range(n):
                        c[i, j] += partial[q, i, j]
                _epilogue(c, i, i + 1, 0, n, bias, gate, act)

    return loop


gemm_blocks = numba.njit(cache=True, nogil=True)(_gemm_blocks(range))
gemm_blocks_parallel = numba.njit(cache=True, nogil=True, parallel=True)(_gemm_blocks(prange))
gemm_k_blocks = numba.njit(cache=True, nogil=True)(_gemm_k_blocks(range))
# its two loops never fused into one: numba sees no dependence between them (BLAS writes through
# addresses); a first version that wrote block 0's product into c gave wrong float64 sums in parallel
gemm_k_blocks_parallel = numba.njit(cache=True, nogil=True, parallel={"fusion": False})(_gemm_k_blocks(prange))


def _gemm_batch(blocks):
    """The loop over ``parts`` blocks of a stack of products (range or prange): c[i] = op(a[i]) @ op(b[i])
    for C-contiguous 3-D arrays of one batch, each product one single-threaded BLAS call, as numpy's
    matmul makes it (matmul's batched products, the attention's q k^T and its weights times v:
    kernels/cpu/matmul.py). The products are the same whichever twin runs them."""

    def loop(gemm, trans_a, trans_b, a, b, c, parts):
        batch, m, n = c.shape
        k = a.shape[1] if trans_a == 112 else a.shape[2]
        lda, ldb, size = a.shape[2], b.shape[2], a.itemsize
        step_a, step_b, step_c = a.shape[1] * a.shape[2] * size, b.shape[1] * b.shape[2] * size, m * n * size
        for p in blocks(parts):
            for i in range(batch * p // parts, batch * (p + 1) // parts):
                gemm(
                    101,
                    trans_a,
                    trans_b,
                    m,
                    n,
                    k,
                    1.0,
                    a.ctypes.data + uintp(i * step_a),
                    lda,
                    b.ctypes.data + uintp(i * step_b),
                    ldb,
                    0.0,
                    c.ctypes.data + uintp(i * step_c),
                    n,
                )

    return loop


gemm_batch = numba.njit(cache=True, nogil=True)(_gemm_batch(range))
gemm_batch_parallel = numba.njit(cache=True, nogil=True, parallel=True)(_gemm_batch(prange))


@numba.njit(cache=True, nogil=True)
def outer(a, b, c):
    """c [m, n] = a [m] times b [n] (a GEMM whose inner dimension is 1): each value one product,
    numpy's bits."""
    n = b.size
    for i in range(a.size):
        v = a[i]
        row = c[i]
        for j in range(n):
            row[uintp(j)] = v * b[uintp(j)]


@numba.njit(cache=True, nogil=True)
def gemv_column(gemv, trans_a, a, b, c):
    """c [m] = op(a) [m, k] @ b [k] (a matrix by a column, k > 1, m > 1) by numpy's own GEMV, with the arguments
    numpy's matmul gives it (its ``gemv``: an [m, k] a read as column-major [k, m] and transposed; a transposed one,
    stored [k, m], as row-major, transposed): numpy's bits."""
    if trans_a == 112:
        k, m = a.shape
        gemv(101, 112, k, m, 1.0, a.ctypes.data, m, b.ctypes.data, 1, 0.0, c.ctypes.data, 1)
    else:
        m, k = a.shape
        gemv(102, 112, k, m, 1.0, a.ctypes.data, k, b.ctypes.data, 1, 0.0, c.ctypes.data, 1)
