"""Waiting for another thread of the process by spinning a while before sleeping (the planned data-parallel
step's hand-overs: executor/stage_workers.py). On a VM a thread that sleeps (a futex wait, its vCPU halted
when nothing else runs there) takes 60-100 us to wake: a planned 2-device MLP step (b128) waited 97 us for its
worker to start the backward pass and 62 more for the caller to see it end (Intel Xeon VM, 2 CPUs, AVX-512,
2026-12-02). Spinning a millisecond at most on a counter the other thread moves, without the GIL, the
waiting thread sees it at once; past that it sleeps as before. x86-64 only (LLVM's ``pause`` and time-stamp
counter); elsewhere nothing spins."""

import platform

import numpy as np

from .loops import lazy

SPIN_CYCLES = 3_000_000  # time-stamp counter ticks: ~1 ms at 3 GHz (what a step's gap between hand-overs is within)
_loops = None  # spin_loops, or False where it does not apply (or did not compile)


def until_changed(counter, index, seen, mark=None):
    """Spins while ``counter[index]`` (an int64 array the other thread writes) is ``seen``, for at most about a
    millisecond; True where it changed. ``mark``: (marks, i, value), ``marks[i] = value`` stored first, once the
    GIL is released (the thread spinning on it then takes the GIL without waiting for this one's next Python).
    False at once where nothing spins here (the mark then stored as it is)."""
    loops = _loops if _loops is not None else _load()
    if loops is False:
        if mark is not None:
            mark[0][mark[1]] = mark[2]
        return False
    if mark is None:
        return loops.until_changed(counter, index, seen, SPIN_CYCLES)
    return loops.mark_then_wait(*mark, counter, index, seen, SPIN_CYCLES)


def _load():
    """spin_loops with both functions compiled for the types they are called with, or False (not x86-64, or
    they did not compile: a worker thread must never die of it, its caller would wait for it forever)."""
    global _loops
    try:
        if platform.machine().lower() not in ("x86_64", "amd64"):
            raise ImportError("no pause instruction")
        loops = lazy("runtime.spin_loops")()
        counter = np.zeros(1, np.int64)
        loops.until_changed(counter, np.int64(0), np.int64(1), SPIN_CYCLES)
        loops.mark_then_wait(counter, np.int64(0), np.int64(0), counter, np.int64(0), np.int64(1), SPIN_CYCLES)
    except Exception:  # noqa: BLE001 - nothing spins; every wait sleeps on its queue
        loops = False
    _loops = loops
    return loops
