"""``paddle.incubate.optimizer.functional.lbfgs``: not in pe (a one-line refusal)."""

from .....base.errors import unsupported

minimize_lbfgs = unsupported("paddle.incubate.optimizer.functional.minimize_lbfgs", "not in pe yet")
