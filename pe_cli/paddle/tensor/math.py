"""``paddle.tensor.math`` (Paddle's python/paddle/tensor/math.py): the math and reduction functions,
the same objects as ``paddle.add``, ``paddle.count_nonzero``, ... (pe_cli/paddle/tensor_math.py,
tensor_elementwise.py, tensor_reduce.py)."""

from . import _module_fallback
from ..tensor_math import *  # noqa: F401,F403
from ..tensor_elementwise import *  # noqa: F401,F403
from ..tensor_reduce import *  # noqa: F401,F403
from ..tensor_number import *  # noqa: F401,F403
from ..tensor_special import *  # noqa: F401,F403
from ..tensor_complex import *  # noqa: F401,F403
from ..tensor_indexing_axis import *  # noqa: F401,F403
from ..tensor_statistics import *  # noqa: F401,F403
from ..tensor_cumulative import *  # noqa: F401,F403
from ..tensor_select import combinations, take, vander  # noqa: F401
from ...layers.helper import single as _single


def _with_axis(op_type):
    def binary(x, y, axis=-1, name=None):
        """Paddle's private elementwise op with Fluid's ``axis`` (Y broadcast into X from that dim)."""
        return _single(op_type, x, {"X": [x], "Y": [y]}, {"axis": int(axis)}, name=name)

    binary.__name__ = f"_{op_type}_with_axis"
    return binary


_add_with_axis = _with_axis("elementwise_add")
_subtract_with_axis = _with_axis("elementwise_sub")
_multiply_with_axis = _with_axis("elementwise_mul")
_divide_with_axis = _with_axis("elementwise_div")


def __getattr__(name):
    return _module_fallback.module_attribute(__name__, name)
