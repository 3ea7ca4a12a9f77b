"""``paddle.fluid.framework``: the IR classes and program switches, as pe defines them.

pe's dtypes are numpy names ('float32'); ``convert_np_dtype_to_dtype_`` returns that name, which
equals ``core.VarDesc.VarType.FP32`` and the rest, so comparisons in Fluid scripts hold.
"""
from ..training.backward import grad_var_name
from ..framework import (Block, Operator, Parameter, Program, Variable, default_main_program,  # noqa: F401
                         default_startup_program, name_scope, program_guard, switch_main_program,
                         switch_startup_program, unique_name)
from ..base.dtypes import convert_dtype as convert_np_dtype_to_dtype_
from ..base.errors import PeError
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_places  # noqa: F401

__all__ = ["Block", "Operator", "Parameter", "Program", "Variable", "convert_np_dtype_to_dtype_", "cuda_pinned_places",
           "default_main_program", "default_startup_program", "grad_var_name", "in_dygraph_mode",
           "name_scope", "program_guard", "switch_main_program", "switch_startup_program"]


def in_dygraph_mode():
    """Always False: pe builds and runs static graphs only."""
    return False


def cuda_pinned_places(device_count=None):
    """``device_count`` CUDAPinnedPlaces (default: one per GPU), as Fluid's; a GPU is needed."""
    if not is_compiled_with_cuda():
        raise PeError("cuda_pinned_places: this machine has no CUDA device (pinned host memory is for feeding "
                      "GPUs); use cpu_places()")
    return [CUDAPinnedPlace()] * (len(cuda_places()) if device_count is None else int(device_count))
