"""The CUDA runtime of pe: is there a GPU, which devices, one stream and one caching allocator per
device, moving arrays between the host and the devices, and running a kernel on its device.

On the CUDA path the values an executor holds are numba device arrays. Kernels allocate their
outputs with ``empty()`` from the current device's pool; a buffer goes back to the pool when the
last array viewing it dies, so a warm training loop allocates nothing. Every launch and copy goes
through the device's one stream: a reused buffer is never written before earlier readers are done.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) all of this runs on the CPU: that is how
CI tests the kernels. The simulator is not thread-safe, so there kernels run one at a time.
"""

import os
import importlib
import threading

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from .. import cuda_places
from ..context import wraps
from . import _simulator
from .allocator import Pool
from .peer_access import peer_ok

_cuda = None
_sim = None
_unavailable_reason = False  # False: not checked yet; None: available; str: why not
_devices = {}
_devices_lock = threading.Lock()
_local = threading.local()
_sim_lock = threading.RLock()


def _numba_cuda():
    global _cuda, _sim
    if _cuda is None:
        from numba import cuda
        from numba.cuda.core import config

        _sim = bool(config.ENABLE_CUDASIM)
        if _sim:
            _simulator.install()
        _cuda = cuda
    return _cuda


def simulated():
    """True when kernels run on numba's CUDA simulator (on the CPU)."""
    _numba_cuda()
    return _sim


# -- availability -----------------------------------------------------------------------------


def unavailable_reason():
    """None when CUDA can be used here, else a short reason (one line)."""
    global _unavailable_reason
    if _unavailable_reason is False:
        _unavailable_reason = _check()
    return _unavailable_reason


def _check():
    try:
        cuda = _numba_cuda()
    except ImportError as e:
        return f"numba.cuda cannot be imported: {_first_line(e)[:120]}; install pe with the [cuda] extra"
    except Exception as e:  # a broken install: say what it was
        return f"numba.cuda failed to load: {type(e).__name__}: {_first_line(e)}"
    if _sim:
        return None
    try:
        if cuda.is_available() and len(cuda.gpus) > 0:
            return None
    except Exception as e:
        return _first_line(e) or type(e).__name__
    error = getattr(cuda, "cuda_error", lambda: None)()
    reason = _first_line(error) if error else "no CUDA GPU was found"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and not visible.strip():
        reason += " (CUDA_VISIBLE_DEVICES is empty)"
    return reason


def _first_line(text):
    for line in str(text).splitlines():
        line = line.strip().rstrip(":.")
        if line:
            return line
    return ""


def available():
    return unavailable_reason() is None


def device_count():
    """GPUs this process may use (those CUDA_VISIBLE_DEVICES lists, default 1 under the simulator)."""
    if not available():
        return 0
    if _sim:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        return 1 if visible is None else len([d for d in visible.split(",") if d.strip()])
    return len(_cuda.gpus)


def require(place=None):
    """Raises a one-line PeError when ``place`` cannot run here."""
    reason = unavailable_reason()
    if reason is not None:
        raise PeError(f"CUDA is not available here ({reason}): use place: cpu / CPUPlace()")
    device_id = getattr(place, "device_id", 0) or 0
    n = device_count()
    if device_id >= n:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        shown = f" (CUDA_VISIBLE_DEVICES={visible})" if visible is not None else ""
        raise PeError(
            f"CUDAPlace({device_id}) does not exist: {n} GPU(s) are visible{shown}; "
            f"use CUDAPlace(0..{n - 1}) or place: cpu"
        )


# -- devices ----------------------------------------------------------------------------------


class Device:
    """One GPU: its stream and its buffer pool. ``with device:`` makes it current in this thread."""

    def __init__(self, device_id):
        cuda = _numba_cuda()
        self.id = device_id
        self.pool = Pool(self, cuda, _sim)
        self.capture = None  # the step recording capturing this device's launches (step_graph.py)
        if _sim:
            self.stream = cuda.stream()
        else:
            with cuda.gpus[device_id]:
                self.stream = cuda.stream()
                self.context = cuda.current_context()

    def __enter__(self):
        # Always made current on the real driver: numba-cuda >= 0.20 leaves no context current in a
        # thread after ``with cuda.gpus[i]`` exits (CUDA_ERROR_INVALID_CONTEXT on the next allocation).
        push = not _sim
        if push:
            _cuda.gpus[self.id].__enter__()
        _local.__dict__.setdefault("stack", []).append((self, push))
        return self

    def __exit__(self, *exc):
        _, push = _local.stack.pop()
        if push:
            _cuda.gpus[self.id].__exit__(*exc)

    def synchronize(self):
        if self.capture is not None:
            self.capture.refuse("a wait for the device")
        self.stream.synchronize()

    def __repr__(self):
        return f"<pe CUDA device {self.id}{' (simulated)' if _sim else ''}>"


def device(device_id=0):
    """The Device object for a device id (or a CUDAPlace), created on first use."""
    device_id = getattr(device_id, "device_id", device_id) or 0
    dev = _devices.get(device_id)
    if dev is None:
        with _devices_lock:
            dev = _devices.get(device_id)
            if dev is None:
                require(_IdPlace(device_id))
                dev = _devices[device_id] = Device(device_id)
    return dev


class _IdPlace:
    def __init__(self, device_id):
        self.device_id = device_id


def current():
    """The device kernels run on in this thread (device 0 outside any ``with device:``)."""
    stack = getattr(_local, "stack", None)
    return stack[-1][0] if stack else device(0)


def stream():
    return current().stream


def empty(shape, dtype):
    """An uninitialized array on the current device, from its pool."""
    return current().pool.empty(shape, dtype)


def empty_like(array):
    return current().pool.empty(array.shape, array.dtype)


# -- moving data ------------------------------------------------------------------------------


def is_device_array(array):
    return hasattr(array, "copy_to_host")


def to_device(array, dtype=None):
    """A host array (or scalar) copied to the current device; a device array is returned as is."""
    if is_device_array(array):
        return array
    host = np.ascontiguousarray(array, dtype=dtype).reshape(np.shape(array))  # (0-D stays 0-D: ascontiguousarray
    dev = current()  # makes it 1-D)
    if dev.capture is not None:
        dev.capture.refuse("a host-to-device copy")
    out = dev.pool.empty(host.shape, host.dtype)
    if host.size:
        out.copy_to_device(host, stream=dev.stream)
    return out


def to_host(array):
    """A device array copied to a new numpy array (after its stream's queued work); a host array as is."""
    if not is_device_array(array):
        return array
    if array.size == 0:
        return np.empty(array.shape, array.dtype)
    if current().capture is not None:
        current().capture.refuse("a read on the host")
    stream = getattr(array, "stream", 0)
    host = array.copy_to_host(stream=stream)
    if stream:
        stream.synchronize()
    return host


def copy_to(array, dst_device):
    """A device array copied to another device: a peer copy where the devices can reach each
    other, else staged through the host. Used by the multi-device all-reduce and broadcast."""
    dst = device(dst_device)
    src = _device_of(array)
    if current().capture is not None:
        current().capture.refuse("a copy between devices")
    with dst:
        out = empty(array.shape, array.dtype)
        if array.size == 0:
            return out
        if src is dst or _sim:
            out.copy_to_device(array, stream=dst.stream)
            return out
    src.synchronize()
    with dst:
        if peer_ok(src, dst):
            # Unified addressing: a device-to-device copy between two GPUs is a peer copy.
            out.copy_to_device(array, stream=dst.stream)
        else:
            out.copy_to_device(to_host(array), stream=dst.stream)
        dst.synchronize()
    return out


def _device_of(array):
    if _sim:
        return current()
    ctx = getattr(getattr(array, "gpu_data", None), "context", None)
    dev_id = getattr(getattr(ctx, "device", None), "id", None)
    return device(dev_id) if dev_id is not None else current()


# -- what executors use: the interface every device kind's runtime offers (kernels/__init__.py) --
SHARED_THREADS = False  # kernels are asynchronous launches: one task per device
SHARED_MEMORY = False  # each GPU holds its own copy of a value
PLANNED_STEPS = False  # its steps run as step graphs (step_graph.py), not planned CPU segments


def default_places():
    """The devices of data parallelism: every visible GPU."""
    require()
    places = cuda_places()
    if not places:
        raise PeError("use_cuda=True but no GPU is visible (CUDA_VISIBLE_DEVICES); use use_cuda=False")
    return places


def places_for(places):
    return list(places)


def prepare_run(num_devices):
    return None


def run_threads(num_devices):
    return num_devices


def end_run(state):
    pass


def worker_started():
    pass


def __getattr__(name):
    # ``collectives`` and ``selected_rows`` compile CUDA kernels when imported: loaded on first use.
    if name in ("collectives", "selected_rows", "step_graph"):  # (step_graph: whole-step recordings)
        return importlib.import_module(f"{__package__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class PlaceMemory:
    """An executor's adapter for one CUDA place: feeds go in, fetches come out, values written to
    the scope stay on the device."""

    keeps_parameters = True

    def __init__(self, place):
        require(place)
        self.place = place
        self.device = device(place)

    def to_device(self, array):
        if isinstance(array, SelectedRows):  # rows stay on the host; values go to the device
            return array.with_arrays(array.rows, self.to_device(array.values))
        if is_device_array(array):
            if not _sim and _device_of(array) is not self.device:
                return copy_to(array, self.device.id)
            return array
        with self.device:
            return to_device(array)

    def to_host(self, array):
        return to_host(array)

    is_device_array = staticmethod(is_device_array)

    def finish(self):
        """Waits for the device; raises the pending CUDA error, if any, in one line."""
        try:
            self.device.synchronize()
        except Exception as e:
            raise PeError(
                f"a CUDA kernel failed on {self.place}: {_first_line(e)} "
                f"(set PE_CUDA_SYNC=1 to find the op that launched it)"
            ) from e


def memory(place):
    return PlaceMemory(place)


_sync_each_op = os.environ.get("PE_CUDA_SYNC") == "1"


def _on_device(ins):
    """The op's inputs with any host array copied to the current device. Values made on the host
    (a tensor array the control-flow ops stacked, a zero gradient the backward pass filled in) reach
    kernels as numpy arrays, which a real driver refuses on a non-default stream."""
    moved = None
    for name, value in ins.items():
        if type(value) is np.ndarray:
            moved = moved or dict(ins)
            moved[name] = to_device(value)
        elif type(value) is list and any(type(v) is np.ndarray for v in value):
            moved = moved or dict(ins)
            moved[name] = [to_device(v) if type(v) is np.ndarray else v for v in value]
    return ins if moved is None else moved


def bind_kernel(kernel, place):
    """The kernel run on ``place``'s device (its pool and stream). With PE_CUDA_SYNC=1 each op waits
    for its kernels, so a failing launch is reported by the op that made it."""
    dev = device(getattr(place, "device_id", 0))
    if _sim:

        def run(ins, attrs, *ctx):
            with _sim_lock, dev:
                return kernel(_on_device(ins), attrs, *ctx)
    elif _sync_each_op:

        def run(ins, attrs, *ctx):
            with dev:
                outs = kernel(_on_device(ins), attrs, *ctx)
                dev.synchronize()
                return outs
    else:

        def run(ins, attrs, *ctx):
            with dev:
                return kernel(_on_device(ins), attrs, *ctx)

    run.__wrapped__ = kernel
    return wraps(kernel, run)
