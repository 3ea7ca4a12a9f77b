"""The Fluid face: ``import pe_cli.fluid as fluid`` runs Fluid 1.x static-graph scripts."""
from .. import backward, initializer, layers, optimizer, regularizer, clip  # noqa: F401
from ..backward import append_backward, gradients  # noqa: F401
from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from ..framework import (Program, Variable, default_main_program, default_startup_program,  # noqa: F401
                         name_scope, program_guard, unique_name)
from ..framework.lod_tensor import LoDTensor, create_lod_tensor, create_random_int_lodtensor  # noqa: F401
from ..param_attr import ParamAttr, WeightNormParamAttr  # noqa: F401
from ..places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_places, cuda_places, is_compiled_with_cuda  # noqa: F401
from . import core  # noqa: F401
from .. import io  # noqa: F401
from .. import profiler  # noqa: F401
from .. import compiler  # noqa: F401
from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401
from ..executor.parallel import ParallelExecutor  # noqa: F401
from ..data.feeder import DataFeeder  # noqa: F401
