"""``paddle.fluid.optimizer``: pe's optimizers under Fluid's names; the ones pe lacks raise."""
from ..optimizer import *  # noqa: F401,F403
from ..optimizer import __all__ as _pe_all
from ..optimizer_more import *  # noqa: F401,F403
from ..optimizer_more import __all__ as _more_all
from ..optimizer_average import ModelAverage  # noqa: F401
from .unsupported import unsupported

_MISSING = ["Dpsgd", "DpsgdOptimizer", "PipelineOptimizer",
            "RecomputeOptimizer", "DGCMomentumOptimizer"]
for _name in _MISSING:
    globals()[_name] = unsupported(f"fluid.optimizer.{_name}")

__all__ = list(_pe_all) + list(_more_all) + ["ModelAverage"] + _MISSING
