"""Fluid 1.8's ``paddle.fluid.contrib``: the names its ``__all__`` gathers from its submodules."""

from . import (
    decoder,
    extend_optimizer,
    layers,
    memory_usage_calc,
    mixed_precision,
    op_frequence,  # noqa: F401
    quantize,
    reader,
    slim,
    utils,
)
from .decoder import *  # noqa: F401,F403
from .extend_optimizer import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .memory_usage_calc import *  # noqa: F401,F403
from .op_frequence import *  # noqa: F401,F403
from .quantize import *  # noqa: F401,F403
from .reader import *  # noqa: F401,F403
from .slim import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403

__all__ = (
    decoder.__all__
    + memory_usage_calc.__all__
    + op_frequence.__all__
    + quantize.__all__
    + reader.__all__
    + slim.__all__
    + utils.__all__
    + extend_optimizer.__all__
    + layers.__all__
)
