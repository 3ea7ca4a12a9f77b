"""``paddle.incubate.optimizer.functional``: Paddle's BFGS and L-BFGS minimizers, which pe lacks
(one-line refusals)."""
from ....base.errors import unsupported

__all__ = ["minimize_bfgs", "minimize_lbfgs"]

minimize_bfgs = unsupported("paddle.incubate.optimizer.functional.minimize_bfgs", "not in pe yet")
minimize_lbfgs = unsupported("paddle.incubate.optimizer.functional.minimize_lbfgs", "not in pe yet")
