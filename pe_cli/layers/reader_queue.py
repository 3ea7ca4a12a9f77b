"""The queue between a py_reader's data source and the executor (Fluid's LoDTensorBlockingQueue):
batches (lists of arrays or LoDTensors, one per slot) go in on one thread and come out, in order,
at ``exe.run``. ``close()`` marks the end of the data: once the queue is empty a pop returns None,
which the executor turns into ``fluid.core.EOFException``. ``kill()`` also wakes a blocked push."""

import collections
import threading

from ..base.errors import PeError


class ReaderFailed:
    """Put in the queue by the feeding thread when the decorated reader raised: the pop re-raises it
    on the executor's thread, naming the reader."""

    def __init__(self, error):
        self.error = error


class BlockingQueue:
    """At most ``capacity`` batches; ``push`` blocks while full, ``pop`` while empty and open."""

    def __init__(self, capacity):
        if not isinstance(capacity, int) or capacity < 1:
            raise PeError(f"py_reader: capacity must be a positive int (batches held ahead), got {capacity!r}")
        self._capacity = capacity
        self._items = collections.deque()
        self._cond = threading.Condition()
        self._closed = False
        self._killed = False
        self.pushed = 0  # batches pushed since the queue was (re)opened

    def push(self, batch):
        """Adds ``batch``; False (and nothing added) when the queue is closed or killed."""
        with self._cond:
            while len(self._items) >= self._capacity and not (self._closed or self._killed):
                self._cond.wait()
            if self._closed or self._killed:
                return False
            self._items.append(batch)
            self.pushed += 1
            self._cond.notify_all()
            return True

    def pop(self):
        """The next batch, waiting for one; None once the queue is closed (or killed) and empty."""
        with self._cond:
            while not self._items and not (self._closed or self._killed):
                self._cond.wait()
            if self._killed or not self._items:
                return None
            item = self._items.popleft()
            self._cond.notify_all()
            return item

    def fail(self, error):
        """Ends the data with the reader's exception, which the next pop hands to the executor."""
        with self._cond:
            self._items.append(ReaderFailed(error))
            self._closed = True
            self._cond.notify_all()

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def kill(self):
        with self._cond:
            self._killed = True
            self._items.clear()
            self._cond.notify_all()

    def reopen(self):
        """Empty and open again, for the next epoch (``reader.reset()``)."""
        with self._cond:
            self._items.clear()
            self._closed = self._killed = False
            self.pushed = 0
            self._cond.notify_all()

    def size(self):
        with self._cond:
            return len(self._items)

    def capacity(self):
        return self._capacity

    def is_closed(self):
        with self._cond:
            return self._closed or self._killed

    def has_data(self):
        """True when a pop would not wait: a batch is there or the data has ended."""
        with self._cond:
            return bool(self._items) or self._closed or self._killed
