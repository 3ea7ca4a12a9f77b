"""``paddle.fluid.framework``: the IR classes and program switches, as pe defines them.

pe's dtypes are numpy names ('float32'); ``convert_np_dtype_to_dtype_`` returns that name (its ``int()``
Fluid's VarType number), which equals ``core.VarDesc.VarType.FP32`` and the rest, so comparisons in Fluid scripts hold.
"""

import contextlib
import functools
import re
import warnings

from ..training.backward import grad_var_name
from ..framework import (
    Block,
    Operator,
    Parameter,
    Program,
    Variable,
    default_main_program,  # noqa: F401
    default_startup_program,
    name_scope,
    program_guard,
    switch_main_program,
    switch_startup_program,
    unique_name,
)
from ..base.dtypes import VarType, var_type as convert_np_dtype_to_dtype_
from ..base.errors import PeError
from ..framework import device_hint, static_mode
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from .op_proto import OpProtoHolder  # noqa: F401
from .dygraph import base as dygraph_base
from .dygraph.eager import Tracer, VarBase
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_places  # noqa: F401
from .complex_variable import ComplexVariable  # noqa: F401
from .flags import get_flags, set_flags  # noqa: F401
from .ir_graph import IrGraph, IrNode, IrOpNode, IrVarNode  # noqa: F401
from .unsupported import unsupported
from . import version

# Fluid's name constants (framework.py of Fluid 1.8)
GRAD_VAR_SUFFIX, ZERO_VAR_SUFFIX = "@GRAD", "@ZERO"
EMPTY_VAR_NAME, TEMP_VAR_NAME, CONTROL_DEP_VAR_PREFIX = "@EMPTY@", "@TEMP@", "__control_var"

__all__ = [
    "Block",
    "ComplexVariable",
    "OpProtoHolder",
    "Operator",
    "device_guard",
    "get_flags",
    "load_op_library",
    "set_flags",
    "Parameter",
    "Program",
    "Variable",
    "convert_np_dtype_to_dtype_",
    "cuda_pinned_places",
    "default_main_program",
    "default_startup_program",
    "grad_var_name",
    "in_dygraph_mode",
    "in_pir_mode",
    "name_scope",
    "program_guard",
    "require_version",
    "switch_main_program",
    "switch_startup_program",
]

FLUID_VERSION = version.full_version  # the Fluid release whose API pe follows
_VERSION = re.compile(r"\d+(\.\d+){0,3}")


def in_dygraph_mode():
    """True inside ``fluid.dygraph.guard()`` (the eager op execution of Fluid's op tests), and in Paddle 2.x's
    eager mode, where ``paddle.base.framework.in_dygraph_mode()`` is True: in a Paddle 2.x program
    (fluid/version.py) before ``paddle.enable_static()``, and after ``paddle.disable_static()`` until
    ``paddle.enable_static()`` (code that switches to static mode when it finds eager mode, as Paddle 2.6's
    op tests' ``static_guard`` do, does so); else False: pe builds and runs static graphs."""
    if dygraph_base.enabled() or static_mode.left_static_at() is not None:
        return True
    return version.paddle2 and not static_mode.entered_static()


def dygraph_only(func):
    """Fluid's decorator of functions that work in dygraph mode only: outside ``dygraph.guard()`` a
    call fails its assertion, as Fluid's does."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        assert in_dygraph_mode(), (
            f"We Only support {func.__name__} in imperative mode, please use "
            f"fluid.dygraph.guard() as context to run it in imperative Mode"
        )
        return func(*args, **kwargs)

    return wrapper


def _dygraph_tracer():
    """Fluid's tracer inside ``fluid.dygraph.guard()`` (its ``trace_op`` runs an op at once on the eager
    program, as Paddle's test_run_program_op.py drives run_program), else None, as Fluid's."""
    return Tracer() if dygraph_base.enabled() else None


def _varbase_creator(type=VarType.LOD_TENSOR, name=None, shape=None, dtype=None, persistable=None, **kwargs):
    """Fluid's: a ``core.VarBase`` holding no value yet (inside ``fluid.dygraph.guard()``)."""
    return VarBase(
        convert_np_dtype_to_dtype_(dtype) if dtype is not None else VarType.FP32,
        list(shape) if shape else [],
        name,
        type or VarType.LOD_TENSOR,
        bool(persistable),
    )


def in_pir_mode():
    """False: Paddle 2.6's PIR is its second program representation; pe has one (paddle.pir_utils)."""
    return False


def canonicalize_attrs(attrs, op_proto):
    """Paddle 2.6 wraps a SCALAR / SCALARS attribute's value in its Scalar union here; pe's ops read
    attributes as Python values (the registry converts them), so the attributes are returned as given
    (a copy, as Paddle's)."""
    return dict(attrs)


def _current_expected_place():
    """The place Paddle 2.6 runs a program on when none is given: the first CUDA device where pe has
    CUDA, else the CPU."""
    return CUDAPlace(0) if is_compiled_with_cuda() else CPUPlace()


def use_pir_api():
    """False: pe builds Programs (Paddle 2.6's old IR), never PIR (``FLAGS_enable_pir_api``)."""
    return False


@contextlib.contextmanager
def _dygraph_guard(tracer):
    """Paddle 2.6's switch of the eager tracer: ``_dygraph_guard(None)`` (static mode, what its tests
    wrap static code in) is the mode pe is always in; a tracer (dygraph) is refused in one line."""
    if tracer is not None:
        raise PeError("_dygraph_guard: pe runs static graphs only (dygraph is not supported)")
    yield


def cuda_pinned_places(device_count=None):
    """``device_count`` CUDAPinnedPlaces (default: one per GPU), as Fluid's; a GPU is needed."""
    if not is_compiled_with_cuda():
        raise PeError(
            "cuda_pinned_places: this machine has no CUDA device (pinned host memory is for feeding "
            "GPUs); use cpu_places()"
        )
    return [CUDAPinnedPlace()] * (len(cuda_places()) if device_count is None else int(device_count))


def _version_parts(name, value):
    """A version string '1', '1.8', '1.8.5' or '1.8.5.0' as four ints; Fluid's TypeError/ValueError else."""
    if not isinstance(value, str):
        raise TypeError(f"The type of '{name}' in require_version must be str, but received {type(value)}.")
    if not _VERSION.fullmatch(value):
        raise ValueError(
            f"The value of '{name}' in require_version must be in format '\\d+(\\.\\d+){{0,3}}', "
            f"like '1.5.2.0', but received {value}"
        )
    parts = [int(p) for p in value.split(".")]
    return parts + [0] * (4 - len(parts))


def require_version(min_version, max_version=None):
    """Fluid's guard at the top of a program: raises ``Exception('VersionError: ...')`` unless the
    Fluid version pe follows (``paddle.version``: pe_cli/fluid/version.py) lies in [min_version,
    max_version]; versions are compared part by part, missing parts being 0 ('1.6' is 1.6.0.0).
    An installed version of all zeros (a development build) is not checked: a warning says so."""
    low = _version_parts("min_version", min_version)
    high = None if max_version is None else _version_parts("max_version", max_version)
    have = [int(p) for p in (version.major, version.minor, version.patch, version.rc)]
    installed = version.full_version
    if have == [0, 0, 0, 0]:
        wanted = (
            f"version in [{min_version}, {max_version}]" if high is not None else f"version {min_version} or higher"
        )
        warnings.warn(
            f"PaddlePaddle {wanted} required, but {installed} installed. Maybe you are using a develop "
            "version, please make sure the version is good with your code."
        )
        return
    if high is not None and not low <= have <= high:
        raise Exception(
            f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] required, but {installed} installed."
        )
    if have < low:
        advice = (  # (Paddle 2.6.2's words to a Paddle 2.x program; pe_cli/fluid/version.py)
            f", please upgrade your PaddlePaddle to {min_version} or other higher version."
            if version.paddle2
            else f" (pe follows Fluid {FLUID_VERSION}'s API)."
        )
        raise Exception(
            f"VersionError: PaddlePaddle version {min_version} or higher is required, but {installed} installed{advice}"
        )


@contextlib.contextmanager
def device_guard(device=None):
    """Fluid's placement hint for the ops built inside (``'cpu'``, ``'gpu'``, ``''`` or None), recorded in
    their ``op_device`` attribute as Fluid records it (framework/device_hint.py); pe runs a program's ops
    on the executor's place, so the hint changes nothing else."""
    if device not in ["cpu", "gpu", "", None]:
        raise ValueError(
            "The Attr(device) should be 'cpu' or 'gpu', and it can also be empty string or None "
            f"when there is no need to specify device. But received {device}"
        )
    previous = device_hint.switch_device(device)
    try:
        yield
    finally:
        device_hint.switch_device(previous)


load_op_library = unsupported(
    "fluid.load_op_library",
    "custom C++ op libraries (.so) are not part of pe: its ops are Python "
    "kernels in one registry (pe_cli/ops); write the op there",
)


def _get_var(name, program=None):
    """The variable ``name`` of the global block of ``program`` (default: the default main program)."""
    program = default_main_program() if program is None else program
    assert isinstance(name, str)
    assert isinstance(program, Program)
    return program.global_block().var(name)
