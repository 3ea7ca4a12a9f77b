"""numpy replicas of the hot numba loops, for a first run on a machine: the same arguments, the same
outputs, to the bit (tests/kernels/test_replicas.py), so that a run's numbers never depend on
whether a loop was compiled yet. A kernel runs one (``_numba.loop_or``) only while a helper process
compiles its loop (_helper.py); a step takes a few times longer with them, none waits for numba.

Each replica does the loop's arithmetic in the loop's order: elementwise expressions in the arrays'
dtype; sums in float64 from 0.0 in the loop's sequence (numpy reduces a non-innermost axis in index
order, so ``initial=0.0`` reductions over a leading axis are sequential); the convolutions call the
same CBLAS GEMM with the same arguments through ctypes, around columns built by exact copies; the
max's NaN and first-hit rules as written in the loops.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import _conv

_quiet = np.errstate(all="ignore")      # the loops make inf and NaN silently: so do their replicas

# -- pointwise (_pointwise_loops.py) ------------------------------------------------------------------


# relu and its gradient as two vectorised passes, not np.where: np.where branches on each element,
# and on a mask of random signs it took 110 us for 32,768 float32 values (3.4 ns each, mispredicted
# branches) where these take 9 (2026-11-25, the Xeon VM)

@_quiet
def relu(x, out):
    """max(x, 0) keeps NaN and x > 0 and gives -0.0 for -0.0; + 0.0 then makes that +0.0, as the loop."""
    zero = x.dtype.type(0)
    np.maximum(x, zero, out=out)
    np.add(out, zero, out=out)


@_quiet
def relu_grad(out, dout, dx):
    """dout * 1 where out > 0 (dout to the bit), dout * 0 elsewhere: the loop's two cases."""
    np.multiply(dout, out > 0, out=dx)


@_quiet
def add_relu(x, y, inter, out, parts):
    """_fused_loops.add_relu: numpy's add, then relu."""
    np.add(x, y, out=inter)
    relu(inter, out)


@_quiet
def add_mid(x, y, out):
    np.add(x, y[:, None], out=out)


@_quiet
def sum_outer(d, dy):
    pre, n, post = d.shape
    acc = np.add.reduce(d.reshape(pre, n * post).astype(np.float64), axis=0, initial=0.0)   # row by row
    a = acc.reshape(n, post)
    body = post - post % 8
    s = np.add.reduce(a[:, :body].reshape(n, body // 8, 8), axis=1, initial=0.0)               # [n, 8]
    for q in range(body, post):
        s[:, 0] += a[:, q]
    dy[:] = ((s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])) + ((s[:, 4] + s[:, 5]) + (s[:, 6] + s[:, 7]))


@_quiet
def momentum(p, g, v, lr, mu, nesterov, p_out, v_out):
    vo = v * mu + g
    v_out[:] = vo
    p_out[:] = p - (g + vo * mu) * lr if nesterov else p - lr * vo


@_quiet
def sgd(p, g, lr, p_out):
    p_out[:] = p - lr * g


def momentum_in_place(p, g, v, lr, mu, nesterov):
    momentum(p, g, v, lr, mu, nesterov, p, v)      # each value computed whole, then stored


def sgd_in_place(p, g, lr):
    sgd(p, g, lr, p)


# -- the split GEMMs and their epilogue (_blas_loops.py): the same CBLAS calls on the same blocks ------

@_quiet
def epilogue(block, bias, gate, act):
    """A block of c (a view): + bias (its columns), then relu or relu's gradient, as the loop (also
    math.matmul2d's, after a GEMM too small to split)."""
    if bias.size:
        np.add(block, bias, out=block)
    if act == 1:
        relu(block, block)
    elif act == 2:
        relu_grad(gate, block, block)


def epilogue_rect(c, i0, i1, j0, j1, bias, gate, act):
    """_blas_loops._epilogue: rows i0:i1, columns j0:j1 of c."""
    epilogue(c[i0:i1, j0:j1], bias[j0:j1] if bias.size else bias, gate[i0:i1, j0:j1] if act == 2 else gate, act)


def gemm_blocks(gemm, trans_a, trans_b, a, b, c, bias, gate, act, parts, by_cols):
    m, n = c.shape
    k = a.shape[0] if trans_a == 112 else a.shape[1]
    lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
    span = n if by_cols else m
    for p in range(parts):
        s0, s1 = span * p // parts, span * (p + 1) // parts
        if s1 <= s0:
            continue
        if by_cols:
            first = s0 if trans_b == 111 else s0 * ldb
            gemm(101, trans_a, trans_b, m, s1 - s0, k, 1.0, a.ctypes.data, lda, b.ctypes.data + first * size, ldb,
                 0.0, c.ctypes.data + s0 * size, n)
            epilogue(c[:, s0:s1], bias[s0:s1], gate[:, s0:s1] if act == 2 else gate, act)
        else:
            first = s0 * lda if trans_a == 111 else s0
            gemm(101, trans_a, trans_b, s1 - s0, n, k, 1.0, a.ctypes.data + first * size, lda, b.ctypes.data, ldb,
                 0.0, c.ctypes.data + s0 * n * size, n)
            epilogue(c[s0:s1], bias, gate[s0:s1] if act == 2 else gate, act)


def gemm_k_blocks(gemm, trans_a, trans_b, a, b, c, partial, bias, gate, act, parts):
    """The partial products of the blocks of k, then c = P0 + P1 + ... in that order."""
    m, n = c.shape
    k = a.shape[0] if trans_a == 112 else a.shape[1]
    lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
    for p in range(parts):
        k0, k1 = k * p // parts, k * (p + 1) // parts
        first_a = k0 if trans_a == 111 else k0 * lda
        first_b = k0 * ldb if trans_b == 111 else k0
        gemm(101, trans_a, trans_b, m, n, k1 - k0, 1.0, a.ctypes.data + first_a * size, lda,
             b.ctypes.data + first_b * size, ldb, 0.0, partial[p].ctypes.data, n)
    np.copyto(c, partial[0])
    for q in range(1, parts):
        np.add(c, partial[q], out=c)
    epilogue(c, bias, gate, act)


# -- max pooling, 2x2 windows at stride 2 (_pool_loops.py) -------------------------------------------

def _corners(a, ho, wo):
    return [a[:, :, i:2 * ho:2, j:2 * wo:2] for i in (0, 1) for j in (0, 1)]


@_quiet
def max_pool_2x2(x, ho, wo, out):
    m = np.full(out.shape, -np.inf, dtype=x.dtype)
    for v in _corners(x, ho, wo):
        m = np.where((v > m) | (v != v), v, m)
    out[...] = m


@_quiet
def max_pool_2x2_grad(x, out, dout, dx):
    """The first element of each window equal to its maximum takes the gradient: hit = (v == max)
    times what the earlier elements left, as the loop's arithmetic masks."""
    ho, wo = out.shape[2], out.shape[3]
    dx[...] = 0
    left = np.ones(out.shape, dtype=dx.dtype)
    for v, d in zip(_corners(x, ho, wo), _corners(dx, ho, wo)):
        hit = (v == out).astype(dx.dtype) * left
        left = left - hit
        d[...] = dout * hit


# -- conv2d, per sample, with numpy's BLAS (_nn_loops.py) --------------------------------------------

def _extent(h, w, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo):
    """(rows, columns) of the input padded at the top and left, grown to what every window reaches."""
    return max(h + pt, (ho - 1) * sh + (kh - 1) * dh + 1), max(w + pl, (wo - 1) * sw + (kw - 1) * dw + 1)


def _columns(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo):
    """[N, C*kh*kw, Ho*Wo]: every sample's columns, as _im2col_sample builds them (copies, 0 outside)."""
    n, c, h, w = x.shape
    xp = _conv.pad(x, (pt, 0, pl, 0), 0, extent=_extent(h, w, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo))
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
            acc[:, :, i * dh:i * dh + (ho - 1) * sh + 1:sh, j * dw:j * dw + (wo - 1) * sw + 1:sw] += dc[:, :, i, j]
    dx[...] = acc[:, :, pt:pt + h, pl:pl + w]


def _geometry(c, m, groups, kh, kw, ho, wo):
    return m // groups, (c // groups) * kh * kw, ho * wo       # mg, kg, L


@_quiet
def conv_forward(gemm, x, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, out, buf):
    n, c = x.shape[0], x.shape[1]
    m = w.shape[0]
    mg, kg, L = _geometry(c, m, groups, kh, kw, ho, wo)
    src = x.reshape(n, c, -1) if pointwise else _columns(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo)
    size, rows = x.itemsize, src.shape[1]
    for b in range(n):
        for g in range(groups):
            gemm(101, 111, 111, mg, L, kg, 1.0, w.ctypes.data + g * mg * kg * size, kg,
                 src.ctypes.data + (b * rows * L + g * kg * L) * size, L, 0.0,
                 out.ctypes.data + (b * m + g * mg) * L * size, L)


@_quiet
def conv_grad_filter(gemm, x, dout, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, parts, buf):
    n, c = x.shape[0], x.shape[1]
    m, chunks = dout.shape[1], parts.shape[0]
    mg, kg, L = _geometry(c, m, groups, kh, kw, ho, wo)
    src = x.reshape(n, c, -1) if pointwise else _columns(x, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo)
    size, rows = x.itemsize, src.shape[1]
    for ch in range(chunks):
        for b in range(ch * n // chunks, (ch + 1) * n // chunks):
            for g in range(groups):
                gemm(101, 111, 112, mg, kg, L, 1.0, dout.ctypes.data + (b * m + g * mg) * L * size, L,
                     src.ctypes.data + (b * rows * L + g * kg * L) * size, L, 1.0,
                     parts.ctypes.data + (ch * m * kg + g * mg * kg) * size, kg)


@_quiet
def conv_grad_input(gemm, dout, w, groups, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, pointwise, dx, buf):
    n, c = dx.shape[0], dx.shape[1]
    m = w.shape[0]
    mg, kg, L = _geometry(c, m, groups, kh, kw, ho, wo)
    dcols = dx if pointwise else np.empty((n, c * kh * kw, L), dtype=dx.dtype)
    size, rows = dx.itemsize, c * (1 if pointwise else kh * kw)
    for b in range(n):
        for g in range(groups):
            gemm(101, 112, 111, kg, L, mg, 1.0, w.ctypes.data + g * mg * kg * size, kg,
                 dout.ctypes.data + (b * m + g * mg) * L * size, L, 0.0,
                 dcols.ctypes.data + (b * rows * L + g * kg * L) * size, L)
    if not pointwise:
        _col2im(dcols, kh, kw, sh, sw, pt, pl, dh, dw, ho, wo, dx)


# -- conv2d's wide-columns path (_wide_loops.py) -----------------------------------------------------

def _wide_planes(x, kh, kw, pt, pl, ho, wo):
    """[N, C*Hp*Wp + kw]: every sample padded as _wide_loops._pad_sample pads it, and Wp."""
    n, c, h, w = x.shape
    hp, wp = ho + kh - 1, wo + kw - 1
    t = np.zeros((n, c * hp * wp + kw), dtype=x.dtype)
    rows, cols = min(h, hp - pt), min(w, wp - pl)
    t[:, :c * hp * wp].reshape(n, c, hp, wp)[:, :, pt:pt + rows, pl:pl + cols] = x[:, :, :rows, :cols]
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


@_quiet
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
            gemm(101, 111, 111, mg, lw, kg, 1.0, w.ctypes.data + g * mg * kg * size, kg,
                 cols.ctypes.data + (b * c * kh * kw + g * kg) * lw * size, lw, 0.0,
                 wide.ctypes.data + g * mg * lw * size, lw)
        out[b] = wide.reshape(m, ho, wp)[:, :, :wo]


@_quiet
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
                gemm(101, 111, 112, mg, kg, lw, 1.0, wide.ctypes.data + (b * m + g * mg) * lw * size, lw,
                     cols.ctypes.data + (b * c * kh * kw + g * kg) * lw * size, lw, 1.0,
                     parts.ctypes.data + (ch * m * kg + g * mg * kg) * size, kg)


@_quiet
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
            gemm(101, 112, 111, kg, lw, mg, 1.0, w.ctypes.data + g * mg * kg * size, kg,
                 wide.ctypes.data + (b * m + g * mg) * lw * size, lw, 0.0,
                 dcols.ctypes.data + (b * c * kh * kw + g * kg) * lw * size, lw)
    t = np.zeros((n, c * hp * wp + kw), dtype=dx.dtype)
    runs = _wide_runs(t, c, kh, kw, ho, wp)
    dcols = dcols.reshape(n, c, kh, kw, lw)
    for i in range(kh):               # each element's terms in the loop's (i, j) order; a run never
        for j in range(kw):           # reaches into the next plane but with its zero columns
            view = as_strided(t[:, i * wp + j:], (n, c, lw), runs.strides[:2] + runs.strides[4:], writeable=True)
            view += dcols[:, :, i, j]
    rows, cols = min(h, hp - pt), min(wd, wp - pl)
    dx[...] = 0
    dx[:, :, :rows, :cols] = t[:, :c * hp * wp].reshape(n, c, hp, wp)[:, :, pt:pt + rows, pl:pl + cols]


# -- conv2d's Winograd path (_winograd_loops.py) -----------------------------------------------------
# The same bits as the loops, but for which NaN an add of two NaNs passes on: x86 passes on its first
# operand's, and LLVM may swap the operands of an add.

def _parity_planes(x, pt, pl, rows, w1):
    """[N, C, 4, rows w1]: plane 2 rp + cp holds x[:, :, 2r + rp - pt, 2j + cp - pl] at r w1 + j (0 outside)."""
    n, c, h, w = x.shape
    xp = np.zeros((n, c, 2 * rows, 2 * w1), dtype=x.dtype)
    r1, c1 = min(pt + h, 2 * rows), min(pl + w, 2 * w1)
    xp[:, :, pt:r1, pl:c1] = x[:, :, :r1 - pt, :c1 - pl]
    return xp.reshape(n, c, rows, 2, w1, 2).transpose(0, 1, 3, 5, 2, 4).reshape(n, c, 4, rows * w1)


def _winograd_input(x, pt, pl, th, w1):
    """V [N, 16, C, th w1], as _winograd_loops._input_transform: rows, then columns."""
    n = th * w1
    p = _parity_planes(x, pt, pl, th + 1, w1)
    p = np.concatenate([p, np.zeros(p.shape[:3] + (1,), dtype=x.dtype)], axis=3)
    t = [None] * 8
    for cp in range(2):
        d0, d1 = p[:, :, cp, :n + 1], p[:, :, 2 + cp, :n + 1]
        d2, d3 = p[:, :, cp, w1:w1 + n + 1], p[:, :, 2 + cp, w1:w1 + n + 1]
        t[cp], t[2 + cp], t[4 + cp], t[6 + cp] = d0 - d2, d1 + d2, d2 - d1, d1 - d3
    v = []
    for k in range(4):
        a0, a1, a2, a3 = t[2 * k][..., :n], t[2 * k + 1][..., :n], t[2 * k][..., 1:], t[2 * k + 1][..., 1:]
        v += [a0 - a2, a1 + a2, a2 - a1, a1 - a3]
    return np.ascontiguousarray(np.stack(v, axis=1))


@_quiet
def winograd_forward(gemm, x, u, pt, pl, th, out, planes, t, v, mm):
    nb, m, c = x.shape[0], u.shape[1], u.shape[2]
    ho, wo = out.shape[2], out.shape[3]
    w1 = v.shape[3] // th
    n, size = th * w1, x.itemsize
    vs, prods = _winograd_input(x, pt, pl, th, w1), np.empty((nb, 16, m, th * w1), dtype=x.dtype)
    for b in range(nb):
        for xi in range(16):
            gemm(101, 111, 111, m, n, c, 1.0, u.ctypes.data + xi * m * c * size, c,
                 vs.ctypes.data + (b * 16 + xi) * c * n * size, n, 0.0,
                 prods.ctypes.data + (b * 16 + xi) * m * n * size, n)
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


@_quiet
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
                gemm(101, 111, 112, m, c, n, 1.0, dms.ctypes.data + (b * 16 + xi) * m * n * size, n,
                     vs.ctypes.data + (b * 16 + xi) * c * n * size, n, 1.0,
                     parts.ctypes.data + (ch * 16 + xi) * m * c * size, c)
