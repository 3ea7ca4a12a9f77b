"""cuBLAS for the matrix products (pe_cli/kernels/cuda/_blas.py).

Here (the simulator): the switch keeps pe's kernel and never imports nvmath, PE_CUDA_GEMM is checked,
and the cuBLAS arguments _blas.plan derives from shapes and strides, run through a numpy model of a
column-major (strided-batched) GEMM on the operands' own memory, give numpy's row-major product for
every layout pe hands it (transposes, transposed views, padded rows, batches, a broadcast batch of 1);
and _matmul.matmul's calls, into a numpy stand-in for cuBLAS's four gemm entry points reading the
simulator's host memory, give numpy's product (operands in cuBLAS's order, alpha and beta pointers).
On a real GPU (PE_REAL_GPU=1, nvmath-python installed): cuBLAS and pe's kernel agree on every op case
of tests/ops whose CUDA kernel multiplies matrices, forward and gradients."""

import ctypes
import os
import sys

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.kernels.cuda import _blas, _matmul
from pe_cli.kernels.cuda import runtime as rt

REAL = os.environ.get("PE_REAL_GPU") == "1"


@pytest.fixture
def gemm_mode():
    old = _blas.mode()
    yield _blas.set_mode
    _blas.set_mode(old)


@pytest.mark.skipif(REAL, reason="the simulator's path")
def test_the_simulator_keeps_pe_kernel_and_never_imports_nvmath():
    assert _blas.backend() == "numba" and "simulator" in _blas.unavailable_reason()
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    with rt.device(0):
        got = rt.to_host(_matmul.matmul(rt.to_device(a), rt.to_device(b)))
    np.testing.assert_allclose(got, a @ b)
    assert "nvmath" not in sys.modules


def test_pe_cuda_gemm_switches_the_library_off_and_checks_its_value(gemm_mode):
    gemm_mode("numba")
    assert _blas.unavailable_reason() == "PE_CUDA_GEMM=numba" and _blas.backend() == "numba"
    with pytest.raises(PeError, match="PE_CUDA_GEMM='fast' is not one of auto, numba, cublas"):
        gemm_mode("fast")


@pytest.mark.skipif(REAL, reason="the simulator's path")
def test_cublas_required_where_it_cannot_run_is_a_one_line_error(gemm_mode):
    gemm_mode("cublas")
    with rt.device(0), pytest.raises(PeError, match="PE_CUDA_GEMM=cublas but cuBLAS cannot run here"):
        _matmul.matmul(rt.to_device(np.ones((2, 2))), rt.to_device(np.ones((2, 2))))


# -- the arguments, checked on host memory -------------------------------------------------------


def _colmajor(buf, offset, rows, cols, ld):
    """The column-major [rows, cols] matrix at ``offset`` of ``buf`` with leading dimension ld."""
    assert ld >= max(1, rows), f"leading dimension {ld} < {rows} rows"
    assert offset >= 0 and offset + (rows - 1) + (cols - 1) * ld < buf.size, "reads past the buffer"
    item = buf.itemsize
    return np.lib.stride_tricks.as_strided(buf[offset:], (rows, cols), (item, ld * item))


def _gemm_strided_batched(p, alpha, a_buf, a_off, b_buf, b_off):
    """What cuBLAS's {s,d}gemmStridedBatched computes for a Plan, as numpy: C is returned as the
    flat column-major buffer it writes (batch x ldc x n)."""
    c_buf = np.zeros(p.stride_c * (p.batch - 1) + p.ldc * p.n, a_buf.dtype)
    for i in range(p.batch):
        a = _colmajor(a_buf, a_off + i * p.stride_a, *((p.k, p.m) if p.trans_a else (p.m, p.k)), p.lda)
        b = _colmajor(b_buf, b_off + i * p.stride_b, *((p.n, p.k) if p.trans_b else (p.k, p.n)), p.ldb)
        c = _colmajor(c_buf, i * p.stride_c, p.m, p.n, p.ldc)
        c[...] = alpha * (a.T if p.trans_a else a) @ (b.T if p.trans_b else b)
    return c_buf


def _view(buf, offset, shape, strides):
    item = buf.itemsize
    return np.lib.stride_tricks.as_strided(buf[offset:], shape, [s * item for s in strides])


def _check(buf, a_at, b_at, trans_a, trans_b, rtol, alpha=0.5):
    """a_at/b_at: (element offset, 3-D shape, element strides) of the operands in ``buf``."""
    a, b = _view(buf, *a_at), _view(buf, *b_at)
    p = _blas.plan(a.shape, a.strides, b.shape, b.strides, trans_a, trans_b, buf.itemsize)
    assert p is not None
    got = _gemm_strided_batched(p, alpha, buf, b_at[0], buf, a_at[0])  # cuBLAS's A is pe's B
    M, N = p.n, p.m
    want = alpha * np.matmul(a.transpose(0, 2, 1) if trans_a else a, b.transpose(0, 2, 1) if trans_b else b)
    np.testing.assert_allclose(
        got[: p.batch * M * N].reshape(p.batch, M, N), np.broadcast_to(want, (p.batch, M, N)), rtol=rtol, atol=rtol
    )
    return p


# (a: offset, shape, strides), (b: ...), trans_a, trans_b: M=3, K=4, N=5 unless said
LAYOUTS = {
    "contiguous": ((0, (1, 3, 4), (12, 4, 1)), (20, (1, 4, 5), (20, 5, 1)), False, False),
    "both transposed flags": ((0, (1, 4, 3), (12, 3, 1)), (20, (1, 5, 4), (20, 4, 1)), True, True),
    "transposed views (column-major)": ((0, (1, 3, 4), (12, 1, 3)), (20, (1, 4, 5), (20, 1, 4)), False, False),
    "transposed view with its flag": ((0, (1, 4, 3), (12, 1, 4)), (20, (1, 4, 5), (20, 5, 1)), True, False),
    "padded rows": ((1, (1, 3, 4), (21, 7, 1)), (30, (1, 4, 5), (40, 9, 1)), False, False),
    "padded columns, transposed": ((2, (1, 4, 3), (40, 1, 6)), (50, (1, 5, 4), (40, 1, 8)), True, True),
    "batched": ((0, (3, 3, 4), (12, 4, 1)), (40, (3, 4, 5), (20, 5, 1)), False, False),
    "batched, b transposed": ((0, (3, 3, 4), (12, 4, 1)), (40, (3, 5, 4), (20, 4, 1)), False, True),
    "a broadcast batch of 1": ((0, (1, 3, 4), (12, 4, 1)), (20, (4, 4, 5), (20, 5, 1)), False, False),
    "b broadcast batch of 1": ((0, (2, 4, 3), (12, 3, 1)), (30, (1, 4, 5), (20, 5, 1)), True, False),
    "every other matrix of a batch": ((0, (2, 3, 4), (24, 4, 1)), (50, (2, 4, 5), (40, 5, 1)), False, False),
    "vectors (M = 1, N = 1)": ((0, (1, 1, 4), (4, 4, 1)), (10, (1, 4, 1), (4, 1, 1)), False, False),
}


@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cublas_arguments_give_numpys_row_major_product(layout, dtype):
    buf = np.random.default_rng(3).standard_normal(200).astype(dtype)
    a_at, b_at, ta, tb = LAYOUTS[layout]
    p = _check(buf, a_at, b_at, ta, tb, 1e-5 if dtype == np.float32 else 1e-12)
    assert p.ldc == p.m and p.stride_c == p.m * p.n


def test_a_contiguous_product_is_the_textbook_call():
    p = _blas.plan((1, 3, 4), (96, 32, 8), (1, 4, 5), (160, 40, 8), False, False, 8)
    assert p == _blas.Plan(False, False, 5, 3, 4, 5, 4, 5, 0, 0, 15, 1)
    assert _blas.plan((2, 4, 3), (96, 24, 8), (2, 5, 4), (160, 32, 8), True, True, 8) == _blas.Plan(
        True, True, 5, 3, 4, 4, 3, 5, 20, 12, 15, 2
    )


@pytest.mark.parametrize(
    "a_strides", [(96, 16, 16), (96, -32, 8), (96, 32, 4)], ids=["no unit stride", "negative", "misaligned"]
)
def test_layouts_cublas_cannot_address_keep_pe_kernel(a_strides):
    assert _blas.plan((1, 3, 4), a_strides, (1, 4, 5), (160, 40, 8), False, False, 8) is None


# -- _matmul.matmul's calls, into a numpy cuBLAS ------------------------------------------------------


class _HostCublas:
    """cuBLAS's gemm entry points computed by numpy on host pointers, by BLAS's column-major
    definition (the simulator's device arrays live in host memory), counting the calls."""

    class Operation:
        N, T = 0, 1

    def __init__(self):
        self.calls = 0

    def create(self):
        return 1

    def set_stream(self, handle, stream):
        pass

    def set_workspace(self, handle, pointer, size):
        pass

    def _gemm(self, dtype, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch):
        self.calls += 1
        ctype, item = (ctypes.c_float, 4) if dtype == np.float32 else (ctypes.c_double, 8)

        def matrix(pointer, rows, cols, ld):
            memory = (ctype * (rows + (cols - 1) * ld)).from_address(pointer)
            return _colmajor(np.ctypeslib.as_array(memory), 0, rows, cols, ld)

        alpha, beta = ctype.from_address(alpha).value, ctype.from_address(beta).value
        for i in range(batch):
            op_a = matrix(a + i * sa * item, *((k, m) if ta else (m, k)), lda)
            op_b = matrix(b + i * sb * item, *((n, k) if tb else (k, n)), ldb)
            out = matrix(c + i * sc * item, m, n, ldc)
            product = alpha * (op_a.T if ta else op_a) @ (op_b.T if tb else op_b)
            out[...] = product if beta == 0 else product + beta * out  # beta 0: C is not read

    def sgemm(self, h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        self._gemm(np.float32, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)

    def dgemm(self, h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        self._gemm(np.float64, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)

    def sgemm_strided_batched(self, h, *args):
        self._gemm(np.float32, *args)

    def dgemm_strided_batched(self, h, *args):
        self._gemm(np.float64, *args)


@pytest.fixture
def host_cublas(monkeypatch):
    """_blas with the numpy cuBLAS in place of nvmath's (and host pointers for device ones)."""
    lib = _HostCublas()
    monkeypatch.setitem(_blas._state, "lib", lib)
    monkeypatch.setitem(_blas._state, "mode", "auto")
    monkeypatch.setattr(_blas, "unavailable_reason", lambda: None)
    monkeypatch.setattr(_blas, "_pointer", lambda array: array.ctypes.data)
    monkeypatch.setattr(_blas, "_stream_handle", lambda stream: 0)
    monkeypatch.setattr(_blas, "_handles", {})
    monkeypatch.setattr(_blas, "WORKSPACE_BYTES", 512)
    return lib


@pytest.mark.skipif(REAL, reason="the simulator's arrays are host memory")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matmul_hands_cublas_pe_operands_in_its_order(host_cublas, dtype):
    rng = np.random.default_rng(5)
    with rt.device(0):
        for a_shape, b_shape, ta, tb, view in [
            ((3, 4), (4, 5), False, False, False),
            ((4, 3), (5, 4), True, True, False),
            ((2, 3, 4), (2, 5, 4), False, True, False),
            ((3, 4), (2, 4, 5), False, False, False),
            ((4, 3), (4, 5), False, False, True),
        ]:
            a, b = rng.standard_normal(a_shape).astype(dtype), rng.standard_normal(b_shape).astype(dtype)
            da, db = rt.to_device(a), rt.to_device(b)
            if view:  # a transposed view: column-major storage, read in place
                da, a = da.T, a.T
            calls = host_cublas.calls
            got = rt.to_host(_matmul.matmul(da, db, ta, tb, alpha=0.5))
            assert host_cublas.calls == calls + 1
            want = 0.5 * np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
            np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.skipif(REAL, reason="the simulator's arrays are host memory")
def test_integer_products_keep_pe_kernel(host_cublas):
    with rt.device(0):
        got = rt.to_host(
            _matmul.matmul(rt.to_device(np.arange(6).reshape(2, 3)), rt.to_device(np.ones((3, 2), np.int64)))
        )
    np.testing.assert_array_equal(got, np.arange(6).reshape(2, 3) @ np.ones((3, 2), np.int64))
    assert host_cublas.calls == 0


@pytest.mark.skipif(REAL, reason="the simulator's arrays are host memory")
def test_a_cublas_that_cannot_start_leaves_pe_kernel_running(host_cublas, monkeypatch):
    def no_library():
        raise RuntimeError("libcublas.so.12: cannot open shared object file")

    monkeypatch.setattr(host_cublas, "create", no_library)
    monkeypatch.setitem(_blas._state, "why", None)
    monkeypatch.setattr(_blas, "unavailable_reason", lambda: _blas._state["why"])
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    with rt.device(0):
        np.testing.assert_allclose(rt.to_host(_matmul.matmul(rt.to_device(a), rt.to_device(b))), a @ b)
        assert (
            _blas._state["why"]
            == "cuBLAS could not start (RuntimeError: libcublas.so.12: cannot open shared object file)"
        )
        monkeypatch.setitem(_blas._state, "mode", "cublas")
        with pytest.raises(PeError, match="PE_CUDA_GEMM=cublas but cuBLAS cannot run here: cuBLAS could not start"):
            _matmul.matmul(rt.to_device(a), rt.to_device(b))
    assert host_cublas.calls == 0


# -- on a real GPU: cuBLAS against pe's kernel ------------------------------------------------------

GEMM_OPS = {
    "mul",
    "matmul",
    "matmul_v2",
    "conv2d",
    "conv2d_transpose",
    "depthwise_conv2d",
    "bmm",
    "addmm",
    "fc",
    "fused_gemm_epilogue",
}


def _gemm_cases():
    if not REAL:
        return []
    from tests.cuda.test_cuda_ops import CASES

    return [c for c in CASES if c.op in GEMM_OPS]


@pytest.mark.skipif(not REAL, reason="needs a real GPU: PE_REAL_GPU=1")
@pytest.mark.parametrize("case", _gemm_cases(), ids=[c.id for c in _gemm_cases()])
def test_cublas_matches_pe_kernel(case, gemm_mode, monkeypatch):
    from op_test import analytic_grads, run_forward

    if _blas.backend() != "cublas":
        pytest.skip(f"cuBLAS is not used here: {_blas.unavailable_reason()}")
    calls = []
    call = _blas._call
    monkeypatch.setattr(_blas, "_call", lambda *args: calls.append(1) or call(*args))
    results = {}
    for mode in ("numba", "cublas"):
        gemm_mode(mode)
        results[mode] = (run_forward(case, "cuda"), analytic_grads(case, "cuda")[0] if case.grad else {})
    assert calls, f"{case.id}: no product went to cuBLAS"
    (fwd_n, grad_n), (fwd_c, grad_c) = results["numba"], results["cublas"]
    for what, n, c in [("output", fwd_n, fwd_c), ("gradient", grad_n, grad_c)]:
        for name in n:
            want, got = np.asarray(n[name]), np.asarray(c[name])
            tol = 1e-4 if want.dtype == np.float32 else 1e-10
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"{case.id}: {what} {name}")
