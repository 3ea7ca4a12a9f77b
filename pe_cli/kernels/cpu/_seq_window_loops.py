"""numba loops of kernels/cpu/sequence_window.py: one pass per sequence, the GIL released."""

from numba import njit
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@njit(cache=True, nogil=True)
def enumerate_ids(x, offs, win, pad, out):
    """x [rows] ids -> out [rows, win]: the next win ids of each step's sequence, pad past its end."""
    for s in range(offs.size - 1):
        b = offs[s + 1]
        for t in range(offs[s], b):
            for k in range(win):
                out[t, k] = x[t + k] if t + k < b else pad


@njit(cache=True, nogil=True)
def scatter_add(out, ids, upd, offs):
    """out [rows, w] (X's copy): out[s, ids[j]] += upd[j] for each step j of sequence s."""
    for s in range(offs.size - 1):
        for j in range(offs[s], offs[s + 1]):
            out[s, ids[j]] += upd[j]


@njit(cache=True, nogil=True)
def scatter_take(dout, ids, offs, dupd):
    for s in range(offs.size - 1):
        for j in range(offs[s], offs[s + 1]):
            dupd[j] = dout[s, ids[j]]


@njit(cache=True, nogil=True)
def row_conv(x, w, offs, out):
    """out[t, d] = sum_k x[t + k, d] * w[k, d] over the steps k < len(w) left in t's sequence, summed in
    x's dtype from k = 0 as Fluid's kernel (op_test's float32 finite differences of test_row_conv_op.py,
    within 0.5 %, depend on those roundings)."""
    ctx, width = w.shape
    for s in range(offs.size - 1):
        b = offs[s + 1]
        for t in range(offs[s], b):
            n = min(ctx, b - t)
            for d in range(width):
                acc = w[0, d] * x[t, d]
                for k in range(1, n):
                    acc += w[k, d] * x[t + k, d]
                out[t, d] = acc


@njit(cache=True, nogil=True)
def row_conv_grad(x, w, dout, offs, dx, dw):
    ctx, width = w.shape
    for s in range(offs.size - 1):
        b = offs[s + 1]
        for t in range(offs[s], b):
            for k in range(min(ctx, b - t)):
                for d in range(width):
                    dx[t + k, d] += w[k, d] * dout[t, d]
                    dw[k, d] += x[t + k, d] * dout[t, d]
