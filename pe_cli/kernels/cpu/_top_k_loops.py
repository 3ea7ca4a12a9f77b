"""numba loop of top_k (imported on first use: see runtime/loops.py): each row's k largest values in one pass,
for rows much wider than k (a beam search's scores over beam x vocabulary).

The order is that of a stable sort of -x: the largest first, equal values lowest index first. A row
is walked in index order keeping its k best so far, sorted; a value enters only when it is strictly
larger than the k-th kept, after every kept value at least as large, so an earlier equal value stays
ahead. NaN is left to the caller: a row holding one gets ``nan_rows[r] = True`` and is sorted whole
(numpy's sort puts NaN last). [256, 40,000] float32, k 4: the partition, mask and ``nonzero`` it
replaces took 45 ms a call on the loaded 2-core AMD EPYC VM (2026-11-26), this loop 4 ms. Blocks of
values none of which beats the k-th kept are skipped after one vectorised test: [64, 40,000] normal
values 2.5 -> 0.4 ms, a beam search's scores 0.9-1.1 ms, a row in ascending order (every value enters)
13.6 -> 12.0 ms (2026-11-27).
"""

import numpy as np
from numba import prange, uintp

from ._conv_loops import _jit, pjit


BLOCK = 64  # values tested at once against the k-th kept before any is looked at alone


@_jit
def top_k_rows(rows, k, idx, nan_rows, tied):
    """idx[r] = the indices of row r's k largest values, in a stable sort's order; rows [R, N], N >= k.
    ``tied[r]``: whether one of them occurs again in the row (two equal kept, or more than k values at least
    the k-th), where Paddle's std::partial_sort may leave another order (the caller's)."""
    best = np.empty(k, rows.dtype)
    for r in range(rows.shape[0]):
        _top_k_row(rows[r], k, idx[r], best, nan_rows, tied, r)


@pjit
def top_k_rows_parallel(rows, k, idx, nan_rows, tied, parts):
    """top_k_rows over ``parts`` runs of rows on numba's threads (each row's indices as the serial loop's):
    a beam search's [64, 40,000] scores, k 4, 1.9 ms a call on one of the Xeon VM's two cores."""
    n_rows = rows.shape[0]
    for p in prange(parts):
        best = np.empty(k, rows.dtype)
        for r in range(n_rows * p // parts, n_rows * (p + 1) // parts):
            _top_k_row(rows[r], k, idx[r], best, nan_rows, tied, r)


@_jit
def _top_k_row(row, k, ids, best, nan_rows, tied, r):
    """Row r's k largest (``best`` their values, scratch), nan_rows[r] and tied[r] (top_k_rows)."""
    n = row.shape[0]
    held = 0
    nan_rows[r] = False
    for start in range(0, n, BLOCK):
        end = min(start + BLOCK, n)
        if held == k and not _any_above(row, start, end, best[k - 1]):
            continue
        for j in range(start, end):
            v = row[j]
            if v != v:
                nan_rows[r] = True
                break
            if held == k and not v > best[k - 1]:
                continue
            p = held if held < k else k - 1  # the slot v takes, then moved up past smaller ones
            while p > 0 and v > best[p - 1]:
                best[p] = best[p - 1]
                ids[p] = ids[p - 1]
                p -= 1
            best[p] = v
            ids[p] = j
            if held < k:
                held += 1
        if nan_rows[r]:
            break
    tied[r] = False if nan_rows[r] else _repeats(row, best, k)


@_jit
def _repeats(row, best, k):
    """Whether two of the k kept values are equal, or more than k values of the row reach the k-th."""
    for j in range(k - 1):
        if best[j] == best[j + 1]:
            return True
    count = 0
    last = best[k - 1]
    for j in range(row.shape[0]):
        count += row[uintp(j)] >= last
    return count > k


@_jit
def _any_above(row, start, end, threshold):
    """Whether row[start:end] holds a value above ``threshold``, or NaN: an OR over the block, which
    LLVM vectorises (the test value by value branches on each)."""
    hit = False
    for j in range(start, end):
        v = row[uintp(j)]
        hit |= (v > threshold) | (v != v)
    return hit


@_jit
def top_1_rows(rows, idx, out):
    """top_k's k = 1 (its "argmax" variant): idx[r] = the first index of row r's largest value, out[r] = that value;
    rows [R, N], N >= 1. One running comparison ``v > best``, which NaN never passes (a row starting with NaN keeps
    index 0): numpy's argmax on a row without NaN, and on any row what Paddle's std::partial_sort with k = 1 and
    the top_k op's ``l > r`` leaves first (its heap of one takes each value that compares greater), which the
    out-kernel gets from _stl_sort_loops for a row holding NaN (indexing._paddle_ties)."""
    for r in range(rows.shape[0]):
        row = rows[r]
        at = 0
        for j in range(1, rows.shape[1]):
            if row[j] > row[at]:
                at = j
        idx[r] = at
        out[r] = row[at]
