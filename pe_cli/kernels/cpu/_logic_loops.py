"""numba loops of the comparisons, the logical ops and cast in a planned step (kernels/cpu/logic.py,
manipulation.py; imported on first use: see runtime/loops.py). Arrays come flat and C-contiguous; an operand of
one value is read at every element (its step 0). The results are numpy's: a comparison of two values of one
dtype (NaN compares unequal, -0.0 equals 0.0), a value's truth ``!= 0`` (NaN is true), and the conversions
whose C casts numpy's astype makes too (each a single rounding, or a wrap of integer bits)."""

import numba
import numpy as np

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)

LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL = range(6)
AND, OR, XOR, NOT = range(4)


@_jit
def compare(x, x_step, y, y_step, op, out):
    """out[i] = x[i * x_step] <op> y[i * y_step] (``op``: LESS ... NOT_EQUAL)."""
    for i in range(out.size):
        a, b = x[i * x_step], y[i * y_step]
        if op == LESS:
            out[i] = a < b
        elif op == LESS_EQUAL:
            out[i] = a <= b
        elif op == GREATER:
            out[i] = a > b
        elif op == GREATER_EQUAL:
            out[i] = a >= b
        elif op == EQUAL:
            out[i] = a == b
        else:
            out[i] = a != b


@_jit
def near(x, x_step, y, y_step, paddle2, negate, out):
    """out[i] = x[i * x_step] equals y[i * y_step] (float values of one dtype), as Fluid 1.8's EqualFunctor has it:
    their difference in their dtype, taken in double, within 1e-8 (NaN and an infinity equal nothing); ``paddle2``:
    Paddle 2.6's, where an infinity (as a float32) equals only itself; ``negate``: not_equal's (kernels/cpu/logic.near's
    rules)."""
    for i in range(out.size):
        a, b = x[i * x_step], y[i * y_step]
        equal = abs(np.float64(a - b)) < 1e-8
        if paddle2 and (np.isinf(np.float32(a)) or np.isinf(np.float32(b))):
            equal = a == b
        out[i] = equal != negate


@_jit
def logical(x, x_step, y, y_step, op, out):
    """out[i] = the truth of x[i * x_step] <op> that of y[i * y_step] (``op``: AND, OR, XOR; NOT: of x alone)."""
    for i in range(out.size):
        a, b = x[i * x_step] != 0, y[i * y_step] != 0
        if op == AND:
            out[i] = a and b
        elif op == OR:
            out[i] = a or b
        elif op == XOR:
            out[i] = a != b
        else:
            out[i] = not a


@_jit
def convert(x, out):
    """out = x in out's dtype (numpy's astype, for the pairs kernels/cpu/manipulation.CONVERTED names)."""
    for i in range(x.size):
        out[i] = x[i]
