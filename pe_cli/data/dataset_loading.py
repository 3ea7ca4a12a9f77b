"""A map-style dataset read in batches, as Fluid 1.8's ``fluid.io.DataLoader(dataset, ...)`` does:
``Dataset`` (``__getitem__`` and ``__len__``), ``BatchSampler`` (the indices of each batch, in
order or shuffled), ``default_collate_fn`` (samples of fields into one array per field) and
``dataset_batches``, the batches themselves, read in the calling process or, with
``num_workers > 0``, by that many forked worker processes (batch k by worker k % num_workers,
``worker_init_fn(worker_id)`` first in each), delivered in order (``timeout`` bounds the wait for
each batch: reader_processes.workers_reader). In a worker, ``get_worker_info()``
says which (``id``, ``num_workers``, ``dataset``, ``seed``); in the reading process it is None."""

import numbers

import numpy as np

from .reader_decorators import in_order
from .reader_processes import workers_reader

__all__ = ["Dataset", "BatchSampler", "default_collate_fn", "dataset_batches", "get_worker_info", "WorkerInfo"]

_WORKER = [None]  # this process's WorkerInfo when it is a DataLoader worker


class WorkerInfo:
    """What ``get_worker_info()`` returns in a DataLoader worker process."""

    def __init__(self, id, num_workers, dataset, seed):  # noqa: A002  (Paddle's attribute name)
        self.id, self.num_workers, self.dataset, self.seed = id, num_workers, dataset, seed

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers})"


def get_worker_info():
    """The WorkerInfo of this DataLoader worker process; None outside one."""
    return _WORKER[0]


def enter_worker(worker_id, workers, dataset, worker_init_fn):
    """In a freshly forked worker: its WorkerInfo, then ``worker_init_fn(worker_id)``."""
    _WORKER[0] = WorkerInfo(worker_id, workers, dataset, int(np.random.randint(0, 2**31 - 1)) + worker_id)
    if worker_init_fn is not None:
        worker_init_fn(worker_id)


class Dataset:
    """Fluid's map-style dataset: a subclass defines ``__getitem__(idx)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"'{type(self).__name__}' does not implement __getitem__")

    def __len__(self):
        raise NotImplementedError(f"'{type(self).__name__}' does not implement __len__")


class BatchSampler:
    """The lists of indices of ``dataset``'s (or ``indices``') batches of ``batch_size``."""

    def __init__(self, dataset=None, indices=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (indices is None):
            raise AssertionError("either dataset or indices should be set")
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise AssertionError("batch_size should be a positive integer")
        if not isinstance(shuffle, bool):
            raise AssertionError("shuffle should be a boolean value")
        if not isinstance(drop_last, bool):
            raise AssertionError("drop_last should be a boolean number")
        self.indices = list(range(len(dataset))) if dataset is not None else list(indices)
        self.shuffle, self.batch_size, self.drop_last = shuffle, batch_size, drop_last

    def __iter__(self):
        indices = np.random.permutation(self.indices).tolist() if self.shuffle else self.indices
        for start in range(0, len(indices), self.batch_size):
            batch = indices[start : start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self):
        full, rest = divmod(len(self.indices), self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)


def default_collate_fn(batch):
    """``batch``, a list of samples each a list of fields, as one array per field (numbers and arrays
    stacked along a new first axis); a sample that is one array gives a one-array list."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return [np.stack(batch, axis=0)]
    slots = [list(field) for field in zip(*batch)]
    outputs = []
    for slot in slots:
        if not isinstance(slot[0], (np.ndarray, np.bool_, bool, numbers.Number)):
            raise RuntimeError("Unknown data type {}".format(type(slot[0])))
        outputs.append(np.stack(slot, axis=0))
    return outputs


def _worker_reader(dataset, index_batches, collate_fn, worker_id, workers, worker_init_fn):
    def reader():
        enter_worker(worker_id, workers, dataset, worker_init_fn)
        for k, indices in enumerate(index_batches):
            if k % workers == worker_id:
                yield k, collate_fn([dataset[i] for i in indices])

    return reader


def dataset_batches(dataset, batch_sampler, collate_fn=None, num_workers=0, worker_init_fn=None, timeout=0):
    """A reader (a function returning a generator) of the collated batches of ``dataset``; with
    workers, ``timeout`` seconds without a batch from any of them ends it (workers_reader)."""
    collate_fn = collate_fn or default_collate_fn

    def batches():
        if num_workers <= 0:
            for indices in batch_sampler:
                yield collate_fn([dataset[i] for i in indices])
            return
        index_batches = list(batch_sampler)  # one epoch's indices, shared by the workers
        readers = [
            _worker_reader(dataset, index_batches, collate_fn, w, num_workers, worker_init_fn)
            for w in range(num_workers)
        ]
        yield from in_order(workers_reader(readers, 2 * num_workers, timeout)(), True)

    return batches
