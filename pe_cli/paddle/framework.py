"""``paddle.framework`` (Paddle 2.0's early layout): ``manual_seed`` and ``seed``."""
from ..framework import Program, default_main_program, default_startup_program
from .device import seed  # noqa: F401

__all__ = ["manual_seed", "seed"]


def manual_seed(seed):
    """Seeds the random ops of the default programs and of every Program made afterwards (their
    ``random_seed``), as Paddle 2.0's early ``paddle.framework.manual_seed`` in static mode."""
    default_main_program().random_seed = seed
    default_startup_program().random_seed = seed
    Program().global_seed(seed)
