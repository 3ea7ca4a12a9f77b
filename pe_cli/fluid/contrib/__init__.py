"""Fluid 1.8's ``paddle.fluid.contrib``: the names its ``__all__`` gathers from its submodules."""
from . import extend_optimizer, layers, memory_usage_calc, mixed_precision, op_frequence  # noqa: F401
from .extend_optimizer import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .memory_usage_calc import *  # noqa: F401,F403
from .op_frequence import *  # noqa: F401,F403
