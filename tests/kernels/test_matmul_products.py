"""matmul's products (kernels/cpu/matmul.py, through linalg.py's adapters): two matrices, or a stack times one matrix, go through matmul2d's
blocks on the device's threads, stacks of one batch through _blas_loops.gemm_batch; with transposes,
1-D operands and broadcast stacks against numpy's matmul in float64, forward and both gradients, on a
device of 1 thread and of 2."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import gemm, linalg
from pe_cli.kernels.cpu.runtime import threads

rng = np.random.default_rng(8)


@pytest.fixture
def device_threads(device_threads, monkeypatch):
    """conftest's 1 or 2 threads; every GEMM counts as large, so that each takes matmul2d's blocks."""
    monkeypatch.setattr(threads, "SPLIT_GEMM_MACS", 1)
    return device_threads


CASES = [  # X shape, Y shape, transpose_X, transpose_Y
    ((37, 19), (19, 23), False, False),
    ((19, 37), (19, 23), True, False),
    ((37, 19), (23, 19), False, True),
    ((19, 37), (23, 19), True, True),
    ((4, 9, 19), (19, 23), False, False),  # a stack times one matrix: one product of 36 rows
    ((4, 9, 19), (23, 19), False, True),
    ((4, 19, 9), (19, 23), True, False),  # a transposed stack: numpy's batched matmul
    ((3, 9, 19), (3, 19, 5), False, False),  # stacks of one batch: _blas_loops.gemm_batch on 2 threads
    ((3, 19, 9), (3, 19, 5), True, False),
    ((3, 9, 19), (3, 5, 19), False, True),
    ((2, 3, 7, 16), (2, 3, 7, 16), False, True),  # the attention's q k^T
    ((1, 9, 19), (3, 19, 5), False, False),  # a broadcast stack: numpy's matmul
    ((19,), (19, 23), False, False),
    ((37, 19), (19,), False, False),
]


def _summed_to(g, shape):
    """A broadcast product's gradient summed back to its operand's ``shape``."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1), keepdims=True)


@pytest.mark.parametrize("x_shape, y_shape, tx, ty", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_and_its_gradients_match_numpy(x_shape, y_shape, tx, ty, dtype, device_threads):
    x, y = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(y_shape).astype(dtype)
    attrs = {"transpose_X": tx, "transpose_Y": ty, "alpha": 1.0}
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    xm = x64.reshape(1, -1) if x.ndim == 1 else (np.swapaxes(x64, -1, -2) if tx else x64)
    ym = y64.reshape(-1, 1) if y.ndim == 1 else (np.swapaxes(y64, -1, -2) if ty else y64)
    want = np.matmul(xm, ym)
    out = linalg.matmul({"X": x, "Y": y}, attrs)["Out"]
    assert out.dtype == dtype
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.reshape(want.shape), want, rtol=rtol, atol=rtol)
    dout = rng.standard_normal(out.shape).astype(dtype)
    ins = {"X": x, "Y": y, "Out": out, "Out@GRAD": dout}
    d = dout.astype(np.float64).reshape(want.shape)
    dx = np.matmul(d, np.swapaxes(ym, -1, -2))
    dy = np.matmul(np.swapaxes(xm, -1, -2), d)
    dx, dy = _summed_to(dx, xm.shape), _summed_to(dy, ym.shape)
    dx = np.swapaxes(dx, -1, -2) if tx and x.ndim > 1 else dx
    dy = np.swapaxes(dy, -1, -2) if ty and y.ndim > 1 else dy
    gx = linalg.matmul_grad_x(ins, attrs)["X@GRAD"]
    gy = linalg.matmul_grad_y(ins, attrs)["Y@GRAD"]
    assert gx.shape == x.shape and gy.shape == y.shape and gx.dtype == gy.dtype == dtype
    np.testing.assert_allclose(gx, dx.reshape(x.shape), rtol=rtol, atol=rtol * 10)
    np.testing.assert_allclose(gy, dy.reshape(y.shape), rtol=rtol, atol=rtol * 10)


@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_an_inner_dimension_of_1_is_blas_outer_product_to_the_bit(trans_a, trans_b, device_threads):
    """k = 1 (the gradient of a product with one output column): numpy's outer product, not BLAS's
    GEMM, which took 4x as long; each value is one product either way, and the bias is added after."""
    a = rng.standard_normal((1, 37) if trans_a else (37, 1)).astype(np.float32)
    b = rng.standard_normal((23, 1) if trans_b else (1, 23)).astype(np.float32)
    bias = rng.standard_normal(23).astype(np.float32)
    want = (a.T if trans_a else a) @ (b.T if trans_b else b)
    np.testing.assert_array_equal(gemm.matmul2d(a, b, trans_a, trans_b), want)
    np.testing.assert_array_equal(gemm.matmul2d(a, b, trans_a, trans_b, bias=bias), want + bias)
