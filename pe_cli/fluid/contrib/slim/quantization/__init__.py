"""Fluid 1.8's ``contrib.slim.quantization``: the Compressor's QuantizationStrategy."""
from . import quantization_strategy  # noqa: F401
from .quantization_strategy import *  # noqa: F401,F403

__all__ = quantization_strategy.__all__
