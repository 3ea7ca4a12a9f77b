"""numba loops of conv2d's Winograd path (imported on first use: see runtime/loops.py; when it applies, the
filter's transforms and the calls are in _winograd.py).

Winograd's F(2x2, 3x3) computes a 3x3 stride-1 convolution by 2x2 output tiles: each 4x4 input
window d becomes V = B^T d B, each filter g becomes U = G g G^T, and a tile's output is A^T P A
where P, for each of the 16 positions xi = 4r + s of the tile, is the sum over the input channels
of U[xi] V[xi]: one GEMM [M, C] x [C, tiles] per position. That is 16 multiply-adds per 4 outputs
and input channel instead of im2col's 36, and the input is read into 4 values per element instead
of 9 columns. The filter gradient is the adjoint: dU[xi] = sum over the tiles of (A dy A^T)[xi]
V[xi]^T, then dW = G^T dU G.

Layout, per sample and channel: the padded plane is split into its four (row, column) parity
planes of [th + 1, tw + 1], so that every value of the window of tile p = ty (tw + 1) + tx lies at
p + a constant offset in one of them. Each transform is then two long unit-stride passes (rows,
then columns), which LLVM vectorises; the tiles of the last column (tx = tw) are padding, computed
and thrown away (their share of the GEMMs: 1 / (tw + 1)). Measured in docs/PERFORMANCE.md.

Per sample, as the im2col loops in _conv_loops.py: a thread's buffers stay in L2, its GEMMs call
numpy's BLAS single-threaded (runtime/cblas.py), the ``*_parallel`` twins spread the samples (the filter
gradient: fixed runs of samples) over numba's threads and compute the same bits. Each transform
adds or subtracts two terms at a time in a fixed order, which _conv_replicas.py repeats in numpy.
"""

import numba
from numba import prange, uintp

from ._conv_loops import _at, _jit, pjit


@_jit
def _split(x, b, ci, pt, pl, rows, w1, planes):
    """planes[2 rp + cp, r w1 + j] = x[b, ci, 2r + rp - pt, 2j + cp - pl] for r < rows, j < w1
    (0 outside x)."""
    h, w = x.shape[2], x.shape[3]
    bb, cc = uintp(b), uintp(ci)
    for rp in range(2):
        for r in range(rows):
            ih = 2 * r + rp - pt
            for cp in range(2):
                q, row = uintp(2 * rp + cp), uintp(r * w1)
                lo = min(max((pl - cp + 1) // 2, 0), w1)  # 0 <= 2j + cp - pl < w
                hi = min(max((w + pl - cp + 1) // 2, lo), w1)
                if ih < 0 or ih >= h:
                    lo = hi = w1
                for j in range(lo):
                    planes[q, row + uintp(j)] = 0
                for j in range(lo, hi):
                    planes[q, row + uintp(j)] = x[bb, cc, uintp(ih), uintp(2 * j + cp - pl)]
                for j in range(hi, w1):
                    planes[q, row + uintp(j)] = 0


@_jit
def _input_transform(x, b, pt, pl, th, planes, t, v):
    """v[4r + s, c, p] = (B^T d B)[r, s] for the window d of tile p at rows 2ty - pt, columns
    2tx - pl of x[b, c]; B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]."""
    n = v.shape[2]
    w1 = n // th
    for ci in range(x.shape[1]):
        _split(x, b, ci, pt, pl, th + 1, w1, planes)  # (its last element stays 0: _winograd.buffers)
        for cp in range(2):  # rows: t[2k + cp] = (B^T d)[k] over the columns of parity cp
            for i in range(n + 1):
                p = uintp(i)
                d0, d1, d2, d3 = planes[cp, p], planes[2 + cp, p], planes[cp, p + w1], planes[2 + cp, p + w1]
                t[cp, p] = d0 - d2
                t[2 + cp, p] = d1 + d2
                t[4 + cp, p] = d2 - d1
                t[6 + cp, p] = d1 - d3
        c = uintp(ci)
        for k in range(4):  # columns: v[4k + s] = (t[k] B)[s]
            r, e = uintp(4 * k), uintp(2 * k)
            for i in range(n):
                p = uintp(i)
                a0, a1, a2, a3 = t[e, p], t[e + 1, p], t[e, p + 1], t[e + 1, p + 1]
                v[r, c, p] = a0 - a2
                v[r + 1, c, p] = a1 + a2
                v[r + 2, c, p] = a2 - a1
                v[r + 3, c, p] = a1 - a3


@_jit
def _output_transform(mm, b, th, u, y, out):
    """out[b, m, 2ty + a, 2tx + f] = (A^T P A)[a, f] for the products P = mm[:, m, p] of tile p
    (A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]); rows and columns past the output's are left out.
    Buffers: u [8, tiles] (the row pass), y [4, tiles] (the four output parities)."""
    ho, wo = out.shape[2], out.shape[3]
    n = mm.shape[2]
    w1 = n // th
    for m in range(out.shape[1]):
        for s in range(4):  # rows: u[2s + a] = (A^T P)[a] in column s
            for i in range(n):
                p = uintp(i)
                p0, p1, p2, p3 = mm[s, m, p], mm[4 + s, m, p], mm[8 + s, m, p], mm[12 + s, m, p]
                u[2 * s, p] = p0 + p1 + p2
                u[2 * s + 1, p] = p1 - p2 - p3
        for a in range(2):  # columns: y[2a + f] = (u_a A)[f]
            for i in range(n):
                p = uintp(i)
                q0, q1, q2, q3 = u[a, p], u[2 + a, p], u[4 + a, p], u[6 + a, p]
                y[2 * a, p] = q0 + q1 + q2
                y[2 * a + 1, p] = q1 - q2 - q3
        for oh in range(ho):
            a, row = oh % 2, uintp((oh // 2) * w1)
            for j in range(wo // 2):
                out[b, m, oh, uintp(2 * j)] = y[2 * a, row + uintp(j)]
                out[b, m, oh, uintp(2 * j + 1)] = y[2 * a + 1, row + uintp(j)]
            if wo % 2:
                out[b, m, oh, wo - 1] = y[2 * a, row + uintp(wo // 2)]


@_jit
def _output_adjoint(dout, b, th, planes, z, dm):
    """dm[4r + s, m, p] = (A dy A^T)[r, s] for the 2x2 tile dy of dout[b, m] at (2ty, 2tx) (0
    outside): the adjoint of _output_transform (A = [[1, 0], [1, 1], [1, -1], [0, -1]])."""
    n = dm.shape[2]
    for m in range(dout.shape[1]):
        _split(dout, b, m, 0, 0, th, n // th, planes)
        for f in range(2):  # rows: z[2r + f] = (A dy)[r] in the columns of parity f
            for i in range(n):
                p = uintp(i)
                y0, y1 = planes[f, p], planes[2 + f, p]
                z[f, p] = y0
                z[2 + f, p] = y0 + y1
                z[4 + f, p] = y0 - y1
                z[6 + f, p] = -y1
        for r in range(4):  # columns: dm[4r + s] = (z_r A^T)[s]
            e = uintp(2 * r)
            for i in range(n):
                p = uintp(i)
                q0, q1 = z[e, p], z[e + 1, p]
                dm[4 * r, m, p] = q0
                dm[4 * r + 1, m, p] = q0 + q1
                dm[4 * r + 2, m, p] = q0 - q1
                dm[4 * r + 3, m, p] = -q1


@_jit
def _forward_sample(gemm, x, u, b, pt, pl, th, planes, t, v, mm, out):
    m, c, n = u.shape[1], u.shape[2], v.shape[2]
    _input_transform(x, b, pt, pl, th, planes, t, v)
    for xi in range(16):  # mm[xi] [M, tiles] = u[xi] [M, C] @ v[xi] [C, tiles]
        gemm(101, 111, 111, m, n, c, 1.0, _at(u, xi * m * c), c, _at(v, xi * c * n), n, 0.0, _at(mm, xi * m * n), n)
    _output_transform(mm, b, th, t, planes, out)


@_jit
def forward(gemm, x, u, pt, pl, th, out, planes, t, v, mm):
    """out [N, M, Ho, Wo] = the 3x3 stride-1 convolution of x [N, C, H, W] whose transformed filter
    is u [16, M, C], paddings pt (top) and pl (left), in th rows of tiles. Buffers, one per thread:
    planes [par, 4, (th + 1)(tw + 1) + 1], t [par, 8, th (tw + 1) + 1], v [par, 16, C, th (tw + 1)],
    mm [par, 16, M, th (tw + 1)]."""
    for b in range(x.shape[0]):
        _forward_sample(gemm, x, u, b, pt, pl, th, planes[0], t[0], v[0], mm[0], out)


@pjit
def forward_parallel(gemm, x, u, pt, pl, th, out, planes, t, v, mm):
    """forward with the samples spread over numba's threads."""
    for b in prange(x.shape[0]):
        i = numba.get_thread_id()
        _forward_sample(gemm, x, u, b, pt, pl, th, planes[i], t[i], v[i], mm[i], out)


@_jit
def _filter_sample(gemm, x, dout, b, pt, pl, th, planes, t, v, dm, du):
    m, c, n = dout.shape[1], x.shape[1], v.shape[2]
    _input_transform(x, b, pt, pl, th, planes, t, v)
    _output_adjoint(dout, b, th, planes, t, dm)
    for xi in range(16):  # du[xi] [M, C] += dm[xi] [M, tiles] @ v[xi]^T
        gemm(101, 111, 112, m, c, n, 1.0, _at(dm, xi * m * n), n, _at(v, xi * c * n), n, 1.0, _at(du, xi * m * c), c)


@_jit
def grad_filter(gemm, x, dout, pt, pl, th, parts, planes, t, v, dm):
    """parts[r] [16, M, C] (zeroed by the caller) += the transformed filter gradient of the r-th of
    ``len(parts)`` contiguous runs of samples, each summed in order (the caller adds the runs in
    order, then transforms back): the numbers do not depend on the threads."""
    n, runs = x.shape[0], parts.shape[0]
    for r in range(runs):
        for b in range(r * n // runs, (r + 1) * n // runs):
            _filter_sample(gemm, x, dout, b, pt, pl, th, planes[0], t[0], v[0], dm[0], parts[r])


@pjit
def grad_filter_parallel(gemm, x, dout, pt, pl, th, parts, planes, t, v, dm):
    """grad_filter with its runs spread over numba's threads; the same numbers."""
    n, runs = x.shape[0], parts.shape[0]
    for r in prange(runs):
        i = numba.get_thread_id()
        for b in range(r * n // runs, (r + 1) * n // runs):
            _filter_sample(gemm, x, dout, b, pt, pl, th, planes[i], t[i], v[i], dm[i], parts[r])
