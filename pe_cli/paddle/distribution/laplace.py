"""``paddle.distribution.Laplace`` (Paddle 2.6.2's, in static programs): location ``loc``, scale ``scale``."""

import numbers

import numpy as np

from .cauchy import loc_scale
from .distribution import Distribution
from ._tensor import L, P


class Laplace(Distribution):
    def __init__(self, loc, scale):
        self.loc, self.scale = loc_scale(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return P.scale(self.scale, 2**0.5)

    @property
    def variance(self):
        return P.pow(self.stddev, 2)

    def _validate_value(self, value):
        value = P.full([], float(value)) if isinstance(value, numbers.Real) else value
        if value.dtype != self.scale.dtype:
            value = P.cast(value, self.scale.dtype)
        if self.scale.shape or self.loc.shape or value.shape:
            return tuple(P.broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        loc, scale, value = self._validate_value(value)
        return P.subtract(-P.log(P.scale(scale, 2.0)), P.divide(P.abs(P.subtract(value, loc)), scale))

    def entropy(self):
        return P.scale(P.log(P.scale(self.scale, 2.0)), 1.0, bias=1.0)

    def cdf(self, value):
        loc, scale, value = self._validate_value(value)
        diff = P.subtract(value, loc)
        return P.scale(P.multiply(P.sign(diff), P.expm1(P.divide(-P.abs(diff), scale))), -0.5, bias=0.5)

    def icdf(self, value):
        loc, scale, value = self._validate_value(value)
        term = P.scale(value, 1.0, bias=-0.5)
        return P.subtract(loc, P.multiply(P.multiply(scale, P.sign(term)), P.log1p(P.scale(P.abs(term), -2.0))))

    def sample(self, shape=()):
        return self.rsample(tuple(shape))

    def rsample(self, shape):
        """loc - scale sign(u) log(1 - |u|), u ~ U(-1, 1) kept off the ends by eps / 2."""
        eps = 2.22045e-16 if self.loc.dtype == "float64" else 1.19209e-07
        u = L.uniform_random(
            list(self._extend_shape(tuple(shape))),
            dtype=self.loc.dtype,
            min=float(np.nextafter(-1, 1)) + eps / 2,
            max=1.0 - eps / 2,
        )
        return P.subtract(self.loc, P.multiply(P.multiply(self.scale, P.sign(u)), P.log1p(-P.abs(u))))

    def kl_divergence(self, other):
        t = P.abs(P.subtract(self.loc, other.loc))
        term1 = P.divide(P.add(P.multiply(self.scale, P.exp(P.divide(-t, self.scale))), t), other.scale)
        return P.scale(P.add(term1, P.log(P.divide(other.scale, self.scale))), 1.0, bias=-1.0)
