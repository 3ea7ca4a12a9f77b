"""numba loop of the learning-rate schedules (kernels/cpu/optimizer_schedules.py; imported on first use: see
runtime/loops.py): lr_schedule's rate at a step, float64 math as Python's (``pow``, ``exp`` and ``cos``
are the C library's, as Python's ``**`` and ``math``'s), rounded once into the float32 output. Its numpy
replica, for a first run and as the formulas to read, is _replicas.lr_rate (tests/kernels/test_replicas.py:
the same bits on every kind)."""

import math

import numba
import numpy as np

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")  # (a division by zero raises nothing)


@numba.njit(inline="always")
def _ratio(step, steps, staircase):
    div = step / steps
    return np.floor(div) if staircase else div


@numba.njit(inline="always")
def _real(a, b):
    """True where Python's ``a ** b`` is a real number (not complex, not a ZeroDivisionError)."""
    return a > 0.0 or (a == 0.0 and not b < 0.0) or a != a or b != b or (a < 0.0 and np.floor(b) == b)


@_jit
def lr_rate(step_in, base, out, kind, p, boundaries, values):
    """out[0] = the rate of schedule ``kind`` (its index in optimizer_schedules.KINDS) at step ``step_in[0]``,
    base rate ``base``; ``p``: the attributes in optimizer_schedules.PARAMS' order. Returns 0 where the rate
    is no real number (a negative number to a fractional power, zero to a negative one, a division by
    zero: Python raises there), else -1."""
    step = np.float64(step_in[0])
    if kind == 0:  # exponential
        div = _ratio(step, p[0], p[2] != 0.0)
        if not _real(p[1], div):
            return 0
        rate = base * p[1] ** div
    elif kind == 1:  # natural_exp
        rate = base * math.exp(-p[1] * _ratio(step, p[0], p[2] != 0.0))
    elif kind == 2:  # inverse_time
        denominator = 1.0 + p[1] * _ratio(step, p[0], p[2] != 0.0)
        if denominator == 0.0:
            return 0
        rate = base / denominator
    elif kind == 3:  # polynomial
        steps = p[0]
        if p[5] != 0.0:
            steps = steps * (np.ceil(step / steps) if step > 0 else 1.0)
        else:
            step = steps if steps < step else step  # (Python's min)
        left = 1.0 - step / steps
        if not _real(left, p[4]):
            return 0
        rate = (base - p[3]) * left ** p[4] + p[3]
    elif kind == 4:  # piecewise
        rate = values[values.size - 1]
        for i in range(boundaries.size):
            if step < boundaries[i]:
                rate = values[i]
                break
    elif kind == 5:  # cosine
        epoch = np.floor(step / p[6])
        rate = base * 0.5 * (math.cos(epoch * math.pi / p[7]) + 1.0)
    elif kind == 6:  # noam
        if not (_real(p[8], -0.5) and _real(p[9], -1.5)):
            return 0
        first = step**-0.5 if step > 0 else np.inf
        second = p[9] ** -1.5 * step
        rate = base * p[8] ** -0.5 * (second if second < first else first)
    elif step < p[9]:  # linear_warmup
        rate = p[10] + (p[11] - p[10]) * step / p[9]
    else:
        rate = base
    out[0] = rate
    return -1
