"""``paddle.nn.initializer``: 2.x's initializers over pe's (pe_cli/training/initializer.py), each
appending the op that fills a parameter to the startup program. Orthogonal, Dirac and Bilinear are
computed in numpy when the program is built (Orthogonal from a generator seeded by the program's
``random_seed``) and written by one assign_value op: pe has no QR op."""

import math

import numpy as np

from ...base.errors import PeError
from ...training import initializer as _init

__all__ = [
    "Assign",
    "Bilinear",
    "Constant",
    "Dirac",
    "KaimingNormal",
    "KaimingUniform",
    "Normal",
    "Orthogonal",
    "TruncatedNormal",
    "Uniform",
    "XavierNormal",
    "XavierUniform",
    "calculate_gain",
    "set_global_initializer",
]

Initializer = _init.Initializer
set_global_initializer = _init.set_global_initializer
global_initializer = _init.global_initializer


def calculate_gain(nonlinearity, param=None):
    """The recommended gain of a nonlinearity (as Paddle's): relu sqrt(2), tanh 5/3, leaky_relu
    sqrt(2 / (1 + param**2)) (param 0.01 by default), selu 3/4, the linear ones 1."""
    linear = {
        "sigmoid",
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv1d_transpose",
        "conv2d_transpose",
        "conv3d_transpose",
    }
    if nonlinearity in linear:
        return 1.0
    gains = {"tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity not in gains:
        raise ValueError(
            f"calculate_gain: nonlinearity {nonlinearity!r} is not one of "
            f"{sorted(linear | set(gains) | {'leaky_relu'})}"
        )
    return gains[nonlinearity]


class Constant(_init.ConstantInitializer):
    def __init__(self, value=0.0):
        super().__init__(value)


class Normal(_init.NormalInitializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(mean, std)


class TruncatedNormal(_init.TruncatedNormalInitializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(mean, std)


class Uniform(_init.UniformInitializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        super().__init__(low, high)


class XavierNormal(_init.XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, name=None):
        super().__init__(False, fan_in, fan_out)


class XavierUniform(_init.XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, name=None):
        super().__init__(True, fan_in, fan_out)


class _Kaiming(Initializer):
    uniform = True

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity

    def __call__(self, var, block):
        fan_in = self.fan_in or self._fans(var)[0]
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        if self.uniform:
            limit = gain * math.sqrt(3.0 / fan_in)
            return _init.UniformInitializer(-limit, limit)(var, block)
        return _init.NormalInitializer(0.0, gain / math.sqrt(fan_in))(var, block)


class KaimingNormal(_Kaiming):
    """He normal: std gain / sqrt(fan_in)."""

    uniform = False


class KaimingUniform(_Kaiming):
    """He uniform: in ±gain * sqrt(3 / fan_in)."""


class Assign(_init.NumpyArrayInitializer):
    def __init__(self, value, name=None):
        super().__init__(np.asarray(value))


class _Computed(Initializer):
    """An initializer whose values are computed in numpy and written by assign_value."""

    def values(self, shape, block):
        raise NotImplementedError

    def __call__(self, var, block):
        return _init.NumpyArrayInitializer(self.values(list(var.shape), block))(var, block)


class Orthogonal(_Computed):
    """A (semi-)orthogonal matrix over the first dim and the rest flattened, times ``gain``."""

    def __init__(self, gain=1.0, name=None):
        self.gain = float(gain)

    def values(self, shape, block):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the parameter must have at least 2 dims, has shape {shape}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        rng = np.random.RandomState(block.program.random_seed or None)
        flat = rng.normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        q = q.T if rows < cols else q
        return (self.gain * q[:rows, :cols]).reshape(shape)


class Dirac(_Computed):
    """A convolution kernel [C_out, C_in, *k] that passes its input through (per group)."""

    def __init__(self, groups=1, name=None):
        self.groups = int(groups)

    def values(self, shape, block):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: the parameter must be a 3-5 dim conv kernel, has shape {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac: out channels {shape[0]} are not divisible by groups={self.groups}")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per_group, shape[1])):
                out[(g * per_group + i, i) + centre] = 1.0
        return out


class Bilinear(_Computed):
    """The kernel of a conv2d_transpose that upsamples bilinearly (shape [C, 1 or C, K, K])."""

    def values(self, shape, block):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise PeError(f"Bilinear initializer: the parameter must be [C_out, C_in, K, K], has shape {shape}")
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        ramp = 1 - np.abs(np.arange(size) / f - c)
        return np.broadcast_to(np.outer(ramp, ramp), shape).copy()
