"""``paddle.distribution.Geometric`` (Paddle 2.6.2's, in static programs): the number of failures before the
first success of probability ``probs``."""

import numbers

import numpy as np

from ...framework.variable import Variable
from .distribution import Distribution
from ._tensor import L, P


def _count(k):
    if not isinstance(k, (numbers.Integral, Variable)):
        raise TypeError(f"Expected type of k is number.Real|framework.Variable, but got {type(k)}")


class Geometric(Distribution):
    def __init__(self, probs):
        if not isinstance(probs, (numbers.Real, Variable)):
            raise TypeError(f"Expected type of probs is Number.Real|Tensor|framework.Variable, but got {type(probs)}")
        if isinstance(probs, numbers.Real):
            if not 0 < probs <= 1:
                raise ValueError(
                    "Expected parameter probs of distribution Geometric to satisfy theconstraint "
                    "Interval(lower_bound=0.0, upper_bound=1.0)"
                )
            probs = P.full([], float(probs), "float32")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return P.scale(P.divide(P.ones_like(self.probs), self.probs), 1.0, bias=-1.0)

    @property
    def variance(self):
        """(1/p - 1) / p, a value without a gradient: Paddle's passes it through paddle.to_tensor, which
        in a static program stops its gradient (pe's own code calls no to_tensor: that one refuses an eager call)."""
        out = P.divide(self.mean, self.probs)
        out.stop_gradient = True
        return out

    @property
    def stddev(self):
        return P.sqrt(self.variance)

    def pmf(self, k):
        _count(k)
        return P.multiply(P.pow(P.scale(self.probs, -1.0, bias=1.0), k), self.probs)

    def log_pmf(self, k):
        _count(k)
        return P.log(self.pmf(k))

    def sample(self, shape=()):
        return self.rsample(shape)

    def rsample(self, shape=()):
        """floor(log(u) / log(1 - probs)), u ~ U(tiny, 1)."""
        u = L.uniform_random(
            list(self._extend_shape(tuple(shape))), dtype=self.probs.dtype, min=float(np.finfo("float32").tiny), max=1.0
        )
        return P.floor(P.divide(P.log(u), P.log1p(-self.probs)))

    def entropy(self):
        q = P.scale(self.probs, -1.0, bias=1.0)
        return P.divide(-P.add(P.multiply(q, P.log(q)), P.multiply(self.probs, P.log(self.probs))), self.probs)

    def cdf(self, k):
        _count(k)
        k1 = k + 1
        return P.scale(P.pow(P.scale(self.probs, -1.0, bias=1.0), k1), -1.0, bias=1.0)

    def kl_divergence(self, other):
        if not isinstance(other, Geometric):
            raise TypeError(f"Exected type of other is geometric.Geometric, but got {type(other)}")
        p, q = self.probs, other.probs
        p1, q1 = P.scale(p, -1.0, bias=1.0), P.scale(q, -1.0, bias=1.0)
        return P.add(P.multiply(p, P.log(P.divide(p, q))), P.multiply(p1, P.log(P.divide(p1, q1))))
