"""Launch configurations, and kernel factories cached by dtype.

Kernels use grid-stride loops, so any grid is correct: on a GPU the grid fills the device; under
the simulator (where every thread is a Python thread) it stays tiny so tests run fast.
"""

import functools

import numba
import numpy as np
from numba import cuda

from . import runtime as rt
from .launcher import jit_kernel

SIM = rt.simulated()
THREADS = 4 if SIM else 256  # threads per block for 1-D launches and block reductions
_MAX_BLOCKS_SIM = 2


@functools.lru_cache(maxsize=None)
def _max_blocks(device_id):
    if SIM:
        return _MAX_BLOCKS_SIM
    with rt.device(device_id):
        sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    return sms * 16


def blocks_for(n, threads=THREADS):
    """Blocks for ``n`` independent items at ``threads`` per block, capped (grid-stride loops)."""
    return max(1, min((n + threads - 1) // threads, _max_blocks(rt.current().id)))


def grid(n, threads=THREADS):
    """``kernel[grid(n)](...)``: a 1-D launch over n items on the current device's stream."""
    return blocks_for(n, threads), threads, rt.stream()


def row_threads(n):
    """Threads for a block that reduces rows of n elements: a power of two, at most THREADS (the
    size of the kernels' shared arrays), at least a warp on a GPU."""
    if SIM:
        return THREADS
    t = 32
    while t < n and t < THREADS:
        t *= 2
    return t


def rows_grid(rows, n=None):
    """One block per row (grid-stride over rows), for block reductions along rows of n elements."""
    threads = THREADS if n is None else row_threads(n)
    return max(1, min(rows, 65535 if not SIM else _MAX_BLOCKS_SIM)), threads, rt.stream()


def numba_type(dtype):
    return numba.from_dtype(np.dtype(dtype))


def per_dtype(factory):
    """Caches ``factory(numba_type, *args)`` by (dtype, *args): kernels with shared or local arrays
    need the element type as a compile-time constant."""
    cached = functools.lru_cache(maxsize=None)(lambda name, *args: factory(numba_type(name), *args))

    @functools.wraps(factory)
    def get(dtype, *args):
        return cached(np.dtype(dtype).name, *args)

    return get


def flat(a):
    """A contiguous device array viewed as 1-D (no copy)."""
    return a.reshape(a.size) if a.ndim != 1 else a


# -- the smallest kernels, used everywhere ----------------------------------------------------


@jit_kernel
def _fill(out, value):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = value
        i += step


@jit_kernel
def _copy(src, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = src[i]
        i += step


def full(shape, value, dtype):
    out = rt.empty(shape, dtype)
    if out.size:
        _fill[grid(out.size)](flat(out), np.dtype(dtype).type(value))
    return out


def zeros(shape, dtype):
    return full(shape, 0, dtype)


def zeros_like(a):
    return full(a.shape, 0, a.dtype)


def copy(a, dtype=None):
    """A new contiguous device array with a's values (cast to ``dtype`` if given)."""
    out = rt.empty(a.shape, dtype or a.dtype)
    if out.size:
        _copy[grid(out.size)](flat(a), flat(out))
    return out


@jit_kernel
def _scale_rows(a, s, out, cols):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = a[i] * s[i // cols]
        i += step


def scale_rows(a, s):
    """A new array: each row a[i] (along the first dim) times s[i] (a 1-D device array)."""
    out = rt.empty(a.shape, a.dtype)
    if out.size:
        _scale_rows[grid(out.size)](flat(a), flat(s), flat(out), a.size // a.shape[0])
    return out


def as_shape(a, shape):
    """``a`` viewed with another shape of the same size (a view, never a copy)."""
    shape = tuple(int(d) for d in shape)
    return a if tuple(a.shape) == shape else a.reshape(shape)


def scalar(a):
    """The single value of a small device array, on the host (waits for the device)."""
    return rt.to_host(a).reshape(-1)[0]
