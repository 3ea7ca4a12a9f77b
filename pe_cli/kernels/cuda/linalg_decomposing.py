"""CUDA kernels of pe_cli/ops/linalg_decomposing.py: their CPU twins on the host (kernels/cuda/_host.py: numpy's
LAPACK; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
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
)
