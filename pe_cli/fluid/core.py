"""``fluid.core``: the names Fluid scripts reach for in its C++ core module (the rest of them in
core_classes.py, core_functions.py and core_names.py)."""

import os

import numpy as np

from ..executor.selected_rows_var import SelectedRowsVar
from ..io import tensor_files
from ..io.tensor_files import new_selected_rows
from ..compiler import fused_all_reduce
from ..compiler.passes.memory_optimize import program_frees
from ..compiler.ir_graph import Graph, Node  # noqa: F401
from ..executor.scope import Scope, ScopeVariable  # noqa: F401
from ..base.dtypes import VarType  # noqa: F401
from ..base.errors import EnforceNotMet, EOFException  # noqa: F401
from ..framework.lod_tensor import LoDTensor, LoDTensorArray  # noqa: F401
from ..framework.operator import AttrType, OpRole  # noqa: F401
from ..framework.program import Program
from ..framework.program_desc import BlockDesc, ProgramDesc as _ProgramDescView  # noqa: F401
from ..framework.op_desc import OpDesc  # noqa: F401
from ..framework.var_desc import VarDesc  # noqa: F401
from ..ops import registry
from ..ops.define import GRAD_SUFFIX
from .grad_op_desc import get_grad_op_desc  # noqa: F401
from .standalone_op import Operator  # noqa: F401 -- Operator.create(op_desc bytes), Fluid core's
from .op_proto_messages import get_all_op_protos as _op_protos
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from .flags import FlagsView, set_eager_deletion_mode as _set_eager_deletion_mode  # noqa: F401
from .inference_api import (
    AnalysisConfig,
    NativeConfig,
    PaddleBuf,
    PaddleDType,
    PaddleTensor,  # noqa: F401
    create_paddle_predictor,
)
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_device_count  # noqa: F401
from .core_classes import *  # noqa: F401,F403 -- the rest of Fluid core's classes,
from .core_functions import *  # noqa: F401,F403 -- its functions,
from .core_names import *  # noqa: F401,F403 -- and its plain values and loader helpers
from .core_names import print_function  # noqa: F401
from .core_prim import *  # noqa: F401,F403 -- Paddle 2.6's prim switches (off only)
from . import core_pir as pir  # noqa: F401 -- Paddle 2.6's libpaddle.pir: PIR's classes, never made


class CustomPlace:
    """Paddle 2.6's place of a plug-in device (its custom-device runtime): pe has no plug-in devices, so
    no place pe makes is one (the op tests' ``isinstance(place, core.CustomPlace)`` is False)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("paddle.CustomPlace: pe has no plug-in (custom) devices; use CPUPlace or CUDAPlace")


class DataType:
    """Paddle 2.6's second spelling of the dtypes (its PIR's): the same values as VarDesc.VarType's."""

    FLOAT16, FLOAT32, FLOAT64 = VarType.FP16, VarType.FP32, VarType.FP64
    INT8, INT16, INT32, INT64 = VarType.INT8, VarType.INT16, VarType.INT32, VarType.INT64
    UINT8, BOOL = VarType.UINT8, VarType.BOOL


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


class op_proto_and_checker_maker:  # noqa: N801 -- Fluid's name
    """Fluid's attribute names for an op's role (``kOpRoleAttrName()``) and its roles."""

    OpRole = OpRole

    @staticmethod
    def kOpRoleAttrName():  # noqa: N802
        return "op_role"

    @staticmethod
    def kOpDeviceAttrName():  # noqa: N802
        return "op_device"

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

    def _type(self):
        """The kind of the place it holds (CUDAPlace 0, CPUPlace 1, CUDAPinnedPlace 2), as Fluid's."""
        return self.place._type()

    def _equals(self, other):
        return self.place._equals(other.place if isinstance(other, Place) else other)


def has_infer_inplace(op_type):
    """True when the registry says an output of ``op_type`` may be written over an input (its ``inplace``)."""
    return bool(registry.get(op_type).inplace)


def has_grad_op_maker(op_type):
    """True when ``op_type`` has a gradient maker in the registry."""
    return registry.get(op_type).grad is not None


def _set_fuse_parameter_memory_size(megabytes):
    """Fluid's FLAGS_fuse_parameter_memory_size: at most ``megabytes`` MB of gradients in one fused
    all-reduce (0 or less: pe's 32 MiB buckets). Graphs built later use it."""
    fused_all_reduce.set_memory_size(megabytes)


def _get_eager_deletion_vars(program_desc, skip_vars):
    """Paddle's garbage-collection plan of a program: one list per block, holding for each op of the
    block the names of that block's own temporaries no later op reads or writes, so they may be
    dropped after it (pe's sequential liveness, the memory_optimize pass's). Persistable variables and
    ``skip_vars`` are never listed."""
    program = program_desc._program
    plan = []
    for block in program.blocks:
        frees = program_frees(block, skip=skip_vars)
        plan.append([[name for name in names if name in block.vars] for names in frees])
    return plan


class _TestException(EnforceNotMet, RuntimeError):
    """The error of __unittest_throw_exception__: Fluid 1.8's EnforceNotMet, Paddle 2.6's RuntimeError."""


def __unittest_throw_exception__():
    """Fluid's hook for testing that its core's errors reach Python: an EnforceNotMet (Fluid 1.8's,
    "test exception") that is a RuntimeError too (Paddle 2.6's, "This is a test of exception")."""
    raise _TestException("test exception: This is a test of exception")


def globals():  # noqa: A001 -- Fluid's name
    """Fluid's flags as a mapping: ``core.globals()['FLAGS_check_nan_inf'] = True``."""
    return FlagsView()


def op_support_gpu(op_type):
    """True when ``op_type`` has a CUDA kernel in pe and this machine has CUDA (as a Fluid built without
    CUDA registers no CUDA kernel: False there)."""
    if not is_compiled_with_cuda():
        return False
    try:
        registry.get(op_type).kernel("cuda")
    except Exception:  # noqa: BLE001 -- no CUDA runtime here, or no kernel for the op
        return False
    return True


def is_float16_supported(place):
    """pe's kernels compute float16 on no device."""
    return False


def _get_all_register_op_kernels():
    """{op type: [its kernel keys]}: every op type of the registry, gradients included, with a CPU
    kernel key (and a CUDA one where it has a CUDA kernel), in Fluid's spelling."""
    key = "{{data_type[float]; data_layout[Undef(AnyLayout)]; place[{}]; library_type[PLAIN]}}"
    return {
        t: [key.format("CPUPlace")] + ([key.format("CUDAPlace(0)")] if op_support_gpu(t) else [])
        for t in registry.all_op_types()
    }


def ProgramDesc(source=None):  # noqa: N802 -- Fluid's class name
    """``core.ProgramDesc()``: the desc of a new, empty Program; given a ProgramDesc, the desc of a
    copy of its program; given bytes (``serialize_to_string()``), the desc of the program they hold."""
    if source is None:
        return Program().desc
    if isinstance(source, _ProgramDescView):
        return source._program.clone().desc
    return Program.parse_from_string(source).desc


def has_non_empty_grad_op_maker(op_type):
    """True when ``op_type`` has a gradient maker in the registry (pe has no empty ones)."""
    return has_grad_op_maker(op_type)


def infer_no_need_buffer_slots(op_type, inputs, outputs, attrs):
    """The input slots of an ``op_type`` op given ``inputs`` whose values its kernels never read,
    only their shapes (the registry's ``no_need_buffer``)."""
    return {slot for slot in registry.get(op_type).no_need_buffer if inputs.get(slot)}


def get_op_attrs_default_value(op_type):
    """{attribute: default value} of the op type (str or bytes) in the registry; {} for a type it
    does not know, as Fluid's."""
    op_type = op_type.decode() if isinstance(op_type, bytes) else op_type
    if not registry.registered(op_type):
        return {}
    return registry.get(op_type).default_attrs()


class _SelectedRowsType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, SelectedRowsVar)


class SelectedRows(metaclass=_SelectedRowsType):
    """``core.SelectedRows(rows, height)``: a row-sparse value of its own (no scope): ``rows()``,
    ``height()``, ``get_tensor().set(values)`` as on ``scope.var(name).get_selected_rows()`` (which
    ``isinstance(x, core.SelectedRows)`` accepts too)."""

    def __new__(cls, rows=(), height=0):
        return new_selected_rows(rows, height)


def _binary_io(name, save):
    """Fluid core's save_lod_tensor / load_lod_tensor / save_selected_rows / load_selected_rows
    (pe_cli/io/tensor_files.py); a file in a folder that does not exist is a RuntimeError, as Fluid's."""

    def call(value, path):
        if not os.path.isdir(os.path.dirname(os.path.abspath(path))) or (not save and not os.path.isfile(path)):
            raise RuntimeError(f"{name}: cannot open '{path}'")
        if save:
            return getattr(tensor_files, name)(value, path)
        loaded, end = getattr(tensor_files, name)(path)
        if isinstance(loaded, LoDTensor):
            value.set(np.asarray(loaded))
            value.set_lod(loaded.lod())
        else:
            value.set_rows(loaded.rows())
            value.set_height(loaded.height())
            value.get_tensor().set(np.asarray(loaded.get_tensor()))
        return end

    call.__name__ = name
    return call


save_lod_tensor, load_lod_tensor = _binary_io("save_lod_tensor", True), _binary_io("load_lod_tensor", False)
save_selected_rows = _binary_io("save_selected_rows", True)
load_selected_rows = _binary_io("load_selected_rows", False)


def is_compiled_with_rocm():
    """False: pe has no ROCm kernels (Paddle 2.6's tests ask before choosing a dtype)."""
    return False


def is_compiled_with_xpu():
    """False: pe has no XPU kernels."""
    return False


def is_compiled_with_cinn():
    """False: pe has no CINN compiler (Paddle 2.6's op tests skip their CINN checks on it)."""
    return False


def _is_bwd_prim_enabled():
    """False: pe builds gradients from its registered grad ops, never from Paddle 2.6's primitive
    ("prim") decompositions."""
    return False


def _is_fwd_prim_enabled():
    """False: pe runs its registered ops, never Paddle 2.6's primitive decompositions."""
    return False


def supports_bfloat16():
    """False: pe has no bfloat16 kernels (Paddle 2.6's tests skip their BF16 cases on it)."""
    return False


def supports_bfloat16_fast_performance():
    """False: pe has no bfloat16 kernels."""
    return False


def get_all_op_protos():
    """Every registered op's OpProto message, serialized (Fluid core's; ``paddle.fluid.op`` parses them)."""
    return [m.SerializeToString() for m in _op_protos()]


def grad_var_suffix():
    """The suffix of a gradient's name (``x@GRAD``)."""
    return GRAD_SUFFIX


def get_op_extra_attrs(op_type):
    """Paddle 2.x's "extra" attributes of an op (for oneDNN and the like, outside its proto): pe's ops
    have none; every attribute is in the proto."""
    registry.get(op_type)
    return {}
