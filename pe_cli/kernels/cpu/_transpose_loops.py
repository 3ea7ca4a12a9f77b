"""numba loop of transpose (imported on first use: see runtime/loops.py): the swap of two adjacent axes,
the attention's head split and join ([batch, seq, heads, d] <-> [batch, heads, seq, d]).

numpy's copy of such a transposed view walks it element by element with the view's strides; the
loop copies whole rows of the trailing axes instead. [64, 28, 4, 16] float32, permutation (0, 2, 1, 3):
numpy 70 us, this loop 30 us (best of 200, 2-core AMD EPYC VM at load 5, 2026-11-26), where a plain
copy of the array takes 18. The Transformer row's step runs 16 of them. The ``_parallel`` twin splits the
(a, c) pairs over the device's threads (a copy: the same bits); it is taken only where the machine
is quiet (_numba.parallel_parts), as under load a thread's slice could stall the copy by far (an
earlier twin took 5.7 ms on the loaded 2-core VM).
"""

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
