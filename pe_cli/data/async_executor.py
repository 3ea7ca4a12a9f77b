"""``AsyncExecutor`` (seed 004): training from a list of MultiSlot files on several threads.

``run(program, data_feed, filelist, thread_num, fetch, debug)`` divides the files among
``thread_num`` threads. Each thread reads, parses and batches its own files (data/multislot.py) and
runs the program on each batch with its own Executor: the temporaries of a step live in that run
alone (the thread's local scope), the parameters are read from the global scope, and the optimizer's
updates are written back to it by every thread without locks (Hogwild, as Fluid's threads did).
On Linux the "threads" are processes sharing the parameters' memory, so that they compute at the
same time despite Python's GIL (data/hogwild.py says how; PE_ASYNC_WORKERS=threads keeps threads).
``fetch`` values are printed after each batch when ``debug`` is set (as the seed says:
AsyncExecutor returns nothing). The call returns when every file is consumed; the first error of
any thread stops the others and is raised.
"""

import os

import numpy as np

from ..base.errors import PeError
from ..base.limits import file_kind
from ..executor import global_scope
from ..framework import default_main_program
from ..base.places import CPUPlace
from . import hogwild
from .datafeed_desc import DataFeedDesc
from .multislot import MultiSlotReader


class AsyncExecutor:
    def __init__(self, place=None, run_mode=""):
        place = CPUPlace() if place is None else place
        if not isinstance(place, CPUPlace):
            raise PeError(f"AsyncExecutor runs on the CPU only (seed 004); got {place}: use fluid.CPUPlace()")
        self.place = place

    def run(self, program, data_feed, filelist, thread_num, fetch, debug=False):
        program = default_main_program() if program is None else program
        if not isinstance(data_feed, DataFeedDesc):
            raise PeError(f"AsyncExecutor.run: data_feed must be a fluid.DataFeedDesc, got {type(data_feed).__name__}")
        files = _files(filelist)
        if not isinstance(thread_num, int) or thread_num < 1:
            raise PeError(f"AsyncExecutor.run: thread_num must be a positive integer, got {thread_num!r}")
        reader = MultiSlotReader(data_feed)
        _check_slots(program, reader, data_feed)
        fetch = [
            f if isinstance(f, str) else f.name
            for f in ([fetch] if isinstance(fetch, str) or not isinstance(fetch, (list, tuple)) else fetch)
            if f is not None
        ]
        run_threads(
            program, files, reader.batches, thread_num, self.place, global_scope(), fetch, fetch if debug else None
        )


def run_threads(program, parts, batches_of, thread_num, place, scope, fetch, shown, period=1):
    """Runs ``program`` on every batch of every part (``batches_of(part)``), the parts divided
    among ``thread_num`` Hogwild workers on ``scope``'s parameters (data/hogwild.py); prints the
    ``fetch`` values named ``shown`` every ``period`` batches of a worker. Raises the first error."""
    period = max(1, period)

    def show(t, part, k, values):
        if not shown or k % period:
            return None
        if isinstance(part, tuple):  # a thread's files, read as one stream
            source = ",".join(os.path.basename(p) for p in part)
        else:
            source = os.path.basename(part) if isinstance(part, str) else f"part {part}"
        return f"thread {t} {source} batch {k}: " + "  ".join(f"{name}={_show(v)}" for name, v in zip(shown, values))

    hogwild.run(hogwild.Job(program, parts, batches_of, place, scope, fetch, show), thread_num)


def _show(value):
    value = np.asarray(value)
    return f"{value.reshape(-1)[0]:.6g}" if value.size == 1 else f"mean {value.mean():.6g} {list(value.shape)}"


def _files(filelist):
    files = [filelist] if isinstance(filelist, str) else list(filelist or [])
    if not files:
        raise PeError("AsyncExecutor.run: the file list is empty; give the MultiSlot data files to train on")
    for f in files:
        kind = file_kind(f)
        if kind == "missing":
            raise PeError(f"AsyncExecutor.run: data file {f} does not exist")
        if kind is not None:
            raise PeError(f"AsyncExecutor.run: data file {f} is {kind}, not a regular file, so pe does not read it")
    return files


def _check_slots(program, reader, desc):
    block = program.global_block()
    for name in reader.used:
        if name not in block.vars:
            raise PeError(
                f"{desc.proto_file}: slot '{name}' is used but the program has no variable of that "
                f"name (declare it with fluid.layers.data, or set_use_slots the slots the program reads)"
            )
    for var in block.vars.values():
        if var.is_data and var.name not in reader.used and any(var.name in op.input_arg_names for op in block.ops):
            known = ", ".join(s[0] for s in desc.slots)
            raise PeError(
                f"the program reads '{var.name}', which is not a used slot of {desc.proto_file} "
                f"(its slots: {known}); add it to the description or set_use_slots it"
            )
