"""``paddle.distribution.Uniform`` (Paddle 2.6.2's, in static programs): U[low, high)."""

from ...layers.checks import check_type
from .distribution import Distribution
from .normal import draws, parameters
from ._tensor import P


class Uniform(Distribution):
    """U[low, high): parameters numbers, lists, numpy arrays or Tensors."""

    def __init__(self, low, high, name=None):
        self.name = name if name is not None else "Uniform"
        self.low, self.high, self.all_arg_is_float = parameters(self, "Uniform", low, high)
        super().__init__(self.low.shape)

    def sample(self, shape, seed=0):
        """Draws of shape ``shape`` (a list) + batch shape (``shape`` alone when both parameters were numbers)."""
        check_type(shape, "shape", list, "sample")
        check_type(seed, "seed", int, "sample")
        both = P.add(self.low, self.high)
        out = P.add(
            P.multiply(draws("uniform", shape, both, self.dtype, seed), P.subtract(self.high, self.low)), self.low
        )
        return P.reshape(out, list(shape)) if self.all_arg_is_float and -1 not in both.shape else out

    def _inside(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return P.multiply(P.cast(self.low < value, value.dtype), P.cast(value < self.high, value.dtype))

    def log_prob(self, value):
        """log(1 / (high - low)) inside (low, high), -inf outside."""
        return P.subtract(P.log(self._inside(value)), P.log(P.subtract(self.high, self.low)))

    def probs(self, value):
        return P.divide(self._inside(value), P.subtract(self.high, self.low))

    def entropy(self):
        return P.log(P.subtract(self.high, self.low))
