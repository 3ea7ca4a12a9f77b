"""fold's CUDA kernels: the CPU's on the host (kernels/cuda/_host.py; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("fold", "fold_grad")
