"""Seeing numba compile: a first run on a machine compiles the kernels the program uses (numba
keeps them in its cache, so later runs load them in a fraction of a second). ``watching(report)``
calls ``report(count, seconds)`` as each top-level kernel compile ends, so a command can say what it
is waiting for instead of sitting silent. Only compiles are reported: a kernel loaded from the
cache is not one.
"""

import contextlib
import threading
import time

from .cpu.runtime import loops

_lock = threading.Lock()


class _Counter:
    """Counts top-level compiles (a kernel's callees compile inside it, at depth > 0)."""

    def __init__(self, report):
        self.report = report
        self.depth = 0
        self.count = 0
        self.seconds = 0.0
        self._started = None

    def on_start(self, ev):
        with _lock:
            self.depth += 1
            if self.depth == 1:
                self._started = time.perf_counter()

    def on_end(self, ev):
        with _lock:
            self.depth -= 1
            if self.depth:
                return
            self.count += 1
            self.seconds += time.perf_counter() - self._started
            count, seconds = self.count, self.seconds
        self.report(count, seconds)


@contextlib.contextmanager
def watching(report, deferred=None):
    """Calls ``report(kernels compiled so far, seconds spent compiling)`` after each compile done
    inside the block (in whichever thread compiled it), and ``deferred(count)`` each time a loop is
    handed to the compile helper process instead (a first run's replicas run meanwhile:
    kernels/cpu/runtime/loops.py). Yields the listener (count, seconds)."""
    from numba.core import event  # numba loads here, not with the command (pe --help stays fast)

    class Listener(_Counter, event.Listener):
        pass

    listener = Listener(report)
    event.register("numba:compile", listener)
    if deferred is not None:
        loops.DEFERRED.append(deferred)
    try:
        yield listener
    finally:
        event.unregister("numba:compile", listener)
        if deferred is not None:
            loops.DEFERRED.remove(deferred)
