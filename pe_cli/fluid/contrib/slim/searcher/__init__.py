"""``paddle.fluid.contrib.slim.searcher``: the controllers of slim's architecture search (controller.py)."""

from . import controller  # noqa: F401
from .controller import *  # noqa: F401,F403

__all__ = controller.__all__
