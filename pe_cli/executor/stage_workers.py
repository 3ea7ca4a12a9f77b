"""The threads of planned data-parallel steps (planned_parallel.py): ``StageWorkers``, one thread for each
device but the first, running the devices' tasks of a stage while the caller runs the first's; and
``run_inline``, which runs them one after the other in the caller."""

import queue
import threading
import time

import numpy as np

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
    (``before()`` called before each task: numba's threads it may use). ``spin(counter, index, seen, mark)``,
    where given, spins a while without the GIL until ``counter[index]`` is no longer ``seen``, before a thread sleeps
    waiting for the other: a worker for its next task (``posted[k]``, tasks given worker k), the caller for each
    worker's end (``finished[k]``); a sleeping thread takes 60-100 us to wake on a VM (runtime/spin.py). The
    queues alone order the work: a counter only says when to look."""

    def __init__(self, count, initializer=None, before=None, spin=None):
        self.tasks = [queue.SimpleQueue() for _ in range(count)]
        self.done = queue.SimpleQueue()
        self.posted, self.finished, self.spin = np.zeros(count, np.int64), np.zeros(count, np.int64), spin
        for k, q in enumerate(self.tasks):
            threading.Thread(
                target=self._work, args=(k, q, initializer, before), daemon=True, name="pe-planned"
            ).start()

    def _work(self, k, tasks, initializer, before):
        if initializer is not None:
            initializer()
        spin, taken = self.spin, 0
        while True:
            if spin is not None:  # (its end marked once the GIL is released: the caller takes it at once)
                spin(self.posted, k, taken, (self.finished, k, taken) if taken else None)
            task = tasks.get()
            if task is None:
                return
            taken += 1
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
                self.posted[d - 1] += 1
                sent.append(d)
        errors = []
        if fns[0] is not None:
            try:
                fns[0]()
            except BaseException as e:  # noqa: B036, BLE001 - raised below
                errors.append((0, e))
        if self.spin is not None:
            for d in sent:
                self.spin(self.finished, d - 1, self.posted[d - 1] - 1)
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
