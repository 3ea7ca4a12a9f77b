"""A first run does not wait for the parallel twins of the CPU loops (kernels/cpu/_numba.py): the
serial loop runs while the twin compiles in the background, once no other thread is compiling."""
import time

import numba
import numpy as np

from pe_cli.kernels import finish_compiling
from pe_cli.kernels.cpu import _numba


def _fresh_twin():
    @numba.njit(parallel=True, nogil=True)          # no cache: a twin no run has compiled
    def double_parallel(x, out):
        for i in numba.prange(x.size):
            out[i] = 2 * x[i]
    return double_parallel


def test_a_twin_not_compiled_yet_is_compiled_in_the_background_then_used():
    twin = _fresh_twin()
    x, out = np.arange(8.0), np.empty(8)
    assert not _numba.parallel_ready(twin, x, out)          # the caller runs its serial loop
    assert not _numba.parallel_ready(twin, x, out)          # asked again: still waiting, queued once
    finish_compiling()
    assert _numba.parallel_ready(twin, x, out)
    twin(x, out)
    assert out.tolist() == (2 * x).tolist()


def test_the_background_compile_waits_for_the_other_threads_compiles():
    later = _numba._Later()
    later.QUIET_S = 0.2
    twin = _fresh_twin()
    later.others = {1: 1}                                   # another thread is compiling a serial loop
    assert not later.ready(twin, (np.arange(4.0), np.empty(4)))
    time.sleep(0.5)
    assert not twin.overloads                               # it waited
    later.others = {}
    later.last = time.monotonic()
    later.finish()
    assert twin.overloads
