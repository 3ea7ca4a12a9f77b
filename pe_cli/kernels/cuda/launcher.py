"""Kernel launches without numba-cuda's per-call work.

``kernel[grid, block, stream](*args)`` through numba-cuda types every argument, selects the overload,
wraps each device array in a memory view and converts every value, on every call: 30 us for an
empty kernel of one array argument and about 100 us for one of three arrays and three tuples on an
H200's host (benchmarks/gpu_launch.py), most of a small op's time. pe's kernels are launched again
and again with the same argument types, so this module does that work once per kernel, argument
signature and device, and then passes the values straight to the driver's launch.

``@jit_kernel`` replaces ``@cuda.jit`` on pe's kernels (device functions keep ``cuda.jit(device=True)``).
The first launch of each signature goes through numba (which compiles it); later ones take the
short path. Anything the short path does not know (an argument type numba marshals specially,
a launch-configuration-sensitive kernel, numba's default stream, a numba-cuda without cuda.core
launches) takes numba's path every time, so behaviour never differs, only speed.
``PE_CUDA_LAUNCH=numba`` turns the short path off (benchmarks compare the two). Under the
simulator (CI) every launch takes numba's path.

While a step is being recorded (step_graph.py) each launch is handed to the recording first: under
the simulator it records the launch instead of running it; on a GPU the launch goes on and stream
capture records it.
"""

import ctypes
import os

import numpy as np
from numba import cuda

from . import runtime as rt

_enabled = os.environ.get("PE_CUDA_LAUNCH", "pe") != "numba"
_SIM = rt.simulated()


def jit_kernel(fn):
    """``@cuda.jit`` for a kernel, launched through the short path on a real GPU."""
    return Kernel(cuda.jit(fn))


class Kernel:
    """A numba CUDA dispatcher whose launches skip numba's per-call typing and marshalling once a
    signature has been compiled. Everything else is the dispatcher's."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.launches = {}  # (device id, signature key) -> _Launch, or None: numba's path

    def __getitem__(self, config):
        return _Configured(self, config)

    def __getattr__(self, name):
        return getattr(self.dispatcher, name)

    def launch(self, config, args):
        dev = rt.current()
        if dev.capture is not None and dev.capture.launch(self.dispatcher, config, args):
            return  # recorded (the simulator's step recording)
        if _SIM:
            self.dispatcher[config](*args)
            return
        key = _signature(args)
        entry = None
        if key is not None and _enabled:
            entry = self.launches.get((dev.id, key), False)
            if entry is False:  # first launch of this signature here: numba's path
                self.dispatcher[config](*args)
                self.launches[(dev.id, key)] = _Launch.build(self.dispatcher, args)
                return
        if (
            entry is None
            or len(config) < 3
            or isinstance(config[2], int)
            or type(config[0]) is list
            or type(config[1]) is list
        ):
            self.dispatcher[config](*args)
            return
        entry(config, args)


class _Configured:
    __slots__ = ("kernel", "config")

    def __init__(self, kernel, config):
        self.kernel, self.config = kernel, config

    def __call__(self, *args):
        self.kernel.launch(self.config, args)


# -- argument signatures ----------------------------------------------------------------------------

_SCALARS = {bool: "b", int: "i", float: "f"}


def _signature(args):
    """A key that fixes numba's type of every argument (None where this module cannot tell)."""
    key = []
    for a in args:
        k = _arg_key(a)
        if k is None:
            return None
        key.append(k)
    return tuple(key)


def _arg_key(a):
    t = type(a)
    k = _SCALARS.get(t)
    if k is not None:
        return k
    if hasattr(a, "gpu_data"):  # a numba device array
        return ("a", a.dtype, a.ndim, _layout(a))
    if t is tuple:
        keys = tuple(_arg_key(v) for v in a)
        return None if None in keys else ("t",) + keys
    if isinstance(a, np.generic):
        return ("s", a.dtype)
    return None


def _layout(a):
    """numba's layout letter for a device array (DeviceNDArrayBase._numba_type_)."""
    if 0 in a.strides and a.size != 0:
        return "A"
    flags = a._dummy.flags
    return "C" if flags["C_CONTIGUOUS"] else "F" if flags["F_CONTIGUOUS"] else "A"


# -- the short path ---------------------------------------------------------------------------------


def _core_launch():
    """cuda.core's launch and LaunchConfig as numba-cuda uses them, or None (older numba-cuda)."""
    try:
        from numba.cuda import dispatcher as nd, types
        from numba.cuda.cudadrv import driver

        return nd.launch, nd.LaunchConfig, getattr(nd, "CUDA_CORE_GE_1_0", True), driver._to_core_stream, types
    except (ImportError, AttributeError):
        return None


_CORE = _core_launch() if not _SIM else None
_streams = {}  # id(numba stream) -> (numba stream, cuda.core stream)
_configs = {}  # (grid, block, shared memory) -> cuda.core LaunchConfig


def _array(a, out):
    out.append(0)  # meminfo
    out.append(0)  # parent
    out.append(a.size)
    out.append(a.dtype.itemsize)
    out.append(a.device_ctypes_pointer.value or 0)
    out.extend(a.shape)
    out.extend(a.strides)


def _marshaller(ty):
    """A function appending what numba's _Kernel._prepare_args appends for a value of numba type
    ``ty``, or None where that is not one of the plain cases."""
    types = _CORE[4]
    if isinstance(ty, types.Array):
        return _array
    if isinstance(ty, types.Boolean):
        return lambda v, out: out.append(v)
    if isinstance(ty, types.Integer):
        ctype = getattr(ctypes, f"c_{ty}")
        return lambda v, out: out.append(ctype(v))
    if ty == types.float64:
        return lambda v, out: out.append(ctypes.c_double(v))
    if ty == types.float32:
        return lambda v, out: out.append(ctypes.c_float(v))
    if isinstance(ty, types.BaseTuple):
        parts = [_marshaller(t) for t in ty]
        if any(p is None for p in parts):
            return None

        def tuple_(v, out):
            for part, x in zip(parts, v):
                part(x, out)

        return tuple_
    return None


class _Launch:
    """One compiled overload on one device, with its arguments' marshallers."""

    def __init__(self, cufunc, parts, cooperative):
        self.kernel, self.parts, self.cooperative = cufunc.kernel, parts, cooperative

    @classmethod
    def build(cls, dispatcher, args):
        """The short path for ``args``'s signature, or None where numba's path must be kept."""
        if (
            _CORE is None
            or dispatcher.specialized
            or getattr(dispatcher, "_launch_config_sensitive", False)
            or dispatcher.targetoptions.get("extensions")
            or dispatcher.targetoptions.get("debug")
        ):
            return None
        argtypes = tuple(dispatcher.typeof_pyval(a) for a in args)
        compiled = dispatcher.overloads.get(argtypes)
        if compiled is None or getattr(compiled, "debug", False) or getattr(compiled, "launch_config_sensitive", False):
            return None
        parts = [_marshaller(t) for t in compiled.argument_types]
        if len(parts) != len(args) or any(p is None for p in parts):
            return None
        return cls(compiled._codelibrary.get_cufunc(), parts, getattr(compiled, "cooperative", False))

    def __call__(self, config, args):
        launch, LaunchConfig, core_ge_1, to_core_stream, _ = _CORE
        grid, block, stream = config[0], config[1], config[2]
        shared = config[3] if len(config) > 3 else 0
        held = _streams.get(id(stream))
        if held is None or held[0] is not stream:
            held = _streams[id(stream)] = (stream, to_core_stream(stream))
        ckey = (grid, block, shared, self.cooperative)
        launch_config = _configs.get(ckey)
        if launch_config is None:
            coop = {"is_cooperative" if core_ge_1 else "cooperative_launch": self.cooperative}
            launch_config = _configs[ckey] = LaunchConfig(grid=grid, block=block, shmem_size=shared, **coop)
        values = []
        for part, value in zip(self.parts, args):
            part(value, values)
        launch(held[1], launch_config, self.kernel, *values)
