"""numba loops of mean, its gradient, fill_constant's copy and elementwise_mul's gradient of a value a row
(imported on first use: see runtime/loops.py).
Each writes into arrays it is given, so a planned step (pe_cli/executor/step_plan.py) launches it
over buffers allocated once, and the kernels (reduction.py, creation.py) call the same loops.

``mean`` sums as numpy's ``add.reduce`` does over a contiguous array (its pairwise summation: blocks
of at most 128 values summed in 8 lanes, halves of longer runs summed apart, in the array's dtype),
so the mean is the bits numpy's gives."""

import numba
import numpy as np
from numba import uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)

_BLOCK = 128  # numpy's PW_BLOCKSIZE


@_jit
def _block(a, lo, n):
    """numpy's sum of a run of at most 128 values: 8 lanes, then the rest in order."""
    if n < 8:
        res = a.dtype.type(0)
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    end = n - n % 8
    while i < end:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@_jit
def _pairwise(a):
    """numpy's pairwise sum of a (1-D, contiguous): a run longer than 128 is split in two halves
    (the first a multiple of 8 long) summed apart, then added (_pairwise_of; no stacks made for one block)."""
    if a.size <= _BLOCK:
        return _block(a, 0, a.size)
    return _pairwise_of(a, 0, a.size, *_stacks(a.dtype))


@numba.njit(inline="always")
def _stacks(dtype):
    """_pairwise_of's stacks (a loop summing many runs makes them once)."""
    return np.zeros(64, np.int64), np.zeros(64, np.int64), np.zeros(64, np.int64), np.zeros(64, dtype)


@_jit
def _pairwise_of(a, lo, n, los, ns, stage, sums):
    """numpy's pairwise sum of a[lo:lo + n] (a 1-D, contiguous), its recursion unrolled on the stacks given
    (_stacks: a recursive function does not load from numba's cache)."""
    if n <= _BLOCK:
        return _block(a, lo, n)
    half = n // 2
    half -= half % 8
    if n - half <= _BLOCK:  # (two blocks: a row of up to 256, without the stacks' loop, 3x faster)
        return _block(a, lo, half) + _block(a, lo + half, n - half)
    stage[0] = 0
    depth, held = 1, 0
    los[0], ns[0] = lo, n
    while depth:
        f = depth - 1
        lo, m = los[f], ns[f]
        half = m // 2
        half -= half % 8
        if m <= _BLOCK:
            sums[held] = _block(a, lo, m)
            held += 1
            depth -= 1
        elif stage[f] == 0:
            stage[f] = 1
            los[depth], ns[depth], stage[depth] = lo, half, 0
            depth += 1
        elif stage[f] == 1:
            stage[f] = 2
            los[depth], ns[depth], stage[depth] = lo + half, m - half, 0
            depth += 1
        else:
            held -= 1
            sums[held - 1] = sums[held - 1] + sums[held]
            depth -= 1
    return sums[0]


@_jit
def mean(x, out):
    """out[0] = the sum of x (1-D) / x.size, in x's dtype, as numpy's add.reduce then a division."""
    t = x.dtype.type
    out[0] = _pairwise(x) / t(x.size)


@_jit
def mean_grad(dout, dx):
    """dx[:] = dout[0] / dx.size (dx 1-D), in dx's dtype."""
    t = dx.dtype.type
    v = t(dout[0] / t(max(dx.size, 1)))
    for i in range(dx.size):
        dx[i] = v


@_jit
def mean_axis(x, out):
    """out[o, j] = (x[o, 0, j] + x[o, 1, j] + ... in order) / n for x [before, n, after] (n >= 1), in x's dtype:
    numpy's mean over an axis with values after it (its reduction adds the axis's slices in order, then
    divides by the count)."""
    t = x.dtype.type
    before, n, after = x.shape
    c = t(n)
    for o in range(before):
        for j in range(after):
            out[o, j] = x[o, 0, j]
        for i in range(1, n):
            for j in range(after):
                out[o, j] = out[o, j] + x[o, i, j]
        for j in range(after):
            out[o, j] = out[o, j] / c


@_jit
def spread_mean_axis(dout, dx):
    """dx[o, i, j] = dout[o, j] / n for dx [before, n, after], dout [before, after], in dx's dtype: reduce_mean's
    gradient over one axis (numpy's dout / count, copied over the axis)."""
    t = dx.dtype.type
    before, n, after = dx.shape
    c = t(n)
    for o in range(before):
        for i in range(n):
            for j in range(after):
                dx[o, i, j] = dout[o, j] / c


@_jit
def copy(src, out):
    """out[:] = src (both 1-D of one size): a constant computed when the step was planned."""
    for i in range(out.size):
        out[i] = src[i]


@numba.njit(inline="always")
def _mul_rows_grad(x, y, d, dx, dy, r0, r1):
    cols = x.shape[1]
    products = np.empty(cols, x.dtype)
    los, ns, stage, sums = _stacks(x.dtype)
    for r in range(r0, r1):
        yr, dr, xr, dxr = y[r], d[r], x[r], dx[r]
        for k in range(cols):
            u = uintp(k)  # (unsigned: no wraparound check, so LLVM vectorises the row)
            dxr[u] = dr[u] * yr
            products[u] = dr[u] * xr[u]
        dy[r] = _pairwise_of(products, 0, cols, los, ns, stage, sums)


@_jit
def mul_rows_grad(x, y, d, dx, dy):
    """elementwise_mul's gradient where Y holds one value a row of X [rows, cols] (y, dy [rows]): dx = d * y,
    dy[r] = the sum of d[r] * x[r] in numpy's pairwise order (numpy's d * x then its sum along the row: its bits)."""
    _mul_rows_grad(x, y, d, dx, dy, 0, x.shape[0])


@numba.njit(cache=True, nogil=True, parallel=True)
def mul_rows_grad_parallel(x, y, d, dx, dy, parts):
    """mul_rows_grad over ``parts`` blocks of rows on numba's threads (the same bits)."""
    rows = x.shape[0]
    for p in numba.prange(parts):
        _mul_rows_grad(x, y, d, dx, dy, rows * p // parts, rows * (p + 1) // parts)
