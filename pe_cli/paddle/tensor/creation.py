"""``paddle.tensor.creation`` (Paddle's python/paddle/tensor/creation.py): the same objects as
``paddle.zeros_like``, ``paddle.full``, ... (pe_cli/paddle/tensor_create.py; the random functions too, as
before they moved to tensor_random.py)."""

from ..tensor_create import *  # noqa: F401,F403
from ..tensor_random import *  # noqa: F401,F403


def __getattr__(name):
    """A function of Paddle 2.6's tensor/creation.py this module does not name (an in-place form, ``add_``): paddle.tensor's
    (or paddle's: ``create_parameter``)."""
    import importlib

    for package in ("pe_cli.paddle.tensor", "pe_cli.paddle"):
        found = getattr(importlib.import_module(package), name, None)
        if found is not None:
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
