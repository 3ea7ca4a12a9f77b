"""CUDA kernels of pe_cli/ops/diagonals.py: their CPU twins on the host (kernels/cuda/_host.py; index
bookkeeping; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("diag_v2", "diag_v2_grad", "diagonal", "diagonal_grad", "fill_diagonal", "fill_diagonal_grad")
