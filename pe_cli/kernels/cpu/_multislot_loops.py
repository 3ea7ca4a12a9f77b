"""The MultiSlot parser as numba loops over a file's bytes (imported on first use by
data/multislot.py). They release the GIL, so AsyncExecutor's threads parse their files at the same
time (a Python parser held the GIL: two threads trained no faster than one).

Two passes over the buffer: the first finds each line's count for every slot (checking the line's
shape), the second writes each slot's values, in line order, into that slot's own array. Errors come
back as (code, line, slot) for data/multislot.py to word.
"""

import numba
import numpy as np
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)

OK, NO_COUNT, BAD_COUNT, SHORT, EXTRA, BAD_NUMBER = 0, 1, 2, 3, 4, 5
_INT64_MAX = 9223372036854775807
_SPACE = (32, 9, 13)  # ' ', '\t', '\r' (a line ends at '\n')


@_jit
def _skip_spaces(buf, i, end):
    while i < end and (buf[i] == 32 or buf[i] == 9 or buf[i] == 13):
        i += 1
    return i


@_jit
def _token_end(buf, i, end):
    while i < end and not (buf[i] == 32 or buf[i] == 9 or buf[i] == 13):
        i += 1
    return i


@_jit
def _sign(buf, i, j):
    """(negative, where the digits start) of the token buf[i:j]: an optional '-' or '+'."""
    if i < j and (buf[i] == 45 or buf[i] == 43):
        return buf[i] == 45, i + 1
    return False, i


@_jit
def _parse_int(buf, i, j):
    """(value, ok) of the decimal integer buf[i:j] (an optional sign, then digits)."""
    neg, i = _sign(buf, i, j)
    if i >= j:
        return 0, False
    v = 0
    while i < j:
        d = buf[i] - 48
        if d < 0 or d > 9 or v > (_INT64_MAX - d) // 10:  # not a digit, or beyond int64
            return 0, False
        v = v * 10 + d
        i += 1
    return (-v if neg else v), True


@_jit
def _parse_float(buf, i, j):
    """(value, ok) of buf[i:j] as a decimal number: sign, digits, '.', digits, exponent."""
    neg, i = _sign(buf, i, j)
    mantissa, scale, digits = 0.0, 0, 0
    while i < j and 48 <= buf[i] <= 57:
        mantissa = mantissa * 10.0 + (buf[i] - 48)
        i += 1
        digits += 1
    if i < j and buf[i] == 46:
        i += 1
        while i < j and 48 <= buf[i] <= 57:
            mantissa = mantissa * 10.0 + (buf[i] - 48)
            scale -= 1
            i += 1
            digits += 1
    if digits == 0:
        return 0.0, False
    if i < j and (buf[i] == 101 or buf[i] == 69):
        e, ok = _parse_int(buf, i + 1, j)
        if not ok:
            return 0.0, False
        scale += e
        i = j
    if i != j:
        return 0.0, False
    v = mantissa * 10.0**scale
    return (-v if neg else v), True


@_jit
def count_slots(buf, nslots, max_lines):
    """counts [lines, nslots] of every non-empty line, and (code, line, slot) of the first error."""
    counts = np.zeros((max_lines, nslots), dtype=np.int64)
    n, line, i, size = 0, 0, 0, buf.shape[0]
    while i < size:
        end = i
        while end < size and buf[end] != 10:
            end += 1
        line += 1
        p = _skip_spaces(buf, i, end)
        if p < end:
            for s in range(nslots):
                p = _skip_spaces(buf, p, end)
                if p >= end:
                    return counts[:n], NO_COUNT, line, s
                q = _token_end(buf, p, end)
                c, ok = _parse_int(buf, p, q)
                if not ok or c < 1:
                    return counts[:n], BAD_COUNT, line, s
                p = q
                for _ in range(c):
                    p = _skip_spaces(buf, p, end)
                    if p >= end:
                        return counts[:n], SHORT, line, s
                    p = _token_end(buf, p, end)
                counts[n, s] = c
            if _skip_spaces(buf, p, end) < end:
                return counts[:n], EXTRA, line, nslots - 1
            n += 1
        i = end + 1
    return counts[:n], OK, 0, 0


@_jit
def fill_values(buf, counts, kinds, used, ints, floats, int_base, float_base):
    """Writes each used slot's values into ``ints`` (kind 0) or ``floats`` (kind 1) at that slot's
    base offset, in line order. Returns (code, line, slot): BAD_NUMBER where a value does not parse."""
    nslots = counts.shape[1]
    at_int = int_base.copy()
    at_float = float_base.copy()
    n, line, i, size = 0, 0, 0, buf.shape[0]
    while i < size and n < counts.shape[0]:
        end = i
        while end < size and buf[end] != 10:
            end += 1
        line += 1
        p = _skip_spaces(buf, i, end)
        if p < end:
            for s in range(nslots):
                p = _token_end(buf, _skip_spaces(buf, p, end), end)  # the count (checked before)
                for _ in range(counts[n, s]):
                    p = _skip_spaces(buf, p, end)
                    q = _token_end(buf, p, end)
                    if used[s]:
                        if kinds[s] == 0:
                            v, ok = _parse_int(buf, p, q)
                            ints[at_int[s]] = v
                            at_int[s] += 1
                        else:
                            f, ok = _parse_float(buf, p, q)
                            floats[at_float[s]] = f
                            at_float[s] += 1
                        if not ok:
                            return BAD_NUMBER, line, s
                    p = q
            n += 1
        i = end + 1
    return OK, 0, 0
