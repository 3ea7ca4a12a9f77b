"""Fluid 1.8's ``contrib.slim.distillation``."""
__all__ = []
