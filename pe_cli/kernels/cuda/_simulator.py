"""Two fixes to numba's CUDA simulator, applied when pe runs its kernels there (CI has no GPU).

The simulator runs each CUDA thread of a block as a Python thread and gives a kernel's
``cuda.shared.array(...)`` call the same numpy array in every thread by caching it per call site.
Its cache is filled with an unlocked check-then-set: two threads that reach the call at once can
each make an array, and then one thread's writes go to an array the others never read, so a block
reduction silently sums garbage (seen as a rare wrong loss in tests/cuda on a busy 2-core machine;
tests/cuda/test_simulator.py shows the race and the fix). Real GPUs are unaffected.

The replacement keys the cache by the caller's file and line as numba does, under a lock.

Its block scheduler polled: the launching thread looped over the block's threads asking each whether
it was alive or waiting at ``__syncthreads()``, until all were done, taking the interpreter's lock
from the threads doing the work (half of a simulated op test's time went to that loop and to thread
starts slowed by it). The replacement waits instead, on one condition per block: a thread arriving
at the barrier or ending wakes the others when every thread still running has arrived, and the
launching thread when the last one ends or one raises. The semantics stay numba's: the barrier
counts the threads still running, and the first exception aborts the block and is raised.
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


class _Block:
    """The threads of one simulated block: how many still run, how many wait at the barrier."""

    def __init__(self, threads):
        self.cond = threading.Condition()
        self.threads = threads
        self.live = len(threads)
        self.waiting = 0
        self.generation = 0      # barriers passed
        self.failed = None       # the first thread that raised

    def release_if_all_wait(self):
        """(Under the condition.) Opens the barrier when every live thread has reached it."""
        if self.waiting and self.waiting == self.live:
            self.waiting = 0
            self.generation += 1
            self.cond.notify_all()


def _run_block(self, grid_point, *args):
    """BlockManager.run: starts the block's threads and waits until they end or one raises."""
    def target():
        self._f(*args)
    threads = [_kernel.BlockThread(target, self, grid_point, point, self._debug)
               for point in np.ndindex(*self._block_dim)]
    block = self._pe_block = _Block(threads)
    for t in threads:
        t.start()
    with block.cond:
        while block.live and block.failed is None:
            block.cond.wait()
    if block.failed is not None:
        error, traceback = block.failed.exception
        raise error.with_traceback(traceback)


def _thread_run(self):
    """BlockThread.run: the thread's kernel (numba's run keeps its exception), then its end told."""
    try:
        _numba_thread_run(self)
    finally:
        block = self._manager._pe_block
        with block.cond:
            block.live -= 1
            if self.exception is not None and block.failed is None:
                block.failed = self
                for t in block.threads:
                    t.abort = True
                block.cond.notify_all()
            block.release_if_all_wait()
            if not block.live:
                block.cond.notify_all()


def _syncthreads(self):
    """BlockThread.syncthreads: waits until every live thread of the block has arrived."""
    block = self._manager._pe_block
    with block.cond:
        if self.abort:
            raise RuntimeError("abort flag set on syncthreads call")
        generation = block.generation
        block.waiting += 1
        block.release_if_all_wait()
        while block.generation == generation and not self.abort:
            block.cond.wait()
    if self.abort:
        raise RuntimeError("abort flag set on syncthreads clear")


_kernelapi = _kernel = _numba_thread_run = None     # numba's modules and BlockThread.run, once installed


def install():
    """Replaces the simulator's shared-array allocation and its block scheduler (idempotent)."""
    global _kernelapi, _kernel, _numba_thread_run
    from numba.cuda.simulator import kernel, kernelapi
    _kernelapi, _kernel = kernelapi, kernel
    kernelapi.FakeCUDAShared.array = _shared_array
    if kernel.BlockManager.run is not _run_block:
        _numba_thread_run = kernel.BlockThread.run
        kernel.BlockThread.run = _thread_run
        kernel.BlockThread.syncthreads = _syncthreads
        kernel.BlockManager.run = _run_block
