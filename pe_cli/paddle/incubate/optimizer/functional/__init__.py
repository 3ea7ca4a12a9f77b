"""``paddle.incubate.optimizer.functional``: Paddle's BFGS and L-BFGS minimizers, which pe lacks
(one-line refusals, also under their submodules ``bfgs`` and ``lbfgs``)."""

from .bfgs import minimize_bfgs  # noqa: F401
from .lbfgs import minimize_lbfgs  # noqa: F401

__all__ = ["minimize_bfgs", "minimize_lbfgs"]
