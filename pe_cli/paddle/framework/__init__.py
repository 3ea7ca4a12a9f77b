"""``paddle.framework`` (Paddle 2.x): the mode queries and the names Paddle 2.6's tests take from here.
pe has one program representation and builds static graphs only: ``in_pir_mode()`` and
``in_dynamic_mode()`` are False. ``manual_seed``: Paddle 2.0's early spelling of ``paddle.seed``."""
from ...fluid import core  # noqa: F401
from ...fluid.framework import in_pir_mode  # noqa: F401
from ...framework import Program, default_main_program, default_startup_program
from ..device import ParamAttr, get_default_dtype, seed, set_default_dtype  # noqa: F401
from . import random  # noqa: F401

__all__ = ["ParamAttr", "core", "get_default_dtype", "in_dynamic_mode", "in_pir_mode", "manual_seed", "seed",
           "set_default_dtype"]


def in_dynamic_mode():
    """False: pe runs static graphs only."""
    return False


def manual_seed(seed):
    """Seeds the random ops of the default programs and of every Program made afterwards (their
    ``random_seed``), as Paddle 2.0's early ``paddle.framework.manual_seed`` in static mode."""
    default_main_program().random_seed = seed
    default_startup_program().random_seed = seed
    Program().global_seed(seed)
