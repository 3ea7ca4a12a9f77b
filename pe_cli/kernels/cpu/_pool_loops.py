"""numba loops of the pool2d kernels (imported on first use: see runtime/loops.py); the conventions and
the speed notes of _conv_loops.py hold here too. 2x2 windows at stride 2 (the common pooling) get
their own loops: with the size and stride known at compile time LLVM unrolls and vectorises them,
5-8x faster than the general loops.
"""

import numpy as np
from numba import prange, uintp

from ._conv_loops import _jit, pjit, zero_plane


@_jit
def _window(o, s, p, k, size):
    """[start, end): the part of window o (stride s, padding p, size k) inside [0, size)."""
    start = o * s - p
    return max(start, 0), min(start + k, size)


# -- pool2d: any window -------------------------------------------------------------------------------


@_jit
def max_pool(x, kh, kw, sh, sw, pt, pl, ho, wo, out):
    """out = the maximum of each window (padding is -inf; a NaN wins, as with numpy.maximum)."""
    n, c, h, w = x.shape
    for b in range(n):
        for ci in range(c):
            for oh in range(ho):
                hs, he = _window(oh, sh, pt, kh, h)
                for ow in range(wo):
                    ws, we = _window(ow, sw, pl, kw, w)
                    m = -np.inf
                    for ih in range(hs, he):
                        for iw in range(ws, we):
                            v = x[b, ci, uintp(ih), uintp(iw)]
                            m = v if (v > m or v != v) else m
                    out[b, ci, oh, ow] = m


@_jit
def max_pool_grad(x, out, dout, kh, kw, sh, sw, pt, pl, dx):
    """dx (overwritten): each window's gradient goes to its first element (row-major, padding
    included, which takes none) equal to the window's maximum, as Fluid does."""
    n, c, h, w = x.shape
    ho, wo = out.shape[2], out.shape[3]
    for b in range(n):
        for ci in range(c):
            zero_plane(dx, b, ci)
            for oh in range(ho):
                h0 = oh * sh - pt
                for ow in range(wo):
                    w0 = ow * sw - pl
                    m = out[b, ci, oh, ow]
                    done = False
                    for i in range(kh):
                        ih = h0 + i
                        for j in range(kw):
                            iw = w0 + j
                            inside = 0 <= ih < h and 0 <= iw < w
                            v = x[b, ci, uintp(ih), uintp(iw)] if inside else -np.inf
                            if v == m:
                                if inside:
                                    dx[b, ci, uintp(ih), uintp(iw)] += dout[b, ci, oh, ow]
                                done = True
                                break
                        if done:
                            break


@_jit
def avg_pool(x, kh, kw, sh, sw, pt, pl, ho, wo, exclusive, out):
    """out = the sum of each window (padding is 0, summed in row-major order) over its count: the
    window's elements inside the input (exclusive) or kh*kw."""
    n, c, h, w = x.shape
    for b in range(n):
        for ci in range(c):
            for oh in range(ho):
                hs, he = _window(oh, sh, pt, kh, h)
                for ow in range(wo):
                    ws, we = _window(ow, sw, pl, kw, w)
                    s = x.dtype.type(0)
                    for ih in range(hs, he):
                        for iw in range(ws, we):
                            s += x[b, ci, uintp(ih), uintp(iw)]
                    count = max((he - hs) * (we - ws), 1) if exclusive else kh * kw
                    out[b, ci, oh, ow] = s / x.dtype.type(count)


@_jit
def avg_pool_grad(dout, kh, kw, sh, sw, pt, pl, exclusive, dx):
    """dx (overwritten): each window's gradient over its count, spread over its elements."""
    n, c, h, w = dx.shape
    ho, wo = dout.shape[2], dout.shape[3]
    for b in range(n):
        for ci in range(c):
            zero_plane(dx, b, ci)
            for oh in range(ho):
                hs, he = _window(oh, sh, pt, kh, h)
                for ow in range(wo):
                    ws, we = _window(ow, sw, pl, kw, w)
                    count = max((he - hs) * (we - ws), 1) if exclusive else kh * kw
                    g = dout[b, ci, oh, ow] / dx.dtype.type(count)
                    for ih in range(hs, he):
                        for iw in range(ws, we):
                            dx[b, ci, uintp(ih), uintp(iw)] += g


# -- pool2d: 2x2 windows at stride 2, inside the input ------------------------------------------------------------


@_jit
def _max_pool_2x2_sample(x, b, ho, wo, out):
    for ci in range(x.shape[1]):
        for oh in range(ho):
            for ow in range(wo):
                m = -np.inf
                for i in range(2):
                    for j in range(2):
                        v = x[b, ci, uintp(2 * oh + i), uintp(2 * ow + j)]
                        m = v if (v > m or v != v) else m
                out[b, ci, oh, ow] = m


@_jit
def max_pool_2x2(x, ho, wo, out):
    """max_pool for 2x2 windows at (2*oh, 2*ow), all inside x (no padding reached)."""
    for b in range(x.shape[0]):
        _max_pool_2x2_sample(x, b, ho, wo, out)


@_jit
def _max_pool_2x2_grad_sample(x, out, dout, b, dx):
    c, h, w = x.shape[1], x.shape[2], x.shape[3]
    ho, wo = out.shape[2], out.shape[3]
    one, zero = dx.dtype.type(1), dx.dtype.type(0)
    for ci in range(c):
        if 2 * ho < h or 2 * wo < w:  # rows or columns in no window
            zero_plane(dx, b, ci)
        for oh in range(ho):
            for ow in range(wo):
                m = out[b, ci, oh, ow]
                g = dout[b, ci, oh, ow]
                h0, w0 = uintp(2 * oh), uintp(2 * ow)
                hit0 = one if x[b, ci, h0, w0] == m else zero
                left = one - hit0
                hit1 = (one if x[b, ci, h0, w0 + 1] == m else zero) * left
                left = left - hit1
                hit2 = (one if x[b, ci, h0 + 1, w0] == m else zero) * left
                left = left - hit2
                hit3 = (one if x[b, ci, h0 + 1, w0 + 1] == m else zero) * left
                dx[b, ci, h0, w0] = g * hit0
                dx[b, ci, h0, w0 + 1] = g * hit1
                dx[b, ci, h0 + 1, w0] = g * hit2
                dx[b, ci, h0 + 1, w0 + 1] = g * hit3


@_jit
def max_pool_2x2_grad(x, out, dout, dx):
    """max_pool_grad for 2x2 windows at stride 2 inside x: the first element equal to the maximum
    takes the gradient (dout * hit, as the numpy path). The windows do not overlap, so each element
    is written once, and the first hit is found with arithmetic masks instead of branches, which
    random data mispredicts (3x slower)."""
    for b in range(x.shape[0]):
        _max_pool_2x2_grad_sample(x, out, dout, b, dx)


@_jit
def avg_pool_2x2(x, ho, wo, out):
    """avg_pool for 2x2 windows at stride 2 inside x (every count is 4)."""
    n, c = x.shape[0], x.shape[1]
    four = x.dtype.type(4)
    for b in range(n):
        for ci in range(c):
            for oh in range(ho):
                for ow in range(wo):
                    h0, w0 = uintp(2 * oh), uintp(2 * ow)
                    s = x[b, ci, h0, w0] + x[b, ci, h0, w0 + 1]
                    s = s + x[b, ci, h0 + 1, w0]
                    s = s + x[b, ci, h0 + 1, w0 + 1]
                    out[b, ci, oh, ow] = s / four


@_jit
def avg_pool_2x2_grad(dout, dx):
    """avg_pool_grad for 2x2 windows at stride 2 inside dx (each element in at most one window)."""
    n, c, h, w = dx.shape
    ho, wo = dout.shape[2], dout.shape[3]
    zero, four = dx.dtype.type(0), dx.dtype.type(4)
    for b in range(n):
        for ci in range(c):
            if 2 * ho < h or 2 * wo < w:
                zero_plane(dx, b, ci)
            for oh in range(ho):
                for ow in range(wo):
                    g = zero + dout[b, ci, oh, ow] / four
                    h0, w0 = uintp(2 * oh), uintp(2 * ow)
                    dx[b, ci, h0, w0] = g
                    dx[b, ci, h0, w0 + 1] = g
                    dx[b, ci, h0 + 1, w0] = g
                    dx[b, ci, h0 + 1, w0 + 1] = g


# -- parallel twins of the 2x2 stride-2 pooling (samples on numba's threads) -------------------------


@pjit
def max_pool_2x2_parallel(x, ho, wo, out):
    """max_pool_2x2 with the samples on numba's threads."""
    for b in prange(x.shape[0]):
        _max_pool_2x2_sample(x, b, ho, wo, out)


@pjit
def max_pool_2x2_grad_parallel(x, out, dout, dx):
    """max_pool_2x2_grad with the samples on numba's threads."""
    for b in prange(x.shape[0]):
        _max_pool_2x2_grad_sample(x, out, dout, b, dx)
