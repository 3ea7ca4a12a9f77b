"""Classes of Fluid's core (``paddle.fluid.core``) beyond those core.py names: pe's own where it has
the thing (a scope's Variable, Tensor, the pass builder, the predictors, the reader queue, the flags
registry), plain data where Fluid's is plain data (FetchList, ParallelStrategy, PaddlePlace, the
inference pass strategies), and one-line refusals for the native parts pe has no counterpart of
(pslib's BoxPS and Fleet, Gloo, the C++ executors and readers, dygraph's tracer; its VarBase but
inside fluid.dygraph.guard(), where Paddle's op tests make them: pe_cli/fluid/dygraph/eager.py)."""

import enum
import types

from .flags import FlagsView
from .inference_api import Predictor
from .unsupported import DYGRAPH, MKLDNN, NATIVE, PSLIB, FluidUnsupported, refuse
from ..compiler.pass_builder import Pass, PassBuilder  # noqa: F401
from ..executor.scope import ScopeVariable as Variable  # noqa: F401
from ..framework.lod_tensor import LoDTensor as Tensor  # noqa: F401
from ..layers.reader_queue import BlockingQueue as LoDTensorBlockingQueue  # noqa: F401
from .dygraph.eager import VarBase  # noqa: F401 -- inside fluid.dygraph.guard(): Paddle's op tests make them

# The inference predictors are one class in pe (create_paddle_predictor's).
AnalysisPredictor = NativePaddlePredictor = PaddlePredictor = Predictor
GlobalVarGetterSetterRegistry = FlagsView


def get_pass(name):
    """The graph pass ``name`` (pe's passes run in their fixed order when their option is on)."""
    return Pass(name)


class PaddlePlace(enum.IntEnum):
    UNK, CPU, GPU = -1, 0, 1


class FetchList(list):
    """What a fetch holder variable holds: fetched values in order (``append``)."""


class FetchUnmergedList(list):
    """Fetched values per device (a list of lists)."""


class ParallelStrategy:
    """Plain data of a data-parallel job: nranks, local_rank, trainer_endpoints, current_endpoint."""

    def __init__(self):
        self.nranks, self.local_rank, self.trainer_endpoints, self.current_endpoint = 1, 0, [], ""


class DeviceContext:
    """``DeviceContext.create(place)``: pe runs an op on a place, so the context is the place."""

    @staticmethod
    def create(place):
        return place


class PaddlePassBuilder:
    """The inference passes an AnalysisConfig would run, as a list to edit (pe runs the program as
    saved; the list is kept for scripts that edit and print it)."""

    def __init__(self, passes=()):
        self._passes, self._analysis, self._debug = list(passes), [], False

    def all_passes(self):
        return list(self._passes)

    def set_passes(self, passes):
        self._passes = list(passes)

    def append_pass(self, name):
        self._passes.append(name)

    def insert_pass(self, index, name):
        self._passes.insert(index, name)

    def delete_pass(self, name_or_index):
        if isinstance(name_or_index, int):
            del self._passes[name_or_index]
        else:
            self._passes = [p for p in self._passes if p != name_or_index]

    def append_analysis_pass(self, name):
        self._analysis.append(name)

    def analysis_passes(self):
        return list(self._analysis)

    def turn_on_debug(self):
        self._debug = True

    def debug_string(self):
        return "\n".join(self._passes) + "\n"


class PassStrategy(PaddlePassBuilder):
    def __init__(self, passes=()):
        super().__init__(passes)
        self._use_gpu = False

    def enable_cudnn(self):
        return None

    def enable_mkldnn(self):
        raise FluidUnsupported("PassStrategy.enable_mkldnn", MKLDNN)

    enable_mkldnn_quantizer = enable_mkldnn

    def use_gpu(self):
        return self._use_gpu


class CpuPassStrategy(PassStrategy):
    pass


class GpuPassStrategy(PassStrategy):
    def __init__(self, passes=()):
        super().__init__(passes)
        self._use_gpu = True


class _Refusing(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise FluidUnsupported(f"core.ops.{name}", DYGRAPH)


ops = _Refusing("ops", "core.ops: the dygraph op functions (pe runs ops in static programs)")

refuse(globals(), "core", ["BoxPS", "Fleet"], PSLIB)
refuse(globals(), "core", ["MkldnnQuantizerConfig"], MKLDNN)
refuse(
    globals(),
    "core",
    [
        "BackwardStrategy",
        "Layer",
        "ProgramDescTracer",
        "Tracer",
        "dygraph_partial_grad",
        "start_imperative_gperf_profiler",
        "stop_imperative_gperf_profiler",
    ],
    DYGRAPH,
)
refuse(
    globals(),
    "core",
    [
        "Dataset",
        "DistCommunicator",
        "Executor",
        "ExecutorPrepareContext",
        "Gloo",
        "IterableDatasetWrapper",
        "LodRankTable",
        "MultiDeviceFeedReader",
        "OrderedMultiDeviceFeedReader",
        "OrderedMultiDeviceLoDTensorBlockingQueue",
        "ParallelExecutor",
        "Reader",
        "TrainerBase",
        "ZeroCopyTensor",
        "create_py_reader",
        "init_lod_tensor_blocking_queue",
    ],
    NATIVE + " (fluid.Executor, fluid.ParallelExecutor, fluid.DatasetFactory and fluid.io.DataLoader are pe's)",
)
refuse(
    globals(),
    "core",
    ["load_op_library"],
    "custom C++ op libraries (.so) are not part of pe: its ops are Python, registered in pe_cli/ops",
)
