"""``paddle.io.DataLoader`` (Paddle 2.x arguments) over ``fluid.io.DataLoader``
(pe_cli/fluid/reader.py): batches of a map-style dataset through a ``BatchSampler``, or of
consecutive samples of an ``IterableDataset`` (each worker iterates it whole: split it with
``get_worker_info()``), fed to a static program through ``feed_list`` (one dict per place and step,
``exe.run(feed=data)``) or, with ``return_list`` (the default), a list of arrays per step (per
place when there are several): every field of the samples, whatever ``feed_list`` holds, as Paddle 2.6 reads it. ``places`` defaults to the CPU;
``batch_size=None`` takes each sample as a batch. ``timeout`` > 0 bounds the wait for each batch
from the workers, whose number is capped by the CPUs (fluid.io.DataLoader). ``prefetch_factor`` and
``persistent_workers`` are taken and change nothing in pe."""

import numpy as np

from ...base.places import CPUPlace
from ...data import dataset_loading
from ...data.batch import batch
from ...data.reader_processes import workers_reader
from ...fluid import reader as _fluid_reader
from .datasets import IterableDataset

__all__ = ["DataLoader", "get_worker_info"]

get_worker_info = dataset_loading.get_worker_info


class _StreamBatches(dataset_loading.BatchSampler):
    """An IterableDataset's batches: lists of ``batch_size`` consecutive samples (not indices)."""

    def __init__(self, dataset, batch_size, drop_last):
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise AssertionError("batch_size should be a positive integer")
        self.dataset, self.batch_size, self.drop_last, self.shuffle = dataset, batch_size, drop_last, False

    def __iter__(self):
        return batch(lambda: iter(self.dataset), self.batch_size, self.drop_last)()

    def __len__(self):
        raise ValueError("length of IterableDataset not supported")


class DataLoader(_fluid_reader.DataLoader):
    def __init__(
        self,
        dataset,
        feed_list=None,
        places=None,
        return_list=True,
        batch_sampler=None,
        batch_size=1,
        shuffle=False,
        drop_last=False,
        collate_fn=None,
        num_workers=0,
        use_buffer_reader=True,
        prefetch_factor=2,
        use_shared_memory=True,
        timeout=0,
        worker_init_fn=None,
        persistent_workers=False,
    ):
        places = CPUPlace() if places is None else places
        if batch_size is None and batch_sampler is None:  # each sample is a batch already
            collate_fn, batch_size = _unbatched(collate_fn), 1
        if isinstance(dataset, IterableDataset):
            if shuffle:
                raise ValueError("IterableDataset not support shuffle, but got shuffle=True")
            if batch_sampler is not None:
                raise ValueError("IterableDataset expect unspecified batch_sampler, but got a batch_sampler")
            batch_sampler, batch_size, drop_last = _StreamBatches(dataset, batch_size, drop_last), 1, False
        super().__init__(
            dataset,
            feed_list,
            places,
            return_list,
            batch_sampler,
            batch_size,
            shuffle,
            drop_last,
            collate_fn,
            num_workers,
            use_buffer_reader,
            use_shared_memory,
            timeout,
            worker_init_fn,
        )
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers

    def _batches(self):
        if not isinstance(self.batch_sampler, _StreamBatches):
            return super()._batches()
        collate = self.collate_fn or dataset_loading.default_collate_fn
        sampler, workers = self.batch_sampler, self.num_workers

        def stream():
            if workers <= 0:
                for batch in sampler:
                    yield collate(batch)
                return
            readers = [_stream_worker(sampler, collate, w, workers, self.worker_init_fn) for w in range(workers)]
            yield from workers_reader(readers, 2 * workers, self.timeout)()

        return stream

    def __iter__(self):
        # Paddle 2.6's static DataLoader with return_list reads each step's fields as collated, whatever
        # feed_list holds (measured: a feed_list of one variable over two-field samples gives both fields)
        steps = self._lists() if self.return_list else super().__iter__()
        if self.return_list and len(self.places) == 1:
            return (step[0] for step in steps)
        return steps


def _unbatched(collate_fn):
    """With ``batch_size=None``: ``collate_fn`` (or arrays of the fields) of each sample alone."""

    def collate(batch):
        sample = batch[0]
        if collate_fn is not None:
            return collate_fn(sample)
        return [np.asarray(f) for f in (sample if isinstance(sample, (list, tuple)) else [sample])]

    return collate


def _stream_worker(sampler, collate, worker_id, workers, worker_init_fn):
    def reader():
        dataset_loading.enter_worker(worker_id, workers, sampler.dataset, worker_init_fn)
        for indices in sampler:
            yield collate(indices)

    return reader
