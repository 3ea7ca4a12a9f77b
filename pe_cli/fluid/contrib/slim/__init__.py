"""Fluid 1.8's ``contrib.slim``: the Compressor and its pruning, quantization and distillation
strategies (``core``, ``prune``, ``quantization``, ``distillation``), ``graph``, ``searcher`` and ``nas``."""

from . import core, distillation, graph, nas, prune, quantization, searcher  # noqa: F401
from .core import Compressor  # noqa: F401

__all__ = ["Compressor"]
