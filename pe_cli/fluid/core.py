"""``fluid.core``: the names Fluid scripts reach for in its C++ core module."""
from ..compiler import fused_all_reduce
from ..executor.scope import Scope  # noqa: F401
from ..base.dtypes import VarType
from ..base.errors import EOFException  # noqa: F401
from ..framework.lod_tensor import LoDTensor, LoDTensorArray  # noqa: F401
from ..framework.operator import AttrType, OpRole  # noqa: F401
from ..ops import registry
from . import flags
from .grad_op_desc import get_grad_op_desc  # noqa: F401
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_device_count  # noqa: F401


class VarDesc:
    class VarType(VarType):
        RAW = "raw"


class op_proto_and_checker_maker:  # noqa: N801 -- Fluid's name
    """Fluid's attribute names for an op's role (``kOpRoleAttrName()``) and its roles."""
    OpRole = OpRole

    @staticmethod
    def kOpRoleAttrName():  # noqa: N802
        return "op_role"

    @staticmethod
    def kOpRoleVarAttrName():  # noqa: N802
        return "op_role_var"

    @staticmethod
    def kOpNameScopeAttrName():  # noqa: N802
        return "op_namescope"

    @staticmethod
    def kOpCreationCallstackAttrName():  # noqa: N802
        return "op_callstack"


class Place:
    """``core.Place()``: a holder of a place, ``set_place(CPUPlace() or CUDAPlace(i))``."""

    def __init__(self):
        self.place = CPUPlace()

    def set_place(self, place):
        self.place = place.place if isinstance(place, Place) else place


def has_infer_inplace(op_type):
    """True when the registry says an output of ``op_type`` may be written over an input (its ``inplace``)."""
    return bool(registry.get(op_type).inplace)


def has_grad_op_maker(op_type):
    """True when ``op_type`` has a gradient maker in the registry."""
    return registry.get(op_type).grad is not None


def op_support_gpu(op_type):
    """True when ``op_type`` has a CUDA kernel in pe (checked on this machine's CUDA, if any)."""
    try:
        registry.get(op_type).kernel("cuda")
    except Exception:   # noqa: BLE001 -- no CUDA runtime here, or no kernel for the op
        return False
    return True


def is_float16_supported(place):
    """pe's kernels compute float16 on no device."""
    return False


class _Flags:
    """``core.globals()``: the FLAGS_ values by name, read and set through fluid.get_flags/set_flags."""

    def __getitem__(self, name):
        return flags.get_flags(name)[name]

    def __setitem__(self, name, value):
        flags.set_flags({name: value})

    def __contains__(self, name):
        return name in flags.known_flags()

    def keys(self):
        return flags.known_flags()


def globals():  # noqa: A001 -- Fluid's core.globals()
    return _Flags()


def _get_all_register_op_kernels():
    """{op type: [its kernel keys]}: every op type of the registry, gradients included, with a CPU
    kernel key (and a CUDA one where it has a CUDA kernel), in Fluid's spelling."""
    key = "{{data_type[float]; data_layout[Undef(AnyLayout)]; place[{}]; library_type[PLAIN]}}"
    return {t: [key.format("CPUPlace")] + ([key.format("CUDAPlace(0)")] if op_support_gpu(t) else [])
            for t in registry.all_op_types()}
