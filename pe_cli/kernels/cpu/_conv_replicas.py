"""numpy replicas of the convolution loops (_conv_loops.py, _wide_loops.py, _winograd_loops.py), for
a first run on a machine: as _replicas.py (its docstring has the rules), the same arguments and
outputs to the bit, calling the same CBLAS GEMM with the same arguments through ctypes around
columns built by exact copies (tests/kernels/test_replicas.py)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..common import pad
from ._replicas import quiet


# -- conv2d, per sample, with numpy's BLAS (_conv_loops.py) --------------------------------------------


def _extent(h, w, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo):
    """(rows, columns) of the input padded at the top and left, grown to what every window reaches."""
    return max(h + pt, (ho - 1) * sh + (kh - 1) * dh + 1), max(w + pl, (wo - 1) * sw + (kw - 1) * dw + 1)


def _columns(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo):
    """[N, C*kh*kw, Ho*Wo]: every sample's columns, as _im2col_sample builds them (copies, 0 outside)."""
    n, c, h, w = x.shape
    xp = pad(x, (pt, 0, pl, 0), 0, extent=_extent(h, w, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo))
    s0, s1, s2, s3 = xp.strides
    view = as_strided(xp, (n, c, kh, kw, ho, wo), (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw), writeable=False)
    return np.ascontiguousarray(view).reshape(n, c * kh * kw, ho * wo)


def _col2im(dcols, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx):
    """dx (overwritten) = the sum of every column entry at its input position, added from 0 in the
    loop's order (each (i, j) reaches an input element at most once)."""
    n, c, h, w = dx.shape
    acc = np.zeros((n, c) + _extent(h, w, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo), dtype=dx.dtype)
    dc = dcols.reshape(n, c, kh, kw, ho, wo)
    for i in range(kh):
        for j in range(kw):
            acc[:, :, i * dh : i * dh + (ho - 1) * sh + 1 : sh, j * dw : j * dw + (wo - 1) * sw + 1 : sw] += dc[
                :, :, i, j
            ]
    dx[...] = acc[:, :, pt : pt + h, pl : pl + w]


def _geometry(c, m, groups, kh, kw, ho, wo):
    return m // groups, (c // groups) * kh * kw, ho * wo  # mg, kg, L


@quiet
def conv_forward(gemm, x, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, out, buf):
    n, c = x.shape[0], x.shape[1]
    m = w.shape[0]
    mg, kg, L = _geometry(c, m, groups, kh, kw, ho, wo)
    src = x.reshape(n, c, -1) if pointwise else _columns(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo)
    size, rows = x.itemsize, src.shape[1]
    for b in range(n):
        for g in range(groups):
            gemm(
                101,
                111,
                111,
                mg,
                L,
                kg,
                1.0,
                w.ctypes.data + g * mg * kg * size,
                kg,
                src.ctypes.data + (b * rows * L + g * kg * L) * size,
                L,
                0.0,
                out.ctypes.data + (b * m + g * mg) * L * size,
                L,
            )


@quiet
def conv_grad_filter(gemm, x, dout, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, parts, buf):
    n, c = x.shape[0], x.shape[1]
    m, chunks = dout.shape[1], parts.shape[0]
    mg, kg, L = _geometry(c, m, groups, kh, kw, ho, wo)
    src = x.reshape(n, c, -1) if pointwise else _columns(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo)
    size, rows = x.itemsize, src.shape[1]
    for ch in range(chunks):
        for b in range(ch * n // chunks, (ch + 1) * n // chunks):
            for g in range(groups):
                gemm(
                    101,
                    111,
                    112,
                    mg,
                    kg,
                    L,
                    1.0,
                    dout.ctypes.data + (b * m + g * mg) * L * size,
                    L,
                    src.ctypes.data + (b * rows * L + g * kg * L) * size,
                    L,
                    1.0,
                    parts.ctypes.data + (ch * m * kg + g * mg * kg) * size,
                    kg,
                )


@quiet
def conv_grad_input(gemm, dout, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, dx, buf):
    n, c = dx.shape[0], dx.shape[1]
    m = w.shape[0]
    mg, kg, L = _geometry(c, m, groups, kh, kw, ho, wo)
    dcols = dx if pointwise else np.empty((n, c * kh * kw, L), dtype=dx.dtype)
    size, rows = dx.itemsize, c * (1 if pointwise else kh * kw)
    for b in range(n):
        for g in range(groups):
            gemm(
                101,
                112,
                111,
                kg,
                L,
                mg,
                1.0,
                w.ctypes.data + g * mg * kg * size,
                kg,
                dout.ctypes.data + (b * m + g * mg) * L * size,
                L,
                0.0,
                dcols.ctypes.data + (b * rows * L + g * kg * L) * size,
                L,
            )
    if not pointwise:
        _col2im(dcols, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx)


# -- conv2d's wide-columns path (_wide_loops.py) -----------------------------------------------------


def _wide_planes(x, kh, kw, pt, pl, ho, wo):
    """[N, C*Hp*Wp + kw]: every sample padded as _wide_loops._pad_sample pads it, and Wp."""
    n, c, h, w = x.shape
    hp, wp = ho + kh - 1, wo + kw - 1
    t = np.zeros((n, c * hp * wp + kw), dtype=x.dtype)
    rows, cols = min(h, hp - pt), min(w, wp - pl)
    t[:, : c * hp * wp].reshape(n, c, hp, wp)[:, :, pt : pt + rows, pl : pl + cols] = x[:, :, :rows, :cols]
    return t, wp


def _wide_runs(t, c, kh, kw, ho, wp):
    """A view [N, C, kh, kw, Ho*Wp] of the planes t: row (c, i, j) is the run from c*Hp*Wp + i*Wp + j."""
    size = t.itemsize
    hp = ho + kh - 1
    return as_strided(t, (t.shape[0], c, kh, kw, ho * wp), (t.strides[0], hp * wp * size, wp * size, size, size))


def _widened(dout, wp):
    n, m, ho, wo = dout.shape
    wide = np.zeros((n, m, ho, wp), dtype=dout.dtype)
    wide[..., :wo] = dout
    return wide.reshape(n, m, ho * wp)


@quiet
def wide_forward(gemm, x, w, groups, kh, kw, pt, pl, ho, wo, out, buf):
    n, c = x.shape[0], x.shape[1]
    m = w.shape[0]
    mg, kg = m // groups, (c // groups) * kh * kw
    t, wp = _wide_planes(x, kh, kw, pt, pl, ho, wo)
    lw, size = ho * wp, x.itemsize
    cols = np.ascontiguousarray(_wide_runs(t, c, kh, kw, ho, wp)).reshape(n, c * kh * kw, lw)
    wide = np.empty((m, lw), dtype=x.dtype)
    for b in range(n):
        for g in range(groups):
            gemm(
                101,
                111,
                111,
                mg,
                lw,
                kg,
                1.0,
                w.ctypes.data + g * mg * kg * size,
                kg,
                cols.ctypes.data + (b * c * kh * kw + g * kg) * lw * size,
                lw,
                0.0,
                wide.ctypes.data + g * mg * lw * size,
                lw,
            )
        out[b] = wide.reshape(m, ho, wp)[:, :, :wo]


@quiet
def wide_grad_filter(gemm, x, dout, groups, kh, kw, pt, pl, ho, wo, parts, buf):
    n, c = x.shape[0], x.shape[1]
    m, chunks = dout.shape[1], parts.shape[0]
    mg, kg = m // groups, (c // groups) * kh * kw
    t, wp = _wide_planes(x, kh, kw, pt, pl, ho, wo)
    lw, size = ho * wp, x.itemsize
    cols = np.ascontiguousarray(_wide_runs(t, c, kh, kw, ho, wp)).reshape(n, c * kh * kw, lw)
    wide = _widened(dout, wp)
    for ch in range(chunks):
        for b in range(ch * n // chunks, (ch + 1) * n // chunks):
            for g in range(groups):
                gemm(
                    101,
                    111,
                    112,
                    mg,
                    kg,
                    lw,
                    1.0,
                    wide.ctypes.data + (b * m + g * mg) * lw * size,
                    lw,
                    cols.ctypes.data + (b * c * kh * kw + g * kg) * lw * size,
                    lw,
                    1.0,
                    parts.ctypes.data + (ch * m * kg + g * mg * kg) * size,
                    kg,
                )


@quiet
def wide_grad_input(gemm, dout, w, groups, kh, kw, pt, pl, ho, wo, dx, buf):
    n, c, h, wd = dx.shape
    m = w.shape[0]
    mg, kg = m // groups, (c // groups) * kh * kw
    hp, wp = ho + kh - 1, wo + kw - 1
    lw, size = ho * wp, dx.itemsize
    wide = _widened(dout, wp)
    dcols = np.empty((n, c * kh * kw, lw), dtype=dx.dtype)
    for b in range(n):
        for g in range(groups):
            gemm(
                101,
                112,
                111,
                kg,
                lw,
                mg,
                1.0,
                w.ctypes.data + g * mg * kg * size,
                kg,
                wide.ctypes.data + (b * m + g * mg) * lw * size,
                lw,
                0.0,
                dcols.ctypes.data + (b * c * kh * kw + g * kg) * lw * size,
                lw,
            )
    t = np.zeros((n, c * hp * wp + kw), dtype=dx.dtype)
    runs = _wide_runs(t, c, kh, kw, ho, wp)
    dcols = dcols.reshape(n, c, kh, kw, lw)
    for i in range(kh):  # each element's terms in the loop's (i, j) order; a run never
        for j in range(kw):  # reaches into the next plane but with its zero columns
            view = as_strided(t[:, i * wp + j :], (n, c, lw), runs.strides[:2] + runs.strides[4:], writeable=True)
            view += dcols[:, :, i, j]
    rows, cols = min(h, hp - pt), min(wd, wp - pl)
    dx[...] = 0
    dx[:, :, :rows, :cols] = t[:, : c * hp * wp].reshape(n, c, hp, wp)[:, :, pt : pt + rows, pl : pl + cols]


# -- conv2d's Winograd path (_winograd_loops.py) -----------------------------------------------------
# The same bits as the loops, but for which NaN an add of two NaNs passes on: x86 passes on its first
# operand's, and LLVM may swap the operands of an add.


def _parity_planes(x, pt, pl, rows, w1):
    """[N, C, 4, rows w1]: plane 2 rp + cp holds x[:, :, 2r + rp - pt, 2j + cp - pl] at r w1 + j (0 outside)."""
    n, c, h, w = x.shape
    xp = np.zeros((n, c, 2 * rows, 2 * w1), dtype=x.dtype)
    r1, c1 = min(pt + h, 2 * rows), min(pl + w, 2 * w1)
    xp[:, :, pt:r1, pl:c1] = x[:, :, : r1 - pt, : c1 - pl]
    return xp.reshape(n, c, rows, 2, w1, 2).transpose(0, 1, 3, 5, 2, 4).reshape(n, c, 4, rows * w1)


def _winograd_input(x, pt, pl, th, w1):
    """V [N, 16, C, th w1], as _winograd_loops._input_transform: rows, then columns."""
    n = th * w1
    p = _parity_planes(x, pt, pl, th + 1, w1)
    p = np.concatenate([p, np.zeros(p.shape[:3] + (1,), dtype=x.dtype)], axis=3)
    t = [None] * 8
    for cp in range(2):
        d0, d1 = p[:, :, cp, : n + 1], p[:, :, 2 + cp, : n + 1]
        d2, d3 = p[:, :, cp, w1 : w1 + n + 1], p[:, :, 2 + cp, w1 : w1 + n + 1]
        t[cp], t[2 + cp], t[4 + cp], t[6 + cp] = d0 - d2, d1 + d2, d2 - d1, d1 - d3
    v = []
    for k in range(4):
        a0, a1, a2, a3 = t[2 * k][..., :n], t[2 * k + 1][..., :n], t[2 * k][..., 1:], t[2 * k + 1][..., 1:]
        v += [a0 - a2, a1 + a2, a2 - a1, a1 - a3]
    return np.ascontiguousarray(np.stack(v, axis=1))


@quiet
def winograd_forward(gemm, x, u, pt, pl, th, out, planes, t, v, mm):
    nb, m, c = x.shape[0], u.shape[1], u.shape[2]
    ho, wo = out.shape[2], out.shape[3]
    w1 = v.shape[3] // th
    n, size = th * w1, x.itemsize
    vs, prods = _winograd_input(x, pt, pl, th, w1), np.empty((nb, 16, m, th * w1), dtype=x.dtype)
    for b in range(nb):
        for xi in range(16):
            gemm(
                101,
                111,
                111,
                m,
                n,
                c,
                1.0,
                u.ctypes.data + xi * m * c * size,
                c,
                vs.ctypes.data + (b * 16 + xi) * c * n * size,
                n,
                0.0,
                prods.ctypes.data + (b * 16 + xi) * m * n * size,
                n,
            )
    rows = [None] * 8
    for s in range(4):
        p0, p1, p2, p3 = prods[:, s], prods[:, 4 + s], prods[:, 8 + s], prods[:, 12 + s]
        rows[2 * s], rows[2 * s + 1] = p0 + p1 + p2, p1 - p2 - p3
    y = []
    for a in range(2):
        q0, q1, q2, q3 = rows[a], rows[2 + a], rows[4 + a], rows[6 + a]
        y += [q0 + q1 + q2, q1 - q2 - q3]
    y = np.stack(y, axis=2).reshape(nb, m, 2, 2, th, w1).transpose(0, 1, 4, 2, 5, 3)
    out[...] = y.reshape(nb, m, 2 * th, 2 * w1)[:, :, :ho, :wo]


@quiet
def winograd_grad_filter(gemm, x, dout, pt, pl, th, parts, planes, t, v, dm):
    nb, c, m = x.shape[0], x.shape[1], dout.shape[1]
    w1, runs = v.shape[3] // th, parts.shape[0]
    n, size = th * w1, x.itemsize
    vs = _winograd_input(x, pt, pl, th, w1)
    d = _parity_planes(dout, 0, 0, th, w1)
    z = [None] * 8
    for f in range(2):
        y0, y1 = d[:, :, f], d[:, :, 2 + f]
        z[f], z[2 + f], z[4 + f], z[6 + f] = y0, y0 + y1, y0 - y1, -y1
    dms = []
    for r in range(4):
        q0, q1 = z[2 * r], z[2 * r + 1]
        dms += [q0, q0 + q1, q0 - q1, -q1]
    dms = np.ascontiguousarray(np.stack(dms, axis=1))
    for ch in range(runs):
        for b in range(ch * nb // runs, (ch + 1) * nb // runs):
            for xi in range(16):
                gemm(
                    101,
                    111,
                    112,
                    m,
                    c,
                    n,
                    1.0,
                    dms.ctypes.data + (b * 16 + xi) * m * n * size,
                    n,
                    vs.ctypes.data + (b * 16 + xi) * c * n * size,
                    n,
                    1.0,
                    parts.ctypes.data + (ch * 16 + xi) * m * c * size,
                    c,
                )
