"""CUDA kernels of pe_cli/ops/masked_softmax.py: their CPU twins on the host (kernels/cuda/_host.py)."""

from ..cpu import masked_softmax as _cpu
from ._host import on_host

fused_softmax_mask = on_host(_cpu.fused_softmax_mask)
masked_softmax_grad = on_host(_cpu.masked_softmax_grad)
