"""CUDA kernels of pe_cli/ops/linalg_decomposing.py: their CPU twins on the host (kernels/cuda/_host.py: numpy's
LAPACK; correct on a GPU place, not fast)."""

from ..cpu import linalg_decomposing as _cpu
from ._host import on_host

for _name in (
    "matrix_rank",
    "eigh",
    "eigvalsh",
    "eigh_grad",
    "eigvalsh_grad",
    "qr",
    "qr_grad",
    "lu",
    "lu_unpack",
    "eig",
    "eigvals",
):
    globals()[_name] = on_host(getattr(_cpu, _name))
