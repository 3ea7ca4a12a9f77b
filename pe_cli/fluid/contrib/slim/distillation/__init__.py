"""Fluid 1.8's ``contrib.slim.distillation``: DistillationStrategy and its distillers."""

from . import distillation_strategy, distiller  # noqa: F401
from .distillation_strategy import *  # noqa: F401,F403
from .distiller import *  # noqa: F401,F403

__all__ = distillation_strategy.__all__ + distiller.__all__
