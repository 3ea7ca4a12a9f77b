"""``paddle.distribution.Normal`` (Paddle 2.6.2's, in static programs): N(loc, scale^2)."""

import math
from collections.abc import Iterable

import numpy as np

from ...base.dtypes import convert_dtype
from ...framework.variable import Variable
from ...layers.checks import check_type
from .distribution import Distribution, as_dtype_of
from ._tensor import L, P

PARAMS = (int, float, np.ndarray, Variable, list, tuple)


def parameters(dist, who, a, b):
    """(a, b) as Tensors of one dtype, and whether both were Python numbers (Normal's and Uniform's rule:
    numbers and arrays become float32 constants, cast to a float64 array's dtype)."""
    check_type(a, "loc" if who == "Normal" else "low", PARAMS, who)
    check_type(b, "scale" if who == "Normal" else "high", PARAMS, who)
    a, b = (float(v) if isinstance(v, int) else v for v in (a, b))
    if dist._validate_args(a, b):
        dist.dtype = convert_dtype(a.dtype)
        return a, b, False
    dist.dtype = "float32"
    for v in (a, b):
        if isinstance(v, np.ndarray) and str(v.dtype) in ("float32", "float64"):
            dist.dtype = str(v.dtype)
            break
    ta, tb = dist._to_tensor(a, b)
    return (*as_dtype_of(dist.dtype, ta, tb), isinstance(a, float) and isinstance(b, float))


def draws(kind, shape, batch_like, dtype, seed):
    """Standard normal (or U[0, 1)) draws of ``shape`` + the batch shape; a batch whose first dim is
    known only at run time takes it from ``batch_like``."""
    batch = list(batch_like.shape)
    if -1 not in batch:
        make = L.gaussian_random if kind == "normal" else L.uniform_random
        args = dict(mean=0.0, std=1.0) if kind == "normal" else dict(min=0.0, max=1.0)
        return make(list(shape) + batch, dtype=dtype, seed=seed, **args)
    make = L.gaussian_random_batch_size_like if kind == "normal" else L.uniform_random_batch_size_like
    args = dict(mean=0.0, std=1.0) if kind == "normal" else dict(min=0.0, max=1.0)
    return make(
        batch_like, list(shape) + batch, dtype=dtype, input_dim_idx=0, output_dim_idx=len(shape), seed=seed, **args
    )


class Normal(Distribution):
    """N(loc, scale^2): parameters numbers, lists, numpy arrays or Tensors (batch shape: theirs)."""

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Normal"
        self.loc, self.scale, self.all_arg_is_float = parameters(self, "Normal", loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return P.pow(self.scale, 2)

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape`` + batch shape (``shape`` alone when both parameters were numbers)."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        check_type(seed, "seed", int, "sample")
        both = P.add(self.loc, self.scale)
        out = P.add(P.multiply(draws("normal", shape, both, self.dtype, seed), self.scale), self.loc)
        return P.reshape(out, list(shape)) if self.all_arg_is_float and -1 not in both.shape else out

    def rsample(self, shape=()):
        """loc + eps * scale, eps standard normal (differentiable in loc and scale)."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        eps = L.gaussian_random(list(self._extend_shape(tuple(shape))), dtype=self.dtype)
        return P.add(self.loc, P.multiply(eps, self.scale))

    def entropy(self):
        """1/2 + 1/2 log(2 pi) + log(scale)."""
        zero = P.zeros_like(P.add(self.loc, self.scale))
        return P.add(
            P.scale(zero, 1.0, bias=0.5), P.scale(P.log(P.add(self.scale, zero)), 1.0, bias=0.5 * math.log(2 * math.pi))
        )

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        diff = P.subtract(value, self.loc)
        return P.subtract(
            P.divide(P.scale(P.multiply(diff, diff), -1.0), P.scale(P.multiply(self.scale, self.scale), 2.0)),
            P.scale(P.log(self.scale), 1.0, bias=math.log(math.sqrt(2.0 * math.pi))),
        )

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        diff = P.subtract(value, self.loc)
        density = P.exp(
            P.divide(P.scale(P.multiply(diff, diff), -1.0), P.scale(P.multiply(self.scale, self.scale), 2.0))
        )
        return P.divide(density, P.scale(self.scale, math.sqrt(2 * math.pi)))

    def kl_divergence(self, other):
        """KL(self || other) of two Normals."""
        check_type(other, "other", Normal, "kl_divergence")
        ratio = P.divide(self.scale, other.scale)
        ratio = P.multiply(ratio, ratio)
        t1 = P.divide(P.subtract(self.loc, other.loc), other.scale)
        t1 = P.multiply(t1, t1)
        return P.add(P.scale(ratio, 0.5), P.scale(P.subtract(P.scale(t1, 1.0, bias=-1.0), P.log(ratio)), 0.5))
