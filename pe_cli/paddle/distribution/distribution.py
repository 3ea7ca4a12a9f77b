"""``paddle.distribution.Distribution``: the base of Paddle 2.6.2's distributions in static programs: a
batch shape (independent distributions) and an event shape (one draw), and the helpers every
distribution uses to take numbers, lists, numpy arrays or Tensors as parameters."""

import warnings

import numpy as np

from ...base.dtypes import convert_dtype
from ...framework.variable import Variable
from ...layers.checks import check_variable_and_dtype
from ._tensor import F, P


class Distribution:
    """``batch_shape``: independent, not identically distributed draws; ``event_shape``: one draw's shape
    ([] for scalar distributions)."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def variance(self):
        raise NotImplementedError

    def sample(self, shape=()):
        raise NotImplementedError

    def rsample(self, shape=()):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def kl_divergence(self, other):
        raise NotImplementedError

    def prob(self, value):
        """exp(log_prob(value))."""
        return P.exp(self.log_prob(value))

    def log_prob(self, value):
        raise NotImplementedError

    def probs(self, value):
        raise NotImplementedError

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """Whether the arguments are Tensors (all of them: a Tensor and a number together is a ValueError)."""
        tensors = [isinstance(a, Variable) for a in args]
        if any(tensors) and not all(tensors):
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return any(tensors)

    def _to_tensor(self, *args):
        """Numbers, lists, tuples, numpy arrays as float32 constants of their broadcast shape (as Paddle's: a
        float64 array too; the distributions cast back to a float64 array's dtype)."""
        arrays = []
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray, Variable)):
                raise TypeError(
                    f"Type of input args must be float, list, tuple, numpy.ndarray or Tensor, but received "
                    f"type {type(arg)}"
                )
            a = np.array(arg)
            if str(a.dtype) not in ("float32", "float64"):
                warnings.warn(
                    "data type of argument only support float32 and float64, your argument will be convert to float32."
                )
            arrays.append(a.astype("float32"))
        total = sum(arrays[1:], arrays[0] * 1)
        return tuple(P.assign(np.broadcast_arrays(a, total)[0].astype(total.dtype)) for a in arrays)

    def _check_values_dtype_in_probs(self, param, value):
        """value (float32 or float64) cast to the parameter's dtype, with Paddle's warning when it differs."""
        check_variable_and_dtype(value, "value", ("float32", "float64"), "log_prob")
        if value.dtype != param.dtype:
            warnings.warn(
                "dtype of input 'value' needs to be the same as parameters of distribution class. dtype of "
                "'value' will be converted."
            )
            return P.cast(value, param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        return P.subtract(P.log(probs), P.log1p(-probs)) if is_binary else P.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)


def as_dtype_of(dtype, *tensors):
    """The tensors cast to ``dtype`` where they differ."""
    return tuple(t if convert_dtype(t.dtype) == convert_dtype(dtype) else P.cast(t, dtype) for t in tensors)


def sum_rightmost(value, n):
    """value summed over its ``n`` rightmost dims."""
    return P.sum(value, list(range(-n, 0))) if n > 0 else value


def full_of(value, dtype=None):
    """A number as a 0-D constant (Paddle's ``paddle.full(shape=[], fill_value=...)``), a Tensor as it is."""
    return value if isinstance(value, Variable) else P.full([], float(value), dtype)


__all__ = ["Distribution"]
