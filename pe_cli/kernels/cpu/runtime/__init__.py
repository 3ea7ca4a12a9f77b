"""The CPU runtime: what an executor needs of CPU devices beyond their kernels (the interface is
described in pe_cli/kernels/__init__.py). Values are numpy arrays in host memory, shared by every
device; each device's kernels get their share of the cores (threads.py); freed step buffers stay
mapped between runs (host_memory.py)."""

import importlib

import numpy as np

from ....base.places import CPUPlace, cpu_places
from . import denormals, loops, spin, threads
from .host_memory import keep_freed_memory

SHARED_THREADS = True  # kernels are CPU work: the scheduler's token run keeps the GIL calm
SHARED_MEMORY = True  # every device reads the host's arrays: one value serves them all
PLANNED_STEPS = True  # PE_PLANNED_STEP=1 runs steps planned (pe_cli/executor/step_plan.py)


class HostMemory:
    """Values of a CPU device: numpy arrays as they are. An array a CUDA executor left on a GPU is
    read as a host copy."""

    keeps_parameters = False

    # (a numpy array first: hasattr's failed lookup raises and catches an AttributeError, 0.2 us of
    # each value a run reads)
    @staticmethod
    def is_device_array(array):
        return type(array) is np.ndarray or not hasattr(array, "copy_to_host")

    @staticmethod
    def to_device(array):
        return array if type(array) is np.ndarray or not hasattr(array, "copy_to_host") else array.copy_to_host()

    def finish(self):
        pass


_MEMORY = HostMemory()


def __getattr__(name):
    # ``collectives`` and ``selected_rows`` (densify) are kernels, a floor above the runtime their
    # loops import: loaded on first use, as CUDA's runtime loads its own.
    if name in ("collectives", "selected_rows"):
        return importlib.import_module(f"{__package__.rpartition('.')[0]}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def memory(place):
    keep_freed_memory()  # step buffers stay mapped between runs (host_memory.py)
    return _MEMORY


def bind_kernel(kernel, place):
    return kernel


def default_places():
    """The devices of data parallelism: CPU_NUM of them."""
    return cpu_places()


def places_for(places):
    """CPU devices are numbered by position."""
    return [CPUPlace(i) for i in range(len(places))]


def prepare_run(num_devices):
    threads.use_devices(num_devices)  # each device's kernels get cores // devices threads
    return denormals.enter()  # the calling thread flushes denormals until end_run


def run_threads(num_devices):
    return threads.run_threads(num_devices)


def follow_share():
    """Before a planned step's segments run in the calling thread (loops.follow_share)."""
    loops.follow_share()


def planning():
    """Around the planning of a step: its loops split for the device's threads on a quiet machine
    (threads.quiet_share)."""
    return threads.quiet_share()


def end_run(state):
    denormals.leave(state)


def worker_started():
    denormals.worker_started()


def spin_until_changed(counter, index, seen, mark=None):
    """Before a thread sleeps waiting for another: a millisecond at most spinning on the counter the other one
    moves, ``mark`` (marks, i, value) stored first without the GIL (spin.py); True where it moved."""
    return spin.until_changed(counter, index, seen, mark)


def require(place=None):
    pass
