"""``paddle.distribution.Bernoulli`` (Paddle 2.6.2's, in static programs): 1 with probability ``probs``,
clipped to [eps, 1 - eps] of its dtype."""

import numpy as np

from ...base.dtypes import convert_dtype
from ...framework.variable import Variable
from ...layers.checks import check_type
from ..device import get_default_dtype
from .exponential_family import ExponentialFamily
from ._tensor import F, L, P

EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}


class Bernoulli(ExponentialFamily):
    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        check_type(probs, "probs", (float, Variable), self.name)
        if self._validate_args(probs):
            self.dtype = convert_dtype(probs.dtype)
        else:
            (probs,), self.dtype = self._to_tensor(probs), get_default_dtype()
        eps = EPS.get(self.dtype)
        self.probs = P.cast(P.clip(probs, min=eps, max=1 - eps), self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return P.multiply(self.probs, P.scale(self.probs, -1.0, bias=1.0))

    def sample(self, shape):
        check_type(shape, "shape", (np.ndarray, Variable, list, tuple), self.name + "_sample")
        return P.bernoulli(P.expand(self.probs, list(self._extend_shape(tuple(shape)))))

    def rsample(self, shape, temperature=1.0):
        """The relaxed (Gumbel-softmax, binary Concrete) sample: (logit(u) + logits) / temperature."""
        check_type(shape, "shape", (np.ndarray, Variable, list, tuple), self.name + "_rsample")
        check_type(temperature, "temperature", (float,), self.name + "_rsample")
        shape = list(self._extend_shape(tuple(shape)))
        probs, u = P.expand(self.probs, shape), L.uniform_random(shape, dtype=self.dtype, min=0.0, max=1.0)
        return P.divide(
            P.add(P.subtract(P.log(u), P.log1p(-u)), P.subtract(P.log(probs), P.log1p(-probs))),
            P.full([], temperature, self.dtype),
        )

    def cdf(self, value):
        check_type(value, "value", Variable, self.name + "_cdf")
        value = self._check_values_dtype_in_probs(self.probs, value)
        probs, value = P.broadcast_tensors([self.probs, value])
        ones = P.ones_like(probs)
        return P.where(value < 0, P.zeros_like(probs), P.where(value < 1, P.subtract(ones, probs), ones))

    def log_prob(self, value):
        check_type(value, "value", Variable, self.name + "_log_prob")
        value = self._check_values_dtype_in_probs(self.probs, value)
        logits, value = P.broadcast_tensors([self.logits, value])
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def prob(self, value):
        check_type(value, "value", Variable, self.name + "_prob")
        return P.exp(self.log_prob(value))

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def kl_divergence(self, other):
        check_type(other, "other", Bernoulli, self.name + "_kl_divergence")
        a, b = self.logits, other.logits
        pa, qa = F.sigmoid(a), F.sigmoid(-a)
        return P.add(
            P.subtract(P.multiply(-F.softplus(-a), pa), P.multiply(-F.softplus(-b), pa)),
            P.subtract(P.multiply(-F.softplus(a), qa), P.multiply(-F.softplus(b), qa)),
        )
