"""``fluid.core``: the names Fluid scripts reach for in its C++ core module."""
from ..executor.scope import Scope  # noqa: F401
from ..framework.dtypes import VarType
from ..framework.lod_tensor import LoDTensor  # noqa: F401
from ..places import CPUPlace, CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda  # noqa: F401


class VarDesc:
    VarType = VarType
