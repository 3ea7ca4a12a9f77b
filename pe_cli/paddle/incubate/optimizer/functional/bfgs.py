"""``paddle.incubate.optimizer.functional.bfgs``: not in pe (a one-line refusal)."""

from .....base.errors import unsupported

minimize_bfgs = unsupported("paddle.incubate.optimizer.functional.minimize_bfgs", "not in pe yet")
