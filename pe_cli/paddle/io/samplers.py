"""Paddle 2.x's samplers (``paddle.io``): which indices of a dataset, in what order, and their
batches (``BatchSampler``; ``DistributedBatchSampler``: this rank's share). Randomness is numpy's
global generator (``paddle.seed`` / ``np.random.seed``)."""

import math
import os

import numpy as np

from ...data import dataset_loading
from ...data.batch import batch
from .datasets import IterableDataset

__all__ = [
    "Sampler",
    "SequenceSampler",
    "RandomSampler",
    "WeightedRandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "DistributedBatchSampler",
]


class Sampler:
    """The base: a subclass defines ``__iter__`` (indices) and, where it can, ``__len__``."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` drawn with ``replacement``;
    ``generator``: an iterator of indices to take instead."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        self.replacement, self._num_samples, self.generator = replacement, num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"expect boolean value for replacement, but got replacement={replacement}")
        if num_samples is not None and not replacement:
            raise ValueError("num_samples should not be specified while replacement is False")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is not None:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
        elif self.replacement:
            yield from np.random.choice(np.arange(n), self.num_samples, replace=True).tolist()
        else:
            yield from np.random.choice(np.arange(n), n, replace=False).tolist()

    def __len__(self):
        return self.num_samples


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True):
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value")
        self.weights = np.asarray(weights, dtype="float64").reshape(-1)
        if (self.weights < 0).any() or self.weights.sum() <= 0:
            raise ValueError("weights should be non-negative, with a positive sum")
        if not replacement and num_samples > int((self.weights > 0).sum()):
            raise ValueError(
                "num_samples should be smaller than the number of non-zero weights when replacement is False"
            )
        self.num_samples, self.replacement = num_samples, replacement
        super().__init__(None)

    def __iter__(self):
        p = self.weights / self.weights.sum()
        return iter(np.random.choice(len(p), self.num_samples, replace=self.replacement, p=p).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be greater than 0.")
        self.indices = indices
        super().__init__(None)

    def __iter__(self):
        for i in np.random.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(dataset_loading.BatchSampler):
    """Lists of ``batch_size`` indices from ``sampler`` (or from ``dataset``: in order, or random
    with ``shuffle``); a last short batch unless ``drop_last``. ``indices`` (keyword; Paddle
    2.0-beta's form): a list of indices taken in order, in place of dataset and sampler."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False, *, indices=None):
        if indices is not None:
            if dataset is not None or sampler is not None:
                raise AssertionError("either dataset or indices should be set, not both")
            dataset, sampler = None, list(indices)
        if dataset is None:
            if sampler is None:
                raise AssertionError("either dataset or sampler should be set")
            self.sampler = sampler
        else:
            if isinstance(dataset, IterableDataset):
                raise AssertionError(f"dataset should not be a paddle.io.IterableDataset, but got {type(dataset)}")
            if sampler is not None:
                raise AssertionError("should not set both dataset and sampler")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise AssertionError(f"batch_size should be a positive integer, but got {batch_size}")
        if not isinstance(shuffle, bool):
            raise AssertionError(f"shuffle should be a boolean value, but got {type(shuffle)}")
        if not isinstance(drop_last, bool):
            raise AssertionError(f"drop_last should be a boolean value, but got {type(drop_last)}")
        self.shuffle, self.batch_size, self.drop_last = shuffle, batch_size, drop_last

    def __iter__(self):
        return batch(lambda: iter(self.sampler), self.batch_size, self.drop_last)()

    def __len__(self):
        return (len(self.sampler) + int(not self.drop_last) * (self.batch_size - 1)) // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """This rank's batches: the indices (shuffled by epoch with ``shuffle``: ``set_epoch``) padded
    to a multiple of ``num_replicas`` and dealt in batch-size slices, as Paddle 2.6's. The ranks
    default to the launcher's PADDLE_TRAINERS_NUM / PADDLE_TRAINER_ID."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        self.dataset = dataset
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise AssertionError("batch_size should be a positive integer")
        if not isinstance(shuffle, bool) or not isinstance(drop_last, bool):
            raise AssertionError("shuffle and drop_last should be boolean values")
        self.batch_size, self.shuffle, self.drop_last = batch_size, shuffle, drop_last
        self.nranks = int(os.environ.get("PADDLE_TRAINERS_NUM", 1)) if num_replicas is None else num_replicas
        self.local_rank = int(os.environ.get("PADDLE_TRAINER_ID", 0)) if rank is None else rank
        if not isinstance(self.nranks, int) or self.nranks <= 0:
            raise AssertionError("num_replicas should be a positive integer")
        if not isinstance(self.local_rank, int) or not 0 <= self.local_rank < self.nranks:
            raise AssertionError("rank should be a non-negative integer below num_replicas")
        self.epoch = 0
        self.num_samples = int(math.ceil(len(self.dataset) * 1.0 / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _indices(self):
        indices = np.arange(len(self.dataset)).tolist()
        indices += indices[: (self.total_size - len(indices))]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        step, last = self.batch_size * self.nranks, self.total_size % (self.batch_size * self.nranks)
        local_last = last // self.nranks
        mine = []
        for i in range(self.local_rank * self.batch_size, len(indices) - last, step):
            mine.extend(indices[i : i + self.batch_size])
        tail = indices[len(indices) - last :]
        mine.extend(tail[self.local_rank * local_last : (self.local_rank + 1) * local_last])
        return mine

    def __iter__(self):
        return batch(self._indices, self.batch_size, self.drop_last)()

    def __len__(self):
        return (self.num_samples + int(not self.drop_last) * (self.batch_size - 1)) // self.batch_size

    def set_epoch(self, epoch):
        """The epoch whose shuffle the next iteration uses."""
        self.epoch = epoch
