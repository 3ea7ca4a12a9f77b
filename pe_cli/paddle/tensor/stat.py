"""``paddle.tensor.stat`` (Paddle's python/paddle/tensor/stat.py): the statistics, the same objects as
``paddle.mean``, ``paddle.std``, ... (pe_cli/paddle/tensor_math.py)."""

from ..tensor_create import median
from ..tensor_manip import numel
from ..tensor_math import mean, std, var  # noqa: F401
from ..tensor_quantile import nanquantile, quantile  # noqa: F401


def __getattr__(name):
    """A function of Paddle 2.6's tensor/stat.py this module does not name (an in-place form, ``add_``): paddle.tensor's
    (or paddle's: ``create_parameter``)."""
    import importlib

    for package in ("pe_cli.paddle.tensor", "pe_cli.paddle"):
        found = getattr(importlib.import_module(package), name, None)
        if found is not None:
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
