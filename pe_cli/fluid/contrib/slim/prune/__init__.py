"""Fluid 1.8's ``contrib.slim.prune``."""

from . import auto_prune_strategy, prune_strategy, pruner  # noqa: F401
from .auto_prune_strategy import *  # noqa: F401,F403
from .prune_strategy import *  # noqa: F401,F403
from .pruner import *  # noqa: F401,F403

__all__ = prune_strategy.__all__ + pruner.__all__ + auto_prune_strategy.__all__
