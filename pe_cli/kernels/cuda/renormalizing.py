"""CUDA kernels of renorm: their CPU twins on the host (kernels/cuda/_host.py; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("renorm", "renorm_grad")
