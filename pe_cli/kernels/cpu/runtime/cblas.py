"""The BLAS GEMM pe's loops call: numpy's own, or Intel MKL's where it serves better.

numba cannot call BLAS itself (it would need SciPy), but it can call a C function through a ctypes
pointer passed as an argument (which keeps the loop cacheable). This finds ``cblas_sgemm`` /
``cblas_dgemm`` in one library, chosen once (``_find``; ``source()`` names it):

- **MKL** (the optional ``mkl`` wheel, ``pip install 'pe-cli[mkl]'``, which ``make`` installs on
  x86-64 Linux) where it runs the loops' GEMM faster on this CPU, loaded with its sequential
  threading layer, so that each of pe's threads runs its block single-threaded as with OpenBLAS.
  Which one is faster is measured here once and kept (measured_choices.py): on the 2-core Intel Xeon
  (AVX-512, AMX) VM, 2026-11-25, MKL 2026.2's single-threaded SGEMM took 0.75-0.93 of OpenBLAS
  0.3.31's time on the MLP's shapes (the MLP's step on 2 threads 1.33 ms against 1.46-1.51;
  docs/PERFORMANCE.md, "Which BLAS"); on the 2-core AMD EPYC VM, 2026-11-26, 1.0-1.9x.
- **numpy's BLAS** otherwise (threadpoolctl knows its file), under the names numpy's wheels export:
  ``scipy_cblas_?gemm64_`` and ``cblas_?gemm64_`` (64-bit integers), ``scipy_cblas_?gemm``
  (scipy-openblas32, 32-bit integers).

``PE_BLAS=mkl`` or ``PE_BLAS=numpy`` chooses (``auto``, the default, measures). Each GEMM
is checked on a small product before use. Where none is found (numpy built on Accelerate, say)
``gemm()`` is None and the kernels keep their numpy path. GEMMs too small to split still go to numpy
(``a @ b``), whatever the source; a planned step launches numpy's own GEMM for them (``numpy_gemm``: the
function ``a @ b`` calls, found whatever the source, so its bits), and numpy's own GEMV for a matrix by a column
(``numpy_gemv``: the call numpy's matmul makes for it).

With it, a loop calls GEMM per sample or per block of rows from numba's own threads, BLAS itself
staying single-threaded: one thread pool for the whole machine (see pe_cli/kernels/cpu/runtime/threads.py).

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
import sys
import threading

import numpy as np

from ....base.errors import PeError
from . import measured_choices

ROW_MAJOR, COL_MAJOR, NO_TRANS, TRANS = 101, 102, 111, 112
_CANDIDATES = (
    ("scipy_cblas_{}gemm64_", ctypes.c_int64),
    ("cblas_{}gemm64_", ctypes.c_int64),
    ("scipy_cblas_{}gemm", ctypes.c_int32),
)

_MKL_NAMES = (("cblas_{}gemm", ctypes.c_int32),)  # libmkl_rt's LP64 interface
MKL_SEQUENTIAL = 1  # mkl_set_threading_layer's MKL_THREADING_SEQUENTIAL
SOURCES = ("auto", "mkl", "numpy")
MKL, NUMPY = "MKL", "numpy's BLAS"  # what source() says

_lock = threading.Lock()
_found = None  # {np.dtype: ctypes function}, filled on first use
_source = None  # MKL or NUMPY: where _found came from
_numpy_found = {}  # {np.dtype: ctypes function}: numpy's own BLAS's GEMMs, whatever _source is
_numpy_gemvs = {}  # {np.dtype: ctypes function}: numpy's own BLAS's GEMVs


def numpy_gemm(dtype):
    """numpy's own BLAS's CBLAS GEMM for float32 or float64 arrays (the function ``np.matmul`` calls for
    the products too small to split, whatever ``source()`` is: a planned step launches it for them), or None."""
    if _found is None:
        _find()
    return _numpy_found.get(dtype)


def numpy_gemv(dtype):
    """numpy's own BLAS's CBLAS GEMV for float32 or float64 arrays (the function ``np.matmul`` calls for a matrix
    by a column), or None."""
    if _found is None:
        _find()
    return _numpy_gemvs.get(dtype)


def gemm(dtype):
    """The CBLAS GEMM for float32 or float64 arrays, or None."""
    table = _found if _found is not None else _find()
    return table.get(dtype)


def source():
    """Where the loops' GEMMs come from: MKL, NUMPY, or None (none found: numpy's path)."""
    if _found is None:
        _find()
    return _source


def _find():
    global _found, _source
    with _lock:
        if _found is not None:
            return _found
        choice = blas_choice()
        table, name, numpy_lib = {}, None, None
        try:
            numpy_lib = _numpy_blas()  # before MKL is loaded: threadpoolctl would list it too
        except Exception:  # any surprise from the loader: numpy's BLAS is not called directly
            pass
        if choice == "auto":
            choice = "mkl" if numpy_lib is None or _faster_source(numpy_lib) == MKL else "numpy"
        mkl = _mkl() if choice == "mkl" else None
        if choice == "mkl" and mkl is None and blas_choice() == "mkl":
            raise PeError(
                "PE_BLAS=mkl, but Intel MKL is not installed (or does not load): "
                "pip install 'pe-cli[mkl]', or unset PE_BLAS"
            )
        try:
            numpy_table = _gemms(numpy_lib, _CANDIDATES) if numpy_lib is not None else {}
            _numpy_gemvs.update(_gemvs(numpy_lib) if numpy_lib is not None else {})
        except Exception:  # any surprise from the loader: numpy's BLAS is not called directly
            numpy_table = {}
        try:
            table = _gemms(mkl, _MKL_NAMES) if mkl is not None else numpy_table
            name = (MKL if mkl is not None else NUMPY) if table else None
        except Exception:  # any surprise from the loader: the numpy path stays
            table = {}
        prefault_buffers(numpy_lib)  # numpy's own GEMMs (the small ones) use them, whatever the source
        _numpy_found.update(numpy_table)
        _found, _source = table, name
        return table


def blas_choice():
    """``PE_BLAS``: auto (the default), mkl or numpy."""
    value = (os.environ.get("PE_BLAS") or "auto").strip().lower()
    if value not in SOURCES:
        raise PeError(f"PE_BLAS={value!r}: must be one of {', '.join(SOURCES)}")
    return value


def _gemms(lib, names):
    table = {}
    for kind, dtype, scalar in (
        ("s", np.dtype(np.float32), ctypes.c_float),
        ("d", np.dtype(np.float64), ctypes.c_double),
    ):
        fn = _symbol(lib, kind, scalar, names)
        if fn is not None and _works(fn, dtype):
            table[dtype] = fn
    return table


def _faster_source(numpy_lib):
    """MKL or NUMPY: whose single-threaded SGEMM ran the loops' shapes faster on this CPU (measured
    once, then read from measured_choices' file); NUMPY where MKL is not installed."""
    version = _mkl_version()
    if version is None:
        return NUMPY
    name, versions = "the GEMM of pe's loops (float32, one thread)", f"mkl {version}, numpy {np.__version__}"
    known = measured_choices.known(name, versions)
    if known in (MKL, NUMPY):
        return known
    rng = np.random.default_rng(0)
    operands = [
        (rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32), np.empty((m, n), np.float32))
        for m, k, n in ((128, 784, 256), (64, 256, 256), (256, 400, 400))
    ]

    def work(load, names):
        fn = []

        def run():
            if not fn:
                lib = load()
                fn.append(_symbol(lib, "s", ctypes.c_float, names) if lib is not None else None)
            if fn[0] is None:
                raise _Unavailable
            for a, b, c in operands:
                (m, k), n = a.shape, b.shape[1]
                fn[0](
                    ROW_MAJOR,
                    NO_TRANS,
                    NO_TRANS,
                    m,
                    n,
                    k,
                    1.0,
                    a.ctypes.data,
                    k,
                    b.ctypes.data,
                    n,
                    0.0,
                    c.ctypes.data,
                    n,
                )

        return run

    import threadpoolctl

    try:
        with threadpoolctl.threadpool_limits(1, user_api="blas"):  # as pe's loops call it
            return measured_choices.fastest(
                name, {MKL: work(_mkl, _MKL_NAMES), NUMPY: work(lambda: numpy_lib, _CANDIDATES)}, versions, prefer=NUMPY
            )
    except _Unavailable:
        return NUMPY


def _mkl_version():
    """The installed ``mkl`` wheel's version (from its dist-info folder: importlib.metadata takes
    tens of milliseconds), or None."""
    import site

    for folder in {*site.getsitepackages(), site.getusersitepackages(), *sys.path}:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            if n.startswith("mkl-") and n.endswith(".dist-info"):
                return n[len("mkl-") : -len(".dist-info")]
    return None


class _Unavailable(Exception):
    """A candidate library did not load: the other one serves."""


def _mkl():
    """libmkl_rt from the ``mkl`` wheel, set to its sequential layer, or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        from importlib import metadata

        files = metadata.distribution("mkl").files or ()
    except Exception:  # not installed
        return None
    paths = sorted(str(f.locate()) for f in files if f.name.startswith("libmkl_rt.so"))
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
            # before any other call: the default layer would load Intel's OpenMP beside numba's
            lib.MKL_Set_Threading_Layer.argtypes = [ctypes.c_int]
            lib.MKL_Set_Threading_Layer(MKL_SEQUENTIAL)
            return lib
        except (OSError, AttributeError):
            continue
    return None


TOUCH_BYTES = 2 << 20  # 0.5 MB was enough in every shape measured; OpenBLAS's buffers are 16 MB or more
MAX_BUFFERS = 32  # at most 64 MB written; OpenBLAS's table holds twice its MAX_THREADS (64 in numpy's)


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
    except Exception:  # any surprise from the loader: buffers stay as OpenBLAS made them
        return 0


def _numpy_blas():
    import threadpoolctl

    for info in threadpoolctl.threadpool_info():
        if info.get("user_api") == "blas" and info.get("filepath"):
            return ctypes.CDLL(info["filepath"])
    return None


def _symbol(lib, kind, scalar, names=_CANDIDATES):
    if lib is None:
        return None
    for pattern, integer in names:
        name = pattern.format(kind)
        if getattr(lib, name, None) is None:
            continue
        return _prototype(
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            integer,
            integer,
            integer,
            scalar,
            ctypes.c_void_p,
            integer,
            ctypes.c_void_p,
            integer,
            scalar,
            ctypes.c_void_p,
            integer,
        )((name, lib))
    return None


def _prototype(*argtypes):
    """The ctypes class of C functions taking ``argtypes`` and returning nothing: one class per signature
    (ctypes keeps them), never a library's own ``_FuncPtr`` class, which every function of the library
    shares. numba's dispatcher keeps the type of the first function pointer of a class it meets: a second
    one of that class with another signature (a library's SGEMV after its SGEMM, its DGEMM after its
    SGEMM) took its slow path, ~75 us a call, in every segment or loop it was passed to (a tiny model's
    planned step in a process that had run an MLP's: 26 us -> 273 us, 2026-12-02)."""
    return ctypes.CFUNCTYPE(None, *argtypes)


def _works(fn, dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    b = np.arange(12, dtype=dtype).reshape(3, 4) - 5
    c = np.full((2, 4), 7, dtype=dtype)
    fn(ROW_MAJOR, NO_TRANS, NO_TRANS, 2, 4, 3, 1.0, a.ctypes.data, 3, b.ctypes.data, 4, 0.0, c.ctypes.data, 4)
    return bool(np.array_equal(c, a @ b))


def _gemvs(lib):
    """{dtype: CBLAS GEMV} of ``lib`` under the names of _CANDIDATES, each checked on a small product."""
    table = {}
    for kind, dtype, scalar in (
        ("s", np.dtype(np.float32), ctypes.c_float),
        ("d", np.dtype(np.float64), ctypes.c_double),
    ):
        for pattern, integer in _CANDIDATES:
            name = pattern.format(kind).replace("gemm", "gemv")
            if getattr(lib, name, None) is None:
                continue
            p = ctypes.c_void_p
            fn = _prototype(
                ctypes.c_int, ctypes.c_int, integer, integer, scalar, p, integer, p, integer, scalar, p, integer
            )((name, lib))
            a, x, y = np.arange(6, dtype=dtype).reshape(2, 3), np.arange(3, dtype=dtype) - 1, np.full(2, 7, dtype)
            fn(COL_MAJOR, TRANS, 3, 2, 1.0, a.ctypes.data, 3, x.ctypes.data, 1, 0.0, y.ctypes.data, 1)
            if np.array_equal(y, a @ x):
                table[dtype] = fn
            break
    return table
