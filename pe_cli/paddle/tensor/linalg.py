"""``paddle.tensor.linalg`` (Paddle's python/paddle/tensor/linalg.py): its functions, the same objects as
``paddle.matmul``, ``paddle.linalg.svd``, ... (pe_cli/paddle/tensor_products.py, linalg.py, linalg_ops.py, ...),
for code that reaches them by this path (``paddle.tensor.linalg.triangular_solve``)."""

from ..tensor_linalg import *  # noqa: F401,F403
from ..linalg import cond, corrcoef, cov, householder_product, lstsq, matrix_power, matrix_rank  # noqa: F401
from ..linalg import multi_dot, pca_lowrank, pinv, svd  # noqa: F401
from ..linalg_ops import cholesky_solve, det, eig, eigh, eigvals, eigvalsh, lu, lu_unpack, qr, slogdet  # noqa: F401
from ..linalg_ops import solve, triangular_solve  # noqa: F401
from ..tensor_inplace import t_, transpose_  # noqa: F401
from ..tensor_manip import transpose  # noqa: F401
from ..tensor_math import dist  # noqa: F401
from ..tensor_norm import norm  # noqa: F401
from ..tensor_products import bmm, cross, dot, matmul, mv, t  # noqa: F401
from ..tensor_statistics import bincount  # noqa: F401
