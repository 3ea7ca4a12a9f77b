"""``paddle.tensor.math`` (Paddle's python/paddle/tensor/math.py): the math and reduction functions,
the same objects as ``paddle.add``, ``paddle.count_nonzero``, ... (pe_cli/paddle/tensor_math.py,
tensor_elementwise.py, tensor_reduce.py)."""
from ..tensor_math import *  # noqa: F401,F403
from ..tensor_elementwise import *  # noqa: F401,F403
from ..tensor_reduce import *  # noqa: F401,F403
from ..tensor_number import *  # noqa: F401,F403
from ..tensor_select import combinations, take, vander  # noqa: F401
