"""``paddle.distribution.Cauchy`` (Paddle 2.6.2's, in static programs): location ``loc``, scale ``scale``."""

import numbers

import numpy as np

from ...framework.variable import Variable
from .distribution import Distribution, full_of
from ._tensor import L, P


def loc_scale(loc, scale):
    """Cauchy's, Gumbel's and Laplace's parameters: numbers or Tensors, numbers made 0-D, broadcast."""
    for what, v in (("loc", loc), ("scale", scale)):
        if not isinstance(v, (numbers.Real, Variable)):
            raise TypeError(f"Expected type of {what} is Real|Variable, but got {type(v)}")
    loc, scale = full_of(loc), full_of(scale)
    return (loc, scale) if tuple(loc.shape) == tuple(scale.shape) else tuple(P.broadcast_tensors([loc, scale]))


def _tensor(value):
    if not isinstance(value, Variable):
        raise TypeError(f"Expected type of value is Variable, but got {type(value)}")


class Cauchy(Distribution):
    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Cauchy"
        self.loc, self.scale = loc_scale(loc, scale)
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape, name=None):
        return self.rsample(shape, name)

    def rsample(self, shape, name=None):
        """loc + scale tan(pi (u - 1/2)), u ~ U[0, 1)."""
        if not isinstance(shape, (np.ndarray, Variable, list, tuple)):
            raise TypeError(f"Expected type of shape is Sequence[int], but got {type(shape)}")
        shape = list(self._extend_shape(tuple(shape)))
        u = L.uniform_random(shape, dtype=self.dtype, min=0.0, max=1.0)
        return P.add(
            P.expand(self.loc, shape),
            P.multiply(P.expand(self.scale, shape), P.tan(P.scale(u, np.pi, bias=-np.pi / 2))),
        )

    def prob(self, value):
        _tensor(value)
        return P.exp(self.log_prob(value))

    def log_prob(self, value):
        _tensor(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = P.broadcast_tensors([self.loc, self.scale, value])
        return P.subtract(
            -P.log1p(P.square(P.divide(P.subtract(value, loc), scale))),
            P.add(P.full(loc.shape, float(np.log(np.pi)), self.dtype), P.log(scale)),
        )

    def cdf(self, value):
        _tensor(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = P.broadcast_tensors([self.loc, self.scale, value])
        return P.scale(P.atan(P.divide(P.subtract(value, loc), scale)), 1.0 / np.pi, bias=0.5)

    def entropy(self):
        return P.add(P.full(self.loc.shape, float(np.log(4 * np.pi)), self.dtype), P.log(self.scale))

    def kl_divergence(self, other):
        if not isinstance(other, Cauchy):
            raise TypeError(f"Expected type of other is Cauchy, but got {type(other)}")
        t1 = P.log(P.add(P.pow(P.add(self.scale, other.scale), 2), P.pow(P.subtract(self.loc, other.loc), 2)))
        return P.subtract(t1, P.log(P.scale(P.multiply(self.scale, other.scale), 4.0)))
