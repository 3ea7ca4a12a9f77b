"""Fluid 1.8's ``contrib.slim.core``."""
from .compressor import Compressor  # noqa: F401

__all__ = ["Compressor"]
