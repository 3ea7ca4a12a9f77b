"""``paddle.distribution.variable``: the domains of transforms: a constraint and how many rightmost dims
make one event (``event_rank``)."""

from . import constraint
from ._tensor import P


class Variable:
    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete, self._event_rank, self._constraint = is_discrete, event_rank, constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        return self._constraint(value)


class Real(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.real)


class Positive(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.positive)


class Independent(Variable):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch dims read as event dims."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base, self._reinterpreted_batch_rank = base, reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ok = self._base.constraint(value)
        if len(ok.shape) < self._reinterpreted_batch_rank:
            raise ValueError(f"Input dimensions must be equal or grater than  {self._reinterpreted_batch_rank}")
        keep = list(ok.shape[: len(ok.shape) - self._reinterpreted_batch_rank])
        return P.all(P.reshape(ok, keep + [-1]), axis=-1)


class Stack(Variable):
    def __init__(self, vars, axis=0):  # noqa: A002 -- Paddle's name
        self._vars, self._axis = vars, axis

    @property
    def is_discrete(self):
        return any(v.is_discrete for v in self._vars)

    @property
    def event_rank(self):
        rank = max(v.event_rank for v in self._vars)
        return rank + 1 if self._axis + rank < 0 else rank

    def constraint(self, value):
        if not -len(value.shape) <= self._axis < len(value.shape):
            raise ValueError(
                f"Input dimensions {len(value.shape)} should be grater than stack constraint axis {self._axis}."
            )
        return P.stack([v.constraint(part) for v, part in zip(self._vars, P.unstack(value, self._axis))], self._axis)


real, positive = Real(), Positive()
