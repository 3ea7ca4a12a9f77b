"""Whole-step CUDA graphs: a step's kernel launches recorded once and replayed.

A ``Recording`` is made by the executor (executor/graphed.py) for one signature of one plan: the
step's ``Segment``s, captured one after another, and between them the ops the executor runs on
every replay. While a segment captures, the device it runs on points at it (``Device.capture``):

- every kernel launch goes through pe's launcher (``launcher.Kernel.launch``), which hands it to
  the segment: under numba's simulator the launch is recorded (kernel, configuration, argument
  objects) and not run; on a GPU it is captured by stream capture on pe's stream (cuda.core's
  ``GraphBuilder`` in "global" mode: a CUDA call that is illegal during capture fails loudly) and
  its arguments are kept alive as long as the graph;
- allocations come from the recording's own pool (a private ``Pool``): no buffer the recorded
  launches use is ever handed to anything outside the recording, and a replay allocates nothing;
- a host read or wait (``to_host``, ``synchronize``), a host-to-device copy and a copy between
  devices refuse the capture (``refuse``: a ``CaptureUnsupported`` error): the op that did it must
  run outside the segments.

Nothing runs while a segment captures, on the GPU or the simulator: a refused capture leaves every
buffer as it was. ``Segment.run`` runs it (the first time right after its capture).
"""

import os

from ...base.errors import PeError
from . import runtime as rt
from .allocator import Pool

_enabled = os.environ.get("PE_CUDA_GRAPHS") == "1"


def enabled(asked=False):
    """True when steps on a CUDA place are recorded and replayed (PE_CUDA_GRAPHS=1, ``enable``, or
    ``asked``: a BuildStrategy's allow_cuda_graph_capture), unless PE_CUDA_SYNC=1 makes every op
    wait for the device."""
    return (_enabled or asked) and not rt._sync_each_op


def enable(on=True):
    """Turns step graphs on or off for executors made from now on (the tests' switch)."""
    global _enabled
    _enabled = bool(on)


class CaptureUnsupported(PeError):
    """A step did something a recording cannot replay (a host read or wait, a host copy)."""


class Recording:
    """One step on one device: its ``parts`` in order (captured ``Segment``s, and between them the
    executor's ops that run on every replay), its private pool, and what the executor needs to
    replay it: ``feeds`` (name -> feed buffer), ``reads`` (name -> the array the scope held),
    ``state`` (name -> (array, LoD) the scope holds after a step), ``outputs`` and ``lods`` (the
    step's values for the fetches)."""

    def __init__(self, device):
        self.device = device
        self.pool = _CapturePool(device, rt._numba_cuda(), rt.simulated())
        self.parts = []
        self.replays = 0
        self.feeds, self.reads, self.read_lods, self.state, self.outputs, self.lods = {}, {}, {}, {}, {}, {}
        self.kept = set()  # the reads that are persistable (the scope keeps their buffers)
        self.eager = frozenset()  # the executor's indices of the ops run between segments

    def segment(self):
        """A new segment of this step, to capture (``with segment:``) and then ``run``."""
        return Segment(self)

    def copy_in(self, values):
        """Copies ``values`` (name -> a host or device array of the recorded shape) into the feed
        buffers and the buffers read from the scope, on the device's stream."""
        dev = self.device
        with dev:
            for name, value in values.items():
                if value.size:
                    buffer = self.feeds.get(name)
                    (self.reads[name] if buffer is None else buffer).copy_to_device(value, stream=dev.stream)

    def copy_into(self, buffer, value):
        """Copies ``value`` (a device array an op run between segments made) into the recorded
        ``buffer`` the later segments read; False where it does not fit there."""
        if (
            not (rt.is_device_array(value) and rt.is_device_array(buffer))
            or value.shape != buffer.shape
            or value.dtype != buffer.dtype
        ):
            return False
        if value.size:
            with self.device:
                try:
                    buffer.copy_to_device(value, stream=self.device.stream)
                except ValueError:  # (a view that is not contiguous)
                    return False
        return True


class Segment:
    """Consecutive launches of a step, captured once and run on the device's stream."""

    def __init__(self, recording):
        self.recording, self.device = recording, recording.device
        self.ops = []  # simulator: (kernel, config, args) or (None, dst, src) for a copy
        self.held = []  # GPU: what the captured launches point at, kept alive
        self.graph = None
        self.refused = None  # why the capture was refused
        self.unstartable = False  # True where stream capture cannot start at all
        self._saved_pool = self._builder = self._stream = None

    # -- capturing ------------------------------------------------------------------------------

    def __enter__(self):
        dev = self.device
        if dev.capture is not None:
            raise PeError(f"{dev} is already capturing a step")
        self._saved_pool, dev.pool, dev.capture = dev.pool, self.recording.pool, self
        if not rt.simulated():
            try:
                with dev:
                    self._begin_stream_capture()
            except Exception as e:  # (a cuda.core without graph builders, a driver refusing)
                dev.pool, dev.capture = self._saved_pool, None
                self.unstartable = True
                self.refuse(f"stream capture (it cannot start here: {type(e).__name__}: {e})")
        return self

    def __exit__(self, kind, error, tb):
        dev = self.device
        dev.pool, dev.capture = self._saved_pool, None
        failed = kind is not None or self.refused is not None
        if not rt.simulated():
            with dev:
                self._end_stream_capture(failed)
        if failed:
            self.ops, self.held = [], []
        return False

    def refuse(self, what):
        """Called where the step does ``what`` during the capture: it cannot be recorded."""
        if self.refused is None:
            self.refused = what
        raise CaptureUnsupported(f"{what} cannot be captured in a CUDA graph")

    def launch(self, kernel, config, args):
        """A launch during the capture: True when it is recorded instead of run (the simulator);
        False when the caller launches it now (stream capture records it; its arguments are kept)."""
        if rt.simulated():
            self.ops.append((kernel, config, args))
            return True
        self.held.append(args)
        return False

    def copy(self, dst, src):
        """A device-to-device copy of ``src`` into ``dst`` (same size), recorded in the step."""
        if rt.simulated():
            self.ops.append((None, dst, src))
        else:
            self.held.append((dst, src))
            dst.copy_to_device(src, stream=self.device.stream)

    # -- running --------------------------------------------------------------------------------

    def run(self):
        """Runs the captured launches on the device's stream (the simulator: in order, here)."""
        dev = self.device
        with dev:
            if not rt.simulated():
                if self.graph is not None:  # (None: a segment that captured nothing)
                    self.graph.launch(self._stream)
                return
            with rt._sim_lock:
                for kernel, config, args in self.ops:
                    if kernel is None:
                        config.copy_to_device(args, stream=dev.stream)
                    else:
                        kernel[config](*args)

    # -- the real driver (never runs under the simulator) ---------------------------------------

    def _begin_stream_capture(self):
        from numba.cuda.cudadrv import driver

        self._stream = driver._to_core_stream(self.device.stream)
        self._builder = self._stream.create_graph_builder()
        self._builder.begin_building("global")

    def _end_stream_capture(self, failed):
        builder, self._builder = self._builder, None
        try:
            builder.end_building()  # (raises where an illegal call invalidated the capture)
            if not failed and self.held:
                self.graph = builder.complete()
                self.graph.upload(self._stream)
        except Exception:
            if not failed:
                raise
        finally:
            try:
                builder.close()  # (ends a capture left invalidated)
            except Exception:
                if not failed:
                    raise


def device_copy(dst, src):
    """``dst`` (a device array) overwritten with ``src`` (a device array of the same size) on the
    current device's stream: recorded when a step is being captured."""
    dev = rt.current()
    if dev.capture is not None:
        if not rt.is_device_array(src):
            dev.capture.refuse("a host-to-device copy")
        dev.capture.copy(dst, src)
    else:
        dst.copy_to_device(src, stream=dev.stream)


class _CapturePool(Pool):
    """A recording's private pool. On a GPU a device allocation during stream capture is made
    with the thread's capture mode relaxed (cuMemAlloc is not a stream operation)."""

    def _allocate(self, nbytes):
        if self._sim or self.device.capture is None:
            return super()._allocate(nbytes)
        from cuda.bindings import driver as cu

        relaxed = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        _, mode = cu.cuThreadExchangeStreamCaptureMode(relaxed)
        try:
            return super()._allocate(nbytes)
        finally:
            cu.cuThreadExchangeStreamCaptureMode(mode)


def recording(device):
    """A new recording on ``device`` (a runtime Device)."""
    return Recording(device)
