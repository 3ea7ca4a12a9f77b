"""numba loops over float32 rows too wide for the one-pass softmax loops: a language model's vocabulary
([tokens, 10,000] logits). softmax_with_cross_entropy with hard labels and its gradient, log_softmax
along the last axis and a beam search step's scores (beam_log_probs), each a row at a time on one
thread, with a ``_parallel`` twin over blocks of rows on numba's threads (kernels/cpu/
loss_classification.py, activation.py, beam_search.py); a row's results are the same whichever loop
runs it.

The exponentials are _activation_loops' vectorised float32 ones (within 2 ulps, as numpy's float32
exp): numpy's exp holds the GIL, runs on one core and costs two more passes over memory, numba's own
is a libm call a value. A row's sum of exponentials accumulates in float64 over four interleaved
partial sums (one chain of dependent adds is four times slower); for float64 rows the callers keep
the loops of _pointwise_loops.py around numpy's exp.
"""

import numba
import numpy as np
from numba import prange, uintp

from ._activation_loops import _exp
from ._pointwise_loops import label_loss, row_max
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
_pjit = numba.njit(cache=True, nogil=True, error_model="numpy", parallel=True, fastmath={"contract"})
_F = np.float32


@numba.njit(inline="always", error_model="numpy")
def _sum_exp(x, m, e, floor):
    """sum(exp(max(x - m, floor))) of the row ``x`` (float32), in float64, e = those exponentials written on the
    way (``floor`` -inf: none clipped; log_softmax's -64, ``_shifted``)."""
    n = x.shape[0]
    for k in range(n):
        v = x[k] - m
        e[k] = _exp(floor if v < floor else v)
    s0 = s1 = s2 = s3 = 0.0
    n4 = n - n % 4
    for k in range(0, n4, 4):
        s0 += e[k]
        s1 += e[k + 1]
        s2 += e[k + 2]
        s3 += e[k + 3]
    for k in range(n4, n):
        s0 += e[k]
    return (s0 + s1) + (s2 + s3)


@numba.njit(inline="always", error_model="numpy")
def _shifted(v):
    """log_softmax's shifted logit x - max, clipped below at -64 (Paddle's CPU log_softmax: its ValueClip, a NaN
    kept)."""
    return _F(-64.0) if v < _F(-64.0) else v


@numba.njit(inline="always", error_model="numpy")
def _softmax_ce_row(logits, r, label, ignore_index, softmax, loss):
    """Row r: softmax = exp(x - m) / sum, and loss = -log_p[label] as _pointwise_loops.softmax_ce's, from
    log_p = (x - m) - log(sum)."""
    x, p = logits[r], softmax[r]
    m = row_max(logits, r)
    s = _sum_exp(x, m, p, _F(-np.inf))
    inv = _F(1.0 / s)
    for k in range(x.shape[0]):
        p[k] *= inv
    return label_loss(logits, r, m, _F(np.log(_F(s))), label, ignore_index, loss)


@_jit
def softmax_ce(logits, label, ignore_index, softmax, loss):
    """softmax_with_cross_entropy of [rows, classes] float32 logits; returns the first row whose label is
    outside [0, classes) and not ignore_index, else -1."""
    bad = -1
    for r in range(logits.shape[0]):
        if not _softmax_ce_row(logits, r, label, ignore_index, softmax, loss) and bad < 0:
            bad = r
    return bad


@_pjit
def softmax_ce_parallel(logits, label, ignore_index, softmax, loss, parts):
    """softmax_ce over ``parts`` blocks of rows on numba's threads."""
    rows = logits.shape[0]
    bad = np.full(parts, -1, np.int64)
    for p in prange(parts):
        for r in range(uintp(rows * p // parts), uintp(rows * (p + 1) // parts)):
            if not _softmax_ce_row(logits, r, label, ignore_index, softmax, loss) and bad[p] < 0:
                bad[p] = r
    for p in range(parts):
        if bad[p] >= 0:
            return bad[p]
    return -1


@numba.njit(inline="always")
def _softmax_ce_grad_row(softmax, r, label, dloss, ignore_index, dlogits):
    t, g = label[r], dloss[r]
    zero, one = softmax.dtype.type(0), softmax.dtype.type(1)
    if t == ignore_index:
        for k in range(softmax.shape[1]):
            dlogits[r, k] = zero * g
        return
    for k in range(softmax.shape[1]):
        p = softmax[r, k]
        dlogits[r, k] = (p - one if k == t else p) * g


@_jit
def softmax_ce_grad(softmax, label, dloss, ignore_index, dlogits):
    """dlogits = (softmax - onehot(label)) * dloss per row; rows with ignore_index get 0 (any float)."""
    for r in range(softmax.shape[0]):
        _softmax_ce_grad_row(softmax, r, label, dloss, ignore_index, dlogits)


@_pjit
def softmax_ce_grad_parallel(softmax, label, dloss, ignore_index, dlogits, parts):
    """softmax_ce_grad over ``parts`` blocks of rows on numba's threads."""
    rows = softmax.shape[0]
    for p in prange(parts):
        for r in range(uintp(rows * p // parts), uintp(rows * (p + 1) // parts)):
            _softmax_ce_grad_row(softmax, r, label, dloss, ignore_index, dlogits)


@numba.njit(inline="always", error_model="numpy")
def _log_softmax_row(x, r, out):
    row, o = x[r], out[r]
    m = row_max(x, r)
    log_sum = _F(np.log(_F(_sum_exp(row, m, o, _F(-64.0)))))
    for k in range(row.shape[0]):
        o[k] = _shifted(row[k] - m) - log_sum


@_jit
def log_softmax(x, out):
    """out = s - log(sum(exp(s))), s = x - max clipped at -64, along the rows of [rows, n] float32 ``x``."""
    for r in range(x.shape[0]):
        _log_softmax_row(x, r, out)


@_pjit
def log_softmax_parallel(x, out, parts):
    """log_softmax over ``parts`` blocks of rows on numba's threads."""
    rows = x.shape[0]
    for p in prange(parts):
        for r in range(uintp(rows * p // parts), uintp(rows * (p + 1) // parts)):
            _log_softmax_row(x, r, out)


@numba.njit(inline="always", error_model="numpy")
def _beam_log_probs_row(x, r, finished, noend, pre, out):
    """Row r of beam_log_probs: log_softmax(x[r]) + pre[r], or noend + pre[r] where finished[r];
    each value rounded as _log_softmax_row's, then the add's."""
    row, o, c = x[r], out[r], pre[r]
    if finished[r]:
        for k in range(row.shape[0]):
            o[k] = noend[k] + c
        return
    m = row_max(x, r)
    log_sum = _F(np.log(_F(_sum_exp(row, m, o, _F(-64.0)))))
    for k in range(row.shape[0]):
        o[k] = (_shifted(row[k] - m) - log_sum) + c


@_jit
def beam_log_probs(x, finished, noend, pre, out):
    """A beam search step's scores over the rows (beams) of [rows, vocabulary] float32 ``x``."""
    for r in range(x.shape[0]):
        _beam_log_probs_row(x, r, finished, noend, pre, out)


@_pjit
def beam_log_probs_parallel(x, finished, noend, pre, out, parts):
    """beam_log_probs over ``parts`` blocks of rows on numba's threads."""
    rows = x.shape[0]
    for p in prange(parts):
        for r in range(uintp(rows * p // parts), uintp(rows * (p + 1) // parts)):
            _beam_log_probs_row(x, r, finished, noend, pre, out)
