"""The threads of planned data-parallel steps (planned_parallel.py): ``StageWorkers``, one thread for each
device but the first, running the devices' tasks of a stage while the caller runs the first's; and
``run_inline``, which runs them one after the other in the caller."""

import queue
import threading
import time

from .segment import Stale


def run_inline(calls, seconds):
    """Runs the calls one after the other in this thread (the shortest time of each in ``seconds``,
    a list, where given); returns the devices whose segment was Stale."""
    stale = set()
    for d, call in enumerate(calls):
        if call is None:
            continue
        start = time.perf_counter()
        try:
            call()
        except Stale:
            stale.add(d)
            continue
        if seconds is not None:
            seconds.append(time.perf_counter() - start)
    return stale


class StageWorkers:
    """``count`` threads, each running one device's task of a stage while the caller runs the first's
    (``before()`` called before each task: numba's threads it may use)."""

    def __init__(self, count, initializer=None, before=None):
        self.tasks = [queue.SimpleQueue() for _ in range(count)]
        self.done = queue.SimpleQueue()
        for q in self.tasks:
            threading.Thread(target=self._work, args=(q, initializer, before), daemon=True, name="pe-planned").start()

    def _work(self, tasks, initializer, before):
        if initializer is not None:
            initializer()
        while True:
            task = tasks.get()
            if task is None:
                return
            d, fn = task
            try:
                if before is not None:
                    before()
                fn()
                self.done.put((d, None))
            except BaseException as e:  # noqa: B036, BLE001 - reaches the caller
                self.done.put((d, e))

    def run(self, fns):
        """Runs fns[d] (None: nothing) at once; returns the devices whose segment was Stale."""
        sent = []
        for d, fn in enumerate(fns[1:], 1):
            if fn is not None:
                self.tasks[d - 1].put((d, fn))
                sent.append(d)
        errors = []
        if fns[0] is not None:
            try:
                fns[0]()
            except BaseException as e:  # noqa: B036, BLE001 - raised below
                errors.append((0, e))
        for _ in sent:
            d, e = self.done.get()
            if e is not None:
                errors.append((d, e))
        other = [e for _, e in errors if not isinstance(e, Stale)]
        if other:
            raise other[0]
        return {d for d, e in errors if isinstance(e, Stale)}

    def close(self):
        for q in self.tasks:
            q.put(None)
