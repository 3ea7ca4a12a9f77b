"""Fluid 1.8's ``layers.metric_op``: accuracy and auc."""

from .metric import accuracy, auc

__all__ = ["accuracy", "auc"]
