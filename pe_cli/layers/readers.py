"""Fluid 1.8's py_reader family: ``py_reader``, ``create_py_reader_by_data``, ``double_buffer`` and
``read_file``.

A reader holds a queue of batches (reader_queue.py) that a thread fills from the decorated Python
generator after ``start()``. ``read_file(reader)`` gives the variables the program computes with:
data variables the executors fill, at each ``exe.run``, from the next batch of the queue (one batch
per device under data parallelism, as Fluid's read op on each device), through the same feed path
as ``feed=`` (pe_cli/executor/feeding.py ``reader_feeds``). When the data has ended ``exe.run``
raises ``fluid.core.EOFException``; ``reset()`` makes the reader ready for the next ``start()``.
Samples are batched by the FieldBatch DataFeeder uses (pe_cli/framework/feed_batch.py).
The programs hold Fluid's reader ops (ops/reader.py): ``create_py_reader`` in the startup program,
``create_double_buffer_reader`` and ``read`` (writing read_file's variables) in the main program.
"""

import threading

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import EnforceNotMet, EOFException, PeError
from ..base.dtypes import VarType
from ..framework import default_main_program, default_startup_program, unique_name
from ..framework.feed_batch import FieldBatch
from ..framework.lod_tensor import LoDTensor
from ..framework.source import layer_guard
from ..framework.variable import Variable
from .reader_queue import BlockingQueue, ReaderFailed

__all__ = ["py_reader", "create_py_reader_by_data", "double_buffer", "read_file"]

_DECORATE = "decorate it (decorate_sample_list_generator, decorate_batch_generator or decorate_paddle_reader)"


class PyReader:
    """What ``py_reader`` returns: the slots' shapes, dtypes and LoD levels, the queue, and the
    methods Fluid's py_reader has."""

    def __init__(self, name, capacity, shapes, dtypes, lod_levels, need_check, feed_names):
        self.name = name
        self.shapes = [list(s) for s in shapes]
        self.dtypes = dtypes
        self.lod_levels = lod_levels
        self.need_check = need_check
        self.feed_names = feed_names  # the names a sample's fields are reported under
        self._queue = BlockingQueue(capacity)
        self._queue_taken = False  # the script pushes batches itself (reader.queue)
        self.tensor_provider = None
        self.thread = None
        self.exited = False  # Fluid's flag: the feeding thread stops at the next batch
        self.outputs = None  # read_file's variables
        self.double_buffered = False
        self.kind = "py_reader"  # what messages call it (a DataLoader's: "DataLoader")
        self.keep_partial = False  # a last step with fewer batches than devices is kept (drop_last=False)

    @property
    def queue(self):
        """The queue itself (Fluid's LoDTensorBlockingQueue: push(LoDTensorArray), close()), for a
        script that feeds it from its own thread instead of decorating the reader."""
        self._queue_taken = True
        return self._queue

    # -- data sources ------------------------------------------------------------------------------
    def decorate_batch_generator(self, reader, places=None):
        """``reader()`` yields batches: a list (or tuple) of arrays or LoDTensors, one per slot."""
        if not callable(reader):
            raise PeError(
                f"{self.kind} '{self.name}': decorate_batch_generator takes a callable returning a "
                f"generator of batches, got {type(reader).__name__}"
            )
        self.tensor_provider = reader

    def decorate_tensor_provider(self, reader, places=None):
        """Fluid's older name of decorate_batch_generator."""
        self.decorate_batch_generator(reader, places)

    def decorate_sample_list_generator(self, reader, places=None):
        """``reader()`` yields minibatches as lists of samples (``paddle.batch`` of a sample reader),
        each sample a tuple with one field per slot; batched as DataFeeder does."""
        if not callable(reader):
            raise PeError(
                f"{self.kind} '{self.name}': decorate_sample_list_generator takes a callable returning a "
                f"generator of sample lists (paddle.batch(reader, n)), got {type(reader).__name__}"
            )

        def batches():
            for samples in reader():
                yield self._batch_samples(samples)

        self.tensor_provider = batches

    def decorate_paddle_reader(self, reader, places=None):
        """Fluid's older name of decorate_sample_list_generator."""
        self.decorate_sample_list_generator(reader, places)

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True, places=None):
        """``sample_generator()`` yields single samples, batched ``batch_size`` at a time (a last
        smaller batch is dropped with ``drop_last``)."""
        if not isinstance(batch_size, int) or batch_size < 1:
            raise PeError(f"{self.kind} '{self.name}': batch_size must be a positive int, got {batch_size!r}")

        def sample_lists():
            samples = []
            for sample in sample_generator():
                samples.append(sample)
                if len(samples) == batch_size:
                    yield samples
                    samples = []
            if samples and not drop_last:
                yield samples

        self.decorate_sample_list_generator(sample_lists)

    def _batch_samples(self, samples):
        fields = [
            FieldBatch(name, shape, dtype, lod, who=f"{self.kind} '{self.name}'")
            for name, shape, dtype, lod in zip(self.feed_names, self.shapes, self.dtypes, self.lod_levels)
        ]
        for n, sample in enumerate(samples):
            if len(sample) != len(fields):
                raise PeError(
                    f"{self.kind} '{self.name}': sample {n} has {len(sample)} fields but the reader has "
                    f"{len(fields)} slots ({', '.join(self.feed_names)})"
                )
            for field, value in zip(fields, sample):
                field.add(value)
        return [field.done() for field in fields]

    # -- an epoch ----------------------------------------------------------------------------------
    def start(self):
        """Starts the thread that fills the queue from the decorated generator."""
        if self.tensor_provider is None:
            raise PeError(f"{self.kind} '{self.name}' has no data source to start: {_DECORATE} first")
        if self.thread is not None:
            raise PeError(
                f"{self.kind} '{self.name}' was already started: call reset() (after its "
                f"fluid.core.EOFException, or to stop the epoch early) before start() again"
            )
        self.exited = False
        self.thread = threading.Thread(
            target=self._feed, args=(self.tensor_provider, self._queue), name=f"pe-py_reader-{self.name}", daemon=True
        )
        self.thread.start()

    def _feed(self, provider, queue):
        try:
            for batch in provider():
                if self.exited or not queue.push(batch):
                    break
            queue.close()
        except Exception as e:  # handed to exe.run on the main thread, naming the reader
            queue.fail(e)

    def reset(self):
        """Stops the feeding thread and empties the queue, ready for the next start()."""
        self.exited = True
        self._queue.kill()
        if self.thread is not None:
            self.thread.join()
        self._queue.reopen()
        self.exited = False
        self.thread = None

    # -- what the executors take -------------------------------------------------------------------
    def next_batches(self, n):
        """The next ``n`` batches as feeds {variable name: value} (one per device); EOFException when
        the data ends first (the batches taken are dropped, as Fluid's devices stop at EOF, unless
        ``keep_partial``, a DataLoader's ``drop_last=False``: then the fewer batches there are)."""
        self._check_can_read()
        feeds = []
        for _ in range(n):
            batch = self._queue.pop()
            if batch is None and feeds and self.keep_partial:  # drop_last=False: the devices that have one
                return feeds
            if batch is None:
                raise EOFException(
                    f"{self.kind} '{self.name}': the data has ended (fluid.core.EOFException): "
                    f"catch it and call reset() before the next start()"
                )
            if isinstance(batch, ReaderFailed):
                error = batch.error
                raise EnforceNotMet(
                    f"{self.kind} '{self.name}': the decorated reader raised "  # Fluid's killed queue
                    f"{type(error).__name__}: {error}"
                ) from error
            feeds.append(dict(zip((v.name for v in self.outputs), self._slot_values(batch))))
        return feeds

    def _check_can_read(self):
        if self._queue.has_data() or self.thread is not None:
            return
        if self.tensor_provider is not None:
            raise PeError(
                f"{self.kind} '{self.name}' is not started: call start() before exe.run (and reset() "
                f"after each fluid.core.EOFException)"
            )
        if not self._queue_taken:
            raise PeError(
                f"{self.kind} '{self.name}' has no data: {_DECORATE} and call start() before exe.run, "
                f"or push batches into its queue"
            )

    def _slot_values(self, batch):
        if isinstance(batch, (np.ndarray, LoDTensor)):
            batch = [batch]
        batch = list(batch)
        if len(batch) != len(self.outputs):
            raise PeError(
                f"{self.kind} '{self.name}': a batch has {len(batch)} value(s) but the reader has "
                f"{len(self.outputs)} slots ({', '.join(self.feed_names)})"
            )
        return [self._slot_value(i, item) for i, item in enumerate(batch)]

    def _slot_value(self, i, item):
        """A batch's value of slot ``i``; of the slot's dtype unless it checks its feeds (a fluid.data
        variable of create_py_reader_by_data), where a wrong dtype is the feed's error."""
        lod = item.lod() if isinstance(item, LoDTensor) else None
        array = np.asarray(item)
        if array.dtype != np.dtype(self.dtypes[i]) and not self.need_check[i]:
            try:
                array = array.astype(self.dtypes[i])
            except (TypeError, ValueError) as e:
                raise PeError(
                    f"{self.kind} '{self.name}': slot {i} ({self.feed_names[i]}) takes {self.dtypes[i]}, "
                    f"got {array.dtype}: {e}"
                ) from None
        return LoDTensor(array, lod) if lod else array


def _make(capacity, shapes, dtypes, lod_levels, name, need_check, feed_names):
    if not isinstance(shapes, (list, tuple)) or not isinstance(dtypes, (list, tuple)) or len(shapes) != len(dtypes):
        raise PeError(
            f"py_reader: shapes and dtypes must be lists of one entry per slot, got {shapes!r} and {dtypes!r}"
        )
    lod_levels = [0] * len(shapes) if lod_levels is None else list(lod_levels)
    if len(lod_levels) != len(shapes):
        raise PeError(f"py_reader: lod_levels has {len(lod_levels)} entries for {len(shapes)} slots")
    shapes = [[-1 if d is None else int(d) for d in s] for s in shapes]
    name = name or unique_name.generate("py_reader")
    return PyReader(
        name,
        capacity,
        shapes,
        [convert_dtype(d) for d in dtypes],
        lod_levels,
        need_check,
        feed_names or [f"slot {i}" for i in range(len(shapes))],
    )


def py_reader(capacity, shapes, dtypes, lod_levels=None, name=None, use_double_buffer=True):
    """A reader of batches with one slot per entry of ``shapes``/``dtypes`` (``lod_levels``: each
    slot's, default 0), holding up to ``capacity`` batches ahead. ``read_file`` gives its variables;
    ``use_double_buffer`` is accepted (the queue's thread already reads ahead)."""
    reader = _make(capacity, shapes, dtypes, lod_levels, name, [False] * len(shapes or ()), None)
    return double_buffer(reader) if use_double_buffer else reader


def create_py_reader_by_data(capacity, feed_list, name=None, use_double_buffer=True):
    """``py_reader`` with the slots of the variables in ``feed_list`` (their shapes, dtypes, LoD
    levels; a fluid.data variable's feeds are checked against its shape)."""
    if not isinstance(feed_list, (list, tuple)) or not all(isinstance(v, Variable) for v in feed_list):
        raise PeError(
            f"create_py_reader_by_data: feed_list must be a list of Variables (fluid.data or "
            f"fluid.layers.data), got {feed_list!r}"
        )
    reader = _make(
        capacity,
        [v.shape for v in feed_list],
        [v.dtype for v in feed_list],
        [v.lod_level for v in feed_list],
        name,
        [bool(v.need_check_feed) for v in feed_list],
        [v.name for v in feed_list],
    )
    return double_buffer(reader) if use_double_buffer else reader


def double_buffer(reader, place=None, name=None):
    """The reader itself, marked double-buffered: its thread already prepares the next batches while
    the program runs, and the executors move a batch to the device they run on."""
    _check_reader(reader, "double_buffer")
    reader.double_buffered = True
    return reader


def read_file(reader):
    """The variables of the reader's slots, one per slot (a single variable for one slot), in the
    current program: each ``exe.run`` fills them from the reader's next batch. They are named after the
    reader and the slot (``py_reader_0.slot0_0``, ``reader.image_0``), so a feed error names both."""
    _check_reader(reader, "read_file")
    if reader.outputs is not None:
        raise PeError(
            f"read_file: py_reader '{reader.name}' is already read by {[v.name for v in reader.outputs]}; "
            f"call read_file once per reader and reuse its variables"
        )
    program = default_main_program()
    block = program.current_block()
    outputs = []
    with layer_guard("read_file"):
        for i, (shape, dtype, lod, check) in enumerate(
            zip(reader.shapes, reader.dtypes, reader.lod_levels, reader.need_check)
        ):
            slot = reader.feed_names[i] if reader.feed_names[i] != f"slot {i}" else f"slot{i}"
            outputs.append(
                block.create_var(
                    name=unique_name.generate(f"{reader.name}.{slot}"),
                    shape=shape,
                    dtype=dtype,
                    lod_level=lod,
                    stop_gradient=True,
                    is_data=True,
                    need_check_feed=check,
                )
            )
    reader.outputs = outputs
    program._py_readers.append(reader)
    _append_reader_ops(reader, block, outputs)
    return outputs[0] if len(outputs) == 1 else outputs


def _append_reader_ops(reader, block, outputs):
    """Fluid's ops of a py_reader: its reader variable (persistable, made by the startup program's
    ``create_py_reader``), a ``create_double_buffer_reader`` where double-buffered, then ``read``."""
    name = f"{reader.name}_reader"
    slots = {"shapes": reader.shapes, "dtypes": reader.dtypes, "lod_levels": reader.lod_levels}
    attrs = {
        "shape_concat": [d for s in reader.shapes for d in s],
        "ranks": [len(s) for s in reader.shapes],
        "lod_levels": list(reader.lod_levels),
        "dtypes": list(reader.dtypes),
        "need_check_feed": [int(c) for c in reader.need_check],
    }
    startup = default_startup_program().global_block()
    for b in (startup, block.program.global_block()):
        if not b.has_var(name):
            b.create_var(name=name, type=VarType.READER, persistable=True, stop_gradient=True).reader_slots = slots
    if not any(name in op.output_arg_names for op in startup.ops):
        startup.append_op("create_py_reader", {}, {"Out": [name]}, attrs)
    if reader.double_buffered:
        buffered = block.create_var(
            name=unique_name.generate(f"{reader.name}_double_buffer"), type=VarType.READER, stop_gradient=True
        )
        buffered.reader_slots = slots
        block.append_op("create_double_buffer_reader", {"UnderlyingReader": [name]}, {"Out": [buffered.name]})
        name = buffered.name
    block.append_op("read", {"Reader": [name]}, {"Out": [v.name for v in outputs]})


def _check_reader(reader, layer):
    if not isinstance(reader, PyReader):
        raise PeError(
            f"{layer}: expected a reader made by fluid.layers.py_reader or create_py_reader_by_data, "
            f"got {type(reader).__name__}"
        )
