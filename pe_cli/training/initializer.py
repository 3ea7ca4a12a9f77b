"""Initializers put the op that fills a parameter first in the startup program, as Fluid's do."""

import abc
import math

import numpy as np

from ..framework import unique_name
from ..ops.creation import values_attr


def _seed(seed, block):
    """A random initializer's seed: its own, else its program's ``random_seed`` (as Fluid records it)."""
    return seed or block.program.random_seed or 0


def _fill(block, var, op_type, attrs):
    """Puts the op ``op_type`` filling ``var`` first in ``block`` (Fluid's ``_prepend_op``: a startup
    program initializes before any op it holds reads) and returns it; in a program that follows
    Paddle 2.6, last (2.6's initializers append: its parameters draw from the default generator in
    the order they are made). It draws pe's random values as the op at the block's end would
    (``seed_position``), as pe's initializers did when they appended. A float16 ``var`` is filled as
    Fluid fills it: the op writes a float32 temporary, and a ``cast`` op appended to the block
    writes ``var`` from it."""
    position = len(block.ops)
    put = block.append_op if getattr(block.program, "_follows_paddle2", False) else block._prepend_op
    if var.dtype != "float16":
        op = put(op_type, {}, {"Out": [var.name]}, {**attrs, "dtype": var.dtype})
    else:
        tmp = block.create_var(
            name=unique_name.generate(f"{op_type}_init.{var.name}.tmp"),
            shape=var.shape,
            dtype="float32",
            persistable=False,
        )
        op = put(op_type, {}, {"Out": [tmp.name]}, {**attrs, "dtype": "float32"})
        block.append_op("cast", {"X": [tmp.name]}, {"Out": [var.name]}, {"in_dtype": "float32", "out_dtype": "float16"})
    op.seed_position = position
    return op


class Initializer(abc.ABC):
    @abc.abstractmethod
    def __call__(self, var, block):
        """Puts the op that fills ``var`` in ``block`` (first, as Fluid) and returns it."""

    @staticmethod
    def _fans(var):
        shape = var.shape
        if len(shape) == 0:
            return 1, 1
        if len(shape) == 1:
            return shape[0], shape[0]
        if len(shape) == 2:
            return shape[0], shape[1]
        receptive = int(np.prod(shape[2:]))
        return shape[1] * receptive, shape[0] * receptive


class ConstantInitializer(Initializer):
    def __init__(self, value=0.0, force_cpu=False):
        self.value = value

    def __call__(self, var, block):
        return _fill(block, var, "fill_constant", {"shape": list(var.shape), "value": float(self.value)})


class UniformInitializer(Initializer):
    """U[low, high); with ``diag_num`` > 0, the flat positions i * (diag_step + 1), i < diag_num,
    are set to ``diag_val`` afterwards (Fluid's diagonal initialization)."""

    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        assert low is not None and high is not None and seed is not None
        assert diag_num is not None and diag_step is not None and diag_val is not None
        if diag_num > 0 or diag_step > 0:
            assert diag_num > 0 and diag_step > 0
        self.low, self.high, self.seed = low, high, seed
        self.diag_num, self.diag_step, self.diag_val = int(diag_num), int(diag_step), float(diag_val)

    def __call__(self, var, block):
        return _fill(
            block,
            var,
            "uniform_random",
            {
                "shape": list(var.shape),
                "min": float(self.low),
                "max": float(self.high),
                "seed": _seed(self.seed, block),
                "diag_num": self.diag_num,
                "diag_step": self.diag_step,
                "diag_val": self.diag_val,
            },
        )


class NormalInitializer(Initializer):
    def __init__(self, loc=0.0, scale=1.0, seed=0):
        self.loc, self.scale, self.seed = loc, scale, seed

    def __call__(self, var, block):
        return _fill(
            block,
            var,
            "gaussian_random",
            {
                "shape": list(var.shape),
                "mean": float(self.loc),
                "std": float(self.scale),
                "seed": _seed(self.seed, block),
            },
        )


class TruncatedNormalInitializer(NormalInitializer):
    def __call__(self, var, block):
        return _fill(
            block,
            var,
            "truncated_gaussian_random",
            {
                "shape": list(var.shape),
                "mean": float(self.loc),
                "std": float(self.scale),
                "seed": _seed(self.seed, block),
            },
        )


class XavierInitializer(Initializer):
    """Glorot: uniform in ±sqrt(6 / (fan_in + fan_out)), or normal with std sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0):
        self.uniform, self.fan_in, self.fan_out, self.seed = uniform, fan_in, fan_out, seed

    def __call__(self, var, block):
        fan_in, fan_out = self._fans(var)
        fan_in = self.fan_in or fan_in
        fan_out = self.fan_out or fan_out
        if self.uniform:
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            return UniformInitializer(-limit, limit, self.seed)(var, block)
        return NormalInitializer(0.0, math.sqrt(2.0 / (fan_in + fan_out)), self.seed)(var, block)


class MSRAInitializer(Initializer):
    """He: uniform in ±sqrt(6 / fan_in), or normal with std sqrt(2 / fan_in)."""

    def __init__(self, uniform=True, fan_in=None, seed=0):
        self.uniform, self.fan_in, self.seed = uniform, fan_in, seed

    def __call__(self, var, block):
        fan_in = self.fan_in or self._fans(var)[0]
        if self.uniform:
            limit = math.sqrt(6.0 / fan_in)
            return UniformInitializer(-limit, limit, self.seed)(var, block)
        return NormalInitializer(0.0, math.sqrt(2.0 / fan_in), self.seed)(var, block)


class NumpyArrayInitializer(Initializer):
    def __init__(self, value):
        self.value = np.asarray(value)

    def __call__(self, var, block):
        """A value of another shape with as many elements fills the parameter in row-major order (as
        Fluid's assign_value writes it: tdm_sampler's [n, 1] layer table from a flat list). A value of
        another size is the parameter's value as it is, in its own shape, as Fluid's (its assign_value
        writes the value's shape; Paddle 1.8's test_run_program_op.py gives fc a [32, 10] bias for [10])."""
        same_size = self.value.size == int(np.prod(var.shape))
        dtype = "float32" if var.dtype == "float16" else var.dtype
        return _fill(
            block,
            var,
            "assign_value",
            {
                "shape": list(var.shape if same_size else self.value.shape),
                values_attr(dtype): self.value.astype(dtype).reshape(-1).tolist(),
            },
        )


class BilinearInitializer(Initializer):
    """The bilinear-interpolation kernel for a conv2d_transpose that upsamples: a 4-D [C_out, C_in,
    K, K] filter whose every K x K slice holds (1 - |x/f - c|)(1 - |y/f - c|), f = ceil(K/2),
    c = (2f - 1 - f mod 2) / 2f. Row y is the integer (i // K) mod K, as Fluid meant and computed on
    Python 2 (Fluid 1.8 on Python 3 divides with ``/`` and gets fractional rows: docs/COMPAT.md)."""

    def __call__(self, var, block):
        shape = list(var.shape or ())
        if len(shape) != 4:
            raise ValueError("the length of shape must be 4.")
        if shape[2] != shape[3]:
            raise ValueError("shape[2] must be equal to shape[3].")
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        axis = 1 - np.abs(np.arange(size) / f - c)
        weight = np.broadcast_to(np.outer(axis, axis), shape).astype(np.float32)
        return NumpyArrayInitializer(weight)(var, block)


Constant = ConstantInitializer
Uniform = UniformInitializer
Normal = NormalInitializer
TruncatedNormal = TruncatedNormalInitializer
Xavier = XavierInitializer
MSRA = MSRAInitializer
Bilinear = BilinearInitializer
Kaiming = MSRAInitializer
NumpyArray = NumpyArrayInitializer


_GLOBAL = {"weight": None, "bias": None}  # paddle.nn.initializer.set_global_initializer's


def set_global_initializer(weight_init, bias_init=None):
    """The initializers of every parameter made after this whose ParamAttr names none (None: unset)."""
    for value in (weight_init, bias_init):
        if value is not None and not isinstance(value, Initializer):
            raise TypeError(f"set_global_initializer: expected an Initializer or None, got {type(value).__name__}")
    _GLOBAL["weight"], _GLOBAL["bias"] = weight_init, bias_init


def global_initializer(is_bias):
    return _GLOBAL["bias" if is_bias else "weight"]
