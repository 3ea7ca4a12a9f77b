"""Initializers append the op that fills a parameter to the startup program."""
import abc
import math

import numpy as np

from ..base.errors import PeError
from ..ops.creation import values_attr


def _seed(seed, block):
    """A random initializer's seed: its own, else its program's ``random_seed`` (as Fluid records it)."""
    return seed or block.program.random_seed or 0


class Initializer(abc.ABC):
    @abc.abstractmethod
    def __call__(self, var, block):
        """Appends the op that fills ``var`` to ``block`` and returns it."""

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
        return block.append_op("fill_constant", {}, {"Out": [var.name]},
                               {"shape": list(var.shape), "dtype": var.dtype, "value": float(self.value)})


class UniformInitializer(Initializer):
    def __init__(self, low=-1.0, high=1.0, seed=0):
        self.low, self.high, self.seed = low, high, seed

    def __call__(self, var, block):
        return block.append_op("uniform_random", {}, {"Out": [var.name]},
                               {"shape": list(var.shape), "dtype": var.dtype, "min": float(self.low),
                                "max": float(self.high), "seed": _seed(self.seed, block)})


class NormalInitializer(Initializer):
    def __init__(self, loc=0.0, scale=1.0, seed=0):
        self.loc, self.scale, self.seed = loc, scale, seed

    def __call__(self, var, block):
        return block.append_op("gaussian_random", {}, {"Out": [var.name]},
                               {"shape": list(var.shape), "dtype": var.dtype, "mean": float(self.loc),
                                "std": float(self.scale), "seed": _seed(self.seed, block)})


class TruncatedNormalInitializer(NormalInitializer):
    def __call__(self, var, block):
        return block.append_op("truncated_gaussian_random", {}, {"Out": [var.name]},
                               {"shape": list(var.shape), "dtype": var.dtype, "mean": float(self.loc),
                                "std": float(self.scale), "seed": _seed(self.seed, block)})


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
        if tuple(self.value.shape) != tuple(var.shape):
            raise PeError(f"NumpyArrayInitializer for '{var.name}': value has shape "
                          f"{list(self.value.shape)}, the parameter {list(var.shape)}")
        return block.append_op("assign_value", {}, {"Out": [var.name]},
                               {"shape": list(var.shape), "dtype": var.dtype,
                                values_attr(var.dtype): self.value.astype(var.dtype).reshape(-1).tolist()})


Constant = ConstantInitializer
Uniform = UniformInitializer
Normal = NormalInitializer
TruncatedNormal = TruncatedNormalInitializer
Xavier = XavierInitializer
MSRA = MSRAInitializer
Kaiming = MSRAInitializer
NumpyArray = NumpyArrayInitializer
