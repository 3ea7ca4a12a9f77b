"""Fluid's reader decorators (``paddle.reader`` and ``fluid.io``: one implementation, both faces
export it). A reader is a function with no arguments returning an iterable of samples; each
decorator returns a new reader. ``buffered`` and ``xmap_readers`` read on threads, as Fluid's do;
an error raised there ends the decorated reader with that error (Fluid's would wait forever).
``multiprocess_reader`` (reader_processes.py) reads in processes."""

import itertools
import queue
import random
import threading

__all__ = [
    "shuffle",
    "buffered",
    "cache",
    "compose",
    "chain",
    "firstn",
    "map_readers",
    "xmap_readers",
    "ComposeNotAligned",
]


class ComposeNotAligned(ValueError):
    """compose(): the readers yielded different numbers of samples."""


def map_readers(func, *readers):
    """Samples ``func(s1, s2, ...)`` of the readers' samples taken side by side."""

    def reader():
        return map(func, *[r() for r in readers])

    return reader


def cache(reader):
    """Reads every sample of ``reader`` now, once; the reader returned yields those samples again at
    each call."""
    samples = tuple(reader())

    def cached():
        yield from samples

    return cached


def shuffle(reader, buf_size):
    """Shuffles within windows of ``buf_size`` samples."""

    def shuffled():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        random.shuffle(buf)
        yield from buf

    return shuffled


def chain(*readers):
    """The samples of each reader in turn."""

    def chained():
        return itertools.chain(*[r() for r in readers])

    return chained


def _flatten(sample):
    return sample if isinstance(sample, tuple) else (sample,)


def compose(*readers, **kwargs):
    """One tuple per step: the readers' samples side by side, tuples flattened into it. With
    ``check_alignment`` (a keyword, True by default) a reader ending before the others raises
    ComposeNotAligned; without, the longer readers' last samples are dropped."""
    check_alignment = kwargs.pop("check_alignment", True)

    def composed():
        iters = [r() for r in readers]
        if not check_alignment:
            for samples in zip(*iters):
                yield sum((_flatten(s) for s in samples), ())
            return
        for samples in itertools.zip_longest(*iters):
            if any(s is None for s in samples):
                raise ComposeNotAligned("outputs of readers are not aligned.")
            yield sum((_flatten(s) for s in samples), ())

    return composed


def firstn(reader, n):
    """The first ``n`` samples."""

    def first():
        return itertools.islice(reader(), n)

    return first


class _End:
    """What a thread puts in a queue after its last item."""


class _Failed:
    """What a thread puts in a queue when its work raised: the consumer raises ``error``."""

    def __init__(self, error):
        self.error = error


def _put(q, item, stop):
    """Puts ``item`` unless the consumer has gone (``stop`` set): a thread never waits forever."""
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _start(target, *args):
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _fill(items, q, stop):
    """Puts every item of the iterable ``items`` into ``q``, then _End (or _Failed)."""
    try:
        for item in items:
            if not _put(q, item, stop):
                return
        _put(q, _End(), stop)
    except Exception as e:  # noqa: BLE001 -- handed to the consumer, which raises it
        _put(q, _Failed(e), stop)


def buffered(reader, size):
    """Reads ahead up to ``size`` samples in a background thread."""

    def read_ahead():
        q, stop = queue.Queue(maxsize=max(int(size), 1)), threading.Event()
        _start(_fill, reader(), q, stop)
        try:
            while True:
                item = q.get()
                if isinstance(item, _End):
                    return
                if isinstance(item, _Failed):
                    raise item.error
                yield item
        finally:
            stop.set()

    return read_ahead


def _map_worker(mapper, in_q, out_q, stop):
    while True:
        item = in_q.get()
        if isinstance(item, (_End, _Failed)):
            _put(in_q, item, stop)  # for the next worker
            _put(out_q, item if isinstance(item, _Failed) else _End(), stop)
            return
        index, sample = item
        try:
            result = mapper(sample)
        except Exception as e:  # noqa: BLE001 -- handed to the consumer, which raises it
            _put(out_q, _Failed(e), stop)
            return
        if not _put(out_q, (index, result), stop):
            return


def in_order(results, ordered):
    """(index, value) pairs as they come, or in index order when ``ordered``."""
    waiting, next_index = {}, 0
    for index, value in results:
        if not ordered:
            yield value
            continue
        waiting[index] = value
        while next_index in waiting:
            yield waiting.pop(next_index)
            next_index += 1


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """``mapper`` applied to the samples by ``process_num`` threads, with queues of ``buffer_size``
    samples; the results come as they are ready, or in the reader's order with ``order``."""

    def results(out_q, workers):
        finished = 0
        while finished < workers:
            item = out_q.get()
            if isinstance(item, _Failed):
                raise item.error
            if isinstance(item, _End):
                finished += 1
                continue
            yield item

    def xmapped():
        in_q, out_q = queue.Queue(max(int(buffer_size), 1)), queue.Queue(max(int(buffer_size), 1))
        stop, workers = threading.Event(), max(int(process_num), 1)
        _start(_fill, enumerate(reader()), in_q, stop)
        for _ in range(workers):
            _start(_map_worker, mapper, in_q, out_q, stop)
        try:
            yield from in_order(results(out_q, workers), order)
        finally:
            stop.set()

    return xmapped
