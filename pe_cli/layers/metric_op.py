"""Fluid 1.8's ``layers.metric_op``: accuracy and auc."""

from .fluid_module import resolver

__all__ = ["accuracy", "auc"]
__getattr__ = resolver(__name__, __all__)
