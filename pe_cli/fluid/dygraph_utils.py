"""``paddle.fluid.dygraph_utils``: Fluid's helpers of its dygraph layers (their private functions);
its public names are ``core`` and ``dygraph_only``."""

from . import core  # noqa: F401
from .framework import dygraph_only  # noqa: F401
