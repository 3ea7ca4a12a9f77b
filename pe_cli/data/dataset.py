"""Fluid 1.5+'s file datasets: ``fluid.DatasetFactory().create_dataset("QueueDataset" |
"InMemoryDataset")`` with ``exe.train_from_dataset(program, dataset)`` / ``infer_from_dataset``.

A dataset is AsyncExecutor's data feed described by the program's own variables instead of a proto
file: ``set_use_var([x, label])`` makes one slot per variable, in that order (int64 variables are
``uint64`` id slots, float ones ``float`` slots; ``lod_level`` 0 dense, else sparse). The files are
MultiSlot text (data/multislot.py), each optionally passed through ``set_pipe_command`` (a shell
command given the file on its input, as Fluid runs it). A QueueDataset streams its files, a file per
thread at a time; an InMemoryDataset reads them all with ``load_into_memory`` and can
``local_shuffle`` / ``global_shuffle`` (one process: the same) the samples, which its threads then
share out in slices. A FileInstantDataset streams binary files (data/instant_datafeed.py).
"""

import numpy as np

from ..base.errors import ArgumentValueError, PeError
from ..base.limits import check
from ..base.places import CPUPlace
from .async_executor import run_threads
from .instant_datafeed import instant_batches
from .multislot import MultiSlotReader, piped_text, read_text


class DatasetFactory:
    def create_dataset(self, datafeed_class="QueueDataset"):
        kinds = {
            "QueueDataset": QueueDataset,
            "InMemoryDataset": InMemoryDataset,
            "FileInstantDataset": FileInstantDataset,
        }
        if datafeed_class not in kinds:
            raise ArgumentValueError(
                f"DatasetFactory.create_dataset: {datafeed_class!r} is not one of {', '.join(kinds)}"
            )
        return kinds[datafeed_class]()


class _Dataset:
    def __init__(self):
        self.batch_size = 1
        self.thread_num = 1
        self.filelist = []
        self.pipe_command = None
        self.use_vars = []
        self.proto_file = f"the {type(self).__name__}"

    def set_use_var(self, var_list):
        self.use_vars = list(var_list)

    def set_batch_size(self, batch_size):
        if not isinstance(batch_size, int) or batch_size < 1:
            raise PeError(f"set_batch_size: expected a positive integer, got {batch_size!r}")
        self.batch_size = batch_size

    def set_thread(self, thread_num):
        if not isinstance(thread_num, int) or thread_num < 1:
            raise PeError(f"set_thread: expected a positive integer, got {thread_num!r}")
        self.thread_num = check("threads", thread_num, "set_thread")

    def set_filelist(self, filelist):
        self.filelist = [filelist] if isinstance(filelist, str) else list(filelist)

    def set_pipe_command(self, pipe_command):
        self.pipe_command = pipe_command or None

    @property
    def dataset(self):
        """Fluid's core dataset object: ``get_filelist()``."""
        return _CoreView(self)

    def set_hdfs_config(self, fs_name, fs_ugi):
        raise PeError("set_hdfs_config: pe reads local files only (copy the data from HDFS first)")

    @property
    def slots(self):
        """(name, type, is_dense, is_used) per used variable, as DataFeedDesc.slots."""
        if not self.use_vars:
            raise PeError(
                f"{self.proto_file}: set_use_var([...]) names no variable; give the program's data "
                f"variables in the order of the slots of a line"
            )
        return [(v.name, "uint64" if "int" in str(v.dtype) else "float", not v.lod_level, True) for v in self.use_vars]

    def desc(self):
        return "\n".join(f"slot {n}: {t}, {'dense' if d else 'sparse'}" for n, t, d, _ in self.slots)

    # -- what Executor.train_from_dataset calls ---------------------------------------------------

    def _run(self, program, scope, thread, debug, fetch_list, fetch_info, print_period, place):
        if not self.filelist:
            raise PeError(f"{self.proto_file}: the file list is empty (set_filelist)")
        reader = MultiSlotReader(self)
        fetch = [f if isinstance(f, str) else f.name for f in (fetch_list or [])]
        shown = list(fetch_info or fetch) if fetch else None
        if shown is not None and len(shown) != len(fetch):
            raise PeError(f"fetch_info names {len(shown)} values for {len(fetch)} fetches; give one per fetch")
        if not isinstance(place, CPUPlace):
            raise PeError("train_from_dataset runs on the CPU only (as AsyncExecutor); use fluid.CPUPlace()")
        threads = thread if thread and thread > 0 else self.thread_num
        parts, batches_of = self._parts(reader, threads)
        run_threads(program, parts, batches_of, threads, place, scope, fetch, shown, print_period)

    def device_batches(self, devices, drop_last=True):
        """What ``DataLoader.from_dataset`` yields: per step, one batch ({variable name: array or
        LoDTensor}) per device, each device reading its own share of the data (the files, or the
        loaded samples, dealt out in turn), as Fluid's threads do; it ends when a device's share
        does. ``drop_last``: a device's last batch smaller than the batch size is not read. A dense
        slot takes its variable's shape."""
        if len(self.filelist) < devices:
            raise PeError(
                f"DataLoader.from_dataset: the file list names {len(self.filelist)} files for "
                f"{devices} places; give at least one file per place"
            )
        reader = MultiSlotReader(self)
        parts, batches_of = self._parts(reader, devices)
        shapes = {v.name: v.shape for v in self.use_vars}

        def stream(own):
            for part in own:
                for batch in batches_of(part):
                    n = len(next(iter(batch.values())))
                    if n == self.batch_size or not drop_last:
                        yield {name: _shaped(value, shapes.get(name)) for name, value in batch.items()}

        return zip(*(stream(parts[d::devices]) for d in range(devices)))


def _shaped(value, shape):
    """A dense slot's [n, count] values in its variable's shape [n, ...] (when that shape fits)."""
    if not isinstance(value, np.ndarray) or not shape or any(d is None or d < 0 for d in shape[1:]):
        return value
    return value.reshape((len(value), *shape[1:])) if int(np.prod(shape[1:])) == value[0].size else value


class QueueDataset(_Dataset):
    """Streams the files: each thread reads its files one after another as one stream of samples
    (a batch runs on across a file's end, as Fluid 1.8.5's DataFeed), the files dealt out in turn."""

    def _parts(self, reader, threads):
        threads = max(1, min(threads or 1, len(self.filelist)))
        groups = [tuple(self.filelist[t::threads]) for t in range(threads)]
        return groups, lambda files: reader.batches_across(files, self.pipe_command)

    def local_shuffle(self):
        raise _CannotShuffle(
            f"{type(self).__name__} does not support local shuffle, please use InMemoryDataset for local_shuffle"
        )

    def global_shuffle(self, fleet=None):
        raise _CannotShuffle(
            f"{type(self).__name__} does not support global shuffle, please use InMemoryDataset for global_shuffle"
        )


class FileInstantDataset(QueueDataset):
    """Streams binary files in Fluid's MultiSlotFileInstantDataFeed layout (data/instant_datafeed.py),
    each thread whole files, one after another."""

    def _parts(self, reader, threads):
        return self.filelist, lambda path: instant_batches(path, self.use_vars, self.batch_size)


class _CoreView:
    def __init__(self, dataset):
        self._dataset = dataset

    def get_filelist(self):
        return list(self._dataset.filelist)


class _CannotShuffle(PeError, NotImplementedError):
    """A QueueDataset asked to shuffle (a NotImplementedError, as Fluid raises)."""


class InMemoryDataset(_Dataset):
    """Reads every file into memory (``load_into_memory``); can shuffle the samples."""

    def __init__(self):
        super().__init__()
        self.lines = None
        self._seed = 0

    def load_into_memory(self):
        if not self.filelist:
            raise PeError(f"{self.proto_file}: the file list is empty (set_filelist)")
        lines = []
        MultiSlotReader(self)  # the slots are checked before any file is read
        for path in self.filelist:
            text = piped_text(path, self.pipe_command) if self.pipe_command else read_text(path)
            lines += [(path, n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
        self.lines = lines

    def preload_into_memory(self, thread_num=None):
        """Fluid loads in background threads; pe loads here, so ``wait_preload_done`` has nothing to wait for."""
        self.load_into_memory()

    def wait_preload_done(self):
        self._loaded("wait_preload_done")

    def set_queue_num(self, queue_num):
        """Fluid's channel count between its reading threads; one process here: kept, no effect."""
        self.queue_num = int(queue_num)

    def set_fleet_send_batch_size(self, fleet_send_batch_size=1024):
        self.fleet_send_batch_size = int(fleet_send_batch_size)  # global_shuffle sends nothing here

    def set_fleet_send_sleep_seconds(self, fleet_send_sleep_seconds=0):
        self.fleet_send_sleep_seconds = fleet_send_sleep_seconds

    def local_shuffle(self):
        self._loaded("local_shuffle")
        order = np.random.default_rng(self._seed).permutation(len(self.lines))
        self._seed += 1
        self.lines = [self.lines[i] for i in order]

    def global_shuffle(self, fleet=None, thread_num=12):
        self.local_shuffle()  # one process holds all the samples: a global shuffle is a local one

    def release_memory(self):
        self.lines = None

    def get_memory_data_size(self, fleet=None):
        return len(self._loaded("get_memory_data_size"))

    def get_shuffle_data_size(self, fleet=None):
        return self.get_memory_data_size(fleet)

    def _loaded(self, what):
        if self.lines is None:
            raise PeError(f"InMemoryDataset.{what}: call load_into_memory() first")
        return self.lines

    def _parts(self, reader, threads):
        lines = self._loaded("train_from_dataset")
        slices = [lines[t::threads] for t in range(threads)] if threads > 1 else [lines]
        return list(range(len(slices))), lambda t: reader.batches_of(slices[t])
