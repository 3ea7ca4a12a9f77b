"""CUDA kernels of pe_cli/ops/masked_softmax.py: their CPU twins on the host (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("fused_softmax_mask", "masked_softmax_grad")
