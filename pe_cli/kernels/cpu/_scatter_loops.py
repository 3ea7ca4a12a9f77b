"""numba loops adding rows into a table by index (the dense gradients of lookup_table and gather):
numpy's ``np.add.at`` adds them one by one too, in the same order, so the bits are the same, at a
tenth of the time (a [2,560, 256] gradient into [10,000, 256]: 16 ms against 1.3 on the AMD EPYC VM);
and copying rows out of a table by index (lookup_table's forward), checked first in a planned step."""

from numba import njit, prange, uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@njit(cache=True, nogil=True)
def add_rows(out, ids, rows):
    """out[ids[i]] += rows[i] for each i in order: out [n, w], ids [m] in [0, n), rows [m, w]."""
    for i in range(ids.shape[0]):
        o = out[ids[i]]
        r = rows[i]
        for j in range(r.shape[0]):
            o[j] += r[j]


@njit(cache=True, nogil=True)
def table_grad(ids, rows, pad, out):
    """lookup_table's dense W@GRAD ``out`` [n, w]: zeros, then out[ids[i]] += rows[i] in order for each id that is
    not padding_idx ``pad`` (< 0: none); rows [m, w], ids [m] in [0, n) or ``pad``. The out-kernel's fill and
    np.add.at (the same bits)."""
    for k in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[k, j] = 0
    for i in range(ids.shape[0]):
        if pad < 0 or ids[i] != pad:
            o, r = out[ids[i]], rows[i]
            for j in range(r.shape[0]):
                o[j] += r[j]


@njit(cache=True, nogil=True)
def bad_id(ids, rows, pad):
    """The index of lookup_table's first id outside [0, rows) that is not padding_idx ``pad`` (< 0: none), or -1: a
    planned step's check (its op, run op by op, then says value_checks.table_ids's one line)."""
    for i in range(ids.shape[0]):
        k = ids[i]
        if (k < 0 or k >= rows) and not (pad >= 0 and k == pad):
            return i
    return -1


@njit(cache=True, nogil=True, inline="always")
def _lookup_block(table, ids, out, pad, lo, hi):
    for i in range(lo, hi):
        dst = out[i]
        if pad >= 0 and ids[i] == pad:
            for j in range(dst.shape[0]):
                dst[j] = 0
        else:
            src = table[ids[i]]
            for j in range(src.shape[0]):
                dst[j] = src[j]


@njit(cache=True, nogil=True)
def lookup_rows(table, ids, out, pad):
    """out[i] = table[ids[i]], zeros where ids[i] is padding_idx ``pad`` (< 0: none): table [n, w], ids [m] in
    [0, n) or ``pad``, out [m, w]. lookup_table's rows on one thread (numpy's take and zeroing: the same bits)."""
    _lookup_block(table, ids, out, pad, 0, ids.shape[0])


@njit(cache=True, nogil=True, parallel=True)
def lookup_rows_parallel(table, ids, out, pad, parts):
    """lookup_rows over ``parts`` blocks of ids on numba's threads. A large table's rows are each a cache miss; two
    cores keep twice as many in flight, and there is no per-index work of numpy's fancy indexing (the CTR bench's 8
    lookups of 1,300 ids in [100,000, 16] tables, cold: numpy's 2.8 ms against 0.9, the AMD EPYC VM, 2026-11-27)."""
    m = ids.shape[0]
    for p in prange(parts):
        _lookup_block(table, ids, out, pad, uintp(m * p // parts), uintp(m * (p + 1) // parts))
