"""``paddle.distribution.Gumbel`` (Paddle 2.6.2's, in static programs): location ``loc``, scale ``scale``; a
TransformedDistribution of a Uniform(tiny, 1 - eps), as Paddle builds it."""

import math

import numpy as np

from .cauchy import loc_scale
from .transform import AffineTransform, ExpTransform
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from ._tensor import P


class Gumbel(TransformedDistribution):
    def __init__(self, loc, scale):
        self.loc, self.scale = loc_scale(loc, scale)
        tiny, eps = float(np.finfo("float32").tiny), float(np.finfo("float32").eps)
        self.base_dist = Uniform(P.full_like(self.loc, tiny), P.full_like(self.loc, 1 - eps))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return P.add(self.loc, P.scale(self.scale, float(np.euler_gamma)))

    @property
    def variance(self):
        return P.divide(
            P.multiply(P.pow(self.scale, 2), P.full(self.loc.shape, math.pi * math.pi, self.scale.dtype)),
            P.full([], 6.0, self.scale.dtype),
        )

    @property
    def stddev(self):
        return P.sqrt(self.variance)

    def prob(self, value):
        y = P.divide(P.subtract(self.loc, value), self.scale)
        return P.divide(P.exp(P.subtract(y, P.exp(y))), self.scale)

    def log_prob(self, value):
        return P.log(self.prob(value))

    def cdf(self, value):
        return P.exp(-P.exp(-P.divide(P.subtract(value, self.loc), self.scale)))

    def entropy(self):
        return P.scale(P.log(self.scale), 1.0, bias=1.0 + float(np.euler_gamma))

    def sample(self, shape):
        return self.rsample(shape)

    def rsample(self, shape):
        """loc - scale log(-log(u)), u from the base Uniform."""
        exp = ExpTransform()
        first = AffineTransform(P.full(self.scale.shape, 0.0, self.loc.dtype), -P.ones_like(self.scale))
        second = AffineTransform(self.loc, -self.scale)
        return second.forward(exp.inverse(first.forward(exp.inverse(self._base.sample(list(shape))))))
