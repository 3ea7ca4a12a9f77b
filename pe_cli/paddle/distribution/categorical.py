"""``paddle.distribution.Categorical`` (Paddle 2.6.2's, in static programs). As Paddle's: ``probs`` and
``log_prob`` read ``logits`` as unnormalized probabilities (logits / their sum), while ``sample``,
``entropy`` and ``kl_divergence`` read them as logits (a softmax)."""

import numpy as np

from ...base.dtypes import convert_dtype
from ...framework.variable import Variable
from ...layers.checks import check_type
from .distribution import Distribution
from ._tensor import P


class Categorical(Distribution):
    def __init__(self, logits, name=None):
        check_type(logits, "logits", (np.ndarray, Variable, list, tuple), "Categorical")
        self.name = name if name is not None else "Categorical"
        if self._validate_args(logits):
            self.logits, self.dtype = logits, convert_dtype(logits.dtype)
        else:
            self.dtype = (
                str(logits.dtype)
                if isinstance(logits, np.ndarray) and str(logits.dtype) in ("float32", "float64")
                else "float32"
            )
            self.logits = self._to_tensor(logits)[0]
            if convert_dtype(self.logits.dtype) != self.dtype:
                self.logits = P.cast(self.logits, self.dtype)
        self._prob = P.divide(self.logits, P.sum(self.logits, axis=-1, keepdim=True))
        super().__init__(self.logits.shape[:-1])

    def sample(self, shape):
        """Category indices (int64) of shape ``shape`` + the batch shape, drawn from softmax(logits)."""
        check_type(shape, "shape", list, "sample")
        count = int(np.prod(np.array(shape)))
        dims = list(self.logits.shape)
        logits = P.reshape(self.logits, [int(np.prod(dims[:-1])), dims[-1]]) if len(dims) > 1 else self.logits
        index = P.multinomial(self._logits_to_probs(logits), count, True)
        order = list(range(len(index.shape)))
        order.insert(0, order.pop(-1))
        return P.reshape(P.transpose(index, order), list(shape) + dims[:-1])

    def _shifted(self, logits):
        shifted = P.subtract(logits, P.max(logits, axis=-1, keepdim=True))
        total = P.sum(P.exp(shifted), axis=-1, keepdim=True)
        return shifted, total

    def kl_divergence(self, other):
        check_type(other, "other", Categorical, "kl_divergence")
        a, za = self._shifted(self.logits)
        b, zb = self._shifted(other.logits)
        p = P.divide(P.exp(a), za)
        return P.sum(P.multiply(p, P.add(P.subtract(P.subtract(a, P.log(za)), b), P.log(zb))), axis=-1, keepdim=True)

    def entropy(self):
        a, za = self._shifted(self.logits)
        return P.scale(P.sum(P.multiply(P.divide(P.exp(a), za), P.subtract(a, P.log(za))), axis=-1), -1.0)

    def probs(self, value):
        """The probability (logits over their sum) of each category in ``value``."""
        if len(self._prob.shape) == 1:
            return P.reshape(P.gather(self._prob, P.reshape(value, [-1])), list(value.shape))
        if len(value.shape) == 1:
            return P.take_along_axis(self._prob, P.reshape(value, [1] * (len(self._prob.shape) - 1) + [-1]), axis=-1)
        return P.take_along_axis(self._prob, value, axis=-1)

    def log_prob(self, value):
        return P.log(self.probs(value))
