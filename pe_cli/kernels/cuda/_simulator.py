"""A fix to numba's CUDA simulator, applied when pe runs its kernels there (CI has no GPU).

The simulator runs each CUDA thread of a block as a Python thread and gives a kernel's
``cuda.shared.array(...)`` call the same numpy array in every thread by caching it per call site.
Its cache is filled with an unlocked check-then-set: two threads that reach the call at once can
each make an array, and then one thread's writes go to an array the others never read, so a block
reduction silently sums garbage (seen as a rare wrong loss in tests/cuda on a busy 2-core machine;
tests/cuda/test_simulator.py shows the race and the fix). Real GPUs are unaffected.

The replacement keys the cache by the caller's file and line as numba does, under a lock.
"""
import sys
import threading

import numpy as np

_lock = threading.Lock()


def _shared_array(self, shape, dtype, alignment=None):
    if alignment is not None:
        raise RuntimeError("Array alignment is not supported in cudasim")
    dtype = _as_dtype(dtype)
    if shape == 0:      # dynamic shared memory: one buffer for every such call
        count = self._dynshared_size // dtype.itemsize
        return np.frombuffer(self._dynshared.data, dtype=dtype, count=count)
    caller = sys._getframe(1)
    key = (caller.f_code.co_filename, caller.f_lineno)
    with _lock:
        array = self._allocations.get(key)
        if array is None:
            array = self._allocations[key] = np.empty(shape, dtype)
    return array


def _as_dtype(dtype):
    if isinstance(dtype, _kernelapi.types.Type):
        return _kernelapi.numpy_support.as_dtype(dtype)
    return np.dtype(dtype)


_kernelapi = None


def install():
    """Replaces the simulator's shared-array allocation (idempotent)."""
    global _kernelapi
    from numba.cuda.simulator import kernelapi
    _kernelapi = kernelapi
    kernelapi.FakeCUDAShared.array = _shared_array
