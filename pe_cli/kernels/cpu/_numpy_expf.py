"""numpy's float32 exp, bit for bit, as a numba function a loop inlines (softmax's rows, _softmax_loops.py),
imported on first use (see runtime/loops.py).

numpy computes a float32 exp with its own SIMD code wherever the CPU has AVX2 and FMA3 or AVX-512F
(numpy/_core/src/umath/loops_exponent_log.dispatch.c.src, ``simd_exp_FLOAT``; the same steps on both, and for
a single value): k = rint(x log2(e)) by adding and taking away 1.5 * 2**23, r = x - k ln 2 by two fused
multiply-adds (Cody and Waite's two parts of ln 2), exp(r) as a degree-5 polynomial over a degree-2 one, each
step a fused multiply-add, then times 2**k rounded once (AVX-512's scalef; AVX2 adds k to the exponent bits,
and divides for a subnormal result). NaN gives numpy's quiet NaN, x >= 88.7228 inf and x <= -103.972 zero.
``exp`` repeats those operations in that order (LLVM's llvm.fma, no fast-math: nothing contracted or
reassociated), so its results are numpy's own where numpy runs that code, and a softmax's loop needs no
numpy call between its passes (numpy's exp holds the GIL and makes two more passes over memory).

Where numpy runs other code (a CPU without FMA3: libm's expf), the bits differ; ``same_as_numpy()`` compares
the two on values spread over every float32 range once a process, and the callers keep numpy's exp where they
differ."""

import functools

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ._activation_loops import _as_float32
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_F = np.float32
_ZERO, _INF, _NAN = _F(0.0), _F(np.inf), _F(np.nan)
_X_MAX, _X_MIN = _F(88.72283935546875), _F(-103.97208404541015625)
_LOG2E, _ROUND = _F(1.442695040888963407359924681001892137), _F(12582912.0)  # 1.5 * 2**23
_LN2_HI, _LN2_LO = _F(-6.93145752e-1), _F(-1.42860677e-6)  # -ln 2 in two parts
_P0, _P1, _P2 = _F(9.999999999980870924916e-01), _F(7.257664613233124478488e-01), _F(2.473615434895520810817e-01)
_P3, _P4, _P5 = _F(5.114512081637298353406e-02), _F(6.757896990527504603057e-03), _F(5.082762527590693718096e-04)
_Q0, _Q1, _Q2 = _F(1.0), _F(-2.742335390411667452936e-01), _F(2.159509375685829852307e-02)


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's llvm.fma: one instruction where the CPU has FMA)."""

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return types.float32(types.float32, types.float32, types.float32), codegen


@njit(inline="always", error_model="numpy")
def exp(x):
    """numpy's float32 exp of the float32 ``x`` (above)."""
    special = not (_X_MIN < x < _X_MAX)  # NaN, overflow, underflow: computed on 0, then replaced
    v = _ZERO if special else x
    k = (v * _LOG2E + _ROUND) - _ROUND
    r = _fma(k, _LN2_LO, _fma(k, _LN2_HI, v))
    num = _fma(_fma(_fma(_fma(_fma(_P5, r, _P4), r, _P3), r, _P2), r, _P1), r, _P0)
    p = num / _fma(_fma(_Q2, r, _Q1), r, _Q0)
    i = np.int32(k)
    h = i >> 1  # 2**k as two factors, each a normal float32 (k from -150 to 128): the second product rounds
    p = p * _as_float32((h + 127) << 23) * _as_float32((i - h + 127) << 23)
    if special:
        p = _NAN if x != x else (_INF if x > _ZERO else _ZERO)
    return p


@njit(cache=True, nogil=True, error_model="numpy")
def exp_into(x, out):
    """out[i] = exp(x[i]) over two 1-D float32 arrays."""
    for i in range(x.shape[0]):
        out[i] = exp(x[i])


def _around(value, count=64):
    """The float32 ``value`` and the ``count`` floats either side of its bits."""
    bits = int(np.array([value], np.float32).view(np.uint32)[0])
    return np.clip(bits + np.arange(-count, count + 1), 0, 2**32 - 1).astype(np.uint32).view(np.float32)


def probe_values():
    """float32 values over every range ``exp`` takes apart: 2**16 bit patterns spread over all of them (NaNs and
    subnormals too), 100,000 spread over [-104, 89], the floats around its limits, around where results become
    subnormal and around 0 and -0, the infinities."""
    spread = np.linspace(0, 2**32 - 1, 2**16).astype(np.uint32).view(np.float32)
    dense = np.linspace(-104.0, 89.0, 100_000, dtype=np.float32)
    ends = [_around(e) for e in (_X_MAX, _X_MIN, -87.33654, 0.0, -0.0)]
    return np.concatenate([spread, dense, *ends, np.array([np.inf, -np.inf], np.float32)])


def matches_numpy(loop, x):
    """Whether ``loop(x, out)`` writes numpy's float32 exp of the float32 values ``x``, bit for bit."""
    out = np.empty_like(x)
    loop(x, out)
    with np.errstate(all="ignore"):
        return bool(np.array_equal(out.view(np.uint32), np.exp(x).view(np.uint32)))


@functools.lru_cache(maxsize=1)
def same_as_numpy():
    """Whether ``exp`` gives numpy's bits on this host (on every one of probe_values)."""
    return matches_numpy(exp_into, probe_values())
