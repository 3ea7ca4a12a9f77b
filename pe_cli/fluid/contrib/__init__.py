"""Fluid 1.8's ``paddle.fluid.contrib``: the names its ``__all__`` gathers from its submodules."""
from . import layers  # noqa: F401
from .layers import *  # noqa: F401,F403
