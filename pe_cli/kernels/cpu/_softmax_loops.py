"""numba loops of the softmax op along the last axis of [rows, n] (softmax.py), imported on first
use (see runtime/loops.py): float32 rows in one pass a row (softmax_rows: the row shifted by its max,
numpy's exponentials, _numpy_expf.exp, then divided by their sum), or, where that exp is not numpy's
(float64, a host whose numpy runs libm's expf), a pass shifting each row by its max, numpy's exp over
the whole array, and a pass dividing each row by its sum; and the gradient, one pass a row. Sums
accumulate in float64, in the same order in either form (the same bits). Each has a ``_parallel``
twin over ``parts`` blocks of rows on numba's threads (_numba.run_in_parts): the same rows computed
by the same code. The attention's [64, 4, 28, 28] softmax in the Transformer row's step (medians of
the calls, 2-core AMD EPYC VM): 917-978 -> 654-734 us with numpy's exp between the passes, its
gradient 324 -> 199-244 us.
"""

import numba
import numpy as np
from numba import prange, uintp

from ._numpy_expf import exp as numpy_exp
from ._pointwise_loops import row_max
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")  # (no zero check on a division: LLVM vectorises exp)
_pjit = numba.njit(cache=True, nogil=True, parallel=True, error_model="numpy")
_inline = numba.njit(inline="always")
_BLOCK = 2048  # values of a block of softmax_rows' rows


@_inline
def _shift_rows(x, floor, out, r0, r1):
    for r in range(r0, r1):
        m = row_max(x, r)
        for k in range(x.shape[1]):
            out[r, k] = max(x[r, k] - m, floor)


@_inline
def _softmax_rows(x, floor, out, r0, r1):
    """Rows r0:r1 a block at a time (in L1): shifted, their exponentials over the block as one flat run (LLVM
    vectorises it across rows, an attention's rows being 28 long), divided by their sums."""
    step = max(1, _BLOCK // x.shape[1])
    for b0 in range(r0, r1, step):
        b1 = min(b0 + step, r1)
        _shift_rows(x, floor, out, b0, b1)
        flat = out[b0:b1].reshape(-1)
        for k in range(flat.shape[0]):
            u = uintp(k)  # (an unsigned index: no wraparound check)
            flat[u] = numpy_exp(flat[u])
        _scale_rows(out, b0, b1)


@_inline
def _scale_rows(e, r0, r1):
    n = e.shape[1]
    for r in range(r0, r1):
        s = 0.0
        for k in range(n):
            s += e[r, k]
        inv = 1.0 / s
        for k in range(n):
            e[r, k] = e[r, k] * inv


@_inline
def _grad_rows(out, dout, dx, r0, r1):
    n = out.shape[1]
    for r in range(r0, r1):
        s = 0.0
        for k in range(n):
            s += dout[r, k] * np.float64(out[r, k])
        for k in range(n):
            dx[r, k] = out[r, k] * (dout[r, k] - s)


@_jit
def softmax_rows(x, floor, out):
    """A softmax over the last axis of the float32 x [rows, n] into out: exp(max(x - the row's max, floor)) /
    their sum, numpy's exponentials (_numpy_expf), the sum in float64: softmax_shift, numpy's exp and
    softmax_scale's bits in one pass a row."""
    _softmax_rows(x, floor, out, 0, x.shape[0])


@_jit
def softmax_shift(x, floor, out):
    """The first pass of a softmax over the last axis of x [rows, n]: out = max(x - the row's max,
    floor). numpy's exp then runs over all of out at once (vectorised, where numba's is a call an
    element), and softmax_scale divides each row by its sum."""
    _shift_rows(x, floor, out, 0, x.shape[0])


@_jit
def softmax_scale(e):
    """e[r] /= sum(e[r]), the sum in float64."""
    _scale_rows(e, 0, e.shape[0])


@_jit
def softmax_rows_grad(out, dout, dx):
    """dx = out * (dout - sum(dout * out)) along the last axis (the sum in float64)."""
    _grad_rows(out, dout, dx, 0, out.shape[0])


# -- parallel twins ----------------------------------------------------------------------------------


@_pjit
def softmax_rows_parallel(x, floor, out, parts):
    rows = x.shape[0]
    for p in prange(parts):
        _softmax_rows(x, floor, out, rows * p // parts, rows * (p + 1) // parts)


@_pjit
def softmax_shift_parallel(x, floor, out, parts):
    rows = x.shape[0]
    for p in prange(parts):
        _shift_rows(x, floor, out, rows * p // parts, rows * (p + 1) // parts)


@_pjit
def softmax_scale_parallel(e, parts):
    rows = e.shape[0]
    for p in prange(parts):
        _scale_rows(e, rows * p // parts, rows * (p + 1) // parts)


@_pjit
def softmax_rows_grad_parallel(out, dout, dx, parts):
    rows = out.shape[0]
    for p in prange(parts):
        _grad_rows(out, dout, dx, rows * p // parts, rows * (p + 1) // parts)
