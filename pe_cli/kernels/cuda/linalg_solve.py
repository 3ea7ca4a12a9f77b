"""CUDA kernels of pe_cli/ops/linalg_solve.py: their CPU twins on the host (kernels/cuda/_host.py: numpy's
LAPACK; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "mv",
    "mv_grad",
    "determinant",
    "determinant_grad",
    "slogdeterminant",
    "slogdeterminant_grad",
    "solve",
    "solve_grad",
    "triangular_solve",
    "triangular_solve_grad",
    "cholesky_solve",
    "cholesky_solve_grad",
    "multi_dot",
    "multi_dot_grad",
    "matrix_power",
    "matrix_power_grad",
)
