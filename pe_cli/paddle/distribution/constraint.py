"""``paddle.distribution.constraint``: what values a random variable may take, as a test of a tensor."""

from ._tensor import P


class Constraint:
    def __call__(self, value):
        raise NotImplementedError


class Real(Constraint):
    def __call__(self, value):
        return value == value


class Range(Constraint):
    def __init__(self, lower, upper):
        self._lower, self._upper = lower, upper
        super().__init__()

    def __call__(self, value):
        return P.logical_and(value >= self._lower, value <= self._upper)


class Positive(Constraint):
    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    def __call__(self, value):
        return P.logical_and(P.all(value >= 0, axis=-1), P.abs(P.sum(value, -1) - 1) < 1e-6)


real, positive, simplex = Real(), Positive(), Simplex()
