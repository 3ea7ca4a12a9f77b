"""numpy's own BLAS GEMM, callable from numba loops.

numba cannot call BLAS itself (it would need SciPy), but it can call a C function through a ctypes
pointer passed as an argument (which keeps the loop cacheable). This finds ``cblas_sgemm`` /
``cblas_dgemm`` in the BLAS library numpy loaded (threadpoolctl knows its file), under the names
numpy's wheels export: ``scipy_cblas_?gemm64_`` and ``cblas_?gemm64_`` (64-bit integers),
``scipy_cblas_?gemm`` (scipy-openblas32, 32-bit integers). Each is checked on a small product
before use. Where none is found (numpy built on MKL or Accelerate, say) ``gemm()`` is None and the
kernels keep their numpy path.

With it, a loop calls GEMM per sample or per block of rows from numba's own threads, BLAS itself
staying single-threaded: one thread pool for the whole machine (see pe_cli/kernels/cpu/threads.py).
"""
import ctypes
import threading

import numpy as np

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112
_CANDIDATES = (("scipy_cblas_{}gemm64_", ctypes.c_int64), ("cblas_{}gemm64_", ctypes.c_int64),
               ("scipy_cblas_{}gemm", ctypes.c_int32))

_lock = threading.Lock()
_found = None           # {np.dtype: ctypes function}, filled on first use


def gemm(dtype):
    """The CBLAS GEMM for float32 or float64 arrays, or None."""
    table = _found if _found is not None else _find()
    return table.get(dtype)


def _find():
    global _found
    with _lock:
        if _found is not None:
            return _found
        table = {}
        try:
            lib = _numpy_blas()
            for kind, dtype, scalar in (("s", np.dtype(np.float32), ctypes.c_float),
                                        ("d", np.dtype(np.float64), ctypes.c_double)):
                fn = _symbol(lib, kind, scalar)
                if fn is not None and _works(fn, dtype):
                    table[dtype] = fn
        except Exception:       # any surprise from the loader: the numpy path stays
            table = {}
        _found = table
        return table


def _numpy_blas():
    import threadpoolctl
    for info in threadpoolctl.threadpool_info():
        if info.get("user_api") == "blas" and info.get("filepath"):
            return ctypes.CDLL(info["filepath"])
    return None


def _symbol(lib, kind, scalar):
    if lib is None:
        return None
    for pattern, integer in _CANDIDATES:
        fn = getattr(lib, pattern.format(kind), None)
        if fn is None:
            continue
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, integer, integer, integer, scalar,
                       ctypes.c_void_p, integer, ctypes.c_void_p, integer, scalar, ctypes.c_void_p, integer]
        fn.restype = None
        return fn
    return None


def _works(fn, dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    b = np.arange(12, dtype=dtype).reshape(3, 4) - 5
    c = np.full((2, 4), 7, dtype=dtype)
    fn(ROW_MAJOR, NO_TRANS, NO_TRANS, 2, 4, 3, 1.0, a.ctypes.data, 3, b.ctypes.data, 4, 0.0, c.ctypes.data, 4)
    return bool(np.array_equal(c, a @ b))
