"""Fluid's reader ops, as a py_reader puts them in programs: ``create_py_reader`` (the startup
program: the reader variable), ``create_double_buffer_reader`` (the main program: a reader that
reads ahead) and ``read`` (the main program: the reader's next batch into read_file's variables).

In pe a reader's queue is drained by the executors, not by an op: before a run's ops, they fill
``read``'s output variables with the reader's next batch (pe_cli/executor/feeding.py
``reader_feeds``; one batch per device). So the reader variables hold a marker (an empty array)
that the ops pass along, and ``read`` writes nothing itself: its op says which variables the
reader fills, as in Fluid's program, and ``Program._inference_optimize`` and pruning remove it."""

from ..kernels.cpu import reader as cpu
from ..shapes import services as metas
from .define import Attr, Structured, register

_SLOT_ATTRS = {
    "shape_concat": Attr(list),
    "ranks": Attr(list),
    "lod_levels": Attr(list),
    "dtypes": Attr(list),
    "need_check_feed": Attr(list),
    # Fluid's: whether its build-time shapes come from the lists above, and the device a
    # multi-device reader feeds (pe's executors feed every device from the queue)
    "use_data_config": True,
    "device_index": 0,
    "device_count": 1,
}

register(
    "create_py_reader",
    kernel_module="reader",
    structured=Structured(meta=metas.create_py_reader_meta, cpu=cpu.create_py_reader_out),
    inputs=["blocking_queue?"],
    outputs=["Out"],
    attrs=_SLOT_ATTRS,
    traits=("reader",),
    doc="Out = the py_reader's reader variable (its queue is the Python reader object's; an empty marker).",
)
register(
    "create_double_buffer_reader",
    kernel_module="reader",
    structured=Structured(meta=metas.create_double_buffer_reader_meta, cpu=cpu.create_double_buffer_reader_out),
    inputs=["UnderlyingReader"],
    outputs=["Out"],
    attrs={"place": "AUTO"},
    traits=("reader",),
    doc="Out = a reader reading ahead of UnderlyingReader (the py_reader's thread already does).",
)
register(
    "read",
    kernel_module="reader",
    structured=Structured(meta=metas.read_meta, cpu=cpu.read_out, python=True),
    inputs=["Reader"],
    outputs=["Out*"],
    attrs={"throw_eof_exp": True, "infer_out": True, "drop_last": True},
    traits=("reader", "fed_outputs"),
    doc="Out = the reader's next batch, one variable per slot: the executors fill them from the reader's "
    "queue before the run's ops (fluid.core.EOFException at its end); the op itself writes nothing.",
)
