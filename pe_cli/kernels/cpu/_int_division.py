"""The division and remainder rules of elementwise_div, elementwise_floordiv and elementwise_mod on arrays
already broadcast against each other (kernels/cpu/elementwise.py's kernels call them): C's truncated
division (Fluid 1.8's floordiv, and every release's int division), the floored one (Paddle 2.x's floordiv,
Python's ``//``) and both releases' remainders (docs/COMPAT.md, "Integer floor division")."""

import numpy as np


def truncated_div(x, y):
    """x / y of ints truncated towards zero, exact for every int64 (no float in between)."""
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -q, q)


def floored_div(x, y):
    """Python's ``//``: of floats its float floor division, x / 0 IEEE's (inf or NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor_divide(x, y)


def remainder(x, y, paddle2):
    """Fluid 1.8's (``paddle2`` False): ints C's % (X's sign), floats fmod(Y + fmod(X, Y), Y); Paddle 2.x's:
    fmod(X, Y), plus Y where the two signs differ (Y's sign; float X mod 0 is NaN)."""
    with np.errstate(invalid="ignore"):
        if not paddle2:
            return np.fmod(x, y) if x.dtype.kind in "iu" else np.fmod(y + np.fmod(x, y), y)
        out = np.fmod(x, y)
        return np.where((out != 0) & ((out < 0) != (y < 0)), out + y, out)
