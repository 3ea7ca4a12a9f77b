"""numba loops of conv2d's wide-columns path (a filter at stride 1, no dilation; _conv.wide_applies),
imported on first use (see runtime/loops.py). Same conventions as _conv_loops.py: NCHW, C-contiguous,
computed indices cast to ``uintp``, no views inside loops.

im2col's columns [C*kh*kw, Ho*Wo] are built by one short copy per (row, output row): Wo elements,
often 10 or 28, so the loop's overhead, not the copy, takes the time (LeNet-5's second convolution
spent half its forward pass there). Padded into a plane [Hp, Wp] = [Ho + kh - 1, Wo + kw - 1], a
sample gives "wide" columns [C*kh*kw, Ho*Wp] in which every row is ONE contiguous run of the plane:
row (c, i, j) is plane c from element i*Wp + j on. The GEMM then computes kw - 1 extra output
columns per output row (1.06x the work for a 3x3 filter on 32 columns, 1.4x for LeNet-5's 5x5 on
10), which are dropped (``_copy_rows``); the gradients widen Output@GRAD with zeros there, so the
extra columns add exact zeros. A finite input keeps those zeros exact; an infinite or NaN input or
filter, which makes the real gradients infinite or NaN too, may spread further than im2col's. Measured in benchmarks/conv_paths.py and docs/PERFORMANCE.md.

Each per-thread buffer (one row of ``buf``, _conv.wide_buffers) holds the padded plane(s) with
``kw`` elements of zero slack after them (a row's run reads up to kw - 2 past its plane), the wide
columns, and the wide output or Output@GRAD (zeros outside the valid columns, kept from the
allocation: only valid columns are ever written there).
"""

import numba
from numba import prange, uintp

from ._conv_loops import _at
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
def _pad_sample(x, b, pt, pl, hp, wp, plane_end, t):
    """t[:plane_end] = sample b of x in planes [C, hp, wp] with zeros around, at (pt, pl)."""
    c, h, w = x.shape[1], x.shape[2], x.shape[3]
    for q in range(plane_end):
        t[q] = 0
    rows, cols = min(h, hp - pt), min(w, wp - pl)
    for ci in range(c):
        for ih in range(rows):
            d = (ci * hp + ih + pt) * wp + pl
            for iw in range(cols):
                t[uintp(d + iw)] = x[b, ci, uintp(ih), uintp(iw)]


@_jit
def _columns(t, c, kh, kw, hp, wp, lw, cols_at):
    """t[cols_at:][row * lw + q] = t[ci*hp*wp + i*wp + j + q], row = (ci*kh + i)*kw + j, q < lw."""
    for ci in range(c):
        for i in range(kh):
            for j in range(kw):
                s = (ci * hp + i) * wp + j
                d = cols_at + ((ci * kh + i) * kw + j) * lw
                for q in range(lw):
                    t[uintp(d + q)] = t[uintp(s + q)]


@_jit
def _copy_rows(src, s0, s_step, dst, d0, d_step, rows, width):
    """dst[d0 + r*d_step + k] = src[s0 + r*s_step + k] for r < rows, k < width: the valid columns
    out of the wide layout (s_step Wp, d_step Wo) or Output@GRAD into it (the reverse; the rest of
    the wide layout stays 0)."""
    for r in range(rows):
        s, d = s0 + r * s_step, d0 + r * d_step
        for k in range(width):
            dst[uintp(d + k)] = src[uintp(s + k)]


@_jit
def _sizes(c, m, kh, kw, ho, wo):
    hp, wp = ho + kh - 1, wo + kw - 1
    lw = ho * wp
    plane_end = c * hp * wp + kw
    return hp, wp, lw, plane_end, plane_end + c * kh * kw * lw  # ..., where the wide output starts


@_jit
def _forward_sample(gemm, x, w, b, groups, kh, kw, pt, pl, ho, wo, out, t):
    c, m = x.shape[1], w.shape[0]
    mg, kg = m // groups, (c // groups) * kh * kw
    hp, wp, lw, cols_at, wide_at = _sizes(c, m, kh, kw, ho, wo)
    _pad_sample(x, b, pt, pl, hp, wp, cols_at, t)
    _columns(t, c, kh, kw, hp, wp, lw, cols_at)
    for g in range(groups):
        gemm(
            101,
            111,
            111,
            mg,
            lw,
            kg,
            1.0,
            _at(w, g * mg * kg),
            kg,
            _at(t, cols_at + g * kg * lw),
            lw,
            0.0,
            _at(t, wide_at + g * mg * lw),
            lw,
        )
    _copy_rows(t, wide_at, wp, out.reshape(out.size), b * m * ho * wo, wo, m * ho, wo)


@_jit
def forward(gemm, x, w, groups, kh, kw, pt, pl, ho, wo, out, buf):
    """out [N, M, Ho, Wo] = conv2d(x, w), per sample."""
    for b in range(x.shape[0]):
        _forward_sample(gemm, x, w, b, groups, kh, kw, pt, pl, ho, wo, out, buf[0])


@_pjit
def forward_parallel(gemm, x, w, groups, kh, kw, pt, pl, ho, wo, out, buf):
    """forward with the samples spread over numba's threads."""
    for b in prange(x.shape[0]):
        _forward_sample(gemm, x, w, b, groups, kh, kw, pt, pl, ho, wo, out, buf[numba.get_thread_id()])


@_jit
def _filter_sample(gemm, x, dout, b, groups, kh, kw, pt, pl, ho, wo, part, t):
    c, m = x.shape[1], dout.shape[1]
    mg, kg = m // groups, (c // groups) * kh * kw
    hp, wp, lw, cols_at, wide_at = _sizes(c, m, kh, kw, ho, wo)
    _pad_sample(x, b, pt, pl, hp, wp, cols_at, t)
    _columns(t, c, kh, kw, hp, wp, lw, cols_at)
    _copy_rows(dout.reshape(dout.size), b * m * ho * wo, wo, t, wide_at, wp, m * ho, wo)
    for g in range(groups):  # part[g] += dout[b, g] @ columns[g]^T, both wide
        gemm(
            101,
            111,
            112,
            mg,
            kg,
            lw,
            1.0,
            _at(t, wide_at + g * mg * lw),
            lw,
            _at(t, cols_at + g * kg * lw),
            lw,
            1.0,
            _at(part, g * mg * kg),
            kg,
        )


@_jit
def grad_filter(gemm, x, dout, groups, kh, kw, pt, pl, ho, wo, parts, buf):
    """parts[c] += the filter gradient of the c-th of len(parts) fixed runs of samples (as
    _conv_loops.conv_grad_filter: the numbers do not depend on the threads)."""
    n, chunks = x.shape[0], parts.shape[0]
    for c in range(chunks):
        for b in range(c * n // chunks, (c + 1) * n // chunks):
            _filter_sample(gemm, x, dout, b, groups, kh, kw, pt, pl, ho, wo, parts[c], buf[0])


@_pjit
def grad_filter_parallel(gemm, x, dout, groups, kh, kw, pt, pl, ho, wo, parts, buf):
    """grad_filter with its runs of samples spread over numba's threads."""
    n, chunks = x.shape[0], parts.shape[0]
    for c in prange(chunks):
        t = buf[numba.get_thread_id()]
        for b in range(c * n // chunks, (c + 1) * n // chunks):
            _filter_sample(gemm, x, dout, b, groups, kh, kw, pt, pl, ho, wo, parts[c], t)


@_jit
def _input_sample(gemm, dout, w, b, groups, kh, kw, pt, pl, ho, wo, dx, t):
    c, h, wd = dx.shape[1], dx.shape[2], dx.shape[3]
    m = w.shape[0]
    mg, kg = m // groups, (c // groups) * kh * kw
    hp, wp, lw, cols_at, wide_at = _sizes(c, m, kh, kw, ho, wo)
    _copy_rows(dout.reshape(dout.size), b * m * ho * wo, wo, t, wide_at, wp, m * ho, wo)
    for g in range(groups):  # columns[g] = w[g]^T @ dout[b, g], wide
        gemm(
            101,
            112,
            111,
            kg,
            lw,
            mg,
            1.0,
            _at(w, g * mg * kg),
            kg,
            _at(t, wide_at + g * mg * lw),
            lw,
            0.0,
            _at(t, cols_at + g * kg * lw),
            lw,
        )
    for q in range(cols_at):
        t[q] = 0
    for ci in range(c):  # the adjoint of _columns, in its order
        for i in range(kh):
            for j in range(kw):
                s = cols_at + ((ci * kh + i) * kw + j) * lw
                d = (ci * hp + i) * wp + j
                for q in range(lw):
                    t[uintp(d + q)] += t[uintp(s + q)]
    rows, cols = min(h, hp - pt), min(wd, wp - pl)
    for ci in range(c):
        if rows < h or cols < wd:  # a bottom or right padding below 0: rows the filter never reaches
            for ih in range(h):
                for iw in range(wd):
                    dx[b, ci, uintp(ih), uintp(iw)] = 0
        for ih in range(rows):
            s = (ci * hp + ih + pt) * wp + pl
            for iw in range(cols):
                dx[b, ci, uintp(ih), uintp(iw)] = t[uintp(s + iw)]


@_jit
def grad_input(gemm, dout, w, groups, kh, kw, pt, pl, ho, wo, dx, buf):
    """dx [N, C, H, W] (overwritten) = the input gradient, per sample."""
    for b in range(dx.shape[0]):
        _input_sample(gemm, dout, w, b, groups, kh, kw, pt, pl, ho, wo, dx, buf[0])


@_pjit
def grad_input_parallel(gemm, dout, w, groups, kh, kw, pt, pl, ho, wo, dx, buf):
    """grad_input with the samples spread over numba's threads."""
    for b in prange(dx.shape[0]):
        _input_sample(gemm, dout, w, b, groups, kh, kw, pt, pl, ho, wo, dx, buf[numba.get_thread_id()])
