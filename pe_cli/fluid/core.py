"""``fluid.core``: the names Fluid scripts reach for in its C++ core module."""
from ..compiler import fused_all_reduce
from ..executor.scope import Scope  # noqa: F401
from ..base.dtypes import VarType
from ..base.errors import EnforceNotMet, EOFException  # noqa: F401
from ..framework.lod_tensor import LoDTensor, LoDTensorArray  # noqa: F401
from ..framework.operator import AttrType  # noqa: F401
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from .flags import FlagsView, set_eager_deletion_mode as _set_eager_deletion_mode  # noqa: F401
from .inference_api import (AnalysisConfig, NativeConfig, PaddleBuf, PaddleDType, PaddleTensor,  # noqa: F401
                            create_paddle_predictor)
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_device_count  # noqa: F401


class VarDesc:
    VarType = VarType


def set_feed_variable(scope, tensor, var_name, index):
    """Puts ``tensor`` at ``index`` of the feed holder ``var_name`` of ``scope`` (Fluid's core call)."""
    holder = scope.var(var_name).get_fetch_list()
    holder.extend([None] * (index + 1 - len(holder)))
    holder[index] = tensor


def get_fetch_variable(scope, var_name, index):
    """The LoDTensor at ``index`` of the fetch holder ``var_name`` of ``scope``."""
    var = scope.find_var(var_name)
    holder = var.get_fetch_list() if var is not None else []
    if index >= len(holder):
        raise IndexError(f"get_fetch_variable: '{var_name}' holds {len(holder)} tensor(s), no index {index}")
    return holder[index]


def get_cuda_device_count():
    """The number of CUDA devices pe can use (0 without CUDA)."""
    return len(cuda_places()) if is_compiled_with_cuda() else 0


def _set_fuse_parameter_group_size(size):
    """Fluid's FLAGS_fuse_parameter_groups_size: with fuse_all_reduce_ops, at most ``size`` gradients
    are summed by one fused all-reduce (below 1: no such limit). Graphs built later use it."""
    fused_all_reduce.set_group_size(size)


def _set_fuse_parameter_memory_size(megabytes):
    """Fluid's FLAGS_fuse_parameter_memory_size: at most ``megabytes`` MB of gradients in one fused
    all-reduce (0 or less: pe's 32 MiB buckets). Graphs built later use it."""
    fused_all_reduce.set_memory_size(megabytes)


def __unittest_throw_exception__():
    """Fluid's hook for testing that its core's errors reach Python as EnforceNotMet."""
    raise EnforceNotMet("test exception")


def globals():   # noqa: A001 -- Fluid's name
    """Fluid's flags as a mapping: ``core.globals()['FLAGS_check_nan_inf'] = True``."""
    return FlagsView()
