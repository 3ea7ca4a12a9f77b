"""``paddle.reader``: decorators over readers. A reader is a function with no arguments returning
an iterable of samples; each decorator returns a new reader."""
import itertools
import queue
import random
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["shuffle", "buffered", "cache", "compose", "chain", "firstn", "map_readers", "xmap_readers",
           "ComposeNotAligned"]


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


def compose(*readers, check_alignment=True):
    """One tuple per step: the readers' samples side by side, tuples flattened into it. With
    ``check_alignment`` a reader ending before the others raises ComposeNotAligned."""
    def composed():
        iters = [r() for r in readers]
        if not check_alignment:
            for samples in zip(*iters):
                yield sum((_flatten(s) for s in samples), ())
            return
        for samples in itertools.zip_longest(*iters):
            if any(s is None for s in samples):
                raise ComposeNotAligned("outputs of readers are not aligned")
            yield sum((_flatten(s) for s in samples), ())
    return composed


def firstn(reader, n):
    """The first ``n`` samples."""
    def first():
        return itertools.islice(reader(), n)
    return first


_END = object()


def buffered(reader, size):
    """Reads ahead up to ``size`` samples in a background thread."""
    def read_ahead():
        q = queue.Queue(maxsize=size)

        def fill():
            try:
                for sample in reader():
                    q.put(sample)
            finally:
                q.put(_END)
        threading.Thread(target=fill, daemon=True).start()
        while True:
            sample = q.get()
            if sample is _END:
                return
            yield sample
    return read_ahead


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """``mapper`` applied to the samples by ``process_num`` threads, at most ``buffer_size`` in
    flight. The samples come out in the reader's order whether or not ``order`` asks for it (an
    order Fluid may also produce)."""
    def xmapped():
        with ThreadPoolExecutor(max_workers=process_num) as pool:
            pending = []
            for sample in reader():
                pending.append(pool.submit(mapper, sample))
                if len(pending) >= buffer_size:
                    yield pending.pop(0).result()
            for future in pending:
                yield future.result()
    return xmapped
