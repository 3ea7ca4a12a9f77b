"""numba, on first use only.

The numba loops of the CPU kernels live in private modules (``_nn_loops``, ``_pointwise_loops``)
that import numba at their top. A kernel module reaches them through ``lazy("_nn_loops")()``, so
``import pe_cli``, ``pe --help`` and programs whose ops need no numba loop never pay numba's import
(about 0.3 s) or its compilation. Every loop is ``@njit(cache=True, nogil=True)``: compiled once per
argument types and kept in ``__pycache__`` beside its module (numba falls back to a per-user cache
directory where that is not writable), and run without the GIL so executor threads overlap.

The heavy loops (convolutions, large GEMMs) have ``parallel=True`` twins that spread samples or
rows over numba's threads, each part calling numpy's BLAS single-threaded (_cblas.py): one thread
pool for the whole machine. ``parallel_threads()`` says whether the kernel running now may use
them: when its device has several cores (pe_cli/kernels/cpu/threads.py) and numba has a thread-safe layer
(OpenMP or TBB; numba's own ``workqueue`` aborts when two executor threads enter parallel loops at
once, and its sleeping workers were measured to wake too slowly). OpenMP is picked first.
"""
import importlib
import os
import threading

import numpy as np

from . import threads

_setup_lock = threading.Lock()
_layer_ok = None        # a thread-safe numba threading layer is available (decided once)

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def lazy(name):
    """A function returning the loops module ``pe_cli.kernels.cpu.<name>``, imported on its first call."""
    module = None

    def get():
        nonlocal module
        if module is None:
            _choose_layer()
            module = importlib.import_module(f"{__package__}.{name}")
        return module
    return get


def _choose_layer():
    """Picks numba's threading layer before any parallel loop runs: OpenMP, else TBB; without either
    the parallel twins are not used."""
    global _layer_ok
    if _layer_ok is not None:
        return
    with _setup_lock:
        if _layer_ok is not None:
            return
        import numba
        chosen = os.environ.get("NUMBA_THREADING_LAYER")
        if chosen:                   # the user's choice stands; parallel loops only if it is thread-safe
            _layer_ok = chosen in ("omp", "tbb", "threadsafe", "forksafe")
            return
        for layer, module in (("omp", "omppool"), ("tbb", "tbbpool")):
            try:
                importlib.import_module(f"numba.np.ufunc.{module}")
            except (ImportError, OSError):
                continue
            numba.config.THREADING_LAYER = layer
            _layer_ok = True
            return
        _layer_ok = False


def parallel_threads():
    """Threads the parallel twin of a loop may use in the kernel running now, or 1 (use the serial
    loop): the device's share of the cores, when pe's pool does the GEMMs and a thread-safe layer
    exists. Sets numba's thread count for the calling thread (numba keeps it per thread)."""
    n = threads.kernel_threads()
    if n <= 1 or not threads.pool_calls_blas():
        return 1
    _choose_layer()
    if not _layer_ok:
        return 1
    import numba
    n = min(n, numba.config.NUMBA_NUM_THREADS)
    if numba.get_num_threads() != n:
        numba.set_num_threads(n)
    return n


def is_float(*arrays):
    """True when every array is float32 or float64, all of the same dtype: the types the loops are
    compiled for. Other dtypes take the kernels' numpy path."""
    dtype = arrays[0].dtype
    if dtype != _F32 and dtype != _F64:      # (dtype.name is a Python property: slower)
        return False
    for a in arrays[1:]:
        if a.dtype != dtype:
            return False
    return True


PARALLEL_MIN_ELEMENTS = 1 << 17      # below this a parallel loop's start-up costs more than it saves (measured)


def parallel_parts(size):
    """Chunks for the parallel twin of a pointwise loop over ``size`` elements, or 1 (the serial loop)."""
    if size < PARALLEL_MIN_ELEMENTS:
        return 1
    return parallel_threads()


def out_buffer(attrs, x, shape, dtype):
    """Where a kernel writes an output of ``shape`` and ``dtype``: over its input ``x`` when the
    enable_inplace pass allows it (``attrs['_inplace']``: x is dead after this op and nothing else
    holds it) and x is a writable C-contiguous array of that shape and dtype; else a new array."""
    if (attrs.get("_inplace") and isinstance(x, np.ndarray) and x.shape == tuple(shape) and x.dtype == dtype
            and x.flags.c_contiguous and x.flags.writeable):
        return x
    return np.empty(shape, dtype=dtype)


def flat(a):
    """a as a 1-D C-contiguous array (a view when a is contiguous)."""
    return np.ascontiguousarray(a).reshape(-1)
