"""Fluid 1.8's ``contrib.mixed_precision``: ``decorate`` and ``AutoMixedPrecisionLists``."""

from .decorator import OptimizerWithMixedPrecision, decorate  # noqa: F401
from .fp16_lists import AutoMixedPrecisionLists  # noqa: F401

__all__ = ["decorate", "AutoMixedPrecisionLists"]
