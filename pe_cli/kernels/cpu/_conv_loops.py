"""numba loops of the conv2d kernels (imported on first use: see runtime/loops.py); pool2d's are in
_pool_loops.py, which shares the jit settings and _zero_plane from here.

Arrays are NCHW and C-contiguous. Geometry comes in as ints: kernel (kh, kw), strides (sh, sw),
the top and left paddings (pt, pl), dilations (dh, dw) and the output size (ho, wo); positions
outside the input read as the padding value and receive no gradient.

Written for speed, measured (docs/PERFORMANCE.md):
- computed indices are cast to ``uintp`` once known to be in range: numba wraps negative signed
  indices around, and that check in an inner loop keeps LLVM from vectorising it (4x slower);
- arrays are indexed in full, never sliced into views inside loops: each view costs a reference
  count update, which made a pooling loop 10x slower;
"""

import numba
from numba import prange, uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
pjit = numba.njit(cache=True, nogil=True, parallel=True)


# -- shared pieces ----------------------------------------------------------------------------------


@_jit
def _inside_columns(off, sw, w, wo):
    """(lo, hi): the output columns ow in [lo, hi) whose input column ow*sw + off lies in [0, w)."""
    lo = 0 if off >= 0 else (sw - 1 - off) // sw
    hi = min((w - 1 - off) // sw + 1 if off < w else 0, wo)
    return min(lo, hi), hi


@_jit
def zero_plane(dx, b, ci):
    for ih in range(dx.shape[2]):
        for iw in range(dx.shape[3]):
            dx[b, ci, ih, iw] = 0


# -- conv2d -----------------------------------------------------------------------------------------


@_jit
def _im2col_sample(x, b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, cols):
    """cols[(c*kh + i)*kw + j, oh*wo + ow] = x[b, c, oh*sh - pt + i*dh, ow*sw - pl + j*dw] (0 outside)."""
    c, h, w = x.shape[1], x.shape[2], x.shape[3]
    for ci in range(c):
        for i in range(kh):
            for j in range(kw):
                row = (ci * kh + i) * kw + j
                off = j * dw - pl
                lo, hi = _inside_columns(off, sw, w, wo)
                for oh in range(ho):
                    ih = oh * sh - pt + i * dh
                    base = oh * wo
                    if ih < 0 or ih >= h:
                        for ow in range(wo):
                            cols[row, base + ow] = 0
                        continue
                    for ow in range(lo):
                        cols[row, base + ow] = 0
                    for ow in range(lo, hi):
                        cols[row, uintp(base + ow)] = x[b, ci, uintp(ih), uintp(ow * sw + off)]
                    for ow in range(hi, wo):
                        cols[row, base + ow] = 0


@_jit
def _col2im_sample(dcols, b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx):
    """dx[b] (overwritten) = the adjoint of _im2col_sample applied to dcols [C*kh*kw, Ho*Wo]: the sum
    of every column entry at its input position."""
    c, h, w = dx.shape[1], dx.shape[2], dx.shape[3]
    for ci in range(c):
        zero_plane(dx, b, ci)
        for i in range(kh):
            for j in range(kw):
                row = (ci * kh + i) * kw + j
                off = j * dw - pl
                lo, hi = _inside_columns(off, sw, w, wo)
                for oh in range(ho):
                    ih = oh * sh - pt + i * dh
                    if ih < 0 or ih >= h:
                        continue
                    base = oh * wo
                    for ow in range(lo, hi):
                        dx[b, ci, uintp(ih), uintp(ow * sw + off)] += dcols[row, uintp(base + ow)]


@_jit
def im2col(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, cols):
    """cols[n] [C*kh*kw, Ho*Wo] = the columns of sample n (see _im2col_sample)."""
    for b in range(x.shape[0]):
        _im2col_sample(x, b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, cols[b])


@_jit
def col2im(dcols, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx):
    """The adjoint of im2col: dx (overwritten) = the sum of every column entry at its input position."""
    for b in range(dx.shape[0]):
        _col2im_sample(dcols[b], b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx)


# -- conv2d with numpy's BLAS called per sample (see runtime/cblas.py) --------------------------------------
# Each sample's columns are built in a small per-thread buffer (it stays in L2, unlike the whole
# batch's) and multiplied at once by single-threaded BLAS; the *_parallel twins run samples on
# numba's threads (prange), each with its own buffer. Twins are separate functions, not one
# compiled twice, so that numba's cache keeps each.


@_jit
def _at(a, offset):
    """The address of element ``offset`` of the contiguous array a (unsigned: numba would turn an
    unsigned address plus a signed offset into a float)."""
    return a.ctypes.data + uintp(offset * a.itemsize)


@_jit
def _conv_forward_sample(gemm, x, w, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, cols, out):
    c = x.shape[1]
    m, L = w.shape[0], ho * wo
    mg, kg = m // groups, (c // groups) * kh * kw
    if pointwise:
        src = _at(x, b * c * L)  # x[b] is its own [C, H*W] column matrix
    else:
        _im2col_sample(x, b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, cols)
        src = _at(cols, 0)
    step = uintp(kg * L * x.itemsize)
    for g in range(groups):
        gemm(
            101,
            111,
            111,
            mg,
            L,
            kg,
            1.0,
            _at(w, g * mg * kg),
            kg,
            src + uintp(g) * step,
            L,
            0.0,
            _at(out, (b * m + g * mg) * L),
            L,
        )


@_jit
def conv_forward(gemm, x, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, out, buf):
    """out [N, M, Ho, Wo] = conv2d(x, w): per sample, columns then one GEMM per group."""
    for b in range(x.shape[0]):
        _conv_forward_sample(gemm, x, w, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, buf[0], out)


@pjit
def conv_forward_parallel(gemm, x, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, out, buf):
    """conv_forward with the samples spread over numba's threads."""
    for b in prange(x.shape[0]):
        _conv_forward_sample(
            gemm, x, w, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, buf[numba.get_thread_id()], out
        )


@_jit
def _conv_filter_sample(gemm, x, dout, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, cols, dwt):
    c = x.shape[1]
    m, L = dout.shape[1], ho * wo
    mg, kg = m // groups, (c // groups) * kh * kw
    if pointwise:
        src = _at(x, b * c * L)
    else:
        _im2col_sample(x, b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, cols)
        src = _at(cols, 0)
    step = uintp(kg * L * x.itemsize)
    for g in range(groups):  # dwt[g] += dout[b, g] @ cols[g]^T
        gemm(
            101,
            111,
            112,
            mg,
            kg,
            L,
            1.0,
            _at(dout, (b * m + g * mg) * L),
            L,
            src + uintp(g) * step,
            L,
            1.0,
            _at(dwt, g * mg * kg),
            kg,
        )


@_jit
def conv_grad_filter(gemm, x, dout, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, parts, buf):
    """parts[c] [M, C/G*kh*kw] (zeroed by the caller) += the filter gradient of the c-th of
    ``len(parts)`` contiguous runs of samples, each summed in order; the caller adds the parts in
    order. The runs do not depend on the threads, so neither do the numbers."""
    n, chunks = x.shape[0], parts.shape[0]
    for c in range(chunks):
        for b in range(c * n // chunks, (c + 1) * n // chunks):
            _conv_filter_sample(
                gemm, x, dout, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, buf[0], parts[c]
            )


@pjit
def conv_grad_filter_parallel(gemm, x, dout, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, parts, buf):
    """conv_grad_filter with its runs of samples spread over numba's threads (buf: one columns
    buffer per thread); the same numbers as the serial loop."""
    n, chunks = x.shape[0], parts.shape[0]
    for c in prange(chunks):
        t = numba.get_thread_id()
        for b in range(c * n // chunks, (c + 1) * n // chunks):
            _conv_filter_sample(
                gemm, x, dout, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, buf[t], parts[c]
            )


@_jit
def zero_runs(parts):
    """parts [R, M, K] = 0: the filter gradient's runs before its loop adds into them."""
    flat = parts.reshape(parts.size)
    for i in range(flat.size):
        flat[i] = 0


@_jit
def sum_runs(parts, out):
    """out [M * K] = parts[0] + parts[1] + ... in that order for each element (numpy's add.reduce over the
    leading axis: the same bits), the filter gradient's runs summed."""
    runs, size = parts.shape[0], out.size
    flat = parts.reshape(runs, size)
    for k in range(size):
        out[k] = flat[0, k]
    for r in range(1, runs):
        for k in range(size):
            out[k] += flat[r, k]


@_jit
def _conv_input_sample(gemm, dout, w, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, dcols, dx):
    c = dx.shape[1]
    m, L = w.shape[0], ho * wo
    mg, kg = m // groups, (c // groups) * kh * kw
    dst = _at(dx, b * c * L) if pointwise else _at(dcols, 0)
    step = uintp(kg * L * dx.itemsize)
    for g in range(groups):  # columns[g] = w[g]^T @ dout[b, g]
        gemm(
            101,
            112,
            111,
            kg,
            L,
            mg,
            1.0,
            _at(w, g * mg * kg),
            kg,
            _at(dout, (b * m + g * mg) * L),
            L,
            0.0,
            dst + uintp(g) * step,
            L,
        )
    if not pointwise:
        _col2im_sample(dcols, b, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx)


@_jit
def conv_grad_input(gemm, dout, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, dx, buf):
    """dx [N, C, H, W] (overwritten) = the input gradient: per sample, one GEMM per group then col2im."""
    for b in range(dx.shape[0]):
        _conv_input_sample(gemm, dout, w, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, buf[0], dx)


@pjit
def conv_grad_input_parallel(gemm, dout, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, dx, buf):
    """conv_grad_input with the samples spread over numba's threads."""
    for b in prange(dx.shape[0]):
        _conv_input_sample(
            gemm, dout, w, b, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, buf[numba.get_thread_id()], dx
        )
