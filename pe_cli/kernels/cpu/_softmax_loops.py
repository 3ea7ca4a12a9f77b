"""numba loops of the softmax op along the last axis of [rows, n] (activation.py), imported on first
use (see _numba.py): a pass shifting each row by its max, numpy's exp over the whole array
(vectorised, where numba's is a call an element; the exponentials stay numpy's bits), a pass
dividing each row by its sum; and the gradient, one pass a row. Sums accumulate in float64.
"""
import numba
import numpy as np

from ._pointwise_loops import _row_max

_jit = numba.njit(cache=True, nogil=True)


@_jit
def softmax_shift(x, floor, out):
    """The first pass of a softmax over the last axis of x [rows, n]: out = max(x - the row's max,
    floor). numpy's exp then runs over all of out at once (vectorised, where numba's is a call an
    element), and softmax_scale divides each row by its sum."""
    rows, n = x.shape
    for r in range(rows):
        m = _row_max(x, r)
        for k in range(n):
            out[r, k] = max(x[r, k] - m, floor)


@_jit
def softmax_scale(e):
    """e[r] /= sum(e[r]), the sum in float64."""
    rows, n = e.shape
    for r in range(rows):
        s = 0.0
        for k in range(n):
            s += e[r, k]
        inv = 1.0 / s
        for k in range(n):
            e[r, k] = e[r, k] * inv


@_jit
def softmax_rows_grad(out, dout, dx):
    """dx = out * (dout - sum(dout * out)) along the last axis (the sum in float64)."""
    rows, n = out.shape
    for r in range(rows):
        s = 0.0
        for k in range(n):
            s += dout[r, k] * np.float64(out[r, k])
        for k in range(n):
            dx[r, k] = out[r, k] * (dout[r, k] - s)
