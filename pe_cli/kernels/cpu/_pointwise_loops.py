"""numba loops of the pointwise kernels: the bias add, the softmax cross-entropy and
the updates (imported on first use: see runtime/loops.py).

Arrays come in C-contiguous and flattened (1-D) unless the docstring says otherwise, and results
go to output arrays the kernel allocated (the updates' ``*_in_place`` loops: over their inputs).
Each loop is one pass over memory where numpy needs several (an expression with temporaries) or
runs a slow path (``numpy.maximum`` with a scalar is 4x slower than a loop on float32 here).
Arithmetic stays in the arrays' dtype, in numpy's order, so results are those of the numpy
expressions they replace; sums over many elements (the bias gradient, the softmax denominators)
accumulate in float64, which is at least as accurate.
"""

import numba
import numpy as np
from numba import prange, uintp

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)


# -- the bias add: X [pre, n, post] + Y [n] ---------------------------------------------------------


@_jit
def add_mid(x, y, out):
    """out[p, j, q] = x[p, j, q] + y[j] (3-D arrays; y 1-D)."""
    pre, n, post = x.shape
    if post == 1:  # a bias over rows: vectorise along j
        for p in range(pre):
            for j in range(n):
                out[p, j, 0] = x[p, j, 0] + y[j]
        return
    for p in range(pre):
        for j in range(n):
            b = y[j]
            for q in range(post):
                out[p, j, q] = x[p, j, q] + b


# -- dropout's gradient (kernels/cpu/dropout.py) ----------------------------------------------------------


@_jit
def mask_times(dout, mask, scale, scaled, dx):
    """dx = dout * mask (uint8, as dout's dtype), then times ``scale`` (of dout's dtype) where ``scaled``:
    dropout_grad's two numpy multiplies, each rounding."""
    for i in range(dx.size):
        g = dout[i] * dout.dtype.type(mask[i])
        dx[i] = g * scale if scaled else g


SUM_BLOCK = 1024  # sum_outer's columns a block: its float64 sums [SUM_BLOCK] stay in L1


@_jit
def _sum_rows_block(d, k0, k1, acc):
    """acc[k] (float64) = the sum of d[p, k] over the rows p in order, for k in [k0, k1) (d 2-D)."""
    for k in range(uintp(k0), uintp(k1)):
        acc[k] = 0.0
    for p in range(uintp(d.shape[0])):
        for k in range(uintp(k0), uintp(k1)):
            acc[k] += d[p, k]


@_jit
def _sum_lanes(acc, n, post, dy):
    """dy[j] = the sum of acc[j*post + q] over q, in eight interleaved lanes (q mod 8; the tail in
    lane 0) added pairwise: one dependent chain of adds would be latency-bound."""
    if post == 1:  # (the same sum: acc is never -0.0)
        for j in range(n):
            dy[j] = acc[j]
        return
    body = post - post % 8
    for j in range(n):
        o = j * post
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        for q in range(0, body, 8):
            s0 += acc[o + q]
            s1 += acc[o + q + 1]
            s2 += acc[o + q + 2]
            s3 += acc[o + q + 3]
            s4 += acc[o + q + 4]
            s5 += acc[o + q + 5]
            s6 += acc[o + q + 6]
            s7 += acc[o + q + 7]
        for q in range(body, post):
            s0 += acc[o + q]
        dy[j] = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@_jit
def sum_outer(d, dy):
    """dy[j] = the sum of d[p, j, q] over p and q (3-D d) in float64: first over p for each (j, q),
    in order (a pass of vectorised adds per row p, a block of SUM_BLOCK columns at a time), then
    over q (_sum_lanes)."""
    pre, n, post = d.shape
    acc = np.empty(n * post, dtype=np.float64)
    flat = d.reshape(pre, n * post)
    for k0 in range(0, n * post, SUM_BLOCK):
        _sum_rows_block(flat, k0, min(k0 + SUM_BLOCK, n * post), acc)
    _sum_lanes(acc, n, post, dy)


# -- softmax with cross-entropy, hard labels, over the last axis -------------------------------------


@numba.njit(inline="always")
def _larger(m, v):
    return v if v > m else m


@numba.njit(inline="always")
def row_max(logits, r):
    """The max of row r, NaN if the row holds one (inlined into each loop: one home for the rule). Eight running
    maxima over the row's values after the first, eight at a time, which LLVM keeps in one vector register (one
    running max, a chain of dependent compares it does not vectorise without fast-math's no-NaN promise: a
    [256, 10,000] float32 beam search's scores 2.9 -> 0.6 ms), combined at the end; the NaN test a flag beside
    them. The same value as one running ``v > m`` gives: the set's max, and where that is a zero, the row's first
    zero (its sign: the one a running max keeps)."""
    row = logits[r]
    m0 = row[0]
    nan = m0 != m0
    m1 = m2 = m3 = m4 = m5 = m6 = m7 = m0
    blocks = (row.shape[0] - 1) // 8
    for b in range(blocks):
        k = uintp(1 + 8 * b)  # (unsigned: no negative-index wrap to test)
        v0, v1, v2, v3 = row[k], row[k + uintp(1)], row[k + uintp(2)], row[k + uintp(3)]
        v4, v5, v6, v7 = row[k + uintp(4)], row[k + uintp(5)], row[k + uintp(6)], row[k + uintp(7)]
        m0, m1, m2, m3 = _larger(m0, v0), _larger(m1, v1), _larger(m2, v2), _larger(m3, v3)
        m4, m5, m6, m7 = _larger(m4, v4), _larger(m5, v5), _larger(m6, v6), _larger(m7, v7)
        nan |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3) | (v4 != v4) | (v5 != v5) | (v6 != v6) | (v7 != v7)
    for j in range(1 + 8 * blocks, row.shape[0]):
        v = row[uintp(j)]
        m0 = _larger(m0, v)
        nan |= v != v
    if nan:
        return logits.dtype.type(np.nan)
    m = _larger(_larger(_larger(m0, m1), _larger(m2, m3)), _larger(_larger(m4, m5), _larger(m6, m7)))
    if m == 0:
        for j in range(row.shape[0]):
            if row[uintp(j)] == 0:
                return row[uintp(j)]
    return m


@numba.njit(inline="always")
def label_loss(logits, r, m, log_sum, label, ignore_index, loss):
    """loss[r] = -log_p[label[r]] (0 for ignore_index, NaN for a label outside the classes); returns
    False for such a label (inlined into each loop)."""
    t = label[r]
    if t == ignore_index:
        loss[r] = 0
    elif t < 0 or t >= logits.shape[1]:
        loss[r] = np.nan
        return False
    else:
        loss[r] = -((logits[r, uintp(t)] - m) - log_sum)
    return True


@_jit
def softmax_ce(logits, label, ignore_index, softmax, loss):
    """Rows of logits [rows, classes]; label [rows] int. softmax = exp(log_p), loss = -log_p[label]
    (0 where label == ignore_index), log_p = shifted - log(sum(exp(shifted))), shifted = logits - max.
    Returns the first row whose label is outside [0, classes) and not ignore_index, else -1."""
    rows, classes = logits.shape
    bad = -1
    for r in range(rows):
        m = row_max(logits, r)
        s = 0.0
        for k in range(classes):
            s += np.exp(logits[r, k] - m)
        log_sum = logits.dtype.type(np.log(logits.dtype.type(s)))
        for k in range(classes):
            softmax[r, k] = np.exp((logits[r, k] - m) - log_sum)
        if not label_loss(logits, r, m, log_sum, label, ignore_index, loss) and bad < 0:
            bad = r
    return bad


@_jit
def row_max_shift(logits, m, shifted):
    """m[r] = the max of row r (NaN if it holds one) and shifted[r] = logits[r] - m[r]: the first
    pass of softmax_ce's wide form (loss_classification.softmax_with_cross_entropy), before numpy's exp."""
    for r in range(logits.shape[0]):
        mx = m[r] = row_max(logits, r)
        for k in range(logits.shape[1]):
            shifted[r, k] = logits[r, k] - mx


@_jit
def log_softmax_ce(logits, m, e, label, ignore_index, loss):
    """The second pass of softmax_ce's wide form: with e = exp(shifted) from numpy, e[r] becomes
    log_p = shifted - log(sum(e[r])) (numpy's exp of it is the softmax) and loss as softmax_ce's.
    Returns the first row whose label is outside [0, classes) and not ignore_index, else -1."""
    rows, classes = logits.shape
    bad = -1
    for r in range(rows):
        s = 0.0
        for k in range(classes):
            s += e[r, k]
        log_sum = logits.dtype.type(np.log(logits.dtype.type(s)))
        mx = m[r]
        for k in range(classes):
            e[r, k] = (logits[r, k] - mx) - log_sum
        if not label_loss(logits, r, mx, log_sum, label, ignore_index, loss) and bad < 0:
            bad = r
    return bad


# -- updates ----------------------------------------------------------------------------------------


@numba.njit(inline="always")
def _momentum_at(i, p, g, v, lr, mu, nesterov, p_out, v_out):
    """Element i of momentum: v_out = v * mu + g; p_out = p - lr * v_out, or with nesterov
    p - (g + v_out * mu) * lr (inlined into each loop: one home for the arithmetic)."""
    vo = v[i] * mu + g[i]
    v_out[i] = vo
    if nesterov:
        p_out[i] = p[i] - (g[i] + vo * mu) * lr
    else:
        p_out[i] = p[i] - lr * vo


@_jit
def momentum(p, g, v, lr, mu, nesterov, p_out, v_out):
    """momentum into new arrays (see _momentum_at)."""
    for i in range(p.size):
        _momentum_at(i, p, g, v, lr, mu, nesterov, p_out, v_out)


@_jit
def sgd(p, g, lr, p_out):
    """p_out = p - lr * g."""
    for i in range(p.size):
        p_out[i] = p[i] - lr * g[i]


# In place (the executor allows it: nothing but the run and its scope holds p and v). Their own loops,
# not momentum(p, g, v, ..., p, v): given p_out = p, LLVM's overlap check fails and the loop runs
# unvectorised (2x slower); here p, v and g are three arrays that do not overlap.


@_jit
def momentum_in_place(p, g, v, lr, mu, nesterov):
    """momentum with p_out = p and v_out = v (g overlaps neither)."""
    for i in range(p.size):
        _momentum_at(i, p, g, v, lr, mu, nesterov, p, v)


@_jit
def sgd_in_place(p, g, lr):
    """p = p - lr * g (g does not overlap p)."""
    for i in range(p.size):
        p[i] = p[i] - lr * g[i]


# -- parallel twins, for large arrays on a device with several threads (see _numba.parallel_threads) --

_pjit = numba.njit(cache=True, nogil=True, parallel=True)


@_pjit
def add_parallel(x, y, out, parts):
    """out = x + y (the same shape) over ``parts`` contiguous chunks on numba's threads: numpy's
    add, which is serial and runs at one core's bandwidth, is the serial loop (the same bits)."""
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            out[i] = x[i] + y[i]


@_pjit
def add_mid_parallel(x, y, out):
    """add_mid with the rows p on numba's threads (x [pre, n, post], pre > 1); a bias over rows (post 1)
    vectorised along j, as add_mid (without it a [1792, 64] bias add took 47 us on 2 threads against 11
    on one)."""
    pre, n, post = x.shape
    for p in prange(pre):
        if post == 1:
            for j in range(n):
                out[p, j, 0] = x[p, j, 0] + y[j]
        else:
            for j in range(n):
                b = y[j]
                for q in range(post):
                    out[p, j, q] = x[p, j, q] + b


@_pjit
def sum_outer_parallel(d, dy):
    """sum_outer with its blocks of columns on numba's threads: the same numbers."""
    pre, n, post = d.shape
    acc = np.empty(n * post, dtype=np.float64)
    flat = d.reshape(pre, n * post)
    blocks = (n * post + SUM_BLOCK - 1) // SUM_BLOCK
    for b in prange(blocks):
        _sum_rows_block(flat, b * SUM_BLOCK, min((b + 1) * SUM_BLOCK, n * post), acc)
    _sum_lanes(acc, n, post, dy)


@_pjit
def momentum_parallel(p, g, v, lr, mu, nesterov, p_out, v_out, parts):
    """momentum over ``parts`` contiguous chunks on numba's threads."""
    n = p.size
    for t in prange(parts):
        for i in range(uintp(n * t // parts), uintp(n * (t + 1) // parts)):
            _momentum_at(i, p, g, v, lr, mu, nesterov, p_out, v_out)


@_pjit
def momentum_in_place_parallel(p, g, v, lr, mu, nesterov, parts):
    """momentum_in_place over ``parts`` contiguous chunks on numba's threads."""
    n = p.size
    for t in prange(parts):
        for i in range(uintp(n * t // parts), uintp(n * (t + 1) // parts)):
            _momentum_at(i, p, g, v, lr, mu, nesterov, p, v)
