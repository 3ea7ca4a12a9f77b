"""Fluid 1.8's ``layers.collective``: its public names are the helpers it imports (its collective ops
are private functions the transpilers call; pe's collectives are in the executors)."""

from __future__ import print_function  # noqa: F401 -- one of Fluid's names of this module

from ..framework import unique_name  # noqa: F401
from ..framework.variable import Variable  # noqa: F401
from .helper import LayerHelper  # noqa: F401

__all__ = []
