"""The recurrent kernels' activations (kernels.common.ACT_CODES: sigmoid, tanh, relu, identity) over
a block of columns of a float32 array's first rows, in numba, so that a loop over a sequence's time
steps runs whole without the GIL (_lstm_loops.forward_sequence).

numba's own exp and tanh are a libm call per value (595 us a step of 64 x 512 gates where numpy's
vectorised calls take 60-110; _lstm_loops.py), and numpy's cannot be called without the GIL. So exp
is computed here in float64 in a form LLVM vectorises: x = k ln 2 + r (|r| <= ln 2 / 2), exp(r) by
its Taylor polynomial to degree 9 (relative error < 1e-11), times 2**k built from its bits; tanh and
sigmoid from it, each value rounded to float32 once at the end: within an ulp of the float64
result rounded (tests/kernels/test_lstm_loops.py). numpy's float32 sigmoid rounds three times
(exp, add, divide) and its exp overflows below -88: the results differ from numpy's in the last
bit at times. A NaN stays NaN; exp's argument is clamped to +-110, past float32's range."""
import math

import numpy as np
from llvmlite import ir
from numba import njit, types, uintp
from numba.extending import intrinsic

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01       # ln 2 in two parts (fdlibm's): k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0                 # 1.5 * 2**52: (x + _ROUND) - _ROUND rounds x to an integer
_C = tuple(1.0 / math.factorial(i) for i in range(10))
# numba's float division checks for zero (Python's ZeroDivisionError) unless told numpy's rules, and
# that check kept LLVM from vectorising the loops (277 us for a 64 x 512 sigmoid against 105)
_jit = njit(cache=True, nogil=True, error_model="numpy")


@intrinsic
def _as_float64(typingctx, bits):
    """The float64 whose bits are the int64 ``bits`` (2**k is (k + 1023) << 52)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(inline="always", error_model="numpy")
def _exp(v):
    """exp(v) for a float64 v (clamped to +-110: beyond it no float32 result changes)."""
    if v > 110.0:
        v = 110.0
    elif v < -110.0:
        v = -110.0
    k = (v * _LOG2E + _ROUND) - _ROUND      # (np.floor is a libm call: not vectorised)
    r = (v - k * _LN2_HI) - k * _LN2_LO
    p = _C[9]
    p = p * r + _C[8]
    p = p * r + _C[7]
    p = p * r + _C[6]
    p = p * r + _C[5]
    p = p * r + _C[4]
    p = p * r + _C[3]
    p = p * r + _C[2]
    p = p * r + _C[1]
    p = p * r + _C[0]
    i = np.int64(k) if k == k else np.int64(0)      # (a NaN: p is NaN)
    return p * _as_float64((i + 1023) << 52)


@njit(inline="always", error_model="numpy")
def _tanh(v):
    a = abs(v)
    if a < 0.004:       # tanh's series: 1 - e below cancels there
        t = a * (1.0 - a * a * (1.0 / 3.0 - a * a * (2.0 / 15.0)))
    else:
        e = _exp(-2.0 * a)
        t = (1.0 - e) / (1.0 + e)
    return np.copysign(t, v)


@_jit
def activate(a, n, lo, hi, code):
    """Columns lo:hi of the first ``n`` rows of the 2-D float array ``a``, activated in place
    (``code``: 0 sigmoid, 1 tanh, 2 relu, else identity)."""
    out_type = a.dtype.type
    if code == 0:
        for k in range(n):
            row = a[k]
            for j in range(lo, hi):
                u = uintp(j)
                row[u] = out_type(1.0 / (1.0 + _exp(-np.float64(row[u]))))
    elif code == 1:
        for k in range(n):
            row = a[k]
            for j in range(lo, hi):
                u = uintp(j)
                row[u] = out_type(_tanh(np.float64(row[u])))
    elif code == 2:
        zero = out_type(0)
        for k in range(n):
            row = a[k]
            for j in range(lo, hi):
                u = uintp(j)
                if row[u] < zero:
                    row[u] = zero
