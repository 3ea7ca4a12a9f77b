"""pe's fix to numba's CUDA simulator (pe_cli/kernels/cuda/_simulator.py): every thread of a block
gets the same shared array even when they all reach ``cuda.shared.array`` at once."""
import sys
import threading

import numpy as np
import pytest

from pe_cli.kernels.cuda import runtime


def _threads_reach_shared_array_at_once(rounds=2000, threads=4):
    """How many rounds gave the threads of one simulated block different shared arrays."""
    from numba.cuda.simulator.kernelapi import FakeCUDAShared
    split = 0
    for _ in range(rounds):
        shared, got = FakeCUDAShared(0), [None] * threads
        barrier = threading.Barrier(threads)

        def thread(i):
            barrier.wait()
            got[i] = shared.array(4, np.float32)
        workers = [threading.Thread(target=thread, args=(i,)) for i in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        split += len({id(a) for a in got}) > 1
    return split


@pytest.fixture
def busy_interpreter():
    """Switches threads as often as the interpreter can: a race window of a few bytecodes opens."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


@pytest.mark.skipif(not runtime.simulated(), reason="a simulator test: PE_REAL_GPU=1 runs on the real driver")
def test_threads_of_a_block_share_one_array(busy_interpreter):
    assert _threads_reach_shared_array_at_once() == 0


def test_each_call_site_has_its_own_array():
    from numba.cuda.simulator.kernelapi import FakeCUDAShared
    shared = FakeCUDAShared(0)
    again = [shared.array(4, np.float32) for _ in range(2)]      # one call site, reached twice
    other = shared.array((2, 3), np.int64)
    assert again[0] is again[1]
    assert other is not again[0] and other.shape == (2, 3) and other.dtype == np.int64
