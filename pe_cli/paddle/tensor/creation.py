"""``paddle.tensor.creation`` (Paddle's python/paddle/tensor/creation.py): the same objects as
``paddle.zeros_like``, ``paddle.full``, ... (pe_cli/paddle/tensor_create.py; the random functions too, as
before they moved to tensor_random.py)."""

from . import _module_fallback
from ..tensor_create import *  # noqa: F401,F403
from ..tensor_random import *  # noqa: F401,F403


def __getattr__(name):
    return _module_fallback.module_attribute(__name__, name)
