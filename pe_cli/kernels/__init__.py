"""Kernels per device kind: ``cpu/`` (numpy and numba, GIL released) and ``cuda/`` (numba.cuda),
one module per op module with one function per op type: ``kernel(ins, attrs) -> outs``, or
``kernel(ins, attrs, ctx)`` for a kernel that needs what only the executor knows (its inputs' LoD, a
seeded Generator, the block it runs, the outputs wanted, leave to write in place: a ``KernelContext``,
context.py); ``attrs`` holds the op's attributes alone.

Each kind also has a *runtime* (``<kind>/runtime.py``): what an executor needs of a device beyond
its kernels, behind one interface, so executors never ask which kind a device is:

- ``memory(place)``: an object with ``to_device(array)`` (a feed or scope value as this device
  holds it), ``is_device_array(array)``, ``keeps_parameters`` (True: a parameter copied to the
  device stays there in the scope) and ``finish()`` (wait for the device at the end of a run);
- ``bind_kernel(kernel, place)``: the kernel as it runs on that device;
- ``collectives``: ``all_reduce(arrays, devices, targets)`` and ``broadcast(array, root, targets)``,
  summing in device order so every run gives the same bits;
- ``places_for(places)``: the devices of data parallelism as this kind numbers them;
- ``selected_rows.densify({"X": sr}, attrs)``: a row-sparse value (pe_cli/base/selected_rows.py) as the
  dense array of this device, for an op without the ``selected_rows`` trait;
- ``prepare_run(num_devices)``: called before each run, in the thread running it (the CPU sizes its
  threads per device and flushes denormals: cpu/denormals.py); returns a state for ``end_run``;
- ``run_threads(num_devices)``: called after ``prepare_run``: how many threads a run of that many
  devices takes turns on (the CPU: fewer while other processes keep cores busy);
- ``end_run(state)``: called after each run (error or not), in that thread (the CPU restores its
  floating-point mode);
- ``worker_started()``: called by each worker thread of an executor's pool when it starts;
- ``spin_until_changed(counter, index, seen, mark=None)`` (CPU): a thread's short spin, without the GIL, before it
  sleeps waiting for another (a planned data-parallel step's hand-overs: cpu/runtime/spin.py);
- ``SHARED_THREADS``: True where kernels are CPU work under the GIL (the scheduler's token run),
  False where they are asynchronous launches (one task per device);
- ``SHARED_MEMORY``: True where every device reads the same memory (CPU devices), so one array
  serves them all: the multi-device graph then updates each parameter once (compiler/ssa_graph.py);
- ``require(place)``: a one-line PeError where the device cannot run here.
"""

import importlib
import os
import sys

from ..base.errors import PeError
from ..base.places import CUDAPlace


def kernel_of(device, module_name, name):
    """The kernel ``name`` of kernels/<device>/<module_name>.py, None where it has none. A device module
    runs some ops' CPU kernels on the host: it names them in ``HOST_OPS``, op name -> ``wrap`` (such as
    cuda/_host.py's ``on_host``), and their kernel there is ``wrap`` of the CPU kernel of the same module
    and name. So a device package never imports the CPU kernels it runs: they meet here, above both."""
    module = importlib.import_module(f"{__name__}.{device}.{module_name}")
    wrap = getattr(module, "HOST_OPS", {}).get(name)
    if wrap is not None:
        cpu_kernel = kernel_of("cpu", module_name, name)
        return None if cpu_kernel is None else wrap(cpu_kernel)
    return getattr(module, name, None)


def runtime(place):
    """The runtime module of ``place``'s device kind, imported on first use (CUDA lazily: numba.cuda
    is slow to import and absent from many installs)."""
    try:
        return importlib.import_module(f"{__name__}.{place.kind}.runtime")
    except ImportError as e:
        raise PeError(f"{place!r} is not available in this build ({e}); use fluid.CPUPlace()") from None


def finish_compiling():
    """Waits for the loops being compiled in the background (the CPU's parallel twins, which a first
    run does not wait for) to be compiled and in numba's cache: a set-up step such as ``pe smoke``
    calls it so that later runs start with them."""
    module = sys.modules.get(f"{__name__}.cpu.runtime.loops")
    if module is not None:
        module.finish_pending()


def cuda_places(device_ids=None):
    """``CUDAPlace`` for each GPU this process may use: those CUDA_VISIBLE_DEVICES lists, else every
    GPU the CUDA runtime finds."""
    if device_ids is None:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        if visible is None:
            device_ids = list(range(runtime(CUDAPlace(0)).device_count()))
        else:
            device_ids = list(range(len([d for d in visible.split(",") if d.strip() != ""])))
    return [CUDAPlace(i) for i in device_ids]


def is_compiled_with_cuda():
    """True when this install can run CUDA kernels (a GPU, or numba's simulator)."""
    try:
        return runtime(CUDAPlace(0)).available()
    except Exception:
        return False
