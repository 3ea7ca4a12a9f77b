"""``paddle.distribution.Multinomial`` (Paddle 2.6.2's, in static programs): counts of ``total_count``
draws from the categories of ``probs`` (normalized along its last dim)."""

from collections.abc import Iterable

from .categorical import Categorical
from .distribution import Distribution
from ._tensor import F, P


def _clip_by_zero(x):
    return P.scale(P.subtract(P.add(P.clip(x, min=0.0), x), P.clip(x, max=0.0)), 0.5)


class Multinomial(Distribution):
    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError("input parameter total_count must be int type and grater than zero.")
        if len(probs.shape) < 1:
            raise ValueError("probs parameter shoule not be none and over one dimension")
        self.probs = P.divide(probs, P.sum(probs, -1, keepdim=True))
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        return P.scale(self.probs, float(self.total_count))

    @property
    def variance(self):
        return P.multiply(P.scale(self.probs, float(self.total_count)), P.scale(self.probs, -1.0, bias=1.0))

    def prob(self, value):
        return P.exp(self.log_prob(value))

    def log_prob(self, value):
        """log n! - sum log k_i! + sum k_i log p_i (a category of probability 0 counted 0 times adds 0)."""
        if P.is_integer(value):
            value = P.cast(value, self.probs.dtype)
        logits, value = P.broadcast_tensors([P.log(self.probs), value])
        logits = P.where(P.logical_and(value == 0, P.isinf(logits)), P.zeros_like(logits), logits)
        return P.add(
            P.subtract(
                P.lgamma(P.scale(P.sum(value, -1), 1.0, bias=1.0)), P.sum(P.lgamma(P.scale(value, 1.0, bias=1.0)), -1)
            ),
            P.sum(P.multiply(value, logits), -1),
        )

    def sample(self, shape=()):
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        draws = self._categorical.sample([self.total_count] + list(shape))
        return P.sum(P.cast(F.one_hot(draws, self.probs.shape[-1]), self.probs.dtype), 0)

    def entropy(self):
        """n H(categorical) - log n! + E[sum log k_i!], the expectation over each category's binomial."""
        dtype = self.probs.dtype
        n = P.full([], float(self.total_count), dtype)
        support = P.reshape(P.arange(1, self.total_count + 1, dtype=dtype), [-1] + [1] * len(self.probs.shape))
        pmf = P.exp(self._binomial_logpmf(n, support))
        return P.add(
            P.subtract(P.multiply(n, self._categorical.entropy()), P.lgamma(P.scale(n, 1.0, bias=1.0))),
            P.sum(P.multiply(pmf, P.lgamma(P.scale(support, 1.0, bias=1.0))), [0, -1]),
        )

    def _binomial_logpmf(self, count, value):
        logits = self._probs_to_logits(self.probs, is_binary=True)
        factor_n = P.lgamma(P.scale(count, 1.0, bias=1.0))
        norm = P.subtract(
            P.add(P.multiply(count, _clip_by_zero(logits)), P.multiply(count, P.log1p(P.exp(-P.abs(logits))))), factor_n
        )
        return P.subtract(
            P.subtract(
                P.subtract(P.multiply(value, logits), P.lgamma(P.scale(value, 1.0, bias=1.0))),
                P.lgamma(P.scale(P.subtract(count, value), 1.0, bias=1.0)),
            ),
            norm,
        )
