"""``paddle.framework.random``: Paddle 2.6's tests seed a static program with ``_manual_program_seed``."""
from ...framework import default_main_program, default_startup_program

__all__ = []


def _manual_program_seed(seed):
    """Sets the default main and startup programs' ``random_seed`` (Paddle also seeds its global
    generator; pe's random ops draw from their program's seed)."""
    default_main_program().random_seed = int(seed)
    default_startup_program().random_seed = int(seed)
