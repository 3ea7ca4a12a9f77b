"""Fluid 1.8's ``fluid.layers.distributions``: Uniform, Normal, Categorical, MultivariateNormalDiag,
built from pe's layers (each method appends the ops that compute it; no op of its own).

Parameters are floats, lists, numpy arrays (made float32 variables of one broadcast shape, as Fluid's
``_to_variable``) or Variables (all of them then; the batch size may be unknown, and ``sample`` draws
as many rows as the run's batch through ``*_random_batch_size_like``). One deliberate difference:
Fluid's Uniform.sample with numbers draws ``uniform_random`` at its default range [-1, 1) and so
returns values below ``low``; pe's draws U[low, high), as the class documents. Samples of Variable
parameters: see ``_zeros_of_batch``.
"""

import math
import warnings

import numpy as np

from ..base.errors import ArgumentTypeError, ArgumentValueError
from ..framework.variable import Variable
from .activation import exp, log
from .logic import less_than
from .creation import fill_constant_batch_size_like
from .random import gaussian_random, gaussian_random_batch_size_like, uniform_random, uniform_random_batch_size_like
from .creation import assign_array_like, create_tensor, diag, ones, zeros
from .elementwise import elementwise_pow
from .linalg import matmul
from .manipulation import cast, reshape
from .reduction import reduce_max, reduce_prod, reduce_sum

__all__ = ["Uniform", "Normal", "Categorical", "MultivariateNormalDiag"]


def _check_type(value, what, types, owner):
    if not isinstance(value, types):
        names = ", ".join(t.__name__ for t in types)
        raise ArgumentTypeError(f"{owner}: {what} must be one of ({names}), got {type(value).__name__}")


class Distribution:
    """The base class: sample, entropy, log_prob, kl_divergence."""

    def sample(self):
        raise NotImplementedError(f"{type(self).__name__} has no sample()")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} has no entropy()")

    def kl_divergence(self, other):
        raise NotImplementedError(f"{type(self).__name__} has no kl_divergence()")

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no log_prob()")

    @staticmethod
    def _validate_args(*args):
        """True when the arguments are Variables; a ValueError when some are and some are not."""
        kinds = {isinstance(a, Variable) for a in args}
        if len(kinds) > 1:
            raise ArgumentValueError("if one argument is Variable, all arguments should be Variable")
        return kinds == {True}

    @staticmethod
    def _to_variable(*args):
        """Numbers, lists and arrays as float32 variables, broadcast to one shape (a float is [1])."""
        arrays = []
        for arg in args:
            array = np.zeros(1) + arg if isinstance(arg, float) else np.array(arg)
            if array.dtype != np.float32:
                warnings.warn(
                    "data type of argument only support float32, your argument will be convert to float32.",
                    stacklevel=3,
                )
                array = array.astype("float32")
            arrays.append(array)
        out = []
        for array in np.broadcast_arrays(*arrays):
            var = create_tensor(dtype="float32")
            assign_array_like(np.ascontiguousarray(array), var)
            out.append(var)
        return tuple(out)


def _zeros_of_batch(params, shape, batch_shape):
    """Zeros of ``shape + batch_shape`` whose unknown batch dim is the run's (taken from ``params``), and
    the dims a ``*_random_batch_size_like`` of them copies that size between:
    parameters of the batch shape broadcast onto it from the end. (Fluid makes zeros of ``batch_shape +
    shape`` and reshapes the result, which pairs a draw with the parameters of another position unless
    ``shape`` equals ``batch_shape``; the shape returned is the same.)"""
    unknown = next((i for i, d in enumerate(batch_shape) if d < 0), 0)
    dims = {"input_dim_idx": len(shape) + unknown, "output_dim_idx": len(shape) + unknown}
    zero = fill_constant_batch_size_like(
        params, shape + batch_shape, params.dtype, 0.0, input_dim_idx=unknown, output_dim_idx=dims["output_dim_idx"]
    )
    return zero, dims


def _sample_shape(shape, owner):
    _check_type(shape, "shape", (list,), f"{owner}.sample")
    return list(shape)


class Uniform(Distribution):
    """U[low, high): pdf 1 / (high - low) on [low, high); ``low`` and ``high`` broadcast."""

    def __init__(self, low, high):
        for value, what in ((low, "low"), (high, "high")):
            _check_type(value, what, (float, np.ndarray, Variable, list), "Uniform")
        self.all_arg_is_float = isinstance(low, float) and isinstance(high, float)
        self.batch_size_unknown = self._validate_args(low, high)
        self.low, self.high = (low, high) if self.batch_size_unknown else self._to_variable(low, high)

    def sample(self, shape, seed=0):
        """Draws of shape ``shape + batch shape`` (``shape`` alone for float parameters)."""
        shape = _sample_shape(shape, "Uniform")
        _check_type(seed, "seed", (int,), "Uniform.sample")
        batch_shape = list((self.low + self.high).shape)
        if self.batch_size_unknown:
            zero, dims = _zeros_of_batch(self.low + self.high, shape, batch_shape)
            draws = uniform_random_batch_size_like(zero, zero.shape, min=0.0, max=1.0, seed=seed, **dims)
            return draws * (zero + self.high - self.low) + self.low
        out_shape = shape + batch_shape
        draws = uniform_random(out_shape, min=0.0, max=1.0, seed=seed)
        out = draws * (zeros(out_shape, dtype=self.low.dtype) + (self.high - self.low)) + self.low
        return reshape(out, shape) if self.all_arg_is_float else out

    def log_prob(self, value):
        """log(1 / (high - low)) inside [low, high), -inf outside."""
        _check_type(value, "value", (Variable,), "Uniform.log_prob")
        inside = cast(less_than(self.low, value), value.dtype) * cast(less_than(value, self.high), value.dtype)
        return log(inside) - log(self.high - self.low)

    def entropy(self):
        """log(high - low)."""
        return log(self.high - self.low)


class Normal(Distribution):
    """N(loc, scale^2); ``loc`` and ``scale`` broadcast."""

    def __init__(self, loc, scale):
        for value, what in ((loc, "loc"), (scale, "scale")):
            _check_type(value, what, (float, np.ndarray, Variable, list), "Normal")
        self.all_arg_is_float = isinstance(loc, float) and isinstance(scale, float)
        self.batch_size_unknown = self._validate_args(loc, scale)
        self.loc, self.scale = (loc, scale) if self.batch_size_unknown else self._to_variable(loc, scale)

    def sample(self, shape, seed=0):
        """Draws of shape ``shape + batch shape`` (``shape`` alone for float parameters)."""
        shape = _sample_shape(shape, "Normal")
        _check_type(seed, "seed", (int,), "Normal.sample")
        batch_shape = list((self.loc + self.scale).shape)
        if self.batch_size_unknown:
            zero, dims = _zeros_of_batch(self.loc + self.scale, shape, batch_shape)
            draws = gaussian_random_batch_size_like(zero, zero.shape, mean=0.0, std=1.0, seed=seed, **dims)
            return draws * (zero + self.scale) + self.loc
        out_shape = shape + batch_shape
        draws = gaussian_random(out_shape, mean=0.0, std=1.0, seed=seed)
        out = draws * (zeros(out_shape, dtype=self.loc.dtype) + self.scale) + self.loc
        return reshape(out, shape) if self.all_arg_is_float else out

    def entropy(self):
        """0.5 + 0.5 log(2 pi) + log(scale), of the batch shape."""
        batch_shape = list((self.loc + self.scale).shape)
        zero = fill_constant_batch_size_like(self.loc + self.scale, batch_shape, self.loc.dtype, 0.0)
        return 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale + zero)

    def log_prob(self, value):
        """-(value - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi))."""
        _check_type(value, "value", (Variable,), "Normal.log_prob")
        var = self.scale * self.scale
        diff = value - self.loc
        return -1.0 * (diff * diff) / (2.0 * var) - log(self.scale) - math.log(math.sqrt(2.0 * math.pi))

    def kl_divergence(self, other):
        """KL(self || other) = 0.5 (r + t^2 - 1 - log r), r = (scale / other.scale)^2,
        t = (loc - other.loc) / other.scale."""
        _check_type(other, "other", (Normal,), "Normal.kl_divergence")
        ratio = self.scale / other.scale
        ratio = ratio * ratio
        t = (self.loc - other.loc) / other.scale
        return 0.5 * (ratio + t * t - 1.0 - log(ratio))


class Categorical(Distribution):
    """A categorical distribution over the last dimension of ``logits`` (unnormalized log-probabilities)."""

    def __init__(self, logits):
        _check_type(logits, "logits", (np.ndarray, Variable, list), "Categorical")
        self.logits = logits if self._validate_args(logits) else self._to_variable(logits)[0]

    @staticmethod
    def _normalized(logits):
        """(logits - max, exp of that, its sum over the last dim)."""
        shifted = logits - reduce_max(logits, dim=-1, keep_dim=True)
        e = exp(shifted)
        return shifted, e, reduce_sum(e, dim=-1, keep_dim=True)

    def kl_divergence(self, other):
        """sum_k p_k (log p_k - log q_k) over the last dim (kept as size 1)."""
        _check_type(other, "other", (Categorical,), "Categorical.kl_divergence")
        logits, e, z = self._normalized(self.logits)
        other_logits, _, other_z = self._normalized(other.logits)
        prob = e / z
        return reduce_sum(prob * (logits - log(z) - other_logits + log(other_z)), dim=-1, keep_dim=True)

    def entropy(self):
        """-sum_k p_k log p_k over the last dim (kept as size 1)."""
        logits, e, z = self._normalized(self.logits)
        prob = e / z
        return -1.0 * reduce_sum(prob * (logits - log(z)), dim=-1, keep_dim=True)


class MultivariateNormalDiag(Distribution):
    """N(loc, scale) with ``loc`` [k] and a diagonal covariance ``scale`` [k, k]."""

    def __init__(self, loc, scale):
        for value, what in ((loc, "loc"), (scale, "scale")):
            _check_type(value, what, (np.ndarray, Variable, list), "MultivariateNormalDiag")
        self.loc, self.scale = (loc, scale) if self._validate_args(loc, scale) else self._to_variable(loc, scale)

    def _ones(self, value):
        """(ones shaped like ``value``, the identity of its size)."""
        shape = list(value.shape)
        return ones(shape, dtype=self.loc.dtype), diag(ones([shape[0]], dtype=self.loc.dtype))

    def _det(self, value):
        """The product of the diagonal (off-diagonal zeros replaced by ones)."""
        one_all, one_diag = self._ones(value)
        return reduce_prod(value + one_all - one_diag)

    def _inv(self, value):
        """The diagonal's reciprocals (off-diagonal entries to the power 1: the zeros stay)."""
        one_all, one_diag = self._ones(value)
        return elementwise_pow(value, one_all - 2 * one_diag)

    def entropy(self):
        """0.5 (k (1 + log 2 pi) + log det(scale))."""
        return 0.5 * (self.scale.shape[0] * (1.0 + math.log(2 * math.pi)) + log(self._det(self.scale)))

    def kl_divergence(self, other):
        """0.5 (tr(other^-1 self) + d other^-1 d - k + log det(other) - log det(self)), d = other.loc - loc."""
        _check_type(other, "other", (MultivariateNormalDiag,), "MultivariateNormalDiag.kl_divergence")
        inv_other = self._inv(other.scale)
        trace = reduce_sum(inv_other * self.scale)
        diff = other.loc - self.loc
        quadratic = matmul(matmul(diff, inv_other), diff)
        k = list(self.scale.shape)[0]
        ln_cov = log(self._det(other.scale)) - log(self._det(self.scale))
        return 0.5 * (trace + quadratic - k + ln_cov)
