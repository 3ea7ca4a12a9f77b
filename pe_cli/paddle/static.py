"""``paddle.static`` (Paddle 2.x's static-graph face, seed 002) over pe's Fluid objects: programs,
guards, executors, strategies, scopes, ``data`` (shape with the batch dimension, None for any) and
``nn.fc``, ``accuracy``/``auc`` (metric layers), ``ExponentialMovingAverage``, model files
(``save_inference_model(path_prefix, ...)``, serialize/deserialize: pe_cli/io/static_io.py),
``py_func`` and ``InputSpec``. Thin names only: every object is pe's own. ``device_guard`` is not
here: pe does not place single ops on another device."""
import types

from .. import layers as _layers
from ..training.backward import append_backward, gradients  # noqa: F401
from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401
from ..executor import Executor, global_scope, scope_guard  # noqa: F401
from ..executor.parallel import ParallelExecutor  # noqa: F401
from ..io import load, load_program_state, save, set_program_state  # noqa: F401
from ..io.static_io import (deserialize_persistables, deserialize_program, load_from_file,  # noqa: F401
                            load_inference_model, save_inference_model, save_to_file, serialize_persistables,
                            serialize_program)
from ..framework import (Program, default_main_program, default_startup_program, name_scope,  # noqa: F401
                         program_guard)
from ..framework.variable import Variable  # noqa: F401
from ..kernels import cuda_places  # noqa: F401
from ..layers import create_global_var, create_parameter, py_func  # noqa: F401
from ..layers.io import static_data as data  # noqa: F401
from ..training.averaging import ExponentialMovingAverage  # noqa: F401
from ..training.param_attr import WeightNormParamAttr  # noqa: F401
from ..base.places import cpu_places  # noqa: F401
from .input_spec import InputSpec  # noqa: F401
from .metric import accuracy  # noqa: F401
from ..base.errors import PeError


def _fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """``paddle.static.nn.fc``: Fluid's fc under 2.x's argument names."""
    return _layers.fc(input=x, size=size, num_flatten_dims=num_flatten_dims, param_attr=weight_attr,
                      bias_attr=bias_attr, act=activation, name=name)


def auc(input, label, curve="ROC", num_thresholds=4095, topk=1, slide_steps=1, ins_tag_weight=None):
    """``paddle.static.auc``: Fluid's auc layer (the batch's and the running AUC with their states)."""
    if ins_tag_weight is not None:
        raise PeError("paddle.static.auc: ins_tag_weight is not supported by pe (every instance weighs 1): "
                      "leave it None")
    return _layers.auc(input, label, curve, num_thresholds, topk, slide_steps)


nn = types.SimpleNamespace(fc=_fc, batch_norm=_layers.batch_norm, conv2d=_layers.conv2d,
                           embedding=_layers.embedding)

__all__ = ["BuildStrategy", "CompiledProgram", "ExecutionStrategy", "Executor", "ExponentialMovingAverage", "InputSpec",
           "ParallelExecutor", "accuracy", "auc",
           "Program", "Variable", "WeightNormParamAttr", "append_backward", "cpu_places", "create_global_var",
           "create_parameter", "cuda_places", "data", "default_main_program", "default_startup_program",
           "deserialize_persistables", "deserialize_program", "global_scope", "gradients", "load", "load_from_file",
           "load_inference_model", "load_program_state", "name_scope", "nn", "program_guard", "py_func", "save",
           "save_inference_model", "save_to_file", "scope_guard", "serialize_persistables", "serialize_program",
           "set_program_state"]
