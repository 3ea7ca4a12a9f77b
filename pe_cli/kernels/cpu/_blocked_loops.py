"""numba loops of batch norm (with relu or without) in training, and of global average pooling,
on blocked values (nChw16c: kernels/cpu/blocked.py), imported on first use (see runtime/loops.py).

A value [N, C, H, W] is held as [N, C/16, H*W, 16]: the 16 channels of a block are the innermost
axis, so a row of 16 values is 16 channels at one position, and a loop over a block's rows keeps
one partial sum per channel in a vector register. Sums are float64, as in _norm_loops.py.

**The same bits on any threads.** The samples are cut into ``CHUNKS`` fixed runs; each (run, block
of channels) is a task summing its rows in memory order, and the runs' sums are added in order. So
the parallel twins, which spread the tasks over numba's threads, compute exactly what the serial
loops compute. The innermost loops take their length from the array (not a constant 16): a constant
made LLVM unroll them into scalar code, a length it vectorizes with runtime alias checks (the
normalizing pass 0.95 -> 0.42 ms on [64, 1, 1024, 16], one thread, Xeon VM, 2026-11-25).

On the small ResNet's shapes they are slower than _norm_loops.py's on NCHW values (two threads,
forward 0.39 -> 0.51 ms on [64, 16, 32x32], gradient 0.64 -> 0.71; Xeon VM, 2026-11-25); what they
save is the convolutions' reorders around them (docs/PERFORMANCE.md).
"""

import math

import numpy as np
from numba import njit, prange, uintp

from ._conv_loops import _jit
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

CHUNKS = 8  # fixed runs of samples whose sums are added in order

# reassoc: each channel's sum may be split over vector registers (a fixed order for a machine, as in
# _norm_loops.py); the lanes are channels, never added to each other
_sum_jit = njit(cache=True, nogil=True, fastmath={"reassoc"})


@_sum_jit
def _rows_sum(x, acc):
    """acc[k] += sum over the rows s of x[s, k]."""
    for s in range(x.shape[0]):
        for k in range(x.shape[1]):
            acc[uintp(k)] += x[uintp(s), uintp(k)]


@_sum_jit
def _rows_sq(x, m, acc):
    """acc[k] += sum over the rows s of (x[s, k] - m[k])^2."""
    for s in range(x.shape[0]):
        for k in range(x.shape[1]):
            d = x[uintp(s), uintp(k)] - m[uintp(k)]
            acc[uintp(k)] += d * d


@_jit
def _rows_normalize(x, y, m, a, beta, relu):
    """y = (x - m) * a + beta per channel (relu of it with ``relu``), in float64, as _norm_loops."""
    zero = y.dtype.type(0)
    for s in range(x.shape[0]):
        for k in range(x.shape[1]):
            v = (x[uintp(s), uintp(k)] - m[uintp(k)]) * a[uintp(k)] + beta[uintp(k)]
            y[uintp(s), uintp(k)] = v if (not relu or v > zero or v != v) else zero


@_jit
def _stats_task(x, j, m, part, square):
    """Task j: sums (``square``: squared deviations from m) of run j // blocks of the samples over
    block j % blocks of the channels, into part[run, block]."""
    n, blocks = x.shape[0], x.shape[1]
    p, cb = j // blocks, j % blocks
    acc = part[p, cb]
    acc[:] = 0.0
    for b in range(n * p // CHUNKS, n * (p + 1) // CHUNKS):
        if square:
            _rows_sq(x[b, cb], m[cb], acc)
        else:
            _rows_sum(x[b, cb], acc)


@_jit
def _in_order(part, count):
    """The runs' sums added in order, over ``count``: [blocks, 16]."""
    out = np.zeros(part.shape[1:])
    for p in range(part.shape[0]):
        out += part[p]
    return out / count


@_jit
def _scale_shift(x, scale, bias, epsilon, m, v, mean, var, inv_std):
    """Writes mean, var and inv_std per channel; returns (a, beta) per [block, lane]."""
    lanes = x.shape[3]
    a, beta = np.empty(m.shape), np.empty(m.shape)
    for cb in range(m.shape[0]):
        for k in range(lanes):
            c = cb * lanes + k
            mean[c], var[c] = m[cb, k], v[cb, k]
            inv_std[c] = 1.0 / math.sqrt(v[cb, k] + epsilon)
            a[cb, k], beta[cb, k] = scale[c] * inv_std[c], bias[c]
    return a, beta


def _bn_forward(tasks):
    """Batch norm of blocked x ([N, C/16, S, 16]) into y (relu of it with ``relu``); mean, var
    (biased) and inv_std per channel. ``tasks``: range, or prange for the parallel twin (the same
    bits: see the module's docstring)."""

    def loop(x, scale, bias, epsilon, y, mean, var, inv_std, relu):
        n, blocks = x.shape[0], x.shape[1]
        part, count = np.empty((CHUNKS, blocks, x.shape[3])), n * x.shape[2]
        for j in tasks(CHUNKS * blocks):
            _stats_task(x, j, part[0], part, False)
        m = _in_order(part, count)
        for j in tasks(CHUNKS * blocks):
            _stats_task(x, j, m, part, True)
        a, beta = _scale_shift(x, scale, bias, epsilon, m, _in_order(part, count), mean, var, inv_std)
        for j in tasks(n * blocks):
            b, cb = j // blocks, j % blocks
            _rows_normalize(x[b, cb], y[b, cb], m[cb], a[cb], beta[cb], relu)

    return loop


@_sum_jit
def _rows_grad_sums(dy, out, x, m, sums, dots, relu):
    """sums[k] += the rows' gradient, dots[k] += gradient * (x - m), the gradient being dy where
    out > 0 with ``relu`` (else dy * 0, as _activation_row_loops.relu_grad). _rows_dx repeats the mask's
    four lines: as a function of its own (numba-inlined or not) it made the gradient 10-15x slower,
    its loops no longer vectorized (2026-11-25)."""
    zero = dy.dtype.type(0)
    for s in range(x.shape[0]):
        for k in range(x.shape[1]):
            g = dy[uintp(s), uintp(k)]
            if relu and not out[uintp(s), uintp(k)] > zero:
                g = g * zero
            sums[uintp(k)] += g
            dots[uintp(k)] += g * (x[uintp(s), uintp(k)] - m[uintp(k)])


@_jit
def _grad_task(x, dy, out, j, m, sums, dots, relu):
    n, blocks = x.shape[0], x.shape[1]
    p, cb = j // blocks, j % blocks
    sums[p, cb] = 0.0
    dots[p, cb] = 0.0
    for b in range(n * p // CHUNKS, n * (p + 1) // CHUNKS):
        _rows_grad_sums(dy[b, cb], out[b, cb], x[b, cb], m[cb], sums[p, cb], dots[p, cb], relu)


@_jit
def _rows_dx(dy, out, x, dx, m, inv, k_, sum_dy, ds, count, relu):
    """dx = k * (count * g - sum_dy - xhat * ds), as _norm_loops._block_grad."""
    zero = dy.dtype.type(0)
    for s in range(x.shape[0]):
        for k in range(x.shape[1]):
            g = dy[uintp(s), uintp(k)]
            if relu and not out[uintp(s), uintp(k)] > zero:
                g = g * zero
            xhat = (x[uintp(s), uintp(k)] - m[uintp(k)]) * inv[uintp(k)]
            dx[uintp(s), uintp(k)] = k_[uintp(k)] * (count * g - sum_dy[uintp(k)] - xhat * ds[uintp(k)])


@_jit
def _grad_params(scale, inv, sums, dots, count, dscale, dbias):
    """dbias, dscale per channel from the runs' sums; returns (sum_dy, ds, k) per [block, lane]."""
    sum_dy, ds = _in_order(sums, 1), _in_order(dots, 1) * inv
    k_ = np.empty(inv.shape)
    lanes = inv.shape[1]
    for cb in range(inv.shape[0]):
        for k in range(lanes):
            c = cb * lanes + k
            dbias[c], dscale[c] = sum_dy[cb, k], ds[cb, k]
            k_[cb, k] = scale[c] * inv[cb, k] / count
    return sum_dy, ds, k_


def _bn_grad(tasks):
    """dscale, dbias and dx of batch norm in training on blocked values, from the saved mean and
    inv_std; with ``relu``, of relu(batch_norm(x)) whose output is ``out``. ``tasks``: as
    _bn_forward's."""

    def loop(x, dy, out, scale, mean, inv_std, dx, dscale, dbias, relu):
        n, blocks, lanes = x.shape[0], x.shape[1], x.shape[3]
        m, inv = mean.reshape(blocks, lanes), inv_std.reshape(blocks, lanes)
        sums, dots, count = np.empty((CHUNKS, blocks, lanes)), np.empty((CHUNKS, blocks, lanes)), n * x.shape[2]
        for j in tasks(CHUNKS * blocks):
            _grad_task(x, dy, out, j, m, sums, dots, relu)
        sum_dy, ds, k_ = _grad_params(scale, inv, sums, dots, count, dscale, dbias)
        for j in tasks(n * blocks):
            b, cb = j // blocks, j % blocks
            _rows_dx(
                dy[b, cb], out[b, cb], x[b, cb], dx[b, cb], m[cb], inv[cb], k_[cb], sum_dy[cb], ds[cb], count, relu
            )

    return loop


@_jit
def global_avg_pool(x, out):
    """out[b, cb, k] = the mean of x[b, cb, :, k]: summed in the rows' order in x's dtype, then
    divided by their count, as _pool_loops.avg_pool sums a window of NCHW values (the same bits)."""
    zero, count = x.dtype.type(0), x.dtype.type(x.shape[2])
    for b in range(x.shape[0]):
        for cb in range(x.shape[1]):
            acc = out[b, cb]
            acc[:] = zero
            for s in range(x.shape[2]):
                for k in range(x.shape[3]):
                    acc[uintp(k)] += x[b, cb, uintp(s), uintp(k)]
            for k in range(x.shape[3]):
                acc[uintp(k)] = acc[uintp(k)] / count


# the twins (tests/kernels/test_twins.py: separate functions in numba's cache); loops never fused
# into one: each reads what the one before wrote through its tasks' helpers
bn_forward = njit(cache=True, nogil=True)(_bn_forward(range))
bn_forward_parallel = njit(cache=True, nogil=True, parallel={"fusion": False})(_bn_forward(prange))
bn_grad = njit(cache=True, nogil=True)(_bn_grad(range))
bn_grad_parallel = njit(cache=True, nogil=True, parallel={"fusion": False})(_bn_grad(prange))
