"""``paddle.fluid.initializer``: pe's initializers under Fluid's names."""

from ..training.initializer import *  # noqa: F401,F403
from ..training.initializer import (
    MSRA,
    Bilinear,
    BilinearInitializer,
    Constant,
    ConstantInitializer,
    Initializer,
    Kaiming,
    MSRAInitializer,  # noqa: F401
    Normal,
    NormalInitializer,
    NumpyArray,
    NumpyArrayInitializer,
    TruncatedNormal,
    TruncatedNormalInitializer,
    Uniform,
    UniformInitializer,
    Xavier,
    XavierInitializer,
)


def force_init_on_cpu():
    """False: pe initializes each parameter on the place its program runs on."""
    return False


class init_on_cpu:
    """A no-op context manager, kept so Fluid scripts run unchanged."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


__all__ = [
    "Constant",
    "Uniform",
    "Normal",
    "TruncatedNormal",
    "Xavier",
    "Bilinear",
    "MSRA",
    "ConstantInitializer",
    "UniformInitializer",
    "NormalInitializer",
    "TruncatedNormalInitializer",
    "XavierInitializer",
    "BilinearInitializer",
    "MSRAInitializer",
    "NumpyArrayInitializer",
    "force_init_on_cpu",
    "init_on_cpu",
]
