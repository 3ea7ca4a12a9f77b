"""``paddle.distribution.LogNormal`` (Paddle 2.6.2's, in static programs): exp of a Normal(loc, scale)."""

from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution
from ._tensor import P


class LogNormal(TransformedDistribution):
    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return P.exp(P.add(self._base.mean, P.scale(self._base.variance, 0.5)))

    @property
    def variance(self):
        v = self._base.variance
        return P.multiply(P.expm1(v), P.exp(P.add(P.scale(self._base.mean, 2.0), v)))

    def entropy(self):
        return P.add(self._base.entropy(), self._base.mean)

    def probs(self, value):
        return P.exp(self.log_prob(value))

    def kl_divergence(self, other):
        return self._base.kl_divergence(other._base)
