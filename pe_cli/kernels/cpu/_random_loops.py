"""numba loops of the random kernels' Paddle streams (imported on first use: see runtime/loops.py).

Paddle's CPU kernels take logarithms with the C library's ``logf`` (float) and ``log`` (double);
numpy's float32 ``log`` is its own SIMD code, which differs from glibc's in the last bit for about a
quarter of the values in (0, 1]. numba's ``math.log`` calls the C library's, so a Paddle draw
through it is Paddle's to the bit."""

import math

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)


@_jit
def log_each(x, out):
    """out[i] = the C library's log of x[i], in x's dtype (logf for float32)."""
    for i in range(x.size):
        out[i] = math.log(x[i])


_N, _M = 312, 156
_MATRIX = np.uint64(0xB5026F5AA96619E9)
_UPPER, _LOWER = np.uint64(0xFFFFFFFF80000000), np.uint64(0x7FFFFFFF)
_ONE, _ZERO = np.uint64(1), np.uint64(0)
_S1, _S2, _S3, _S4 = np.uint64(29), np.uint64(17), np.uint64(37), np.uint64(43)
_B1, _B2, _B3 = np.uint64(0x5555555555555555), np.uint64(0x71D67FFFEDA60000), np.uint64(0xFFF7EEE000000000)


@_jit
def _twist(words):
    for i in range(_N):
        y = (words[i] & _UPPER) | (words[(i + 1) % _N] & _LOWER)
        step = y >> _ONE
        if y & _ONE:
            step ^= _MATRIX
        words[i] = words[(i + _M) % _N] ^ step


@_jit
def mt_draw(words, start, out):
    """The 64-bit Mersenne Twister's next out.size outputs into ``out``, from its 312 ``words`` (updated
    in place) at position ``start``; returns the position after them."""
    i = start
    for k in range(out.size):
        if i >= _N:
            _twist(words)
            i = 0
        y = words[i]
        i += 1
        y ^= (y >> _S1) & _B1
        y ^= (y << _S2) & _B2
        y ^= (y << _S3) & _B3
        out[k] = y ^ (y >> _S4)
    return i


@_jit
def _below(raw, at, span):
    """(value in [0, span), next index) from raw[at:], libstdc++'s rejection; (-1, -1) when raw runs out."""
    scaling = np.uint64(0xFFFFFFFFFFFFFFFF) // span
    past = span * scaling
    while at < raw.size:
        v = raw[at]
        at += 1
        if v < past:
            return np.int64(v // scaling), at
    return np.int64(-1), np.int64(-1)


@_jit
def shuffle_two_at_a_time(raw, out):
    """libstdc++'s std::shuffle of ``out`` taking its draws from ``raw``; returns how many it used, or
    -1 when it needed more."""
    n = out.size
    at = 0
    i = 1
    if n % 2 == 0 and n > 1:
        j, at = _below(raw, at, np.uint64(2))
        if at < 0:
            return -1
        out[i], out[j] = out[j], out[i]
        i += 1
    while i < n:
        b1 = np.uint64(i + 2)
        x, at = _below(raw, at, np.uint64(i + 1) * b1)
        if at < 0:
            return -1
        p1, p2 = np.int64(np.uint64(x) // b1), np.int64(np.uint64(x) % b1)
        out[i], out[p1] = out[p1], out[i]
        i += 1
        out[i], out[p2] = out[p2], out[i]
        i += 1
    return at
