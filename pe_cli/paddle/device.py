"""Paddle 2.x's top-level names about devices, dtypes, seeds and dygraph (seed 002): the real ones
pe can honour (places, ``seed``, the default dtype, ``get_device``/``set_device``, what pe was built
with), Fluid's names the 2.x index re-exports, and one-line stand-ins for what cannot work in pe
(dygraph) or is not in it yet. tests/paddle/test_tensor.py keeps every name of the index classified."""

import numpy as np

from .. import fluid as _fluid
from ..base.dtypes import convert_dtype
from ..base.errors import PeError, unsupported
from ..framework import default_generator
from ..kernels import is_compiled_with_cuda
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace  # noqa: F401 (CUDAPinnedPlace: exported)
from .param_attr import ParamAttr  # noqa: F401 (exported)

__all__ = [
    "CUDAPinnedPlace",
    "ParamAttr",
    "seed",
    "get_device",
    "set_device",
    "get_default_dtype",
    "set_default_dtype",
    "get_cudnn_version",
    "is_compiled_with_cuda",
    "is_compiled_with_xpu",
    "is_compiled_with_rocm",
    "is_compiled_with_cinn",
    "is_compiled_with_ipu",
    "is_compiled_with_custom_device",
    "create_lod_tensor",
    "create_random_int_lodtensor",
    "cuda_pinned_places",
    "data",
    "DataFeedDesc",
    "DataFeeder",
    "DistributeTranspiler",
    "DistributeTranspilerConfig",
    "get_flags",
    "dtype",
    "bool",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bfloat16",
    "complex64",
    "complex128",
    "create_parameter",
    "set_flags",
    "finfo",
    "iinfo",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "disable_signal_handler",
]

create_lod_tensor, create_random_int_lodtensor = _fluid.create_lod_tensor, _fluid.create_random_int_lodtensor
cuda_pinned_places, data, get_flags = _fluid.cuda_pinned_places, _fluid.data, _fluid.get_flags
create_parameter, set_flags = _fluid.layers.create_parameter, _fluid.set_flags
DataFeedDesc, DataFeeder = _fluid.DataFeedDesc, _fluid.DataFeeder
DistributeTranspiler, DistributeTranspilerConfig = _fluid.DistributeTranspiler, _fluid.DistributeTranspilerConfig

STATIC_ONLY = "pe runs static graphs only"
NOT_YET = "pe does not support it yet"

# Dygraph (eager) names: pe builds static graphs, so these cannot work. The second line: Paddle 2.6.2's
# functions that refuse static mode themselves ("We only support 'view()' in dynamic graph mode").
DYGRAPH = (
    "Tensor grad DataParallel Model summary flops LazyGuard tolist "
    "as_strided cauchy_ geometric_ normal_ unfold view view_as"
).split()
# Names pe does not have yet (ops it lacks): none of the index now.
MISSING = []
# Not in pe, with the reason (and what to use instead where pe has it).
OTHER = {"XPUPlace": "pe has no XPU kernels", "device_guard": "pe does not place single ops on another device"}

# Paddle 2.x's dtype names (``paddle.float32``, ...): Fluid's VarType members, which pe's dtype
# arguments take and Variable.dtype compares equal to.
dtype = _fluid.core.VarDesc.VarType
bool, float16, float32, float64 = dtype.BOOL, dtype.FP16, dtype.FP32, dtype.FP64  # noqa: A001
int8, int16, int32, int64, uint8 = dtype.INT8, dtype.INT16, dtype.INT32, dtype.INT64, dtype.UINT8
bfloat16 = dtype.BF16  # refused where it is used: pe has no bfloat16 dtype
complex64, complex128 = dtype.COMPLEX64, dtype.COMPLEX128


def finfo(dtype):
    """The limits of a float dtype pe has (numpy's finfo: bits, eps, min, max, tiny, resolution, ...)."""
    name = convert_dtype(dtype)
    if name not in ("float16", "float32", "float64"):
        raise TypeError(f"paddle.finfo: {name} is not a float dtype")
    return np.finfo(name)


def iinfo(dtype):
    """The limits of an integer dtype pe has (numpy's iinfo: bits, min, max)."""
    name = convert_dtype(dtype)
    if name not in ("int8", "int32", "int64", "uint8"):
        raise TypeError(f"paddle.iinfo: {name} is not an integer dtype")
    return np.iinfo(name)


_STATE = {"dtype": "float32", "device": None}


def seed(seed):
    """Restarts the default generator (framework/default_generator.py) at ``seed``, as Paddle 2.6's
    ``paddle.seed``: the random ops of a Paddle 2.x program with seed 0 (its initializers' among them)
    draw Paddle's values from it, and two programs built and run after ``paddle.seed(n)`` get the same
    weights. Like Paddle's, it leaves the programs' ``random_seed`` as it is, and takes an unsigned
    64-bit seed. Returns the generator."""
    seed = int(seed)
    if not 0 <= seed < 1 << 64:
        raise ValueError(
            f"paddle.seed: seed {seed} must be in [0, 2**64) (Paddle's generator takes an unsigned 64-bit seed)"
        )
    return default_generator.manual_seed(seed)


def get_default_dtype():
    """The float dtype pe's creation functions use when none is given: 'float32' unless set."""
    return _STATE["dtype"]


def set_default_dtype(d):
    """Sets the default float dtype (float32 or float64) of paddle.full, zeros, ones, rand, ..."""
    name = str(getattr(d, "__name__", d))
    if name not in ("float32", "float64"):
        raise PeError(f"paddle.set_default_dtype: {d!r} must be 'float32' or 'float64' (pe has no float16 default)")
    _STATE["dtype"] = name


def set_device(device):
    """Records the device scripts ask for ('cpu', 'gpu' or 'gpu:N') and returns its place; pe's
    executors still run on the place they are given."""
    name = str(device).lower()
    if name == "cpu":
        place = CPUPlace()
    elif name == "gpu" or name.startswith("gpu:"):
        if not is_compiled_with_cuda():
            raise PeError(f"paddle.set_device('{device}'): this machine has no CUDA device; use 'cpu'")
        place = CUDAPlace(int(name.split(":", 1)[1]) if ":" in name else 0)
    else:
        raise PeError(f"paddle.set_device('{device}'): pe knows 'cpu', 'gpu' and 'gpu:N'")
    _STATE["device"] = name if name != "gpu" else "gpu:0"
    return place


def get_device():
    """'cpu', or 'gpu:N': the one set_device chose, else gpu:0 when CUDA is there."""
    if _STATE["device"]:
        return _STATE["device"]
    return "gpu:0" if is_compiled_with_cuda() else "cpu"


def get_cudnn_version():
    """None: pe's CUDA kernels do not use cuDNN (Paddle returns None without it too)."""
    return None


def is_compiled_with_xpu():
    return False


def is_compiled_with_rocm():
    """False: pe has no ROCm kernels."""
    return False


def is_compiled_with_cinn():
    """False: pe has no CINN compiler."""
    return False


def is_compiled_with_ipu():
    """False: pe has no IPU kernels."""
    return False


def is_compiled_with_custom_device(device_type):
    """False: pe has no plug-in (custom) devices."""
    return False


def disable_signal_handler():
    """Paddle removes its C++ signal handlers (so another library's may run); pe installs none, so
    there is nothing to remove."""


class no_grad:
    """In static mode Paddle's no_grad (and enable_grad, set_grad_enabled) change nothing: a static
    graph's gradients are the ones its backward pass builds, stopped where stop_gradient is set. A
    context manager and a decorator (``@paddle.no_grad()``), as in Paddle."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapped


class enable_grad(no_grad):
    pass


class set_grad_enabled(no_grad):
    def __init__(self, mode):
        if not isinstance(mode, (True).__class__):  # (bool is the dtype name here)
            raise TypeError(f"paddle.set_grad_enabled: mode must be a bool, got {mode!r}")


def is_grad_enabled():
    """False in static mode, as Paddle's (no dygraph tracer records gradients)."""
    return False


def stand_ins():
    """name -> stand-in for every name of the index pe does not implement."""
    out = {n: unsupported(f"paddle.{n}", STATIC_ONLY) for n in DYGRAPH}
    out.update({n: unsupported(f"paddle.{n}", NOT_YET) for n in MISSING})
    out.update({n: unsupported(f"paddle.{n}", why) for n, why in OTHER.items()})
    return out
