"""Paddle 2.x's datasets (``paddle.io``): the map-style ``Dataset`` (pe_cli/data's, which
``fluid.io.DataLoader`` reads too), ``IterableDataset``, ``TensorDataset`` (numpy arrays here: pe
has no eager tensors), ``ComposeDataset``, ``ChainDataset``, ``ConcatDataset``, ``Subset`` and
``random_split``, as Paddle 2.6 defines them."""

import bisect
import numbers

import numpy as np

from ...data.dataset_loading import Dataset

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ComposeDataset",
    "ChainDataset",
    "ConcatDataset",
    "Subset",
    "random_split",
]


class IterableDataset(Dataset):
    """A dataset read as a stream: a subclass defines ``__iter__``; the DataLoader batches
    consecutive samples (each worker iterates it whole: split with ``get_worker_info()``)."""

    def __iter__(self):
        raise NotImplementedError(f"'{type(self).__name__}' not implement in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(f"'__getitem__' should not be called for IterableDataset{type(self).__name__}")

    def __len__(self):
        raise RuntimeError(f"'__len__' should not be called for IterableDataset{type(self).__name__}")


class TensorDataset(Dataset):
    """Sample i is (tensors[0][i], tensors[1][i], ...); every array has the same first dimension."""

    def __init__(self, tensors):
        arrays = [np.asarray(t) for t in tensors]
        if not arrays or any(a.ndim == 0 or a.shape[0] != arrays[0].shape[0] for a in arrays):
            raise AssertionError("tensors not have same shape of the 1st dimension")
        self.tensors = arrays

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _fields(sample):
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Sample i is the fields of sample i of every dataset, one after the other (same lengths)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("input datasets shoule not be empty")
        for i, dataset in enumerate(self.datasets):
            if not isinstance(dataset, Dataset) or isinstance(dataset, IterableDataset):
                raise AssertionError("each input dataset should be paddle.io.Dataset (not IterableDataset)")
            if i > 0 and len(dataset) != len(self.datasets[i - 1]):
                raise AssertionError("lengths of datasets should be same")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for dataset in self.datasets:
            sample.extend(_fields(dataset[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """The samples of several iterable datasets, one dataset after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("input datasets shoule not be empty")
        if not all(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ChainDataset only support paddle.io.IterableDataset")

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset


class ConcatDataset(Dataset):
    """The samples of several map-style datasets, one dataset after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else self.cumulative_sizes[which - 1]
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Subsets of ``dataset`` of the given lengths (or fractions summing to 1), from a random
    permutation of its indices (numpy's global generator: seed with paddle.seed / np.random.seed)."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and np.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(np.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if not all(isinstance(x, numbers.Integral) and x >= 0 for x in lengths) or sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = np.random.permutation(n).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[start : start + length]))
        start += length
    return out
