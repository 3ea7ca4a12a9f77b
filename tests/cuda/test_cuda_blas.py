"""cuBLAS for the matrix products (pe_cli/kernels/cuda/_blas.py).

Here (the simulator): the switch keeps pe's kernel and never imports nvmath, PE_CUDA_GEMM is checked,
and the cuBLAS arguments _blas.plan derives from shapes and strides, run through a numpy model of a
column-major (strided-batched) GEMM on the operands' own memory, give numpy's row-major product for
every layout pe hands it (transposes, transposed views, padded rows, batches, a broadcast batch of 1).
On a real GPU (PE_REAL_GPU=1, nvmath-python installed): cuBLAS and pe's kernel agree on every op case
of tests/ops whose CUDA kernel multiplies matrices, forward and gradients."""
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
    got = _gemm_strided_batched(p, alpha, buf, b_at[0], buf, a_at[0])       # cuBLAS's A is pe's B
    M, N = p.n, p.m
    want = alpha * np.matmul(a.transpose(0, 2, 1) if trans_a else a, b.transpose(0, 2, 1) if trans_b else b)
    np.testing.assert_allclose(got[:p.batch * M * N].reshape(p.batch, M, N), np.broadcast_to(want, (p.batch, M, N)),
                               rtol=rtol, atol=rtol)
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
    assert _blas.plan((2, 4, 3), (96, 24, 8), (2, 5, 4), (160, 32, 8), True, True, 8) == \
        _blas.Plan(True, True, 5, 3, 4, 4, 3, 5, 20, 12, 15, 2)


@pytest.mark.parametrize("a_strides", [(96, 16, 16), (96, -32, 8), (96, 32, 4)], ids=["no unit stride", "negative", "misaligned"])
def test_layouts_cublas_cannot_address_keep_pe_kernel(a_strides):
    assert _blas.plan((1, 3, 4), a_strides, (1, 4, 5), (160, 40, 8), False, False, 8) is None


# -- on a real GPU: cuBLAS against pe's kernel ------------------------------------------------------

GEMM_OPS = {"mul", "matmul", "matmul_v2", "conv2d", "conv2d_transpose", "depthwise_conv2d", "bmm", "addmm",
            "fc", "fused_gemm_epilogue"}


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
