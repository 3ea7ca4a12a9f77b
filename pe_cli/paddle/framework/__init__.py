"""``paddle.framework`` (Paddle 2.x): the mode queries and the names Paddle 2.6's tests take from here.
pe has one program representation and builds static graphs only: ``in_pir_mode()`` and
``in_dynamic_mode()`` are False."""
from ...fluid import core  # noqa: F401
from ...fluid.framework import in_pir_mode  # noqa: F401
from ..device import ParamAttr, get_default_dtype, seed, set_default_dtype  # noqa: F401
from . import random  # noqa: F401

__all__ = ["ParamAttr", "core", "get_default_dtype", "in_dynamic_mode", "in_pir_mode", "seed", "set_default_dtype"]


def in_dynamic_mode():
    """False: pe runs static graphs only."""
    return False
