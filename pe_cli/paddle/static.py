"""``paddle.static`` (Paddle 2.x's static-graph face, seed 002) over pe's Fluid objects: programs,
guards, executors, strategies, scopes, ``data`` (shape with the batch dimension, None for any) and
``nn.fc``. Thin names only: every object is pe's own."""
import types

from .. import layers as _layers
from ..backward import append_backward, gradients  # noqa: F401
from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401
from ..executor import Executor, global_scope, scope_guard  # noqa: F401
from ..executor.parallel import ParallelExecutor  # noqa: F401
from ..io import load, load_program_state, save, set_program_state  # noqa: F401
from ..framework import (Program, default_main_program, default_startup_program, name_scope,  # noqa: F401
                         program_guard)
from ..kernels import cuda_places  # noqa: F401
from ..layers.io import static_data as data  # noqa: F401
from ..places import cpu_places  # noqa: F401


def _fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """``paddle.static.nn.fc``: Fluid's fc under 2.x's argument names."""
    return _layers.fc(input=x, size=size, num_flatten_dims=num_flatten_dims, param_attr=weight_attr,
                      bias_attr=bias_attr, act=activation, name=name)


nn = types.SimpleNamespace(fc=_fc, batch_norm=_layers.batch_norm, conv2d=_layers.conv2d,
                           embedding=_layers.embedding)

__all__ = ["BuildStrategy", "CompiledProgram", "ExecutionStrategy", "Executor", "ParallelExecutor", "Program",
           "append_backward", "cpu_places", "cuda_places", "data", "default_main_program",
           "default_startup_program", "global_scope", "gradients", "load", "load_program_state", "name_scope", "nn",
           "program_guard", "save", "scope_guard", "set_program_state"]
