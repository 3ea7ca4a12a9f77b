"""numba loops of the sequence kernels (kernels/cpu/sequence.py): one pass per sequence."""

import math

import numpy as np
from numba import njit, prange  # noqa: F401

from .runtime.prefetch import prefetch_row
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

# ids ahead whose table rows embedding_sums asks for (a slot of the CTR bench, 8 tables of [100,000, 16],
# 614 cold ids each: 16 ahead 0.58-0.79 of the time without, 32 0.63-0.74, 8 0.77, 4 0.84; load 2)
PREFETCH_IDS = 16


@njit(cache=True, nogil=True)
def pool(x, offs, code, pad, out, idx):
    """x [rows, w] -> out [nseq, w]; idx: the row picked by MAX (-1 elsewhere). A sum (SUM, AVERAGE,
    SQRT) adds each column's rows in order in float64, a sequence's rows one after the other across
    the columns (a row is contiguous: the sparse CTR's [1300, 16] -> [512, 16] 11 -> 3 us)."""
    w = x.shape[1]
    acc = np.empty(w, np.float64)
    for s in range(offs.size - 1):
        a, b = offs[s], offs[s + 1]
        n = b - a
        for c in range(w):
            idx[s, c] = -1
        if n == 0:
            for c in range(w):
                out[s, c] = pad
        elif code == 3:
            for c in range(w):
                best = a
                for r in range(a + 1, b):
                    if x[r, c] > x[best, c]:
                        best = r
                out[s, c] = x[best, c]
                idx[s, c] = best
        elif code == 4 or code == 5:
            r = b - 1 if code == 4 else a
            for c in range(w):
                out[s, c] = x[r, c]
        else:
            acc[:] = 0.0
            for r in range(a, b):
                for c in range(w):
                    acc[c] += x[r, c]
            if code == 0:
                for c in range(w):
                    acc[c] /= n
            elif code == 2:
                for c in range(w):
                    acc[c] /= math.sqrt(n)
            for c in range(w):
                out[s, c] = acc[c]


@njit(cache=True, nogil=True)
def pool_grad(dout, offs, code, idx, dx):
    """dx (zeros) += each sequence's rows of dout where pool took them; a sum's share (times 1 / n or
    1 / sqrt(n), in float64) added to its rows one row at a time."""
    w = dout.shape[1]
    g = np.empty(w, np.float64)
    for s in range(offs.size - 1):
        a, b = offs[s], offs[s + 1]
        n = b - a
        if n == 0:
            continue
        if code == 3:
            for c in range(w):
                dx[idx[s, c], c] += dout[s, c]
        elif code == 4 or code == 5:
            r = b - 1 if code == 4 else a
            for c in range(w):
                dx[r, c] += dout[s, c]
        else:
            for c in range(w):
                g[c] = dout[s, c]
            if code == 0:
                for c in range(w):
                    g[c] /= n
            elif code == 2:
                for c in range(w):
                    g[c] /= math.sqrt(n)
            for r in range(a, b):
                for c in range(w):
                    dx[r, c] += g[c]


@njit(cache=True, nogil=True)
def embedding_sums(w, ids, offs, pad, out):
    """out [nseq, k * width]: for each sequence, each of the k id columns' rows of the table w [rows,
    width] summed as pool sums them (each column in order, in float64), ids equal to ``pad`` left out
    (a zero row adds nothing to a float64 sum that starts at +0.0); no row is copied first."""
    _embedding_sums(w, ids, offs, pad, out, 0, offs.size - 1)


@njit(cache=True, nogil=True, parallel=True)
def embedding_sums_parallel(w, ids, offs, pad, out, parts):
    """embedding_sums over ``parts`` blocks of sequences on numba's threads (each output row by one
    thread: the same bits); two cores keep twice as many of the table's cold rows in flight."""
    nseq = offs.size - 1
    for q in prange(parts):
        _embedding_sums(w, ids, offs, pad, out, nseq * q // parts, nseq * (q + 1) // parts)


@njit(inline="always")
def _embedding_sums(w, ids, offs, pad, out, first, last):
    """embedding_sums of sequences ``first`` to ``last`` - 1."""
    width, k, rows = w.shape[1], ids.shape[1], ids.shape[0]
    acc = np.empty(k * width, np.float64)
    for s in range(first, last):
        acc[:] = 0.0
        for r in range(offs[s], offs[s + 1]):
            if r + PREFETCH_IDS < rows:
                for j in range(k):
                    prefetch_row(w, ids[r + PREFETCH_IDS, j])
            for j in range(k):
                i = ids[r, j]
                if i != pad:
                    for c in range(width):
                        acc[j * width + c] += w[i, c]
        for m in range(k * width):
            out[s, m] = acc[m]


@njit(cache=True, nogil=True)
def softmax(x, offs, out):
    for s in range(offs.size - 1):
        a, b = offs[s], offs[s + 1]
        if b == a:
            continue
        m = x[a]
        for r in range(a + 1, b):
            m = max(m, x[r])
        total = 0.0
        for r in range(a, b):
            out[r] = math.exp(x[r] - m)
            total += out[r]
        for r in range(a, b):
            out[r] /= total


@njit(cache=True, nogil=True)
def softmax_grad(out, dout, offs, dx):
    for s in range(offs.size - 1):
        a, b = offs[s], offs[s + 1]
        dot = 0.0
        for r in range(a, b):
            dot += out[r] * dout[r]
        for r in range(a, b):
            dx[r] = out[r] * (dout[r] - dot)


@njit(cache=True, nogil=True)
def mask_below(lengths, maxlen, out):
    """sequence_mask's Y (flat, ``maxlen`` values a length): out[i * maxlen + j] = 1 where j < lengths[i], else 0,
    in out's dtype (numpy's comparison of an int64 j with the length, then its cast)."""
    for i in range(lengths.size):
        n = lengths[i]
        for j in range(maxlen):
            out[i * maxlen + j] = 1 if j < n else 0
