"""numba loops of batch_norm in training (imported on first use: see _numba.py); the conventions of
_nn_loops.py hold here too.

X is viewed as [N, C, S] (S = H*W, 1 for [N, C] inputs), C-contiguous. A channel's statistics and
its normalization are one task: numpy's ``x.mean(axis=(0, 2, 3))`` and ``x.var`` walk the batch
with strides and make several temporaries (the ResNet of bench_cpu.py spent 43% of its step in
batch_norm and its gradient). Sums are taken in float64 (mean first, then the squared deviations),
so the statistics are at least as exact as numpy's float32 pairwise sums.

The serial loops are 1.3-3x faster than the numpy path they replace on the ResNet's shapes. Their
``*_parallel`` twins spread the channels over numba's threads (prange): each channel is still one
task on one thread, so both compute the same bits. On 2 threads they take 0.58-0.62 of the serial
time on [64, 16|32|64, 32x32|16x16|8x8] (this 2-core VM, 2026-11-23), and batch norm's share of
the ResNet step in benchmarks/bench_cpu.py fell from 37.7 to 25.1 ms (docs/PERFORMANCE.md).
"""
import math

from numba import njit, prange, uintp

from ._nn_loops import _jit, _pjit

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
def _channel_forward(x, ci, scale, bias, epsilon, y, mean, inv_std, relu):
    n, s = x.shape[0], x.shape[2]
    total = 0.0
    for b in range(n):
        total += _row_sum(x, b, ci, 0.0)
    m = total / (n * s)
    sq = 0.0
    for b in range(n):
        sq += _row_sq(x, b, ci, m)
    inv = 1.0 / math.sqrt(sq / (n * s) + epsilon)
    a = scale[ci] * inv
    beta = bias[ci]
    zero = y.dtype.type(0)
    for b in range(n):
        for i in range(s):
            v = (x[b, ci, uintp(i)] - m) * a + beta     # centred first: no cancellation
            # relu as _pointwise_loops.relu: v where v > 0 or v is NaN, else +0.0
            y[b, ci, uintp(i)] = v if (not relu or v > zero or v != v) else zero
    mean[ci] = m
    inv_std[ci] = inv
    return sq / (n * s)


@_jit
def bn_forward(x, scale, bias, epsilon, y, mean, var, inv_std, relu):
    """y = the batch-normalized x (with ``relu``, relu of it: fused_batch_norm_act); mean, var
    (biased) and inv_std = 1/sqrt(var + epsilon) per channel."""
    for ci in range(x.shape[1]):
        var[ci] = _channel_forward(x, ci, scale, bias, epsilon, y, mean, inv_std, relu)


@_pjit
def bn_forward_parallel(x, scale, bias, epsilon, y, mean, var, inv_std, relu):
    """bn_forward with the channels spread over numba's threads."""
    for ci in prange(x.shape[1]):
        var[ci] = _channel_forward(x, ci, scale, bias, epsilon, y, mean, inv_std, relu)


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
    _pointwise_loops.relu_grad: -0.0 for a negative dy, NaN for an infinite one)."""
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
def _channel_grad(x, dy, ci, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu):
    n, s = x.shape[0], x.shape[2]
    m, inv = mean[ci], inv_std[ci]
    sum_dy = 0.0
    sum_dy_xc = 0.0
    for b in range(n):
        if relu:
            sum_dy += _row_sum_relu(dy, out, b, ci)
            sum_dy_xc += _row_dot_relu(dy, out, x, b, ci, m)
        else:
            sum_dy += _row_sum(dy, b, ci, 0.0)
            sum_dy_xc += _row_dot(dy, x, b, ci, m)
    ds = sum_dy_xc * inv            # sum of dy * xhat
    dbias[ci] = sum_dy
    dscale[ci] = ds
    if with_x:
        count = n * s
        k = scale[ci] * inv / count
        zero = dy.dtype.type(0)
        for b in range(n):
            for i in range(s):
                g = dy[b, ci, uintp(i)]
                if relu and not out[b, ci, uintp(i)] > zero:
                    g = g * zero
                xhat = (x[b, ci, uintp(i)] - m) * inv
                dx[b, ci, uintp(i)] = k * (count * g - sum_dy - xhat * ds)


@_jit
def bn_grad(x, dy, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu):
    """dscale, dbias and (with_x) dx of batch_norm in training, from the saved mean and inv_std.
    With ``relu``, of relu(batch_norm(x)) whose output is ``out`` (fused_batch_norm_act): dy passes
    where out > 0, as relu_grad's; otherwise ``out`` is not read."""
    for ci in range(x.shape[1]):
        _channel_grad(x, dy, ci, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu)


@_pjit
def bn_grad_parallel(x, dy, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu):
    """bn_grad with the channels spread over numba's threads."""
    for ci in prange(x.shape[1]):
        _channel_grad(x, dy, ci, scale, mean, inv_std, dx, dscale, dbias, with_x, out, relu)
