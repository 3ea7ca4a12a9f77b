"""Fluid 1.8's ``contrib.slim``."""
from . import core  # noqa: F401
from .core import Compressor  # noqa: F401

__all__ = ["Compressor"]
