"""``paddle.distribution.Beta`` (Paddle 2.6.2's, in static programs): a Dirichlet over [x, 1 - x]."""

import numbers

from .dirichlet import Dirichlet
from .exponential_family import ExponentialFamily
from ._tensor import P


class Beta(ExponentialFamily):
    def __init__(self, alpha, beta):
        alpha = P.full([], float(alpha)) if isinstance(alpha, numbers.Real) else alpha
        beta = P.full([], float(beta)) if isinstance(beta, numbers.Real) else beta
        self.alpha, self.beta = P.broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(P.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return P.divide(self.alpha, P.add(self.alpha, self.beta))

    @property
    def variance(self):
        total = P.add(self.alpha, self.beta)
        return P.divide(P.multiply(self.alpha, self.beta), P.multiply(P.pow(total, 2), P.scale(total, 1.0, bias=1.0)))

    def prob(self, value):
        return P.exp(self.log_prob(value))

    def log_prob(self, value):
        return self._dirichlet.log_prob(P.stack([value, P.scale(value, -1.0, bias=1.0)], -1))

    def sample(self, shape=()):
        draws = self._dirichlet.sample(tuple(shape))
        first = P.squeeze(P.slice(draws, [len(draws.shape) - 1], [0], [1]), axis=-1)  # Paddle's draws[..., 0]
        return P.squeeze(first, axis=-1)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return P.subtract(P.add(P.lgamma(x), P.lgamma(y)), P.lgamma(P.add(x, y)))
