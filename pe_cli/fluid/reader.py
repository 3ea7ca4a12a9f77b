"""``paddle.fluid.reader`` (and ``fluid.io``): ``DataLoader`` (over a map-style ``Dataset``, or
``DataLoader.from_generator``), ``PyReader`` and ``default_collate_fn`` of Fluid 1.8, on the
py_reader machinery of pe_cli/layers/readers.py (its queue, feeding thread and batching).

- not iterable: the loader fills its ``feed_list`` variables at each ``exe.run`` (one batch per device
  under data parallelism), ``start()`` / ``reset()`` and ``fluid.core.EOFException`` as py_reader;
- iterable (the default): ``for data in loader():`` yields, per step, one feed per place (a list of
  dicts name -> LoDTensor, or of lists with ``return_list``), each its own batch; a last step that
  cannot give every place a batch is dropped. ``exe.run(feed=data)`` takes it (a one-place list on
  an Executor too, as Fluid's).
"""

import numpy as np

from ..base.errors import ArgumentAssertionError, EOFException, PeError
from ..framework import unique_name
from ..framework.lod_tensor import LoDTensor
from ..framework.variable import Variable
from ..layers.readers import PyReader as _Reader
from ..base.places import Place
from ..data.dataset import _Dataset
from ..data.dataset_loading import BatchSampler, Dataset, dataset_batches, default_collate_fn
from ..data.reader_processes import capped_workers
from .unsupported import unsupported

__all__ = ["DataLoader", "PyReader", "GeneratorLoader", "default_collate_fn", "Dataset", "BatchSampler"]

_KEEP_ORDER = {"value": True}


def keep_data_loader_order(*args):
    """Fluid 1.8's switch: with no argument, whether loaders keep the batch order across devices;
    with one (a bool), sets it. pe's loaders always keep the order (each device's batches in turn),
    which also meets what a program turning it off expects (every batch fed once per epoch)."""
    assert len(args) in (0, 1), "keep_data_loader_order takes no argument or one bool"
    if not args:
        return _KEEP_ORDER["value"]
    assert isinstance(args[0], bool), "keep_data_loader_order's argument must be a bool"
    _KEEP_ORDER["value"] = args[0]


def _convert_places(places):
    places = list(places) if isinstance(places, (list, tuple)) else [places]
    if not places or not all(isinstance(p, Place) for p in places):
        raise PeError(
            f"DataLoader: places must be a place or a list of places (fluid.cpu_places(), "
            f"fluid.cuda_places()), got {places!r}"
        )
    return places


class GeneratorLoader:
    """What ``DataLoader.from_generator`` returns."""

    def __init__(
        self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False, drop_last=True
    ):
        if not capacity:
            raise ValueError("Please give value to capacity.")
        if not feed_list or not all(isinstance(v, Variable) for v in feed_list):
            raise PeError(
                f"DataLoader: feed_list must be the list of variables it feeds (fluid.data), got {feed_list!r}"
            )
        self._feed_list = list(feed_list)
        self._iterable = bool(iterable)
        self._return_list = bool(return_list)
        self._places = None
        self._reader = _Reader(
            unique_name.generate("data_loader"),
            capacity,
            [v.shape for v in feed_list],
            [v.dtype for v in feed_list],
            [v.lod_level for v in feed_list],
            [bool(v.need_check_feed) for v in feed_list],
            [v.name for v in feed_list],
        )
        self._reader.outputs = self._feed_list  # the feed_list variables themselves are filled
        self._reader.kind = "DataLoader"
        self._reader.keep_partial = not drop_last  # a last step may feed fewer places (an inference program)
        if not self._iterable:
            feed_list[0].block.program._py_readers.append(self._reader)

    @property
    def queue(self):
        return self._reader.queue

    @property
    def iterable(self):
        return self._iterable

    # -- data sources ------------------------------------------------------------------------------
    def _set_places(self, places):
        if self._iterable:
            if places is None:
                raise PeError(
                    "DataLoader: places cannot be None when the loader is iterable: pass "
                    "places=fluid.cpu_places() (or cuda_places()), one feed per place each step"
                )
            self._places = _convert_places(places)
        return self

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        self._reader.decorate_sample_generator(reader, batch_size, drop_last)
        return self._set_places(places)

    def set_sample_list_generator(self, reader, places=None):
        self._reader.decorate_sample_list_generator(reader)
        return self._set_places(places)

    def set_batch_generator(self, reader, places=None):
        self._reader.decorate_batch_generator(reader)
        return self._set_places(places)

    # -- not iterable ------------------------------------------------------------------------------
    def start(self):
        if self._iterable:
            raise PeError("start() cannot be called when the DataLoader is iterable: iterate it (for data in loader())")
        self._reader.start()

    def reset(self):
        if self._iterable:
            raise PeError("reset() cannot be called when the DataLoader is iterable")
        self._reader.reset()

    def _reset(self):
        self._reader.reset()

    # -- iterable ----------------------------------------------------------------------------------
    def __call__(self):
        return self

    def __iter__(self):
        if not self._iterable:
            raise PeError("the DataLoader is not iterable (iterable=False): start() it and run the program")
        if self._reader.tensor_provider is None:
            raise PeError(
                "the DataLoader has no data source: call set_sample_generator, set_sample_list_generator "
                "or set_batch_generator (decorate_* on a PyReader) first"
            )
        self._reader.reset()
        self._reader.start()
        return self

    def __next__(self):
        try:
            feeds = self._reader.next_batches(len(self._places))
        except EOFException:
            self._reader.reset()
            raise StopIteration from None
        steps = zip(feeds, self._places)
        if self._return_list:
            return [[_tensor(feed[v.name], place) for v in self._feed_list] for feed, place in steps]
        return [{name: _tensor(value, place) for name, value in feed.items()} for feed, place in steps]

    @staticmethod
    def _check_input_array(item):
        """A TypeError when ``item`` is not a regular array (nested lists of different lengths)."""
        try:
            array = np.array(item)
        except ValueError:
            array = np.array(item, dtype=object)
        if array.dtype == object:
            raise TypeError(
                "Failed to convert input data to a regular ndarray: usually the data holds nested "
                "lists of different lengths; check the reader passed to decorate_batch_generator, "
                "or make it a LoD tensor with fluid.create_lod_tensor"
            )


def _grouped(batches, n):
    """Lists of ``n`` batches (one per place); a last incomplete group is dropped."""
    group = []
    for batch in batches:
        group.append(list(batch))
        if len(group) == n:
            yield group
            group = []


def _tensor(value, place):
    """A batch's value as a LoDTensor of ``place`` (the place it is fed to)."""
    tensor = LoDTensor(np.asarray(value), value.lod() if isinstance(value, LoDTensor) else None)
    tensor._placed = place
    return tensor


class DataLoader:
    """Fluid 1.8's DataLoader: ``DataLoader(dataset, ...)`` reads a map-style ``Dataset`` in batches
    (pe_cli/data/dataset_loading.py) and feeds them as ``from_generator``'s iterable loader does
    (one feed per place and step); ``DataLoader.from_generator`` builds a loader over a Python
    generator. ``timeout`` > 0: a WaitTimeout when no batch comes from the workers in that many seconds
    (Fluid 1.8.5 and Paddle 2.6.2 wait for ever); ``num_workers`` is capped by the CPUs this process
    may use, with a warning. ``use_buffer_reader`` and ``use_shared_memory`` are taken and change
    nothing in pe (batches are always read ahead into the loader's queue)."""

    def __init__(
        self,
        dataset,
        feed_list=None,
        places=None,
        return_list=False,
        batch_sampler=None,
        batch_size=1,
        shuffle=False,
        drop_last=False,
        collate_fn=None,
        num_workers=0,
        use_buffer_reader=True,
        use_shared_memory=True,
        timeout=0,
        worker_init_fn=None,
    ):
        _require(isinstance(dataset, Dataset), "dataset should be subclass instance of paddle.io.Dataset")
        _require(return_list or feed_list is not None, "feed_list should be set when return_list=False")
        _require(places is not None, "places cannot be None")
        _require(num_workers >= 0, "num_workers should be a non-negative value")
        _require(timeout >= 0, "timeout should be a non-negative value")
        if batch_sampler is not None:
            _require(
                isinstance(batch_sampler, BatchSampler),
                "batch_sampler should be None or subclass instance of paddle.io.BatchSampler",
            )
            _require(
                batch_size == 1 and not shuffle and not drop_last,
                "batch_size/shuffle/drop_last should not be set when batch_sampler is given",
            )
        else:
            _require(
                batch_size is not None and batch_size > 0,
                "batch_size should be a positive value when batch_sampler is not given",
            )
            batch_sampler = BatchSampler(dataset=dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
        self.dataset, self.feed_list, self.places = dataset, feed_list, _convert_places(places)
        self.return_list, self.batch_sampler, self.collate_fn = return_list, batch_sampler, collate_fn
        num_workers = capped_workers(num_workers)
        self.num_workers, self.worker_init_fn, self.timeout = num_workers, worker_init_fn, timeout
        self.use_buffer_reader, self.use_shared_memory = use_buffer_reader, use_shared_memory and num_workers > 0

    def __len__(self):
        return len(self.batch_sampler)

    def _batches(self):
        return dataset_batches(
            self.dataset, self.batch_sampler, self.collate_fn, self.num_workers, self.worker_init_fn, self.timeout
        )

    def _lists(self):
        """The batches per place, each a list of the collated fields (return_list without variables)."""
        return _grouped(self._batches()(), len(self.places))

    def __iter__(self):
        if self.feed_list is None:
            return self._lists()
        loader = GeneratorLoader(self.feed_list, max(2 * len(self.places), 2), True, True, self.return_list)
        return iter(loader.set_batch_generator(self._batches(), self.places))

    def __call__(self):
        return self.__iter__()

    @staticmethod
    def from_generator(
        feed_list=None,
        capacity=None,
        use_double_buffer=True,
        iterable=True,
        return_list=False,
        use_multiprocess=False,
        drop_last=True,
    ):
        """A loader of batches from a Python generator (see the module's doc)."""
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list, drop_last)

    @staticmethod
    def from_dataset(dataset, places, drop_last=True):
        """A loader of a file dataset (``fluid.DatasetFactory().create_dataset(...)``): iterating it
        gives, per step, one feed per place (a list of dicts name -> LoDTensor of that place), each
        place reading its own share of the files (pe_cli/data/dataset.py, ``device_batches``)."""
        return DatasetLoader(dataset, places, drop_last)


class DatasetLoader:
    """What ``DataLoader.from_dataset`` returns (Fluid 1.8's class of that name)."""

    def __init__(self, dataset, places, drop_last):
        assert isinstance(dataset, _Dataset), "dataset must be type of DatasetBase"
        self._dataset, self._places, self._drop_last = dataset, _convert_places(places), drop_last
        assert len(dataset.filelist) >= len(self._places), (
            f"Filelist number of dataset {len(dataset.filelist)} must be not less than place number {len(self._places)}"
        )

    def __iter__(self):
        for step in self._dataset.device_batches(len(self._places), self._drop_last):
            yield [
                {name: _tensor(value, place) for name, value in feed.items()} for feed, place in zip(step, self._places)
            ]

    def __call__(self):
        return self.__iter__()


class PyReader:
    """Fluid 1.8's ``fluid.io.PyReader``: a GeneratorLoader with py_reader's method names."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False):
        self._loader = DataLoader.from_generator(feed_list, capacity, use_double_buffer, iterable, return_list)

    @property
    def queue(self):
        return self._loader.queue

    @property
    def iterable(self):
        return self._loader.iterable

    def __call__(self):
        return self._loader()

    def __iter__(self):
        return self._loader.__iter__()

    def __next__(self):
        return self._loader.__next__()

    def start(self):
        self._loader.start()

    def reset(self):
        self._loader.reset()

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True, places=None):
        self._loader.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        self._loader.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        self._loader.set_batch_generator(reader, places)


def _require(condition, message):
    """Paddle's assert on a DataLoader argument, as pe's one-line error (an AssertionError too)."""
    if not condition:
        raise ArgumentAssertionError(message)
