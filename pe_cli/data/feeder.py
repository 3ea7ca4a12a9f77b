"""DataFeeder (Fluid 1.x): turns what a reader yields (a minibatch as a list of samples, each a
tuple with one field per feed variable) into the feed dict an Executor or ParallelExecutor takes.

- ``feed(minibatch)`` -> {name: LoDTensor}, as Fluid's (``.shape()``, ``numpy.array(t)``); fields of
  lod_level > 0 are sequences and carry their sequence lengths (``recursive_sequence_lengths()``).
- ``feed_parallel(minibatches, num_places)`` -> one feed dict per device, in order; the number of
  minibatches must equal the number of devices.
- ``decorate_reader(reader, multi_devices, num_places, drop_last)`` -> a reader of feed dicts (one
  device) or of lists of feed dicts (several); leftover minibatches that cannot fill every device
  are dropped with ``drop_last``, else a ValueError.
"""

from ..framework import default_main_program
from ..framework.feed_batch import FieldBatch
from ..framework.variable import Variable
from ..kernels import cuda_places
from ..base.places import CUDAPlace, cpu_device_count


class DataFeeder:
    def __init__(self, feed_list, place, program=None):
        if program is None:  # the feed variables' own program, else the default one
            owner = next((v.block.program for v in feed_list if isinstance(v, Variable)), None)
            program = owner if owner is not None else default_main_program()
        block = program.global_block()
        self.feed_names, self.feed_shapes, self.feed_dtypes, self.feed_lod_level = [], [], [], []
        for item in feed_list:
            if isinstance(item, str):
                var = block.var(item)  # ValueError when the program has no such variable
            elif isinstance(item, Variable):
                if not block.has_var(item.name):
                    raise ValueError(f"DataFeeder: variable '{item.name}' is not in the program")
                var = item
            else:
                raise TypeError(f"DataFeeder: feed_list takes Variables or their names, got {type(item).__name__}")
            self.feed_names.append(var.name)
            self.feed_shapes.append(list(var.shape or []))  # a fixed batch too, as Fluid's
            self.feed_dtypes.append(var.dtype)
            self.feed_lod_level.append(var.lod_level)
        self.place = place

    def feed(self, iterable):
        converters = [
            FieldBatch(*spec) for spec in zip(self.feed_names, self.feed_shapes, self.feed_dtypes, self.feed_lod_level)
        ]
        for n, sample in enumerate(iterable):
            if len(sample) != len(converters):
                raise ValueError(
                    f"DataFeeder: sample {n} has {len(sample)} fields but feed_list has "
                    f"{len(converters)} variables ({', '.join(self.feed_names)})"
                )
            for conv, field in zip(converters, sample):
                conv.add(field)
        return {conv.name: conv.done() for conv in converters}

    def _num_places(self, num_places):
        if num_places is not None:
            return int(num_places)
        if isinstance(self.place, CUDAPlace):
            return len(cuda_places())
        return cpu_device_count()

    def feed_parallel(self, iterable, num_places=None):
        num = self._num_places(num_places)
        batches = list(iterable)
        if len(batches) != num:
            raise ValueError(
                f"DataFeeder.feed_parallel: got {len(batches)} minibatches for {num} devices; "
                f"it takes one minibatch per device"
            )
        for batch in batches:
            yield self.feed(batch)

    def decorate_reader(self, reader, multi_devices, num_places=None, drop_last=True):
        def feeds():
            if not multi_devices:
                for batch in reader():
                    yield self.feed(batch)
                return
            num = self._num_places(num_places)
            group = []
            for batch in reader():
                group.append(batch)
                if len(group) == num:
                    yield list(self.feed_parallel(group, num))
                    group = []
            if group and not drop_last:
                raise ValueError(
                    f"DataFeeder.decorate_reader: {len(group)} minibatches are left over for "
                    f"{num} devices; only drop_last=True (dropping them) is implemented"
                )

        return feeds
