"""The tanh op's kernels: float32 through _activation_loops' vectorised tanh (within 2 ulps of float64
rounded, the parallel twin's bits the serial loop's), float64 numpy's; the gradient's numba pass
numpy's bits (tests/kernels/test_replicas.py checks its replica)."""
import numpy as np
import pytest

from pe_cli.kernels.cpu import _numba, activation, threads


def _values():
    return np.concatenate([np.linspace(-12, 12, 30003), [-1e-9, 0.0, -0.0, 0.6, 0.65, 9.5, -9.5, 1e30, -1e30,
                                                          np.inf, -np.inf, np.nan]]).astype(np.float32)


def test_float32_tanh_within_two_ulps(device_threads):
    v = _values()
    out = activation.tanh({"X": v.reshape(3, -1)}, {})["Out"].reshape(-1)
    assert out.dtype == np.float32
    want = np.tanh(v.astype(np.float64)).astype(np.float32)
    finite = ~np.isnan(v)
    np.testing.assert_array_max_ulp(out[finite], want[finite], maxulp=2)
    assert np.isnan(out[-1]) and np.signbit(out[v.size - 10]) == np.signbit(np.float32(-0.0))


def test_the_parallel_twin_gives_the_serial_bits(monkeypatch):
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_numba, "EAGER", True)
    v, outs = _values(), []
    for share in (1, 2):
        monkeypatch.setattr(threads, "_share", share)
        outs.append(activation.tanh({"X": v}, {})["Out"])
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_gradient_is_numpys_expression(dtype, device_threads):
    rng = np.random.default_rng(2)
    out = np.tanh(rng.standard_normal((7, 300))).astype(dtype)
    dout = rng.standard_normal((7, 300)).astype(dtype)
    dx = activation.tanh_grad({"Out": out, "Out@GRAD": dout}, {})["X@GRAD"]
    np.testing.assert_array_equal(dx, dout * (1 - out * out))


def test_float64_keeps_numpy():
    v = np.linspace(-3, 3, 101)
    np.testing.assert_array_equal(activation.tanh({"X": v}, {})["Out"], np.tanh(v))
