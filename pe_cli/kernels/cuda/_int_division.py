"""The device functions of elementwise_div's, elementwise_floordiv's and elementwise_mod's CUDA kernels
(kernels/cuda/elementwise.py builds the kernels of them), one per rule of kernels/cpu/_int_division.py:
C's truncated division, the floored one (Paddle 2.x's floordiv, Python's ``//``) and both releases'
remainders (docs/COMPAT.md, "Integer floor division")."""

import math

from numba import cuda


@cuda.jit(device=True, inline=True)
def _trunc_div(a, b, p, q):
    d = abs(a) // abs(b)
    return -d if (a < 0) != (b < 0) else d


@cuda.jit(device=True, inline=True)
def _floor_div_int(a, b, p, q):
    d = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        return -d - 1 if d * abs(b) != abs(a) else -d
    return d


@cuda.jit(device=True, inline=True)
def _floor_div_float(a, b, p, q):
    """Python's float floor division (kernels/cpu/elementwise.py's np.floor_divide); x / 0 IEEE's."""
    if b == 0:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    m = math.fmod(a, b)
    d = (a - m) / b
    if m != 0 and (b < 0) != (m < 0):
        d -= 1.0
    if d == 0:
        return math.copysign(0.0, a / b)
    f = math.floor(d)
    return f + 1.0 if d - f > 0.5 else f


@cuda.jit(device=True, inline=True)
def _int_mod(a, b, p, q):
    d = abs(a) // abs(b)
    return a - (-d if (a < 0) != (b < 0) else d) * b


@cuda.jit(device=True, inline=True)
def _int_mod_signed(a, b, p, q):
    """Paddle 2.x's: the remainder with Y's sign."""
    r = _int_mod(a, b, p, q)
    return r + b if r != 0 and (r < 0) != (b < 0) else r


@cuda.jit(device=True, inline=True)
def _float_mod(a, b, p, q):
    if b == 0:
        return math.nan
    return math.fmod(b + math.fmod(a, b), b)


@cuda.jit(device=True, inline=True)
def _float_mod_signed(a, b, p, q):
    if b == 0:
        return math.nan
    r = math.fmod(a, b)
    return r + b if r != 0 and (r < 0) != (b < 0) else r
