"""numba, on first use only.

The numba loops of the CPU kernels live in private modules (``_nn_loops``, ``_pointwise_loops``)
that import numba at their top. A kernel module reaches them through ``lazy("_nn_loops")()``, so
``import pe_cli``, ``pe --help`` and programs whose ops need no numba loop never pay numba's import
(about 0.3 s) or its compilation. Every loop is ``@njit(cache=True, nogil=True)``: compiled once per
argument types and kept in ``__pycache__`` beside its module (numba falls back to a per-user cache
directory where that is not writable), and run without the GIL so executor threads overlap.

The loops are single-threaded. On a machine whose cores are shared (other processes, OpenBLAS
workers spinning after a GEMM), a ``parallel=True`` region waits for its slowest thread and was
measured to stall for a whole scheduler quantum (4-12 ms instead of 0.3 ms, docs/PERFORMANCE.md);
the cores are used by BLAS threads or by data-parallel devices instead (``pe_cli/threads.py``).
"""
import importlib

import numpy as np

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def lazy(name):
    """A function returning the loops module ``pe_cli.kernels.cpu.<name>``, imported on its first call."""
    module = None

    def get():
        nonlocal module
        if module is None:
            module = importlib.import_module(f"{__package__}.{name}")
        return module
    return get


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


def flat(a):
    """a as a 1-D C-contiguous array (a view when a is contiguous)."""
    return np.ascontiguousarray(a).reshape(-1)
