"""``paddle.fluid.optimizer``: pe's optimizers under Fluid's names; the ones pe lacks raise."""
from ..training.averaging import *  # noqa: F401,F403
from ..training.averaging import __all__ as _averaging
from ..training.optimizer import *  # noqa: F401,F403
from ..training.optimizer import __all__ as _plain
from ..training.optimizer_adaptive import *  # noqa: F401,F403
from ..training.optimizer_adaptive import __all__ as _adaptive
from ..training.regularizer import append_regularization_ops  # noqa: F401 -- Fluid's optimizer module has it too
from .unsupported import unsupported

_MISSING = ["Dpsgd", "DpsgdOptimizer", "PipelineOptimizer",
            "RecomputeOptimizer", "DGCMomentumOptimizer"]
for _name in _MISSING:
    globals()[_name] = unsupported(f"fluid.optimizer.{_name}")

__all__ = list(_plain) + list(_adaptive) + list(_averaging) + _MISSING
