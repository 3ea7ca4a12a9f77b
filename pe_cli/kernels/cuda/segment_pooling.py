"""CUDA kernels of segment_pool: their CPU twins on the host (kernels/cuda/_host.py; the output's rows are the
data's; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("segment_pool", "segment_pool_grad")
