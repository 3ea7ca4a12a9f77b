"""``paddle.fluid.transpiler.memory_optimization_transpiler``: ``memory_optimize`` and
``release_memory`` (deprecated in Fluid 1.8; in pe they turn on the memory_optimize graph pass)."""

import logging  # noqa: F401 -- Fluid's module has it

from .distribute_transpiler import memory_optimize, release_memory  # noqa: F401
