"""``paddle.fluid.dygraph``: the eager execution Fluid's op tests use (``base.guard``, ``to_variable``,
``backward()`` and ``gradient()`` on what ops made, pe_cli/fluid/dygraph/eager.py), and ``Layer`` and the
layer classes of ``fluid.dygraph.nn`` (Conv2D, Pool2D, Linear, BatchNorm, NCE, ...) and its loss classes
BCELoss and NLLLoss (losses.py) in static programs, as Fluid's work there, and inside ``guard()``, where
their ops run as they are appended (their parameters initialized at once). pe builds static graphs
(Program, Executor); any other name of this module, Fluid's dygraph switches and classes
(``enable_dygraph``, ``VarBase``, ...), say so in one error."""

from ..unsupported import unsupported, unsupported_module
from . import base  # noqa: F401
from . import layers, nn  # noqa: F401
from . import (
    backward_strategy,
    checkpoint,
    container,
    jit,
    learning_rate_scheduler,
    parallel,  # noqa: F401
    dygraph_to_static,
)
from .backward_strategy import BackwardStrategy  # noqa: F401
from .base import enabled, grad, guard, no_grad, to_variable  # noqa: F401
from .checkpoint import load_dygraph, save_dygraph  # noqa: F401
from .container import LayerList, ParameterList, Sequential  # noqa: F401
from .dygraph_to_static import ProgramTranslator  # noqa: F401
from .jit import TracedLayer, declarative, dygraph_to_static_func  # noqa: F401
from .learning_rate_scheduler import (
    CosineDecay,
    ExponentialDecay,
    InverseTimeDecay,
    LambdaDecay,  # noqa: F401
    LinearLrWarmup,
    MultiStepDecay,
    NaturalExpDecay,
    NoamDecay,
    PiecewiseDecay,
    PolynomialDecay,
    ReduceLROnPlateau,
    StepDecay,
)
from .nn import L1Loss, MSELoss, NCE  # noqa: F401
from .parallel import DataParallel, ParallelEnv, prepare_context  # noqa: F401
from .layers import Layer  # noqa: F401
from .losses import BCELoss, NLLLoss  # noqa: F401
from .nn import (
    BatchNorm,
    BilinearTensorProduct,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,  # noqa: F401
    Dropout,
    Embedding,
    GroupNorm,
    GRUUnit,
    InstanceNorm,
    LayerNorm,
    Linear,
    Pool2D,
    PRelu,
    SpectralNorm,
    TreeConv,
)

WHY = (
    "pe runs static graphs only (Program + Executor); dygraph (imperative) mode is not part of it: "
    "build a Program and run it with an Executor"
)

__getattr__ = unsupported_module(
    "fluid.dygraph",
    "pe runs static graphs (Program + Executor); of dygraph (imperative) mode it has only "
    "the eager op execution Fluid's op tests use (guard, to_variable, backward)",
)

enable_dygraph = unsupported("fluid.enable_dygraph", WHY)
disable_dygraph = unsupported("fluid.disable_dygraph", WHY)
enable_imperative = unsupported("fluid.enable_imperative", WHY)
disable_imperative = unsupported("fluid.disable_imperative", WHY)
VarBase = unsupported("fluid.VarBase", WHY)
