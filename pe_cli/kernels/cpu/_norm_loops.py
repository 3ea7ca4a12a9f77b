"""numba loops of batch_norm in training, and by the running statistics at test time (imported on first use:
see runtime/loops.py); the conventions of _conv_loops.py hold here too.

X is viewed as [N, C, S] (S = H*W, 1 for [N, C] inputs), C-contiguous. Statistics and
normalization are per channel: numpy's ``x.mean(axis=(0, 2, 3))`` and ``x.var`` walk the batch
with strides and make several temporaries (the ResNet of bench_cpu.py spent 43% of its step in
batch_norm and its gradient). Sums are taken in float64 (mean first, then the squared deviations),
so the statistics are at least as exact as numpy's float32 pairwise sums. The loops are 1.3-3x
faster than the numpy path they replace on the ResNet's shapes.

Each pass walks a block of channels in memory order, sample by sample, with one float64 sum per
channel: each channel's sum adds its rows in the order of the samples, so the bits are those of a
walk channel by channel, which these loops did before. That walk read a channel's rows 4*C*S bytes
apart; at 8x8 a row is 4 cache lines, too short for the prefetcher, and the gradient over
[64, 64, 8x8] took 1.11 ms against 0.37 in memory order, [64, 32, 16x16] 0.96 against 0.74 (the
forward 0.31 against 0.21 at 8x8; the same at 32x32; one thread, caches flushed before each call as
in a training step, Xeon VM, 2026-11-25).

The ``*_parallel`` twins give each of numba's threads one contiguous block of channels (``parts``;
the serial loops take the same blocks in turn), so both compute the same bits. On 2 threads they
took 0.58-0.62 of the serial time on [64, 16|32|64, 32x32|16x16|8x8] (the Zen 1 VM, 2026-11-23).
"""

import math

import numpy as np
from numba import njit, prange, uintp

from ._conv_loops import _jit, pjit
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

# The row sums: ``reassoc`` lets LLVM keep the partial sums in vector registers, 2.2-2.5x faster
# than four scalar float64 chains, which bounded batch norm's time (6.5 against 15-16 GB/s on
# [64, 16|32|64, 32x32|16x16|8x8], the Zen 1 VM, 2026-11-24). The order of the adds is the compiled
# loop's, the same on every call (and in both twins, which inline the same loop), so it is fixed
# for a machine; a machine with other vector registers may round the last bit of a sum otherwise.
_sum_jit = njit(cache=True, nogil=True, fastmath={"reassoc"})


@_sum_jit
def _row_sum(x, b, ci, shift):
    """sum over i of x[b, ci, i] - shift, in float64 (see _sum_jit)."""
    a = 0.0
    for i in range(x.shape[2]):
        a += x[b, ci, uintp(i)] - shift
    return a


@_sum_jit
def _row_sq(x, b, ci, m):
    """sum over i of (x[b, ci, i] - m)^2, in float64."""
    a = 0.0
    for i in range(x.shape[2]):
        d = x[b, ci, uintp(i)] - m
        a += d * d
    return a


@_jit
def _block_forward(x, lo, hi, scale, bias, epsilon, y, mean, var, inv_std, relu):
    """bn_forward on the channels lo..hi-1 (see the module's docstring for the order of the walk)."""
    n, count = x.shape[0], x.shape[0] * x.shape[2]
    acc = np.zeros(hi - lo)
    for b in range(n):
        for ci in range(lo, hi):
            acc[ci - lo] += _row_sum(x, b, ci, 0.0)
    for ci in range(lo, hi):
        mean[ci] = acc[ci - lo] / count
        acc[ci - lo] = 0.0
    for b in range(n):
        for ci in range(lo, hi):
            acc[ci - lo] += _row_sq(x, b, ci, mean[ci])
    for ci in range(lo, hi):
        var[ci] = acc[ci - lo] / count
        inv_std[ci] = 1.0 / math.sqrt(var[ci] + epsilon)
    zero = y.dtype.type(0)
    for b in range(n):
        for ci in range(lo, hi):
            m = mean[ci]
            a = scale[ci] * inv_std[ci]
            beta = bias[ci]
            for i in range(x.shape[2]):
                v = (x[b, ci, uintp(i)] - m) * a + beta  # centred first: no cancellation
                # relu as _activation_row_loops.relu: v where v > 0 or v is NaN, else +0.0
                y[b, ci, uintp(i)] = v if (not relu or v > zero or v != v) else zero


@_jit
def bn_forward(x, scale, bias, epsilon, y, mean, var, inv_std, relu, parts):
    """y = the batch-normalized x (with ``relu``, relu of it: fused_batch_norm_act); mean, var
    (biased) and inv_std = 1/sqrt(var + epsilon) per channel; the channels in ``parts`` contiguous
    blocks, in turn."""
    c = x.shape[1]
    for p in range(parts):
        _block_forward(x, c * p // parts, c * (p + 1) // parts, scale, bias, epsilon, y, mean, var, inv_std, relu)


@pjit
def bn_forward_parallel(x, scale, bias, epsilon, y, mean, var, inv_std, relu, parts):
    """bn_forward with its blocks of channels on numba's threads."""
    c = x.shape[1]
    for p in prange(parts):
        _block_forward(x, c * p // parts, c * (p + 1) // parts, scale, bias, epsilon, y, mean, var, inv_std, relu)


@_sum_jit
def _row_dot(dy, x, b, ci, m):
    """sum over i of dy[b, ci, i] * (x[b, ci, i] - m), in float64."""
    a = 0.0
    for i in range(x.shape[2]):
        a += dy[b, ci, uintp(i)] * (x[b, ci, uintp(i)] - m)
    return a


@_sum_jit
def _row_sum_relu(dy, out, b, ci):
    """_row_sum of relu_grad's output: dy[b, ci, i] where out[b, ci, i] > 0, else dy * 0 (as
    _activation_row_loops.relu_grad: -0.0 for a negative dy, NaN for an infinite one)."""
    zero = dy.dtype.type(0)
    a = 0.0
    for i in range(dy.shape[2]):
        g = dy[b, ci, uintp(i)]
        a += (g if out[b, ci, uintp(i)] > zero else g * zero) - 0.0
    return a


@_sum_jit
def _row_dot_relu(dy, out, x, b, ci, m):
    """_row_dot of relu_grad's output (see _row_sum_relu)."""
    zero = dy.dtype.type(0)
    a = 0.0
    for i in range(x.shape[2]):
        g = dy[b, ci, uintp(i)]
        a += (g if out[b, ci, uintp(i)] > zero else g * zero) * (x[b, ci, uintp(i)] - m)
    return a


@_jit
def _block_grad(x, dy, lo, hi, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu):
    """bn_grad on the channels lo..hi-1 (see the module's docstring for the order of the walk)."""
    n, s = x.shape[0], x.shape[2]
    sums, dots = np.zeros(hi - lo), np.zeros(hi - lo)
    for b in range(n):
        for ci in range(lo, hi):
            if relu:
                sums[ci - lo] += _row_sum_relu(dy, out, b, ci)
                dots[ci - lo] += _row_dot_relu(dy, out, x, b, ci, mean[ci])
            else:
                sums[ci - lo] += _row_sum(dy, b, ci, 0.0)
                dots[ci - lo] += _row_dot(dy, x, b, ci, mean[ci])
    for ci in range(lo, hi):
        dots[ci - lo] *= inv_std[ci]  # sum of dy * xhat
        dbias[ci] = sums[ci - lo]  # (cast to their dtype; dx below takes the float64 sums)
        dscale[ci] = dots[ci - lo]
    if not with_x:
        return
    count = n * s
    zero = dy.dtype.type(0)
    for b in range(n):
        for ci in range(lo, hi):
            m, inv, sum_dy, ds = mean[ci], inv_std[ci], sums[ci - lo], dots[ci - lo]
            k = scale[ci] * inv / count
            for i in range(s):
                g = dy[b, ci, uintp(i)]
                if relu and not out[b, ci, uintp(i)] > zero:
                    g = g * zero
                xhat = (x[b, ci, uintp(i)] - m) * inv
                dx[b, ci, uintp(i)] = k * (count * g - sum_dy - xhat * ds)


@_jit
def bn_train_outputs(mean, var, mean_mom, var_mom, rest, m, v, inv_std, mean_out, var_out, saved_mean, saved_var):
    """batch_norm's outputs in training but Y from the batch's float64 ``m``, ``v`` and ``inv_std`` (bn_forward's),
    as numpy computes them (kernels/cpu/batch_norm.py): MeanOut = Mean * momentum in Mean's dtype (``mean_mom``:
    momentum as a scalar of it) plus m * (1 - momentum) (``rest``) in float64, cast to Mean's dtype; VarianceOut
    likewise; SavedMean and SavedVariance: m and inv_std cast to theirs."""
    for ci in range(m.shape[0]):
        mean_out[ci] = mean[ci] * mean_mom + m[ci] * rest
        var_out[ci] = var[ci] * var_mom + v[ci] * rest
        saved_mean[ci] = m[ci]
        saved_var[ci] = inv_std[ci]


@_jit
def bn_running(x, scale, bias, mean, var, epsilon, y, saved_mean, saved_var):
    """batch_norm by the running statistics (is_test), every value of x's dtype, as numpy computes it (kernels/cpu/
    batch_norm.py _affine): SavedVariance = 1 / sqrt(Variance + epsilon), SavedMean = Mean, a = Scale *
    SavedVariance, b = Bias - Mean * a, Y = X * a + b, each operation rounding (no fused multiply-add)."""
    one = x.dtype.type(1)
    for ci in range(x.shape[1]):
        inv_std = one / np.sqrt(var[ci] + epsilon)
        saved_mean[ci], saved_var[ci] = mean[ci], inv_std
        a = scale[ci] * inv_std
        b = bias[ci] - mean[ci] * a
        for n in range(x.shape[0]):
            for i in range(x.shape[2]):
                y[n, ci, i] = x[n, ci, i] * a + b


@_jit
def bn_grad(x, dy, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu, parts):
    """dscale, dbias (float64 sums, cast to their dtype) and (with_x) dx of batch_norm in training, from the saved
    mean and inv_std.
    With ``relu``, of relu(batch_norm(x)) whose output is ``out`` (fused_batch_norm_act): dy passes
    where out > 0, as relu_grad's; otherwise ``out`` is not read. The channels in ``parts``
    contiguous blocks, in turn."""
    c = x.shape[1]
    for p in range(parts):
        _block_grad(
            x, dy, c * p // parts, c * (p + 1) // parts, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu
        )


@pjit
def bn_grad_parallel(x, dy, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu, parts):
    """bn_grad with its blocks of channels on numba's threads."""
    c = x.shape[1]
    for p in prange(parts):
        _block_grad(
            x, dy, c * p // parts, c * (p + 1) // parts, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu
        )


# -- layer_norm: X as [rows, n], each row normalized by itself ---------------------------------------
# numpy's path made seven passes with temporaries and reduced rows of 64 (a Transformer's d_model)
# at a per-row cost: 2.8 ms forward and 4.0 backward on [1792, 64] float32, against 15 us to copy it.
# Statistics in float64 (mean first, then the squared deviations), Mean and Variance in X's dtype;
# the sums reassociate as batch norm's (_sum_jit). Both passes walk LN_RUNS fixed runs of rows (the
# parallel twins give them to numba's threads, the serial loops take them in turn): the gradient's
# sums over rows, dscale and dbias, are each run's sum, then the runs' in order, so both twins, on
# any number of threads, compute the same bits.

LN_RUNS = 8


@_sum_jit
def _ln_run(x, scale, bias, epsilon, y, mean, var, lo, hi):
    """layer_norm on rows lo..hi-1."""
    n = x.shape[1]
    for r in range(lo, hi):
        a = 0.0
        for j in range(n):
            a += x[r, j]
        m = a / n
        a = 0.0
        for j in range(n):
            d = x[r, j] - m
            a += d * d
        v = a / n
        inv = 1.0 / math.sqrt(v + epsilon)
        for j in range(n):
            y[r, j] = (x[r, j] - m) * inv * scale[j] + bias[j]
        mean[r] = m
        var[r] = v


def _layer_norm(runs):
    """layer_norm's loop over its runs of rows (range: the serial loop; prange: its twin on numba's
    threads): y = (x - mean) / sqrt(var + epsilon) * scale + bias, row by row."""

    def loop(x, scale, bias, epsilon, y, mean, var):
        rows = x.shape[0]
        for p in runs(LN_RUNS):
            _ln_run(x, scale, bias, epsilon, y, mean, var, rows * p // LN_RUNS, rows * (p + 1) // LN_RUNS)

    return loop


layer_norm = _jit(_layer_norm(range))
layer_norm_parallel = pjit(_layer_norm(prange))


@_sum_jit
def _ln_grad_run(x, dy, mean, var, scale, epsilon, dx, dscale, dbias, lo, hi):
    """layer_norm_grad on rows lo..hi-1, their sums over rows added to dscale and dbias."""
    n = x.shape[1]
    for r in range(lo, hi):
        m = np.float64(mean[r])
        inv = 1.0 / math.sqrt(np.float64(var[r]) + epsilon)
        sg, sgx = 0.0, 0.0
        for j in range(n):
            xh = (x[r, j] - m) * inv
            g = np.float64(dy[r, j])
            dbias[j] += g
            dscale[j] += g * xh
            g *= scale[j]
            sg += g
            sgx += g * xh
        sg /= n
        sgx /= n
        for j in range(n):
            xh = (x[r, j] - m) * inv
            dx[r, j] = inv * (dy[r, j] * np.float64(scale[j]) - sg - xh * sgx)


@_jit
def _sum_runs(runs, out):
    """out[j] = the sum of runs[p, j] over p, in order."""
    for p in range(runs.shape[0]):
        for j in range(out.size):
            out[j] += runs[p, j]


def _layer_norm_grad(runs):
    """layer_norm_grad's loop over its runs of rows (range or prange, as _layer_norm): dx, and the
    float64 sums over rows dscale (of dy * xhat) and dbias (of dy), which start at 0, from the
    forward's Mean and Variance (in X's dtype, as the op passes them)."""

    def loop(x, dy, mean, var, scale, epsilon, dx, dscale, dbias):
        rows, n = x.shape
        ds, db = np.zeros((LN_RUNS, n)), np.zeros((LN_RUNS, n))
        for p in runs(LN_RUNS):
            _ln_grad_run(
                x, dy, mean, var, scale, epsilon, dx, ds[p], db[p], rows * p // LN_RUNS, rows * (p + 1) // LN_RUNS
            )
        _sum_runs(ds, dscale)
        _sum_runs(db, dbias)

    return loop


layer_norm_grad = _jit(_layer_norm_grad(range))
layer_norm_grad_parallel = pjit(_layer_norm_grad(prange))
