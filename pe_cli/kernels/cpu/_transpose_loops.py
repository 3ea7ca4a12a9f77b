"""numba loops of transpose (imported on first use: see runtime/loops.py): the swap of two adjacent runs of
axes, X as [A, B, C, D] into Out as [A, C, B, D]: the attention's head split and join ([batch, seq, heads, d]
<-> [batch, heads, seq, d]) by swap_middle, and where the rows D are short (1 to 3 values: a matrix's
transpose, NCHW <-> NHWC, the beam search's memory) by swap_tiles.

numpy's copy of such a transposed view walks it element by element with the view's strides; swap_middle
copies whole rows of the trailing axes instead. [64, 28, 4, 16] float32, permutation (0, 2, 1, 3):
numpy 70 us, this loop 30 us (best of 200, 2-core AMD EPYC VM at load 5, 2026-11-26), where a plain
copy of the array takes 18. The Transformer row's step runs 16 of them. The ``_parallel`` twins split the
(a, c) pairs (swap_tiles': the (a, tile of c, run of b) triples) over the device's threads (a copy: the
same bits); they are taken only where the machine is quiet (_numba.parallel_parts), as under load a
thread's slice could stall the copy by far (an earlier twin took 5.7 ms on the loaded 2-core VM).
"""

import numba
from numba import prange, uintp

from ._conv_loops import _jit, pjit


@_jit
def swap_middle(x, out):
    """out[a, c, b, d] = x[a, b, c, d]: x [A, B, C, D] C-contiguous, out [A, C, B, D]."""
    n_a, n_b, n_c, n_d = x.shape
    for a in range(n_a):
        for c in range(n_c):
            for b in range(n_b):
                for d in range(n_d):
                    out[a, c, b, d] = x[a, b, c, d]


@pjit
def swap_middle_parallel(x, out, parts):
    """swap_middle over ``parts`` blocks of the (a, c) pairs on numba's threads."""
    n_a, n_b, n_c, n_d = x.shape
    pairs = n_a * n_c
    for p in prange(parts):
        for i in range(uintp(pairs * p // parts), uintp(pairs * (p + 1) // parts)):
            a, c = i // n_c, i % n_c
            for b in range(n_b):
                for d in range(n_d):
                    out[a, c, b, d] = x[a, b, c, d]


# swap_tiles' tiles: ROWS values of b by COLUMNS of c. A matrix whose rows are 4 KB apart (or a multiple)
# puts each row's values in one set of L1's 8 ways: 8 rows at a time keep them there ([256, 10240] float32:
# numpy's copy of the transposed view 7.4 ms, tiles of 32 x 32 7.0, of 8 x 256 1.6; 2-core AMD EPYC VM)
ROWS, COLUMNS = 8, 256


@_jit
def swap_tiles(x, out):
    """out[a, c, b, d] = x[a, b, c, d] as swap_middle, for short rows (D of 1 to 3: a matrix's transpose), a
    tile of (b, c) pairs at a time (above)."""
    n_a, n_b, n_c, n_d = x.shape
    x3, out3 = x.reshape((n_a, n_b, n_c * n_d)), out.reshape((n_a, n_c, n_b * n_d))
    for a in range(n_a):
        for t in range(uintp((n_c + COLUMNS - 1) // COLUMNS)):
            _tile_column(x3, out3, a, t * COLUMNS, 0, n_b, n_c, n_d)


@pjit
def swap_tiles_parallel(x, out, parts):
    """swap_tiles over ``parts`` blocks of the (a, tile of c, run of b) triples on numba's threads (runs of b
    where there are fewer (a, tile of c) pairs than parts: a [10240, 256] matrix's one tile; each of out's
    values is written by one thread: the same bits)."""
    n_a, n_b, n_c, n_d = x.shape
    x3, out3 = x.reshape((n_a, n_b, n_c * n_d)), out.reshape((n_a, n_c, n_b * n_d))
    tiles = uintp((n_c + COLUMNS - 1) // COLUMNS)
    runs = uintp(max(1, -(-parts // (n_a * tiles))))
    units = n_a * tiles * runs
    for p in prange(parts):
        for i in range(uintp(units * p // parts), uintp(units * (p + 1) // parts)):
            a, t, k = i // (tiles * runs), i // runs % tiles, i % runs
            _tile_column(x3, out3, a, t * COLUMNS, n_b * k // runs, n_b * (k + 1) // runs, n_c, n_d)


@numba.njit(inline="always")
def _tile_column(x3, out3, a, c0, b_lo, b_hi, n_c, n_d):
    """out[a, c0:c0 + COLUMNS, b_lo:b_hi] from x[a, b_lo:b_hi, c0:c0 + COLUMNS], ROWS values of b at a time; x
    and out as [A, B, C * D] and [A, C, B * D] (a row of 1: one index less a value, 2.7x faster on a matrix)."""
    c1 = min(c0 + COLUMNS, n_c)
    for b0 in range(b_lo, b_hi, ROWS):
        b1 = min(b0 + ROWS, b_hi)
        if n_d == 1:
            for c in range(uintp(c0), uintp(c1)):
                for b in range(uintp(b0), uintp(b1)):
                    out3[a, c, b] = x3[a, b, c]
        else:
            for c in range(uintp(c0), uintp(c1)):
                for b in range(uintp(b0), uintp(b1)):
                    for d in range(uintp(n_d)):
                        out3[a, c, b * n_d + d] = x3[a, b, c * n_d + d]
