"""numba loops of Adam's updates (kernels/cpu/optimizer.py, selected_rows.py): the dense update in
one pass over parameter, gradient and moments, and lazy mode's update of the rows a row-sparse
gradient holds, its duplicate rows summed on the way (imported on first use: see runtime/loops.py).

The arithmetic is numpy's expression, operation by operation in the arrays' dtype, so the results
are its bits:

    m1_out = beta1 * m1 + c1 * g                   (c1 = 1 - beta1, c2 = 1 - beta2: the caller's)
    m2_out = beta2 * m2 + c2 * g * g
    p_out  = p - lr_t * (m1_out / (sqrt(m2_out) + eps))

Each element is read before its outputs are written, so an output may be its own input (the
executor's in-place updates); outputs never overlap another input.
"""

import numba
import numpy as np
from numba import prange

from .runtime.prefetch import prefetch_row
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

# numpy's error model: a float division by zero gives inf or NaN as numpy's does, where Python's
# raises; its check is a branch in the loop that kept LLVM from vectorising the division and the
# square root ([400, 400] float32: 470 -> 80 us, the AMD EPYC VM)
_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_pjit = numba.njit(cache=True, nogil=True, error_model="numpy", parallel=True)


# rows ahead whose lines lazy mode's update asks for before it reaches them (the CTR bench's 8 tables of
# [100,000, 16], 1,300 cold rows each, one thread, load 2: in one pass, where a run of duplicates ends at a
# branch the CPU cannot predict, 4 ahead took 0.82-0.85 of the time without; the two passes then took
# 0.77-0.81 of that, with 2 to 8 ahead alike, and 16 0.87)
PREFETCH_ROWS = 8


@numba.njit(inline="always", error_model="numpy")
def _adam_at(pv, gv, a1, a2, lr_t, beta1, beta2, c1, c2, eps):
    """(p_out, m1_out, m2_out) of one element (inlined into each loop: one home for the arithmetic)."""
    m1o = beta1 * a1 + c1 * gv
    m2o = beta2 * a2 + c2 * gv * gv
    return pv - lr_t * (m1o / (np.sqrt(m2o) + eps)), m1o, m2o


@_jit
def adam(p, g, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out):
    """The dense update over 1-D arrays into three new arrays."""
    for i in range(p.size):
        p_out[i], m1_out[i], m2_out[i] = _adam_at(p[i], g[i], m1[i], m2[i], lr_t, beta1, beta2, c1, c2, eps)


@_jit
def adam_in_place(p, g, m1, m2, lr_t, beta1, beta2, c1, c2, eps):
    """adam written over p, m1 and m2 (g overlaps none of them). Its own loop, as momentum_in_place's:
    given outputs that are its inputs, adam's overlap checks fail and it runs unvectorised."""
    for i in range(p.size):
        p[i], m1[i], m2[i] = _adam_at(p[i], g[i], m1[i], m2[i], lr_t, beta1, beta2, c1, c2, eps)


@_jit
def adam_step_in_place(p, g, m1, m2, lr, b1p, b2p, b1p_out, b2p_out, one, beta1, beta2, c1, c2, eps, scaled):
    """A dense step as a planned step launches it (optimizer_out.adam_launches): the powers' next values
    written (b1p_out[0] = b1p[0] * beta1, after the step's own are read: the outputs may be the powers),
    the bias-corrected rate and epsilon from the step's own, operation by operation as _adam_terms computes
    them in numpy (lr_t = lr * sqrt(1 - b2p) / (1 - b1p); ``scaled``, Paddle 2.x's: eps * sqrt(1 - b2p)),
    then adam_in_place. The powers are of Param's dtype (the launch's condition)."""
    t1, t2 = b1p[0], b2p[0]
    b1p_out[0] = t1 * beta1
    b2p_out[0] = t2 * beta2
    lr_t = lr * np.sqrt(one - t2) / (one - t1)
    eps_c = eps * np.sqrt(one - t2) if scaled else eps
    adam_in_place(p, g, m1, m2, lr_t, beta1, beta2, c1, c2, eps_c)


@_jit
def lazy_adam_rows(rows, order, values, p, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out):
    """Lazy mode over 2-D [height, width] arrays: each row ``rows`` holds once, its gradient the sum
    of its ``values`` ([K, width]) in their order (``order``: a stable argsort of ``rows``, so equal
    rows are adjacent, first listed first: Fluid's MergeAdd, SelectedRows.merged's sums)."""
    _lazy_rows(rows, order, values, p, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out, 0, order.size)


@_pjit
def lazy_adam_rows_parallel(
    rows, order, values, p, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out, parts
):
    """lazy_adam_rows over ``parts`` blocks of ``order`` on numba's threads, each from the first of a
    row's duplicates: a row is updated by one thread, as the serial loop updates it (the same bits).
    A table's rows are scattered over memory, and a row's update waits on three lines (its parameter
    and moments) that are not in any cache: two cores keep twice as many of those reads in flight
    (the CTR bench's 8 tables, 1,300 rows each: 5.3-7.1 -> 2.5 ms, the AMD EPYC VM, 2026-11-27)."""
    n = order.size
    for q in prange(parts):
        _lazy_rows(
            rows,
            order,
            values,
            p,
            m1,
            m2,
            lr_t,
            beta1,
            beta2,
            c1,
            c2,
            eps,
            p_out,
            m1_out,
            m2_out,
            _group_start(rows, order, n * q // parts),
            _group_start(rows, order, n * (q + 1) // parts),
        )


@numba.njit(inline="always")
def _group_start(rows, order, k):
    """The first position from k in ``order`` where a row's run of duplicates starts (or its size)."""
    n = order.size
    while 0 < k < n and rows[order[k]] == rows[order[k - 1]]:
        k += 1
    return k


@numba.njit(inline="always", error_model="numpy")
def _lazy_rows(rows, order, values, p, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out, k, end):
    """The update of the rows whose runs of duplicates start at positions k to end - 1 of ``order``,
    in two passes: each row's gradient summed first (the values are in cache), then the updates, a
    loop without the runs' unpredictable ends, which asks for each row's lines PREFETCH_ROWS rows
    ahead (the table's rows are in no cache)."""
    width = values.shape[1]
    n = order.size
    table_rows = np.empty(end - k, np.int64)
    grads = np.empty((end - k, width), values.dtype)
    u = 0
    while k < end:
        first = order[k]
        r = rows[first]
        table_rows[u] = r
        for j in range(width):
            grads[u, j] = values[first, j]
        k += 1
        while k < n and rows[order[k]] == r:
            dup = order[k]
            for j in range(width):
                grads[u, j] += values[dup, j]
            k += 1
        u += 1
    for q in range(u):
        if q + PREFETCH_ROWS < u:
            ahead = table_rows[q + PREFETCH_ROWS]
            prefetch_row(p, ahead)
            prefetch_row(m1, ahead)
            prefetch_row(m2, ahead)
        r = table_rows[q]
        for j in range(width):
            p_out[r, j], m1_out[r, j], m2_out[r, j] = _adam_at(
                p[r, j], grads[q, j], m1[r, j], m2[r, j], lr_t, beta1, beta2, c1, c2, eps
            )
