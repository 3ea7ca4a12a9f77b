"""Paddle 2.x's random tensor functions (``paddle.rand``, ``paddle.randn``, ``paddle.normal``, ``paddle.randint``,
``paddle.multinomial``, ...) with 2.x's signatures and semantics, built from pe's random layers; dtypes and
shapes are read as tensor_create.py reads them. Draws follow the program's seed (``random_seed``)."""

import numpy as np

from .. import layers as L
from ..base.dtypes import convert_dtype
from ..base.errors import PeError
from ..framework.program import default_main_program
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import single as _single
from .tensor_manip import _known
from .tensor_create import _dtype, _shape
from .tensor_search import argmax

__all__ = [
    "rand",
    "randn",
    "randint",
    "randint_like",
    "randperm",
    "uniform",
    "normal",
    "standard_normal",
    "bernoulli",
    "poisson",
    "multinomial",
]


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    shape = _shape(shape)  # (shape []: a 0-D tensor, as in Paddle 2.6)
    return L.uniform_random(shape, dtype=_dtype(dtype), min=float(min), max=float(max), seed=seed, zero_dim=True)


def rand(shape, dtype=None, name=None):
    """Uniform in [0, 1)."""
    return uniform(shape, dtype, 0.0, 1.0)


def randn(shape, dtype=None, name=None, *, out=None, device=None, stop_gradient=True):
    """Standard normal. ``out``, ``device`` and ``stop_gradient`` are Fluid 1.8's ``paddle.randn``'s
    (keywords here: Paddle 2's order comes first); as there, ``shape`` is a non-empty list or tuple in a Fluid
    1.8 program, and [] gives a 0-D tensor in a Paddle 2.x one (after ``paddle.enable_static()``)."""
    if not isinstance(shape, (list, tuple, Variable)):
        raise TypeError(f"randn: the type of 'shape' must be list or tuple, but received {type(shape).__name__}")
    if isinstance(shape, (list, tuple)) and not shape and default_main_program()._follows_paddle2:
        if out is not None or device is not None:
            raise TypeError("randn: out and device are Fluid 1.8's arguments; Paddle 2.x's randn takes neither")
        result = L.gaussian_random([], 0.0, 1.0, dtype=_dtype(dtype), zero_dim=True)
        result.stop_gradient = stop_gradient
        return result
    assert len(shape) > 0, "The size of argument(shape) can't be zero."
    return L.randn(_shape(shape), out=out, dtype=_dtype(dtype), device=device, stop_gradient=stop_gradient)


standard_normal = randn


def gaussian(shape, mean=0.0, std=1.0, seed=0, dtype=None, name=None):
    """``paddle.tensor.random.gaussian`` (Paddle 2.6's, not in its ``__all__``): N(mean, std^2) draws of ``shape``,
    the gaussian_random op with ``seed`` (0: the program's)."""
    shape = _shape(shape)  # (shape []: a 0-D tensor, as in Paddle 2.6)
    return L.gaussian_random(shape, float(mean), float(std), int(seed), _dtype(dtype), name=name, zero_dim=True)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal values of ``mean`` and ``std`` (numbers, with ``shape``; or Tensors, shaped like them)."""
    if not isinstance(mean, Variable) and not isinstance(std, Variable):
        shape = _shape([1] if shape is None else shape)  # (shape []: a 0-D tensor, as in Paddle 2.6)
        return L.gaussian_random(shape, mean=float(mean), std=float(std), zero_dim=True)
    like = mean if isinstance(mean, Variable) else std
    noise = randn(_known(like, "normal"), like.dtype)
    scaled = L.elementwise_mul(noise, std) if isinstance(std, Variable) else L.scale(noise, scale=float(std))
    return L.elementwise_add(scaled, mean) if isinstance(mean, Variable) else L.scale(scaled, bias=float(mean))


def randint(low=0, high=None, shape=[1], dtype=None, name=None):  # noqa: B006 -- Paddle's default
    """Integers uniform in [low, high) (only ``low`` given: [0, low))."""
    return L.randint(low, high, _shape(shape), dtype=_dtype(dtype, "int64"), zero_dim=True)  # shape []: 0-D


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Integers uniform in [low, high) (only ``low`` given: [0, low)) in x's shape, of ``dtype``
    (x's by default; Paddle draws int64 and casts)."""
    if high is None:
        if low <= 0:
            raise ValueError(f"If high is None, low must be greater than 0, but received low = {low}.")
        low, high = 0, low
    if low >= high:
        raise ValueError(f"randint_like's low must less then high, but received low = {low}, high = {high}")
    dtype = x.dtype if dtype is None else convert_dtype(dtype)
    if dtype not in ("bool", "float16", "float32", "float64", "int32", "int64"):
        raise TypeError(f"randint_like: dtype {dtype} must be bool, float16, float32, float64, int32 or int64")
    shape = list(x.shape) if all(d is not None and d >= 0 for d in x.shape) else L.shape(x)
    drawn = L.randint(low, high, _shape(shape), dtype="int64")
    return drawn if dtype == "int64" else L.cast(drawn, dtype)


def randperm(n, dtype="int64", name=None):
    """A random permutation of 0 .. n-1."""
    return L.randperm(n, dtype=dtype)


def bernoulli(x, name=None):
    """1 with probability x[i], else 0, elementwise (x's dtype); x's shape must be known."""
    draws = L.uniform_random(_known(x, "bernoulli"), x.dtype, 0.0, 1.0)
    return L.cast(L.less_than(draws, x), x.dtype)


def poisson(x, name=None):
    """Counts drawn from Poisson distributions with the rates x (float32 or float64), in x's dtype; the
    poisson op, whose gradient is zero (as Paddle's)."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "poisson")
    return _single("poisson", x, {"X": [x]}, {}, name=name)


def multinomial(x, num_samples=1, replacement=False, name=None):
    """int64 [.., num_samples] category indices drawn from each row of weights x (1-D or 2-D,
    nonnegative, of known shape). Each category scores log(w) - log(-log(u)) for a uniform u: with
    ``replacement`` each draw is the best of fresh scores (Gumbel-max), without it the num_samples
    best of one set (Efraimidis-Spirakis), so a category comes once. All finite: weights below the
    dtype's smallest normal count as that value."""
    shape = _known(x, "multinomial")
    if len(shape) not in (1, 2):
        raise PeError(f"paddle.multinomial: x {shape} must be 1-D or 2-D")
    if not replacement and num_samples > shape[-1]:
        raise PeError(
            f"paddle.multinomial: num_samples={num_samples} exceeds the {shape[-1]} categories; "
            f"without replacement each category is drawn at most once"
        )
    info = np.finfo(np.dtype(x.dtype))
    tiny, below_one = float(info.tiny), float(1 - info.epsneg)  # u in [tiny, 1 - eps]: log(-log u) finite
    log_w = L.log(L.elementwise_max(x, L.fill_constant([1], x.dtype, tiny)))
    draws = shape if not replacement else shape[:-1] + [int(num_samples), shape[-1]]
    u = L.uniform_random(draws, x.dtype, tiny, below_one)
    noise = L.log(L.scale(L.log(u), scale=-1.0))
    if not replacement:
        return L.topk(L.elementwise_sub(log_w, noise), k=int(num_samples))[1]
    return argmax(L.elementwise_sub(L.unsqueeze(log_w, [len(shape) - 1]), noise), axis=-1)
