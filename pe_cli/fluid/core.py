"""``fluid.core``: the names Fluid scripts reach for in its C++ core module."""
from ..executor.scope import Scope  # noqa: F401
from ..dtypes import VarType
from ..framework.lod_tensor import LoDTensor  # noqa: F401
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from ..places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_device_count  # noqa: F401


class VarDesc:
    VarType = VarType


def get_cuda_device_count():
    """The number of CUDA devices pe can use (0 without CUDA)."""
    return len(cuda_places()) if is_compiled_with_cuda() else 0
