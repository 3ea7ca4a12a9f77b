"""Three changes to numba's CUDA simulator, applied when pe runs its kernels there (CI has no GPU).

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

A block whose kernel never meets its other threads (no barrier, no shared array, no warp function,
in the kernel or in a device function it calls) runs its threads one after another on one Python
thread, the launching one: any order is a schedule a GPU may choose for such threads, and such a
launch starts no Python thread at all (thread starts and hand-overs were most of a simulated op
test's time, and much more of it on a busy machine).
"""

import sys
import threading
import types

import numpy as np

_lock = threading.Lock()


def _shared_array(self, shape, dtype, alignment=None):
    if alignment is not None:
        raise RuntimeError("Array alignment is not supported in cudasim")
    dtype = _as_dtype(dtype)
    if shape == 0:  # dynamic shared memory: one buffer for every such call
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
        self.generation = 0  # barriers passed
        self.failed = None  # the first thread that raised

    def release_if_all_wait(self):
        """(Under the condition.) Opens the barrier when every live thread has reached it."""
        if self.waiting and self.waiting == self.live:
            self.waiting = 0
            self.generation += 1
            self.cond.notify_all()


# what a kernel's threads meet each other through (cuda.<name>): barriers, shared arrays, warp functions
_MEETING_NAMES = frozenset(
    {
        "syncthreads",
        "syncthreads_count",
        "syncthreads_and",
        "syncthreads_or",
        "shared",
        "syncwarp",
        "cg",
        "shfl_sync",
        "shfl_up_sync",
        "shfl_down_sync",
        "shfl_xor_sync",
        "shfl_sync_intrinsic",
        "all_sync",
        "any_sync",
        "eq_sync",
        "ballot_sync",
        "match_any_sync",
        "match_all_sync",
        "activemask",
        "lanemask_lt",
    }
)
_alone = {}  # kernel function -> its threads never meet


def _threads_alone(f):
    """Whether the threads of kernel ``f`` never meet: no name of _MEETING_NAMES in its code, its
    nested code, or the device functions it reaches through its globals and closure."""
    known = _alone.get(f)
    if known is None:
        known = _alone[f] = not _meets(f, set())
    return known


def _meets(f, seen):
    if f in seen:
        return False
    seen.add(f)
    codes, names = [f.__code__], set()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    if names & _MEETING_NAMES:
        return True
    reached = [f.__globals__[n] for n in names if n in f.__globals__]
    reached += _closure(f)
    reached += [getattr(m, n) for m in reached if isinstance(m, types.ModuleType) for n in names if hasattr(m, n)]
    return any(_meets(k.fn, seen) for k in reached if isinstance(k, _kernel.FakeCUDAKernel))


def _closure(f):
    """The values of f's free variables (those bound by now)."""
    values = []
    for cell in f.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # not bound yet
            pass
    return values


def _run_block(self, grid_point, *args):
    """BlockManager.run: starts the block's threads and waits until they end or one raises."""
    if _threads_alone(self._f) and not self._debug:
        return _run_alone(self, grid_point, args)

    def target():
        self._f(*args)

    threads = [
        _kernel.BlockThread(target, self, grid_point, point, self._debug) for point in np.ndindex(*self._block_dim)
    ]
    block = self._pe_block = _Block(threads)
    for t in threads:
        t.start()
    with block.cond:
        while block.live and block.failed is None:
            block.cond.wait()
    if block.failed is not None:
        error, traceback = block.failed.exception
        raise error.with_traceback(traceback)


def _run_alone(self, grid_point, args):
    """The block's threads one after another, each played by the launching thread (the simulator
    asks the current thread for its indices); an exception is raised as numba's threads raise it."""
    thread, (bx, by, _) = threading.current_thread(), self._block_dim
    thread.blockIdx = _kernel.Dim3(*grid_point)
    try:
        for point in np.ndindex(*self._block_dim):
            thread.threadIdx = _kernel.Dim3(*point)
            thread.thread_id = point[0] + bx * (point[1] + by * point[2])
            try:
                self._f(*args)
            except Exception as e:
                where = f"tid={list(point)} ctaid={list(grid_point)}"
                raise type(e)(f"{where}: {e}" if str(e) else where).with_traceback(e.__traceback__) from None
    finally:
        del thread.blockIdx, thread.threadIdx, thread.thread_id


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


_kernelapi = _kernel = _numba_thread_run = None  # numba's modules and BlockThread.run, once installed


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
