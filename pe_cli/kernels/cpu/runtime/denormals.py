"""Denormal floats are flushed to zero while pe runs a program: the CPU's flush-to-zero and
denormals-are-zero modes (FTZ and DAZ, bits of the x86 MXCSR register), as Paddle 2's executors
(``platform::ScopedFlushDenormal`` in NaiveExecutor::Run and the dygraph tracer) and TensorFlow's
thread pools do. Fluid 1.x did not, and its documents say nothing of it.

Why: a denormal (a nonzero float below 1.2e-38 in float32) costs an x86 core a microcode assist
of ~100 cycles in every multiply or add that reads or makes one. Momentum's velocity of a weight
whose gradient is exactly zero (a dead relu unit, common after a few hundred steps) shrinks by mu
each step into the denormals and stays there: 0.9 times a denormal of a few units in the last place
rounds back to itself. The MLP of benchmarks/bench_cpu.py, trained on one batch, had 11% of its
first layer's velocity denormal after 700 steps, and its step went from 0.95 to 1.38 ms on 2
threads, 1.4 to 2.3 ms on one: the momentum update of that layer alone from 82 to 668 us
(2026-11-25, the Xeon VM). PyTorch's own update slows alike (``torch.set_flush_denormal`` is off
by default). Flushed, such a velocity becomes 0; a parameter moved by lr times a denormal would not
have moved anyway unless it was itself below ~1e-31.

How: ``enter()`` sets both modes in the calling thread and returns its previous mode, which
``leave()`` restores, so the caller's own numpy code after a run sees IEEE denormals again. An
executor's worker threads (``worker_started``) and numba's worker threads keep the modes for their
life: they run pe's kernels. Threads inherit the mode of the thread that starts them (Linux copies
the register at clone), so numba's workers, started by the first parallel loop inside a run, start
flushed; where they were started before pe's first run, ``enter`` sets them once
(``_flush_numba_workers``).

``PE_FLUSH_DENORMALS=0`` keeps IEEE denormals (read at the first run). Only on x86-64: elsewhere
these functions do nothing."""

import os
import platform

from . import loops

FLUSH = 0x8040  # MXCSR's FTZ (bit 15) and DAZ (bit 6)
_loops = None  # the numba functions (denormal_loops.py), or False where none apply
_workers_done = False


def enabled():
    """True when pe flushes denormals here: on x86-64, unless ``PE_FLUSH_DENORMALS=0``."""
    global _loops
    if _loops is None:
        off = os.environ.get("PE_FLUSH_DENORMALS", "1").strip().lower() in ("0", "false", "no", "off")
        if off or platform.machine().lower() not in ("x86_64", "amd64"):
            _loops = False
        else:
            _loops = loops.lazy("runtime.denormal_loops")()
    return _loops is not False


def enter():
    """Flushes denormals in the calling thread; returns its previous mode for ``leave`` (None where
    nothing was changed)."""
    if not enabled():
        return None
    old = _loops.set_flush(FLUSH)  # read before the workers are set: part 0 is this thread
    if not _workers_done:
        _flush_numba_workers()
    return None if old & FLUSH == FLUSH else old


def leave(previous):
    """Restores the mode ``enter`` returned."""
    if previous is not None:
        _loops.set_mode(previous)


def worker_started():
    """In an executor's worker thread, at its start: flushes denormals in it for its life."""
    if enabled():
        _loops.set_flush(FLUSH)


def _flush_numba_workers():
    """Once: numba's workers, where already started (by code that ran before pe), flush too."""
    global _workers_done
    _workers_done = True
    from numba.np.ufunc import parallel

    if getattr(parallel, "_is_initialized", False):
        set_in_workers(True)


def set_in_workers(flush):
    """Sets (``flush``) or clears both modes in each of numba's workers."""
    _on_workers(lambda n: _loops.set_all(FLUSH if flush else 0, 0xFFFFFFFF if flush else ~FLUSH & 0xFFFFFFFF, n))


def modes_in_workers():
    """The MXCSR of each part of a parallel loop over numba's threads (part 0 is the calling
    thread's; numba's static schedule gives each thread one part)."""
    return _on_workers(_loops.read_all)


def _on_workers(call):
    import numba

    n, before = numba.config.NUMBA_NUM_THREADS, numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return call(n)
    finally:
        numba.set_num_threads(before)
