"""``paddle.incubate.optimizer``: Paddle 2.6's static-graph optimizer wrappers, which are Fluid 1.8's
(pe_cli/training): ``RecomputeOptimizer`` and ``PipelineOptimizer`` give the wrapped optimizer's
updates, ``LookAhead`` and ``ModelAverage`` take Paddle 2.x's parameters (``parameters`` names what
a dygraph optimizer updates; a static program's are its trainable parameters, so it changes nothing).
``GradientMergeOptimizer``, ``DistributedFusedLamb``, ``LBFGS`` and ``functional``'s BFGS/L-BFGS
minimizers are one-line refusals."""

from ....base.errors import unsupported
from ....training.averaging import LookaheadOptimizer as _Lookahead
from ....training.averaging import ModelAverage as _ModelAverage
from ....training.optimizer import LarsMomentumOptimizer  # noqa: F401
from ....training.optimizer_wrappers import PipelineOptimizer, RecomputeOptimizer  # noqa: F401
from . import functional  # noqa: F401

__all__ = ["LBFGS"]

GradientMergeOptimizer = unsupported(
    "paddle.incubate.optimizer.GradientMergeOptimizer", "pe does not merge gradients over k steps yet"
)
DistributedFusedLamb = unsupported(
    "paddle.incubate.optimizer.DistributedFusedLamb", "pe has no distributed_fused_lamb op"
)
LBFGS = unsupported("paddle.incubate.optimizer.LBFGS", "a dygraph optimizer (pe runs static graphs only)")


class LookAhead(_Lookahead):
    """Fluid's LookaheadOptimizer: fast weights by ``inner_optimizer``, every ``k`` steps the slow
    weights move ``alpha`` of the way to them and the fast ones restart from there."""

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        super().__init__(inner_optimizer, alpha=alpha, k=k)


class ModelAverage(_ModelAverage):
    """Fluid's ModelAverage (``apply(executor)``, ``restore(executor)``) with Paddle 2.x's parameters."""

    def __init__(
        self, average_window_rate, parameters=None, min_average_window=10000, max_average_window=10000, name=None
    ):
        super().__init__(
            average_window_rate, min_average_window=min_average_window, max_average_window=max_average_window, name=name
        )
