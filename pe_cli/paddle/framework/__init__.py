"""``paddle.framework`` (Paddle 2.x): the mode queries and the names Paddle 2.6's tests take from here.
pe has one program representation and builds static graphs only: ``in_pir_mode()`` is False;
``in_dynamic_mode()`` says which mode Paddle 2.x would be in (True until ``paddle.enable_static()`` and
after ``paddle.disable_static()``), which pe refuses eager calls in (framework/static_mode.py). ``manual_seed``: Paddle 2.0's early spelling of ``paddle.seed``."""

from ...base.places import CPUPlace, CUDAPinnedPlace, CUDAPlace  # noqa: F401 -- Paddle 2.6's paddle.framework has them
from ...fluid import core  # noqa: F401
from ...fluid.framework import in_pir_mode  # noqa: F401
from ...framework import Program, default_main_program, default_startup_program, static_mode
from ..device import ParamAttr, get_default_dtype, seed, set_default_dtype  # noqa: F401
from . import random  # noqa: F401

__all__ = [
    "ParamAttr",
    "core",
    "get_default_dtype",
    "in_dynamic_mode",
    "in_pir_mode",
    "manual_seed",
    "seed",
    "set_default_dtype",
]


def in_dynamic_mode():
    """Paddle 2.x's mode: True before ``paddle.enable_static()`` (Paddle starts eager) and after
    ``paddle.disable_static()``, False in static mode; pe builds static graphs in either and refuses
    the eager-only calls (static_mode.py)."""
    return not static_mode.entered_static()


def manual_seed(seed):
    """Seeds the random ops of the default programs and of every Program made afterwards (their
    ``random_seed``), as Paddle 2.0's early ``paddle.framework.manual_seed`` in static mode."""
    default_main_program().random_seed = seed
    default_startup_program().random_seed = seed
    Program().global_seed(seed)
