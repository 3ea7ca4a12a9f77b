"""Fluid 1.8's ``contrib.slim``: the Compressor and its pruning, quantization and distillation
strategies (``core``, ``prune``, ``quantization``, ``distillation``)."""
from . import core, distillation, prune, quantization  # noqa: F401
from .core import Compressor  # noqa: F401

__all__ = ["Compressor"]
