"""``paddle.tensor.random`` (Paddle's python/paddle/tensor/random.py): the random tensor functions,
the same objects as ``paddle.rand``, ``paddle.normal``, ... (pe_cli/paddle/tensor_random.py)."""

from . import _module_fallback
from ..tensor_random import bernoulli, gaussian, multinomial, normal, rand, randint, randn, randperm  # noqa: F401
from ..tensor_random import standard_normal, uniform  # noqa: F401


def __getattr__(name):
    return _module_fallback.module_attribute(__name__, name)
