"""``paddle.static`` (Paddle 2.x's static-graph face, seed 002) over pe's Fluid objects: programs,
guards, executors, strategies, scopes, ``data`` (shape with the batch dimension, None for any) and
``nn.fc``, ``accuracy``/``auc`` (metric layers), ``ExponentialMovingAverage``, model files
(``save_inference_model(path_prefix, ...)``, serialize/deserialize: pe_cli/io/static_io.py),
``py_func``, ``InputSpec``, ``Print``, ``ctr_metric_bundle``, ``normalize_program``, ``nn`` (nn.py: the
layer builders) and the device names (devices.py). Thin names only: every object is pe's own."""

from ... import layers as _layers
from . import amp, io, nn  # noqa: F401
from .devices import *  # noqa: F401,F403
from ...fluid.contrib.layers.metric_op import ctr_metric_bundle as _ctr_metric_bundle
from ...layers.printing import Print as _Print
from ...training.backward import append_backward, gradients  # noqa: F401
from ...compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401
from ...executor import Executor, Scope, global_scope, scope_guard  # noqa: F401   (Scope: as Paddle, not in __all__)
from ...executor.parallel import ParallelExecutor  # noqa: F401
from ...io import load, load_program_state, save, set_program_state  # noqa: F401
from ...io.static_io import (
    deserialize_persistables,
    deserialize_program,
    load_from_file,  # noqa: F401
    load_inference_model,
    normalize_program,
    save_inference_model,
    save_to_file,
    serialize_persistables,
    serialize_program,
)
from ...framework import (
    Program,
    default_main_program,
    default_startup_program,
    name_scope,  # noqa: F401
    program_guard,
)
from ...framework.variable import Variable  # noqa: F401
from ...kernels import cuda_places  # noqa: F401
from ...layers import create_global_var, create_parameter, py_func  # noqa: F401
from ...layers.checks import check_type
from ...layers.io import static_data
from ...layers.variable_index import setitem  # noqa: F401
from ...training.averaging import ExponentialMovingAverage  # noqa: F401
from ...training.param_attr import WeightNormParamAttr  # noqa: F401
from ...base.places import cpu_places  # noqa: F401
from ..device import get_default_dtype
from ..input_spec import InputSpec  # noqa: F401
from ...layers import accuracy  # noqa: F401   (2.x: paddle.static.accuracy takes no name; paddle.metric.accuracy does)
from ...base.errors import PeError
from ...framework.program_release import paddle_face


def auc(input, label, curve="ROC", num_thresholds=4095, topk=1, slide_steps=1, ins_tag_weight=None):
    """``paddle.static.auc``: Fluid's auc layer (the batch's and the running AUC with their states)."""
    if ins_tag_weight is not None:
        raise PeError(
            "paddle.static.auc: ins_tag_weight is not supported by pe (every instance weighs 1): leave it None"
        )
    return _layers.auc(input, label, curve, num_thresholds, topk, slide_steps)


@paddle_face
def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """Fluid's running CTR sums (local_sqrerr, local_abserr, local_prob, local_q, local_pos_num,
    local_ins_num) over the batches the program runs."""
    if ins_tag_weight is not None:
        raise PeError(
            "paddle.static.ctr_metric_bundle: ins_tag_weight is not supported by pe (every instance "
            "weighs 1): leave it None"
        )
    return _ctr_metric_bundle(input, label)


def Print(
    input,
    first_n=-1,
    message=None,
    summarize=20,
    print_tensor_name=True,
    print_tensor_type=True,
    print_tensor_shape=True,
    print_tensor_layout=True,
    print_tensor_lod=True,
    print_phase="both",
):
    """Fluid's Print (a copy of ``input`` printing it as the program runs); pe's tensors have no
    layout, so ``print_tensor_layout`` adds no line."""
    return _Print(
        input,
        first_n,
        message,
        summarize,
        print_tensor_name,
        print_tensor_type,
        print_tensor_shape,
        print_tensor_lod,
        print_phase,
    )


__all__ = [
    "Print",
    "ctr_metric_bundle",
    "device_guard",
    "normalize_program",
    "xpu_places",
    "IpuCompiledProgram",
    "IpuStrategy",
    "ipu_shard_guard",
    "set_ipu_shard",
    "BuildStrategy",
    "CompiledProgram",
    "ExecutionStrategy",
    "Executor",
    "ExponentialMovingAverage",
    "InputSpec",
    "ParallelExecutor",
    "accuracy",
    "auc",
    "Program",
    "Variable",
    "WeightNormParamAttr",
    "append_backward",
    "cpu_places",
    "create_global_var",
    "create_parameter",
    "cuda_places",
    "data",
    "default_main_program",
    "default_startup_program",
    "deserialize_persistables",
    "deserialize_program",
    "global_scope",
    "gradients",
    "load",
    "load_from_file",
    "load_inference_model",
    "load_program_state",
    "name_scope",
    "nn",
    "program_guard",
    "py_func",
    "save",
    "save_inference_model",
    "save_to_file",
    "scope_guard",
    "serialize_persistables",
    "serialize_program",
    "set_program_state",
]


def data(name, shape, dtype=None, lod_level=0):
    """``paddle.static.data``: a fed variable whose ``shape`` includes the batch dimension (None or -1
    there); ``dtype`` None is paddle.get_default_dtype() (Fluid's ``fluid.data`` takes float32).
    A name that is not a str, or a shape that is not a list or tuple, is a TypeError. The dtype 'float'
    is numpy's float64, as Paddle 2.x reads it (elsewhere pe takes it for float32, as Fluid's C names)."""
    check_type(name, "name", str, "paddle.static.data")
    check_type(shape, "shape", (list, tuple), "paddle.static.data")
    if isinstance(dtype, str) and dtype.lower() == "float":
        dtype = "float64"
    return static_data(name, shape, get_default_dtype() if dtype is None else dtype, lod_level)
