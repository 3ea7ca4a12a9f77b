"""Fluid 1.8's ``contrib.slim.prune``."""
from . import prune_strategy, pruner  # noqa: F401
from .prune_strategy import *  # noqa: F401,F403
from .pruner import *  # noqa: F401,F403

__all__ = prune_strategy.__all__ + pruner.__all__
