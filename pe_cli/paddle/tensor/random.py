"""``paddle.tensor.random`` (Paddle's python/paddle/tensor/random.py): the random tensor functions,
the same objects as ``paddle.rand``, ``paddle.normal``, ... (pe_cli/paddle/tensor_random.py)."""

from ..tensor_random import bernoulli, gaussian, multinomial, normal, rand, randint, randn, randperm  # noqa: F401
from ..tensor_random import standard_normal, uniform  # noqa: F401


def __getattr__(name):
    """A function of Paddle 2.6's tensor/random.py this module does not name (an in-place form, ``add_``): paddle.tensor's
    (or paddle's: ``create_parameter``)."""
    import importlib

    for package in ("pe_cli.paddle.tensor", "pe_cli.paddle"):
        found = getattr(importlib.import_module(package), name, None)
        if found is not None:
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
