"""``paddle.tensor``: Paddle 2.x's package of the tensor functions, the same objects as the top-level
``paddle.add``, ``paddle.tril``, ... (pe_cli/paddle/tensor_*.py), for scripts that write
``from paddle import tensor`` or ``paddle.tensor.tril``."""

from ..tensor_create import *  # noqa: F401,F403
from ..tensor_random import *  # noqa: F401,F403
from ..tensor_manip import *  # noqa: F401,F403
from ..tensor_math import *  # noqa: F401,F403
from ..tensor_linalg import *  # noqa: F401,F403
from ..tensor_elementwise import *  # noqa: F401,F403
from ..tensor_reduce import *  # noqa: F401,F403
from ..tensor_arrange import *  # noqa: F401,F403
from ..tensor_inplace import *  # noqa: F401,F403
from ..tensor_bitwise import *  # noqa: F401,F403
from ..tensor_number import *  # noqa: F401,F403
from ..tensor_select import *  # noqa: F401,F403
from ..tensor_array import *  # noqa: F401,F403
from ..tensor_quantile import *  # noqa: F401,F403
from ..tensor_special import *  # noqa: F401,F403
from ..tensor_complex import *  # noqa: F401,F403
from ..tensor_indexing_axis import *  # noqa: F401,F403
from ..tensor_statistics import *  # noqa: F401,F403
from ..tensor_cumulative import *  # noqa: F401,F403
from ..linalg_ops import cholesky_solve, eig, eigh, eigvals, eigvalsh, lu, lu_unpack, qr, solve  # noqa: F401,E402
from . import creation, linalg, math, random, stat, to_string  # noqa: F401,E402 -- Paddle's submodule names
from .linalg import cond, corrcoef, cov, householder_product, lstsq, matrix_power, multi_dot, pca_lowrank  # noqa: F401,E402
from .linalg import pinv, svd  # noqa: F401,E402
from ..nn.functional.activation import sigmoid  # noqa: F401,E402 -- Paddle 2.6's tensor/ops.py's
from ..device import create_parameter  # noqa: F401,E402

# Paddle 2.6's modules of paddle.tensor that pe keeps under other names (``pe fluid`` imports them by their
# Paddle paths: fluid/paddle2_modules.py), as attributes too, as Paddle's package has them
# (``paddle.tensor.linalg.triangular_solve``): the pe module, or this package where it holds their functions
_ELSEWHERE = {"array": "tensor_array"}
_KEPT_HERE = ("attribute", "einsum", "logic", "manipulation", "ops", "search", "tensor", "layer_function_generator")


def __getattr__(name):
    import importlib
    import sys

    if name in _ELSEWHERE:
        return importlib.import_module(f"pe_cli.paddle.{_ELSEWHERE[name]}")
    if name in _KEPT_HERE:
        return sys.modules[__name__]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
