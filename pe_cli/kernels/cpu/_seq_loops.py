"""numba loops of the sequence kernels (kernels/cpu/sequence.py): one pass per sequence."""
import math

import numpy as np
from numba import njit, prange  # noqa: F401


@njit(cache=True, nogil=True)
def pool(x, offs, code, pad, out, idx):
    """x [rows, w] -> out [nseq, w]; idx: the row picked by MAX (-1 elsewhere)."""
    w = x.shape[1]
    for s in range(offs.size - 1):
        a, b = offs[s], offs[s + 1]
        n = b - a
        for c in range(w):
            idx[s, c] = -1
            if n == 0:
                out[s, c] = pad
            elif code == 3:
                best = a
                for r in range(a + 1, b):
                    if x[r, c] > x[best, c]:
                        best = r
                out[s, c] = x[best, c]
                idx[s, c] = best
            elif code == 4:
                out[s, c] = x[b - 1, c]
            elif code == 5:
                out[s, c] = x[a, c]
            else:
                acc = 0.0
                for r in range(a, b):
                    acc += x[r, c]
                if code == 0:
                    acc /= n
                elif code == 2:
                    acc /= math.sqrt(n)
                out[s, c] = acc


@njit(cache=True, nogil=True)
def pool_grad(dout, offs, code, idx, dx):
    w = dout.shape[1]
    for s in range(offs.size - 1):
        a, b = offs[s], offs[s + 1]
        n = b - a
        if n == 0:
            continue
        for c in range(w):
            g = dout[s, c]
            if code == 3:
                dx[idx[s, c], c] += g
            elif code == 4:
                dx[b - 1, c] += g
            elif code == 5:
                dx[a, c] += g
            else:
                if code == 0:
                    g /= n
                elif code == 2:
                    g /= math.sqrt(n)
                for r in range(a, b):
                    dx[r, c] += g


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
