"""The recurrent kernels' activations (kernels.common.ACT_CODES: sigmoid, tanh, relu, identity) over
a block of columns of a float32 array's first rows, in numba, so that a loop over a sequence's time
steps runs whole without the GIL (_lstm_loops.forward_sequence); the tanh and sigmoid ops' float32
kernels (kernels/cpu/activation.py) and the exponentials of _softmax_rows_loops.py. The tanh op's is
Fluid's and Paddle 2.6's own (Eigen's rational forms, ``_rational_tanh``, ``_rational_tanh_paddle2``: their bits,
0.46 against 1.29 ns a value); the recurrent kernels' tanh is the form below.

numba's own exp and tanh are a libm call per value (595 us a step of 64 x 512 gates where numpy's
vectorised calls take 60-110; _lstm_loops.py), and numpy's cannot be called without the GIL. So they
are computed here in float32, in a form LLVM vectorises (Cephes' expf and tanhf): exp(x) = 2**k
exp(r), x = k ln 2 + r, exp(r) a degree-7 polynomial, 2**k built from its bits; tanh a polynomial
below 0.625, else 1 - 2 / (exp(2x) + 1); sigmoid 1 / (1 + exp(-x)). Within 2 ulps of the float64
result rounded, as numpy's float32 calls are (which round three times for sigmoid), but not always
the same ulps: the results differ from numpy's in the last bits at times (tests/kernels/test_lstm_loops.py;
a 64 x 512 sigmoid 52 us against numpy's 57-59 on the 2-core AMD EPYC VM). Float32 only (the
float64 LSTM keeps numpy's). A NaN stays NaN; results below float32's normal range (sigmoid
below -87) may be 0 where the exact one is subnormal, as pe's runs flush subnormals anyway."""

import numpy as np
from llvmlite import ir
from numba import njit, prange, types, uintp
from numba.extending import intrinsic
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_F = np.float32
_ONE, _TWO = _F(1.0), _F(2.0)
_LOG2E, _ROUND = _F(1.44269504088896341), _F(12582912.0)  # 1.5 * 2**23: (x + _ROUND) - _ROUND rounds x
_LN2_HI, _LN2_LO = _F(0.693359375), _F(-2.12194440e-4)  # ln 2 in two parts: k * _LN2_HI is exact
_E0, _E1, _E2 = _F(1.9875691500e-4), _F(1.3981999507e-3), _F(8.3334519073e-3)
_E3, _E4, _E5 = _F(4.1665795894e-2), _F(1.6666665459e-1), _F(5.0000001201e-1)
_T0, _T1, _T2 = _F(-5.70498872745e-3), _F(2.06390887954e-2), _F(-5.37397155531e-2)
_T3, _T4 = _F(1.33314422036e-1), _F(-3.33332819422e-1)
_CLAMP, _SMALL = _F(104.0), _F(0.625)
# numba's float division checks for zero (Python's ZeroDivisionError) unless told numpy's rules, and
# that check kept LLVM from vectorising the loops (277 us for a 64 x 512 sigmoid against 105)
_jit = njit(cache=True, nogil=True, error_model="numpy")


@intrinsic
def _as_float32(typingctx, bits):
    """The float32 whose bits are the int32 ``bits`` (2**k is (k + 127) << 23)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@njit(inline="always", error_model="numpy")
def _exp(v):
    """exp of a float32 (its argument clamped to +-104: beyond it no float32 result changes)."""
    if v > _CLAMP:
        v = _CLAMP
    elif v < -_CLAMP:
        v = -_CLAMP
    k = (v * _LOG2E + _ROUND) - _ROUND  # (np.floor is a libm call: not vectorised)
    r = (v - k * _LN2_HI) - k * _LN2_LO
    p = ((((_E0 * r + _E1) * r + _E2) * r + _E3) * r + _E4) * r + _E5
    p = p * (r * r) + r + _ONE
    i = np.int32(k) if k == k else np.int32(0)  # (a NaN: p is NaN)
    h = i >> 1  # 2**k as two factors, each a normal float32, for k from -150 to 150
    return p * _as_float32((h + 127) << 23) * _as_float32((i - h + 127) << 23)


@njit(inline="always", error_model="numpy")
def _tanh(v):
    a = abs(v)
    if a < _SMALL:
        z = v * v
        t = ((((_T0 * z + _T1) * z + _T2) * z + _T3) * z + _T4) * z * v + v
        return t if v != 0 else v  # -0.0 stays -0.0 (the sum above gives +0.0)
    t = _ONE - _TWO / (_exp(_TWO * a) + _ONE)
    return t if v > 0 else -t


# Eigen's generic_fast_tanh_float, which the float32 tanh op of Fluid 1.8.5 (Eigen 3.3) and of Paddle 2.6.2 (Eigen
# 3.4) computes (``x.tanh()`` over Eigen tensors, its packets of eight and the tail alike): x clamped, an odd
# degree-13 polynomial over an even degree-6 one in x**2, each step a multiply then an add (no fused
# multiply-add, as their AVX builds). Eigen 3.3 clamps to +-9; 3.4 to +-7.9053111 and returns x itself below 0.0004.
_R_CLAMP, _R_CLAMP2, _R_TINY2 = _F(9.0), _F(7.90531110763549805), _F(0.0004)
_RA1, _RA3, _RA5 = _F(4.89352455891786e-03), _F(6.37261928875436e-04), _F(1.48572235717979e-05)
_RA7, _RA9, _RA11 = _F(5.12229709037114e-08), _F(-8.60467152213735e-11), _F(2.00018790482477e-13)
_RA13 = _F(-2.76076847742355e-16)
_RB0, _RB2, _RB4, _RB6 = (
    _F(4.89352518554385e-03),
    _F(2.26843463243900e-03),
    _F(1.18534705686654e-04),
    _F(1.19825839466702e-06),
)


@njit(inline="always", error_model="numpy")
def _rational(v, clamp):
    """Eigen's rational tanh of ``v`` clamped to +-``clamp`` (a NaN stays NaN, -0.0 stays -0.0)."""
    x = clamp if v > clamp else (-clamp if v < -clamp else v)
    x2 = x * x
    p = x2 * _RA13 + _RA11
    p = x2 * p + _RA9
    p = x2 * p + _RA7
    p = x2 * p + _RA5
    p = x2 * p + _RA3
    p = x2 * p + _RA1
    q = x2 * _RB6 + _RB4
    q = x2 * q + _RB2
    q = x2 * q + _RB0
    return (x * p) / q


@njit(inline="always", error_model="numpy")
def _rational_tanh(v):
    """Fluid 1.8.5's float32 tanh op, bit for bit (tests/fluid/test_fluid_oracle.py): within 6 ulps of the exact
    value (0.12 on average), a third of _tanh's time (no exp, no branch)."""
    return _rational(v, _R_CLAMP)


@njit(inline="always", error_model="numpy")
def _rational_tanh_paddle2(v):
    """Paddle 2.6.2's float32 tanh op, bit for bit (tests/paddle/test_paddle_oracle.py)."""
    return v if abs(v) < _R_TINY2 else _rational(v, _R_CLAMP2)


@njit(inline="always", error_model="numpy")
def _sigmoid(v):
    return _ONE / (_ONE + _exp(-v))


_SIG_MIN, _SIG_MAX = _F(-40.0), _F(13.0)  # kernels.common.SIGMOID_MIN, SIGMOID_MAX


@njit(inline="always", error_model="numpy")
def _clipped(v):
    """v clipped to [_SIG_MIN, _SIG_MAX] as Fluid clips it (a NaN stays NaN)."""
    return _SIG_MIN if v < _SIG_MIN else (_SIG_MAX if v > _SIG_MAX else v)


@_jit
def activate(a, n, lo, hi, code):
    """Columns lo:hi of the first ``n`` rows of the 2-D float32 array ``a``, activated in place
    (``code``: 0 sigmoid of the input clipped to [-40, 13], as Fluid's recurrent ops compute it
    (kernels.common.SIGMOID_MIN), 1 tanh, 2 relu, else identity)."""
    if code == 0:
        for k in range(n):
            row = a[k]
            for j in range(lo, hi):
                u = uintp(j)
                row[u] = _sigmoid(_clipped(row[u]))
    elif code == 1:
        for k in range(n):
            row = a[k]
            for j in range(lo, hi):
                u = uintp(j)
                row[u] = _tanh(row[u])
    elif code == 2:
        zero = _F(0.0)
        for k in range(n):
            row = a[k]
            for j in range(lo, hi):
                u = uintp(j)
                if row[u] < zero:
                    row[u] = zero


# the tanh and sigmoid ops' float32 kernels (kernels/cpu/activation.py): flat arrays, and twins over
# ``parts`` contiguous chunks on numba's threads
_pjit = njit(cache=True, nogil=True, error_model="numpy", parallel=True)


@_jit
def tanh(x, out):
    for i in range(uintp(x.size)):
        out[i] = _rational_tanh(x[i])


@_pjit
def tanh_parallel(x, out, parts):
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):  # unsigned: vectorised
            out[i] = _rational_tanh(x[i])


@_jit
def tanh_paddle2(x, out):
    for i in range(uintp(x.size)):
        out[i] = _rational_tanh_paddle2(x[i])


@_pjit
def tanh_paddle2_parallel(x, out, parts):
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            out[i] = _rational_tanh_paddle2(x[i])


@_jit
def sigmoid(x, out):
    for i in range(x.size):
        out[i] = _sigmoid(x[i])


@_pjit
def sigmoid_parallel(x, out, parts):
    n = x.size
    for p in prange(parts):
        for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
            out[i] = _sigmoid(x[i])
