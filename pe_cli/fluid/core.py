"""``fluid.core``: the names Fluid scripts reach for in its C++ core module."""
from ..executor.scope import Scope  # noqa: F401
from ..dtypes import VarType
from ..framework.lod_tensor import LoDTensor  # noqa: F401
from ..framework.operator import AttrType  # noqa: F401
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from ..places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_device_count  # noqa: F401


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
