"""Fluid 1.8's ``contrib.quantize``."""

from .quantize_transpiler import QuantizeTranspiler  # noqa: F401

__all__ = ["QuantizeTranspiler"]
