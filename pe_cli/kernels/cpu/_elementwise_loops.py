"""numba loops of scale, the sum of several tensors (elementwise.py) and add_position_encoding
(position.py), imported on first use (see runtime/loops.py).

Each is one pass over memory where numpy's expression makes two or three: ``x * s + b`` writes a
temporary and reads it back, ``(x * alpha + table).astype(...)`` two of them, one in float64. In a
training step the operands have left the core's cache, and those extra passes are most of the op:
in the Transformer row's step (medians of the calls, 2-core AMD EPYC VM) scale took 164 us a call
before and 87-106 after, add_position_encoding 417 and 108-128 (38 and 16 us for scale alone, its
operands in cache), and a sum of four gradients is one pass instead of three. Arithmetic
stays in numpy's order and dtypes, so the results are its bits (the replicas in _replicas.py are
those expressions; tests/kernels/test_elementwise_loops.py). Arrays come C-contiguous and flat
unless the docstring says otherwise. Each loop has a ``_parallel`` twin over ``parts`` contiguous
chunks on numba's threads (_numba.run_in_parts): the same values, element by element.
"""

import numba
import numpy as np
from numba import prange, uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)
_inline = numba.njit(inline="always")


@_inline
def _scale_range(x, s, b, bias_after, out, lo, hi):
    if bias_after:
        for i in range(lo, hi):
            out[i] = x[i] * s + b
    else:
        for i in range(lo, hi):
            out[i] = (x[i] + b) * s


@_jit
def scale(x, s, b, bias_after, out):
    """out = x * s + b (``bias_after``) or (x + b) * s, with s and b of x's dtype: two roundings, as
    numpy's (never a fused multiply-add). ``out`` may be x."""
    _scale_range(x, s, b, bias_after, out, uintp(0), uintp(x.size))


@_jit
def add3(x, y, z, out):
    """out = (x + y) + z, the arrays of one shape and dtype: the sum kernel's add then +=. ``out``
    may be x."""
    for i in range(uintp(x.size)):
        out[i] = (x[i] + y[i]) + z[i]


@_jit
def add4(w, x, y, z, out):
    """out = ((w + x) + y) + z: the sum kernel's add then two +=."""
    for i in range(uintp(w.size)):
        out[i] = ((w[i] + x[i]) + y[i]) + z[i]


@_inline
def _table_rows(x, alpha, table, out, r0, r1):
    m, width = table.shape
    for r in range(r0, r1):
        t = r % m
        for k in range(width):
            out[r, k] = out.dtype.type(np.float64(x[r, k] * alpha) + table[t, k])


@_jit
def add_table_rows(x, alpha, table, out):
    """out[r] = x[r] * alpha + table[r % M], x and out [R, P], the table float64 [M, P]: the product in
    x's dtype, the sum in float64, rounded once to out's dtype."""
    _table_rows(x, alpha, table, out, 0, x.shape[0])


# -- parallel twins ----------------------------------------------------------------------------------


@_pjit
def scale_parallel(x, s, b, bias_after, out, parts):
    n = x.size
    for p in prange(parts):
        _scale_range(x, s, b, bias_after, out, uintp(n * p // parts), uintp(n * (p + 1) // parts))


@_pjit
def add3_parallel(x, y, z, out, parts):
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            out[i] = (x[i] + y[i]) + z[i]


@_pjit
def add4_parallel(w, x, y, z, out, parts):
    n = w.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            out[i] = ((w[i] + x[i]) + y[i]) + z[i]


@_pjit
def add_table_rows_parallel(x, alpha, table, out, parts):
    rows = x.shape[0]
    for p in prange(parts):
        _table_rows(x, alpha, table, out, rows * p // parts, rows * (p + 1) // parts)
