"""numba loops of elementwise add, sub and mul (imported on first use: see runtime/loops.py) over X seen as
[rows, cols] and Y as X's shape, one value a row ([rows, 1]) or one row for all ([1, cols]): the
beam search's masks and scores over [batch x beam, vocabulary], Y a [batch, beam] or [vocabulary]
array broadcast against them (elementwise.py finds the view). numpy's broadcast loop runs on one
core; the ``_parallel`` twin splits the rows over the device's threads. Arithmetic is IEEE in the
arrays' dtype as numpy's, so either loop gives numpy's bits.
"""

import numba
from numba import prange, uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)

ADD, SUB, MUL = 0, 1, 2  # the operation
SAME, PER_ROW, PER_COL = 0, 1, 2  # Y's shape: [rows, cols], [rows, 1], [1, cols]


@numba.njit(inline="always")
def _apply(a, b, op):
    if op == ADD:
        return a + b
    if op == SUB:
        return a - b
    return a * b


@numba.njit(inline="always")
def _rows(x, y, out, op, mode, lo, hi):
    """Rows lo:hi of out = x op y (the branches on op and mode are the same for every value: LLVM
    takes them out of the inner loop, which it vectorises)."""
    cols = x.shape[1]
    for r in range(lo, hi):
        if mode == SAME:
            for c in range(cols):
                out[r, c] = _apply(x[r, c], y[r, c], op)
        elif mode == PER_ROW:
            b = y[r, 0]
            for c in range(cols):
                out[r, c] = _apply(x[r, c], b, op)
        else:
            for c in range(cols):
                out[r, c] = _apply(x[r, c], y[0, c], op)


@_jit
def binary(x, y, out, op, mode):
    """out = x op y: x and out [rows, cols], y as ``mode`` says (all C-contiguous, one dtype)."""
    _rows(x, y, out, op, mode, uintp(0), uintp(x.shape[0]))


@_pjit
def binary_parallel(x, y, out, op, mode, parts):
    """binary over ``parts`` blocks of rows on numba's threads."""
    rows = x.shape[0]
    for p in prange(parts):
        _rows(x, y, out, op, mode, uintp(rows * p // parts), uintp(rows * (p + 1) // parts))
