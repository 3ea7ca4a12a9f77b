"""Fluid 1.8's ``contrib.slim.quantization``."""
__all__ = []
