"""CUDA kernels of pe_cli/ops/linalg_solve.py: their CPU twins on the host (kernels/cuda/_host.py: numpy's
LAPACK; correct on a GPU place, not fast)."""

from ..cpu import linalg_solve as _cpu
from ._host import on_host

for _name in (
    "mv",
    "determinant",
    "slogdeterminant",
    "solve",
    "triangular_solve",
    "cholesky_solve",
    "multi_dot",
    "matrix_power",
):
    globals()[_name] = on_host(getattr(_cpu, _name))
    globals()[f"{_name}_grad"] = on_host(getattr(_cpu, f"{_name}_grad"))
