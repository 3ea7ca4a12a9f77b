"""The tanh and sigmoid ops' kernels: float32 through _activation_loops' vectorised loops (sigmoid within 2
ulps of float64 rounded; tanh Fluid's own rational form, within 6: its bits are checked against Fluid's and
Paddle 2.6's in tests/fluid/test_fluid_oracle.py and tests/paddle/test_paddle_oracle.py; the parallel twin's
bits the serial loop's), float64 numpy's; the gradients' numba pass numpy's bits (tests/kernels/test_replicas.py
checks their replicas)."""

import numpy as np
import pytest

from pe_cli.base.activations import ROWS
from pe_cli.kernels.cpu.runtime import loops as _numba, threads
from pe_cli.kernels.cpu import activation

EXACT = {"tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v))}  # float64 references
GRADIENT = {"tanh": lambda out, dout: dout * (1 - out * out), "sigmoid": lambda out, dout: dout * out * (1 - out)}
OPS = sorted(EXACT)
MAX_ULPS = {"tanh": 6, "sigmoid": 2}  # (Eigen's rational tanh: 5 on these values, 6 over every float32 below 12)


def _values():
    return np.concatenate(
        [np.linspace(-12, 12, 30003), [-1e-9, 0.0, -0.0, 0.6, 0.65, 9.5, -9.5, 1e30, -1e30, np.inf, -np.inf, np.nan]]
    ).astype(np.float32)


def _kernel(op, suffix=""):
    return getattr(activation, op + suffix)


@pytest.mark.parametrize("op", OPS)
def test_float32_within_their_ulps(op, device_threads):
    v = _values()
    out = _kernel(op)({"X": v.reshape(3, -1)}, {})["Out"].reshape(-1)
    assert out.dtype == np.float32
    with np.errstate(over="ignore"):
        want = EXACT[op](v.astype(np.float64)).astype(np.float32)
    finite = ~np.isnan(v)
    np.testing.assert_array_max_ulp(out[finite], want[finite], maxulp=MAX_ULPS[op])
    assert np.isnan(out[-1])


def test_tanh_keeps_the_sign_of_zero():
    v = _values()
    out = activation.tanh({"X": v}, {})["Out"]
    assert np.signbit(out[v.size - 10]) == np.signbit(np.float32(-0.0))


def test_sigmoid_saturates_to_0_and_1():
    v = np.array([-np.inf, -200, -90, 20, 200, np.inf], np.float32)
    out = activation.sigmoid({"X": v}, {})["Out"]
    assert out[0] == out[1] == 0 and 0 <= out[2] < 1e-38 and out[3] == out[4] == out[5] == 1


@pytest.mark.parametrize("op", OPS)
def test_the_parallel_twin_gives_the_serial_bits(op, monkeypatch):
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_numba, "EAGER", True)
    v, outs = _values(), []
    for share in (1, 2):
        monkeypatch.setattr(threads, "_share", share)
        outs.append(_kernel(op)({"X": v}, {})["Out"])
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_gradient_is_numpys_expression(op, dtype, device_threads):
    rng = np.random.default_rng(2)
    out = EXACT[op](rng.standard_normal((7, 300))).astype(dtype)
    dout = rng.standard_normal((7, 300)).astype(dtype)
    dx = _kernel(op, "_grad")({"Out": out, "Out@GRAD": dout}, {})["X@GRAD"]
    np.testing.assert_array_equal(dx, GRADIENT[op](out, dout))


@pytest.mark.parametrize("op", OPS)
def test_float64_keeps_numpy(op):
    v = np.linspace(-3, 3, 101)
    np.testing.assert_array_equal(_kernel(op)({"X": v}, {})["Out"], ROWS[op].forward(v))
