"""numba loops of elementwise add, sub, mul and div of floats and their gradients (imported on first use: see
runtime/loops.py) over X seen as [a, b, c] and Y as [a, c]: Y, placed in X by Fluid's axis rule, holds X's
leading dims, then 1s (the b that Y is broadcast along), then X's trailing dims (shapes/elementwise.middle_form).
Y of X's shape ([rows, 1, cols]), one value a row (c 1: the beam search's scores over [batch x beam,
vocabulary]), one row for all (a 1: the end-token mask), an attention's mask [B, 1, 1, T] over its scores [B, H,
T, T]. numpy's broadcast loop runs on one core; ``middle_parallel`` splits the rows of X as [a * b, c] over the
device's threads. Arithmetic is IEEE in the arrays' dtype as numpy's, a division by zero numpy's inf or NaN (not
an exception), so either loop gives numpy's bits.

``middle_grad``: numpy's local gradients (elementwise_binary_grad.py), Y@GRAD summed over b in b's order from
0.0, in the arrays' dtype: numpy's sum over the broadcast axes where they are not X's last (c > 1; numpy sums
along the last axis pairwise)."""

import numba
from numba import prange

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_pjit = numba.njit(cache=True, nogil=True, error_model="numpy", parallel=True)

ADD, SUB, MUL, DIV = 0, 1, 2, 3  # the operation


@numba.njit(inline="always", error_model="numpy")
def _apply(a, b, op):
    if op == ADD:
        return a + b
    if op == SUB:
        return a - b
    if op == MUL:
        return a * b
    return a / b


@numba.njit(inline="always", error_model="numpy")
def _rows(x, y, out, op, lo, hi):
    """Rows lo:hi of X as [a * b, c]: out = x op y[the row's i], a run of rows of one i at a time (the
    branches on op are the same for every value: LLVM takes them out of the inner loop, which it vectorises)."""
    a, b, c = x.shape
    xs, ys, outs = x.reshape(a * b * c), y.reshape(a * c), out.reshape(a * b * c)
    r = lo
    while r < hi:
        i = r // b
        stop, row = min(hi, (i + 1) * b), i * c
        if c == 1:
            v = ys[row]
            for e in range(r, stop):
                outs[e] = _apply(xs[e], v, op)
        else:
            for e in range(r * c, stop * c, c):
                for k in range(c):
                    outs[e + k] = _apply(xs[e + k], ys[row + k], op)
        r = stop


@_jit
def middle(x, y, out, op):
    """out = x op y: x and out [a, b, c], y [a, c] (all C-contiguous, one float dtype)."""
    _rows(x, y, out, op, 0, x.shape[0] * x.shape[1])


@_pjit
def middle_parallel(x, y, out, op, parts):
    """middle over ``parts`` blocks of rows on numba's threads."""
    rows = x.shape[0] * x.shape[1]
    for p in prange(parts):
        _rows(x, y, out, op, rows * p // parts, rows * (p + 1) // parts)


@_jit
def middle_grad(d, x, y, out, dx, dy, op, want_dx, want_dy):
    """X@GRAD (``dx``, where ``want_dx``: mul's d * y, div's d / y; add's and sub's is Out@GRAD, not written here)
    and Y@GRAD (``dy`` [a, c], where ``want_dy``) of out = x op y over X [a, b, c] and Y [a, c], from Out@GRAD
    ``d``: Y's local gradients (add's d, sub's -d, mul's d * x, div's -d * (out / y)) summed over b from 0.0 in
    b's order, or, b 1, as they are."""
    a, b, c = d.shape
    zero = d.dtype.type(0)
    for i in range(a):
        if want_dy and b > 1:
            for k in range(c):
                dy[i, k] = zero
        for j in range(b):
            for k in range(c):
                g = d[i, j, k]
                if op == MUL:
                    if want_dx:
                        dx[i, j, k] = g * y[i, k]
                    v = g * x[i, j, k]
                elif op == DIV:
                    if want_dx:
                        dx[i, j, k] = g / y[i, k]
                    v = -g * (out[i, j, k] / y[i, k])
                else:
                    v = -g if op == SUB else g
                if want_dy:
                    if b > 1:
                        dy[i, k] += v
                    else:
                        dy[i, k] = v
