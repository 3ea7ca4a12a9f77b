"""``paddle.tensor.stat`` (Paddle's python/paddle/tensor/stat.py): the statistics, the same objects as
``paddle.mean``, ``paddle.std``, ... (pe_cli/paddle/tensor_math.py)."""

from . import _module_fallback
from ..tensor_create import median
from ..tensor_manip import numel
from ..tensor_math import mean, std, var  # noqa: F401
from ..tensor_quantile import nanquantile, quantile  # noqa: F401


def __getattr__(name):
    return _module_fallback.module_attribute(__name__, name)
