"""numpy's float32 exp in numba (_numpy_expf.py) and softmax's rows that use it (_softmax_loops.softmax_rows):
numpy's own bits, wherever numpy runs its SIMD exp (every host with AVX2 and FMA3, or AVX-512F), and the bits
of the passes around numpy's exp they replace (the float32 softmax's results did not change). Every one of the
2**32 float32 values: `python tools/check_numpy_expf.py` (25 s)."""

import numba
import numpy as np
import pytest
from numpy._core._multiarray_umath import __cpu_features__

from pe_cli.kernels.cpu import activation
from pe_cli.kernels.cpu import _activation_loops, _numpy_expf
from pe_cli.kernels.cpu import softmax as cpu_softmax
from pe_cli.kernels.cpu.runtime.loops import lazy

_expf, _loops = lazy("_numpy_expf"), lazy("_softmax_loops")
SIMD = __cpu_features__.get("AVX512F") or (__cpu_features__.get("AVX2") and __cpu_features__.get("FMA3"))
rng = np.random.default_rng(11)


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def _exp(x):
    out = np.empty_like(x)
    _expf().exp_into(x, out)
    return out


@pytest.mark.skipif(not SIMD, reason="numpy runs libm's expf on a CPU without AVX2 and FMA3")
def test_numpy_exp_bits_on_any_float32():
    x = rng.integers(0, 2**32, 2**20, dtype=np.uint64).astype(np.uint32).view(np.float32)  # NaNs, subnormals too
    x = np.concatenate([x, _expf().probe_values(), np.linspace(-64, 0, 2**16, dtype=np.float32)])
    with np.errstate(all="ignore"):
        assert np.array_equal(_bits(_exp(x)), _bits(np.exp(x)))
    assert _expf().same_as_numpy()


@numba.njit
def _cephes_exp(x, out):  # the LSTM's exponentials: within 2 ulps, not numpy's bits
    for i in range(x.shape[0]):
        out[i] = _activation_loops._exp(x[i])


@numba.njit
def _flushed_exp(x, out):  # numpy's, but subnormal results flushed to 0
    for i in range(x.shape[0]):
        v = _numpy_expf.exp(x[i])
        out[i] = np.float32(0.0) if v < np.float32(1.1754944e-38) else v


@numba.njit
def _off_near_overflow(x, out):  # numpy's, one ulp up above 88
    for i in range(x.shape[0]):
        v = _numpy_expf.exp(x[i])
        out[i] = v * np.float32(1.0000001) if np.float32(88.0) < x[i] < np.float32(88.72) else v


@numba.njit
def _off_about_zero(x, out):  # numpy's, but exp(x) = 1 for |x| < 1e-7
    for i in range(x.shape[0]):
        out[i] = np.float32(1.0) if abs(x[i]) < np.float32(1e-7) else _numpy_expf.exp(x[i])


@pytest.mark.skipif(not SIMD, reason="numpy runs libm's expf on a CPU without AVX2 and FMA3")
@pytest.mark.parametrize("loop", [_cephes_exp, _flushed_exp, _off_near_overflow, _off_about_zero])
def test_the_check_finds_exponentials_that_are_not_numpys(loop):
    """same_as_numpy's probe values find an exp off anywhere it takes apart: a softmax's range, subnormal results,
    near overflow, about 0."""
    x = _expf().probe_values()
    assert _expf().matches_numpy(_expf().exp_into, x)
    assert not _expf().matches_numpy(loop, x)


def _rows(rows, n):
    x = (rng.standard_normal((rows, n)) * 6).astype(np.float32)
    x[1, 0] = np.nan  # the row is NaN
    x[2, :] = -np.inf  # all masked: NaN as before
    x[3, -1] = 200.0  # the rest below the floor: exp(-64)
    x[4, :] = 3.0  # flat
    return x


@pytest.mark.parametrize("n", [1, 28, 100, 5000])
def test_softmax_rows_give_the_bits_of_numpys_exp_between_passes(n, device_threads):
    x = _rows(37, n)
    with np.errstate(all="ignore"):
        old = np.empty_like(x)
        _loops().softmax_shift(x, cpu_softmax.SOFTMAX_FLOOR, old)
        np.exp(old, out=old)
        _loops().softmax_scale(old)
        new = np.empty_like(x)
        _loops().softmax_rows(x, cpu_softmax.SOFTMAX_FLOOR, new)
        twin = np.empty_like(x)
        _loops().softmax_rows_parallel(x, cpu_softmax.SOFTMAX_FLOOR, twin, 3)
    if SIMD:
        assert np.array_equal(_bits(new), _bits(old))
    assert np.array_equal(_bits(twin), _bits(new))
    ok = np.isfinite(x).all(axis=1)
    want = np.exp(np.maximum(x - x.max(axis=1, keepdims=True), -64.0).astype(np.float64))
    np.testing.assert_allclose(new[ok], (want / want.sum(axis=1, keepdims=True))[ok], rtol=2e-6, atol=1e-30)
    assert np.isnan(new[1]).all() and np.isnan(new[2]).all()


def test_softmax_keeps_numpys_exp_where_the_bits_differ(monkeypatch):
    """Where _numpy_expf.exp is not numpy's (a host whose numpy runs libm), softmax's rows take numpy's exp
    between their passes (the same bits where it is)."""
    x = _rows(9, 28)
    with np.errstate(all="ignore"):
        inline = activation.softmax({"X": x}, {"axis": -1})["Out"]
    assert cpu_softmax._exp_in_loop(np.dtype(np.float32)) == bool(SIMD)
    monkeypatch.setattr(_expf(), "same_as_numpy", lambda: False)
    with np.errstate(all="ignore"):
        passes = activation.softmax({"X": x}, {"axis": -1})["Out"]
    assert not cpu_softmax._exp_in_loop(np.dtype(np.float32))
    if SIMD:
        assert np.array_equal(_bits(inline), _bits(passes))
