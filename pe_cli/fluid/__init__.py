"""The Fluid face: ``import pe_cli.fluid as fluid`` runs Fluid 1.x static-graph scripts.

Its submodules mirror ``paddle.fluid`` 1.8 (framework, executor, backward, io, ...); each is a thin
face over pe's own modules. ``pe fluid SCRIPT.py`` makes ``import paddle.fluid`` land here.
"""

from .. import layers  # noqa: F401
from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from ..executor.parallel import ParallelExecutor  # noqa: F401
from ..framework import (
    Program,
    Variable,
    default_main_program,
    default_startup_program,  # noqa: F401
    name_scope,
    program_guard,
)
from ..framework.lod_tensor import LoDTensor, LoDTensorArray, create_lod_tensor, create_random_int_lodtensor  # noqa: F401
from ..kernels import cuda_places, is_compiled_with_cuda  # noqa: F401
from ..base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_places  # noqa: F401
from . import (
    average,
    backward,
    clip,
    compiler,
    core,
    data_feeder,
    dataset,
    dygraph,
    evaluator,  # noqa: F401
    executor,
    framework,
    initializer,
    input,
    io,
    install_check,
    layer_helper,
    lod_tensor,
    metrics,
    nets,
    optimizer,
    param_attr,
    profiler,
    reader,
    regularizer,
    trainer_desc,
    transpiler,
    unique_name,
)
from .backward import append_backward, gradients  # noqa: F401
from . import core as libpaddle  # noqa: F401 -- Paddle 2.6's name (paddle.base.libpaddle) for its core
from .compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401
from .data import data  # noqa: F401
from .data_feeder import DataFeeder  # noqa: F401
from .flags import get_flags, set_flags  # noqa: F401
from .complex_variable import ComplexVariable  # noqa: F401
from .dygraph import (
    VarBase,
    disable_dygraph,
    disable_imperative,
    enable_dygraph,  # noqa: F401
    enable_imperative,
)
from .framework import cuda_pinned_places, device_guard, in_dygraph_mode, load_op_library, require_version  # noqa: F401
from .input import embedding, one_hot  # noqa: F401

# Fluid 1.8's fluid/__init__.py imports fluid.dygraph's names: its layer classes are fluid.NCE, fluid.BatchNorm, ...
from .dygraph import load_dygraph, save_dygraph  # noqa: F401
from .dygraph import (
    BCELoss,
    BatchNorm,
    BilinearTensorProduct,
    Conv2D,
    Conv2DTranspose,
    Conv3D,  # noqa: F401
    Conv3DTranspose,
    Dropout,
    Embedding,
    GRUUnit,
    GroupNorm,
    InstanceNorm,
    L1Loss,
    Layer,
    LayerNorm,
    Linear,
    MSELoss,
    NCE,
    NLLLoss,
    PRelu,
    Pool2D,
    SpectralNorm,
    TreeConv,
)
from .trainer_desc import DistMultiTrainer, MultiTrainer, PipelineTrainer, TrainerDesc  # noqa: F401
from .transpiler import HashName, RoundRobin  # noqa: F401
from ..layers import learning_rate_scheduler as learning_rate_decay  # noqa: F401
from .io import load, load_program_state, save, set_program_state  # noqa: F401
from .param_attr import ParamAttr, WeightNormParamAttr  # noqa: F401
from .transpiler import (
    DistributeTranspiler,
    DistributeTranspilerConfig,
    InferenceTranspiler,  # noqa: F401
    memory_optimize,
    release_memory,
)
from ..data.async_executor import AsyncExecutor  # noqa: F401
from ..data.datafeed_desc import DataFeedDesc  # noqa: F401
from ..data.dataset import DatasetFactory, InMemoryDataset, QueueDataset  # noqa: F401
from . import contrib  # noqa: F401,E402 -- fluid.contrib (pe_cli/fluid/contrib/)

Tensor = LoDTensor  # Fluid 1.8's alias
