"""Fluid 1.8's ``contrib.slim.core.compressor``: the ``Compressor`` of PaddleSlim's first version
resolves and refuses in pe."""
from .....base.errors import unsupported

__all__ = ["Compressor"]

Compressor = unsupported(
    "fluid.contrib.Compressor", "PaddleSlim's compression framework (pruning, distillation, quantization and "
    "NAS strategies from a YAML config) is not in pe")
