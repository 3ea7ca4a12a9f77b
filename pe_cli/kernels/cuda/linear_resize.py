"""CUDA kernels of pe_cli/ops/linear_resize.py: their CPU twins on the host (kernels/cuda/_host.py; correct on
a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("linear_interp_v2", "linear_interp_v2_grad", "linear_interp", "linear_interp_grad")
