"""pe's fixes to numba's CUDA simulator (pe_cli/kernels/cuda/_simulator.py): every thread of a block
gets the same shared array even when they all reach ``cuda.shared.array`` at once, and its block
scheduler, which waits where numba's polled, keeps numba's semantics: the barrier counts the threads
still running, and a thread's exception ends the launch with that exception; a block whose threads
never meet runs them in turn on the launching thread, and one that meets, even in a device function,
gets a thread for each."""

import sys
import threading

import numpy as np
import pytest
from numba import cuda

from pe_cli.kernels.cuda import runtime

simulator_only = pytest.mark.skipif(
    not runtime.simulated(), reason="a simulator test: PE_REAL_GPU=1 runs on the real driver"
)


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


@simulator_only
def test_threads_of_a_block_share_one_array(busy_interpreter):
    assert _threads_reach_shared_array_at_once() == 0


def test_each_call_site_has_its_own_array():
    from numba.cuda.simulator.kernelapi import FakeCUDAShared

    shared = FakeCUDAShared(0)
    again = [shared.array(4, np.float32) for _ in range(2)]  # one call site, reached twice
    other = shared.array((2, 3), np.int64)
    assert again[0] is again[1]
    assert other is not again[0] and other.shape == (2, 3) and other.dtype == np.int64


@simulator_only
def test_a_tree_reduction_passes_every_barrier_of_every_block():
    @cuda.jit
    def block_sums(x, out):
        part = cuda.shared.array(8, np.float64)
        t = cuda.threadIdx.x
        part[t] = x[cuda.blockIdx.x * 8 + t]
        cuda.syncthreads()
        step = 4
        while step:
            if t < step:
                part[t] += part[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[cuda.blockIdx.x] = part[0]

    x = np.arange(40, dtype=np.float64)
    out = np.zeros(5)
    block_sums[5, 8](x, out)
    np.testing.assert_array_equal(out, x.reshape(5, 8).sum(axis=1))


@simulator_only
def test_the_barrier_counts_only_the_threads_still_running():
    @cuda.jit
    def early_exit(out):
        t = cuda.threadIdx.x
        if t >= 3:  # these never reach the barrier: the others must not wait for them
            return
        out[t] = 1
        cuda.syncthreads()
        out[t] += cuda.syncthreads_count(out[(t + 1) % 3] == 1)

    out = np.zeros(6, np.int64)
    early_exit[1, 6](out)
    np.testing.assert_array_equal(out, [4, 4, 4, 0, 0, 0])


@simulator_only
def test_a_thread_that_raises_ends_the_launch_with_its_error():
    @cuda.jit
    def one_fails(x):
        t = cuda.threadIdx.x
        cuda.syncthreads()
        x[t * 10] = 1.0  # thread 1 and up index past the end
        cuda.syncthreads()

    with pytest.raises(IndexError, match="tid=\\[[1-3], 0, 0\\]"):
        one_fails[1, 4](np.zeros(4))
    out = np.zeros(4)  # and the simulator runs the next launch as before
    one_fails[1, 1](out)
    assert out[0] == 1.0


@simulator_only
def test_threads_that_never_meet_run_in_turn_on_the_launching_thread():
    runners = set()

    @cuda.jit
    def where_am_i(out):
        runners.add(threading.get_ident())  # the simulator runs kernels as Python
        x, y = cuda.threadIdx.x, cuda.threadIdx.y
        out[cuda.blockIdx.x, y, x] = cuda.blockIdx.x * 100 + y * 10 + x

    out = np.full((3, 2, 4), -1)
    where_am_i[3, (4, 2)](out)
    np.testing.assert_array_equal(out, np.arange(3)[:, None, None] * 100 + np.arange(2)[:, None] * 10 + np.arange(4))
    assert runners == {threading.get_ident()}


@simulator_only
def test_a_barrier_in_a_device_function_gives_each_thread_its_own():
    runners = set()

    @cuda.jit(device=True)
    def swap_with_neighbour(out, t):
        cuda.syncthreads()
        v = out[(t + 1) % 4]
        cuda.syncthreads()
        out[t] = v

    @cuda.jit
    def rotate(out):
        runners.add(threading.get_ident())
        swap_with_neighbour(out, cuda.threadIdx.x)

    out = np.arange(4)
    rotate[1, 4](out)
    np.testing.assert_array_equal(out, [1, 2, 3, 0])
    assert len(runners) == 4 and threading.get_ident() not in runners


@simulator_only
def test_an_error_of_a_thread_run_in_turn_names_the_thread():
    @cuda.jit
    def one_fails(x):
        x[cuda.threadIdx.x * 10] = 1.0

    with pytest.raises(IndexError, match="tid=\\[1, 0, 0\\] ctaid=\\[0, 0, 0\\]"):
        one_fails[1, 4](np.zeros(4))
    out = np.zeros(4)
    one_fails[1, 1](out)
    assert out[0] == 1.0 and not hasattr(threading.current_thread(), "threadIdx")
