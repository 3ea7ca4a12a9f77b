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

OpenBLAS packs a GEMM's operands into a work buffer (one per concurrent caller, mapped on first use
and kept), and its kernels prefetch past what they packed. Pages of the buffer never written are
not mapped (/proc/self/pagemap), so each such prefetch walks the page tables for nothing (there is
no translation to keep). On the 2-core AMD EPYC (Zen 1) VM a single-threaded SGEMM [512, 784] x
[784, 256] ran at 12 GFLOP/s instead of 37, from numpy and from pe's threads alike, until the
first 0.5 MB of its buffer had been written (2026-11-23; docs/PERFORMANCE.md, "OpenBLAS's work
buffers"). So ``_find`` writes the first ``TOUCH_BYTES`` of the buffers the next callers will get
(``prefault_buffers``).
"""
import ctypes
import os
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
        table, lib = {}, None
        try:
            lib = _numpy_blas()
            for kind, dtype, scalar in (("s", np.dtype(np.float32), ctypes.c_float),
                                        ("d", np.dtype(np.float64), ctypes.c_double)):
                fn = _symbol(lib, kind, scalar)
                if fn is not None and _works(fn, dtype):
                    table[dtype] = fn
        except Exception:       # any surprise from the loader: the numpy path stays
            table = {}
        prefault_buffers(lib)
        _found = table
        return table


TOUCH_BYTES = 2 << 20   # 0.5 MB was enough in every shape measured; OpenBLAS's buffers are 16 MB or more
MAX_BUFFERS = 32        # at most 64 MB written; OpenBLAS's table holds twice its MAX_THREADS (64 in numpy's)


def prefault_buffers(lib, count=None):
    """Writes the first TOUCH_BYTES of the ``count`` work buffers the BLAS library ``lib`` (a
    ctypes.CDLL) hands out first (default: one per CPU and one more, as many callers as can run at
    once, at most MAX_BUFFERS). Returns how many it wrote: 0 where ``lib`` is not an OpenBLAS
    exporting its buffer allocator. Call it while no GEMM runs (OpenBLAS gives each caller the
    first free buffer: these, from now on)."""
    try:
        alloc, free = (getattr(lib, name, None) for name in ("blas_memory_alloc", "blas_memory_free"))
        if alloc is None or free is None:
            return 0
        alloc.restype, alloc.argtypes = ctypes.c_void_p, [ctypes.c_int]
        free.restype, free.argtypes = None, [ctypes.c_void_p]
        held = [alloc(0) for _ in range(count or min((os.cpu_count() or 1) + 1, MAX_BUFFERS))]
        try:
            for address in held:
                if address:
                    ctypes.memset(address, 0, TOUCH_BYTES)
        finally:
            for address in held:
                if address:
                    free(address)
        return sum(1 for address in held if address)
    except Exception:           # any surprise from the loader: buffers stay as OpenBLAS made them
        return 0


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
