"""CUDA twin of kernels/cpu/rank_attention.py: the gathers by rank are host work here
(kernels/cuda/_host.py); Fluid's CUDA kernels expand the same blocks and multiply them."""

from ._host import host_ops

HOST_OPS = host_ops("rank_attention", "rank_attention_grad")
