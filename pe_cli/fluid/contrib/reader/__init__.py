"""Fluid 1.8's ``contrib.reader``."""

from .distributed_reader import distributed_batch_reader  # noqa: F401

__all__ = ["distributed_batch_reader"]
