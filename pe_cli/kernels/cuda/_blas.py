"""cuBLAS for pe's matrix products on a real GPU, through nvmath-python's low-level bindings
(``nvmath.bindings.cublas``: cuBLAS's C API on raw device pointers; the ``cuda-libs`` extra).

_matmul.matmul asks ``gemm`` first; it returns False, and pe's own tiled kernel runs, wherever the
library is not used: under numba's simulator (nvmath is never imported there), with
``PE_CUDA_GEMM=numba``, where nvmath-python or cuBLAS cannot be loaded, for a dtype other than
float32/float64, and for an operand whose last two dims cuBLAS cannot address (neither of them
unit-stride, a negative stride, sizes past int32). ``PE_CUDA_GEMM=cublas`` makes a missing library an
error instead of a fallback.

cuBLAS is column-major and pe's arrays are row-major: a row-major [R, C] matrix with row stride ld is
the column-major [C, R] matrix with leading dimension ld, its transpose. So C = op(A) @ op(B) is
computed as C^T = op(B)^T @ op(A)^T: cuBLAS's first operand is pe's B, its second pe's A, m = N,
n = M, and C (row-major, contiguous [batch, M, N]) is written in place with ldc = N. An operand stored
column-major (a transposed view) is the row-major matrix of its transpose, so its op flips. A batch is
one strided-batched call; a batch of one broadcast is a stride of 0.

One cuBLAS handle per device, created with that device's context current, bound to pe's stream for
the device, with a workspace taken from pe's pool (so that a call allocates nothing, and stream
capture into a CUDA graph sees no allocation). Calls go through a lock per device: handles are shared
by the executor's threads, which launch to the same stream.
"""

import os
import threading
from collections import namedtuple

import numpy as np

from ...base.errors import PeError
from . import runtime as rt

MODES = ("auto", "numba", "cublas")
WORKSPACE_BYTES = 32 << 20  # cuBLAS's recommendation for Hopper (4 MiB suffices before it)
INT32_MAX = 2**31 - 1

# cuBLAS's arguments for C^T = op_a(A) op_b(B) (A: pe's B, B: pe's A); strides in elements, 0 for a
# broadcast batch of one.
Plan = namedtuple("Plan", "trans_a trans_b m n k lda ldb ldc stride_a stride_b stride_c batch")

_state = {"mode": None, "lib": None, "why": None}  # lib/why: None until first asked
_handles = {}
_handles_lock = threading.Lock()


def mode():
    """PE_CUDA_GEMM: 'auto' (cuBLAS where it loads), 'numba' (pe's kernel), 'cublas' (required)."""
    if _state["mode"] is None:
        set_mode(os.environ.get("PE_CUDA_GEMM", "auto").strip().lower() or "auto")
    return _state["mode"]


def set_mode(value):
    """Switch the GEMM path in this process (benchmarks time both in one run); returns the old one."""
    if value not in MODES:
        raise PeError(
            f"PE_CUDA_GEMM={value!r} is not one of {', '.join(MODES)}: set it to numba or cublas, or unset it"
        )
    old, _state["mode"] = _state["mode"], value
    return old


def unavailable_reason():
    """None where cuBLAS runs pe's products here, else why not (one line)."""
    if mode() == "numba":
        return "PE_CUDA_GEMM=numba"
    if rt.simulated():
        return "the CUDA simulator runs pe's own kernels"
    if _state["lib"] is None and _state["why"] is None:
        _load()
    return _state["why"]


def _load():
    try:
        from nvmath.bindings import cublas
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install: say which
        _state["why"] = (
            f"nvmath-python cannot be imported ({type(e).__name__}: {str(e)[:100]}); pip install '.[cuda-libs]'"
        )
        return
    _state["lib"] = cublas


def backend():
    """'cublas' or 'numba': what _matmul's products run on now (``pe info``, the benchmarks)."""
    return "cublas" if unavailable_reason() is None else "numba"


# -- the arguments: a pure function of shapes and strides -------------------------------------------


def _storage(rows, cols, row_stride, col_stride):
    """(column_major?, leading dimension) of a [rows, cols] matrix with these element strides, as
    cuBLAS can address it, or None where it cannot."""
    if (col_stride == 1 or cols == 1) and (rows == 1 or row_stride >= max(cols, 1)):
        return False, row_stride if rows > 1 else max(cols, 1)
    if (row_stride == 1 or rows == 1) and (cols == 1 or col_stride >= max(rows, 1)):
        return True, col_stride if cols > 1 else max(rows, 1)
    return None


def plan(a_shape, a_strides, b_shape, b_strides, trans_a, trans_b, itemsize):
    """cuBLAS's arguments (a Plan) for C[batch, M, N] = op(a) @ op(b), C contiguous, from the 3-D
    operands' shapes and byte strides (a batch dim of 1 broadcasts), or None where cuBLAS cannot
    address an operand (then pe's kernel runs)."""
    if any(s < 0 or s % itemsize for s in tuple(a_strides) + tuple(b_strides)):
        return None
    sa = [s // itemsize for s in a_strides]
    sb = [s // itemsize for s in b_strides]
    M, K = (a_shape[2], a_shape[1]) if trans_a else (a_shape[1], a_shape[2])
    N = b_shape[1] if trans_b else b_shape[2]
    batch = max(a_shape[0], b_shape[0])
    store_a = _storage(a_shape[1], a_shape[2], sa[1], sa[2])
    store_b = _storage(b_shape[1], b_shape[2], sb[1], sb[2])
    if store_a is None or store_b is None:
        return None
    # row-major (column_major False) storage seen by cuBLAS is the stored matrix's transpose
    op_b = bool(trans_b) != store_b[0]  # cuBLAS's A = pe's op(B)^T
    op_a = bool(trans_a) != store_a[0]  # cuBLAS's B = pe's op(A)^T
    stride_b = sb[0] if b_shape[0] > 1 else 0
    stride_a = sa[0] if a_shape[0] > 1 else 0
    p = Plan(op_b, op_a, N, M, K, store_b[1], store_a[1], N, stride_b, stride_a, M * N, batch)
    if max(p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.batch) > INT32_MAX:
        return None
    return p


# -- the call ---------------------------------------------------------------------------------------


def _pointer(array):
    return array.device_ctypes_pointer.value or 0


def _stream_handle(stream):
    h = stream.handle
    try:
        return int(h)  # cuda.bindings' CUstream
    except TypeError:
        return h.value or 0  # ctypes' c_void_p


def _handle(cublas):
    """(handle, lock, workspace) for the current device, made on first use; None where cuBLAS
    cannot start (its library missing: the reason is kept and pe's kernel runs from then on)."""
    dev = rt.current()
    held = _handles.get(dev.id)
    if held is None:
        with _handles_lock:
            held = _handles.get(dev.id)
            if held is None:
                try:
                    handle = cublas.create()
                except Exception as e:  # noqa: BLE001 - libcublas not found, no driver: say which
                    _state["why"] = f"cuBLAS could not start ({type(e).__name__}: {str(e)[:100]})"
                    return None
                cublas.set_stream(handle, _stream_handle(dev.stream))
                workspace = rt.empty((WORKSPACE_BYTES,), np.uint8)
                cublas.set_workspace(handle, _pointer(workspace), WORKSPACE_BYTES)
                held = _handles[dev.id] = (handle, threading.Lock(), workspace)
    return held


def _unavailable():
    """False for pe's kernel, or a PeError where PE_CUDA_GEMM=cublas requires the library."""
    if _state["mode"] == "cublas":
        raise PeError(f"PE_CUDA_GEMM=cublas but cuBLAS cannot run here: {unavailable_reason()}")
    return False


def gemm(a3, b3, c3, trans_a, trans_b, alpha):
    """C3[batch, M, N] (contiguous) = alpha * op(a3) @ op(b3) through cuBLAS on pe's stream; False
    where cuBLAS is not used for it (then the caller runs pe's kernel)."""
    if unavailable_reason() is not None:
        return _unavailable()
    dtype = np.dtype(c3.dtype)
    if dtype not in (np.float32, np.float64) or a3.dtype != dtype or b3.dtype != dtype or not c3.is_c_contiguous():
        return False
    p = plan(a3.shape, a3.strides, b3.shape, b3.strides, trans_a, trans_b, dtype.itemsize)
    if p is None:
        return False
    cublas = _state["lib"]
    held = _handle(cublas)
    if held is None:
        return _unavailable()
    _call(cublas, held, p, _pointer(b3), _pointer(a3), _pointer(c3), dtype, alpha)
    return True


def _call(cublas, held, p, a_ptr, b_ptr, c_ptr, dtype, alpha):
    """One cuBLAS call for a Plan (A: pe's B, B: pe's A)."""
    handle, lock, _ = held
    scalars = np.array([alpha, 0.0], dtype)  # host alpha and beta, read during the call
    ta = cublas.Operation.T if p.trans_a else cublas.Operation.N
    tb = cublas.Operation.T if p.trans_b else cublas.Operation.N
    one = dtype == np.float32
    with lock:
        if p.batch == 1:
            (cublas.sgemm if one else cublas.dgemm)(
                handle,
                ta,
                tb,
                p.m,
                p.n,
                p.k,
                scalars.ctypes.data,
                a_ptr,
                p.lda,
                b_ptr,
                p.ldb,
                scalars.ctypes.data + dtype.itemsize,
                c_ptr,
                p.ldc,
            )
        else:
            (cublas.sgemm_strided_batched if one else cublas.dgemm_strided_batched)(
                handle,
                ta,
                tb,
                p.m,
                p.n,
                p.k,
                scalars.ctypes.data,
                a_ptr,
                p.lda,
                p.stride_a,
                b_ptr,
                p.ldb,
                p.stride_b,
                scalars.ctypes.data + dtype.itemsize,
                c_ptr,
                p.ldc,
                p.stride_c,
                p.batch,
            )
